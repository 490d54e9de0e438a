package stage

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/contrack/contrack/platform/metrics"
)

// qualityMetrics count what the carriers' payloads needed: deviations
// repaired, by carrier and kind, and elements refused (dead-lettered one
// by one), by carrier. SCAC and kind are small fixed sets; no account.
type qualityMetrics struct {
	repairs *prometheus.CounterVec
	refused *prometheus.CounterVec
}

func newQualityMetrics(reg prometheus.Registerer) (*qualityMetrics, error) {
	m := &qualityMetrics{
		repairs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contrack_normalize_repairs_total",
			Help: "Carriers' deviations from their standard that the parsers repaired or left out (docs/normalize.md), by carrier SCAC and kind.",
		}, []string{"scac", "kind"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contrack_normalize_refused_elements_total",
			Help: "Elements of carrier payloads the parsers could not read, each dead-lettered with its index and reason while the rest of its payload went on, by carrier SCAC.",
		}, []string{"scac"}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	if m.repairs, err = metrics.Register(reg, m.repairs); err != nil {
		return nil, err
	}
	if m.refused, err = metrics.Register(reg, m.refused); err != nil {
		return nil, err
	}
	return m, nil
}

// Kinds of normalize_repairs rows besides the repair kinds: the events read
// and the elements refused (dead-lettered one by one).
const (
	kindEventsRead = "events_read"
	kindRefused    = "refused"
)

// repairCount is one (account, carrier, environment, kind) row of the
// counts not saved yet.
type repairCount struct {
	account, scac, env, kind string
	n                        int64
	path, value              string // the latest one's
	at                       time.Time
}

// repairLog keeps the repairs counted since the last save of
// normalize_repairs, the per-carrier table a data-quality view reads. The
// save is off the transactions' path (saveOffPath, the loop
// "normalize-repairs-saver"): a Postgres outage does not stop
// normalisation, and what it could not save is kept and saved later.
type repairLog struct {
	pool *pgxpool.Pool
	mu   sync.Mutex
	// unsaved holds the counts by (account, scac, env, kind, UTC day).
	unsaved map[[5]string]*repairCount
	wake    chan struct{}
}

func newRepairLog(pool *pgxpool.Pool) *repairLog {
	return &repairLog{pool: pool, wake: make(chan struct{}, 1)}
}

// countRepairs counts the batch's repairs and refused elements in the
// metrics, and keeps them with the events read for normalize_repairs, per
// account (a polled page's; ” for pushed ones). Counted before the Kafka
// transaction commits: a transaction aborted afterwards may count its
// repairs twice, never none; a crash loses what was not saved yet (at most
// saveLinger's worth, or an outage's).
func (s *stage) countRepairs(preps []prepared) {
	now := s.deps.Now().UTC()
	day := now.Format(time.DateOnly)
	l := s.repairs
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unsaved == nil {
		l.unsaved = map[[5]string]*repairCount{}
	}
	add := func(p prepared, kind string, n int, path, value string) {
		k := [5]string{p.raw.AccountID, p.raw.SCAC, p.raw.Env, kind, day}
		c := l.unsaved[k]
		if c == nil {
			c = &repairCount{account: k[0], scac: k[1], env: k[2], kind: kind}
			l.unsaved[k] = c
		}
		c.n += int64(n)
		c.path, c.value, c.at = path, value, now
	}
	for _, p := range preps {
		if p.read > 0 {
			add(p, kindEventsRead, p.read, "", "")
		}
		if p.refused > 0 {
			s.quality.refused.WithLabelValues(p.raw.SCAC).Add(float64(p.refused))
			add(p, kindRefused, p.refused, "", p.lastRefusal)
		}
		for _, r := range p.repairs {
			s.quality.repairs.WithLabelValues(p.raw.SCAC, string(r.Kind)).Inc()
			add(p, string(r.Kind), 1, r.Path, r.Value)
		}
	}
	if len(l.unsaved) > 0 {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

// flush adds the unsaved counts to normalize_repairs in one statement; on
// failure they stay unsaved, with what was counted meanwhile.
func (l *repairLog) flush(ctx context.Context) error {
	l.mu.Lock()
	batch := l.unsaved
	l.unsaved = nil
	l.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	var accounts, scacs, envs, kinds, days, paths, values []string
	var counts []int64
	var ats []time.Time
	for k, c := range batch {
		accounts, scacs, envs, kinds, days = append(accounts, c.account), append(scacs, c.scac), append(envs, c.env), append(kinds, c.kind), append(days, k[4])
		paths, values, counts, ats = append(paths, c.path), append(values, c.value), append(counts, c.n), append(ats, c.at)
	}
	_, err := l.pool.Exec(ctx, `
		INSERT INTO normalize_repairs (account_id, scac, env, kind, day, repairs, last_path, last_value, last_at)
		SELECT ac, sc, e, k, d::date, n, p, v, a
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::timestamptz[])
			AS t(ac, sc, e, k, d, n, p, v, a)
		ON CONFLICT (account_id, scac, env, kind, day) DO UPDATE SET
			repairs = normalize_repairs.repairs + EXCLUDED.repairs,
			last_path = EXCLUDED.last_path, last_value = EXCLUDED.last_value, last_at = EXCLUDED.last_at`,
		accounts, scacs, envs, kinds, days, counts, paths, values, ats)
	if err == nil {
		return nil
	}
	l.mu.Lock()
	for k, c := range l.unsaved {
		if b := batch[k]; b != nil {
			b.n += c.n
			b.path, b.value, b.at = c.path, c.value, c.at
		} else {
			batch[k] = c
		}
	}
	l.unsaved = batch
	l.mu.Unlock()
	return fmt.Errorf("normalize: save repairs: %w", err)
}
