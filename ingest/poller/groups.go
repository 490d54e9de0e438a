package poller

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/schemas/carriers"
)

// refresh heartbeats this poller's membership, learns its place among the
// pollers alive, and reads which (account, carrier)s it polls: every
// active account (not disabled, with a key) with credentials for a
// registered carrier, or a carrier connector of its own (connectors.go),
// whose hash falls to it, with its plan's carrier rate. A tracking without credentials is
// never claimed (commandapi marks it NO_CREDENTIALS and back to PENDING
// when they are stored); one whose account's credentials appear is due at
// once.
func (p *poller) refresh(ctx context.Context) error {
	index, count, err := p.heartbeat(ctx)
	if err != nil {
		return err
	}
	rows, err := p.deps.Pool.Query(ctx, `
		SELECT c.account_id, a.env, c.scac, c.fields_enc, coalesce(pl.carrier_rate, $1)
		FROM carrier_credentials c JOIN accounts a ON a.id = c.account_id AND a.active
		LEFT JOIN usage_plans pl ON pl.name = a.plan`, float64(auth.DefaultCarrierRate))
	if err != nil {
		return fmt.Errorf("read accounts' credentials: %w", err)
	}
	type row struct {
		key    groupKey
		env    string
		sealed []byte
		rate   float64
	}
	var found []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.key.account, &r.env, &r.key.scac, &r.sealed, &r.rate); err != nil {
			rows.Close()
			return fmt.Errorf("read accounts' credentials: %w", err)
		}
		if _, ok := carriers.Lookup(r.key.scac); ok && owns(r.key.account, index, count) {
			found = append(found, r)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read accounts' credentials: %w", err)
	}
	connectors, err := p.readConnectors(ctx, index, count)
	if err != nil {
		return err
	}
	now := p.deps.Now()
	gs := p.gates
	gs.cmu.Lock()
	defer gs.cmu.Unlock()
	p.gen++
	// share is the account's gate for one carrier, made at its first
	// sight, at the plan's rate now.
	share := func(key groupKey, env string, rate float64) *accountGate {
		g := gs.accounts[key]
		if g == nil {
			g = &accountGate{key: key, env: env}
			g.capacity.since = now
			gs.put(g)
		}
		g.setRate(now, rate)
		return g
	}
	for _, r := range found {
		g := share(r.key, r.env, r.rate)
		g.mu.Lock()
		g.refreshed = p.gen
		if g.capacity.since.IsZero() {
			g.capacity.since = now
		}
		if !slices.Equal(g.credsSealed, r.sealed) {
			plain, err := p.deps.Box.Open(r.sealed, secretbox.CarrierCredentialsContext(r.key.account, r.key.scac))
			var creds carrier.Credentials
			if err == nil {
				err = json.Unmarshal(plain, &creds)
			}
			if err != nil {
				p.log.Error("open carrier credentials", "account_id", r.key.account, "carrier", r.key.scac, "err", err)
				creds = nil
			}
			g.creds, g.credsSealed = creds, r.sealed
		}
		g.mu.Unlock()
	}
	for _, r := range connectors {
		g := share(r.key, r.env, r.rate)
		g.mu.Lock()
		g.refreshed = p.gen
		p.applyConnector(g, r)
		g.mu.Unlock()
	}
	// Shares no longer ours (credentials deleted, the account inactive or
	// moved to another poller; or made by a carrier probe) go once their
	// calls have ended.
	for k, g := range gs.accounts {
		g.mu.Lock()
		gone := g.refreshed != p.gen
		if gone {
			g.creds = nil
			g.connector, g.connectorVersion = nil, ""
		}
		idle := g.inflight == 0
		g.mu.Unlock()
		if gone && idle {
			delete(gs.accounts, k)
		}
	}
	gs.dropGone()
	return nil
}

// heartbeat marks this poller alive and returns its place among the
// pollers seen within the last few refreshes (sorted by id).
func (p *poller) heartbeat(ctx context.Context) (index, count int, err error) {
	if _, err := p.deps.Pool.Exec(ctx, `INSERT INTO poller_members (id, seen_at) VALUES ($1, now())
		ON CONFLICT (id) DO UPDATE SET seen_at = now()`, p.id); err != nil {
		return 0, 0, fmt.Errorf("poller heartbeat: %w", err)
	}
	stale := 3*p.cfg.Refresh + 5*time.Second
	if _, err := p.deps.Pool.Exec(ctx, `DELETE FROM poller_members WHERE seen_at < now() - $1::interval`, stale); err != nil {
		return 0, 0, fmt.Errorf("poller heartbeat: %w", err)
	}
	rows, err := p.deps.Pool.Query(ctx, `SELECT id::text FROM poller_members ORDER BY id`)
	if err != nil {
		return 0, 0, fmt.Errorf("poller members: %w", err)
	}
	ids, err := collectStrings(rows)
	if err != nil {
		return 0, 0, fmt.Errorf("poller members: %w", err)
	}
	index = slices.Index(ids, p.id)
	if index < 0 { // deleted as stale between the two statements: count itself
		return 0, 1, nil
	}
	return index, len(ids), nil
}

// leave removes this poller's membership, so the others take its accounts
// at their next refresh rather than after it goes stale.
func (p *poller) leave() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := p.deps.Pool.Exec(ctx, `DELETE FROM poller_members WHERE id = $1`, p.id); err != nil {
		p.log.Warn("leave poller members", "err", err)
	}
}

// owns says whether the poller at index of count polls account.
func owns(account string, index, count int) bool {
	if count <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(account))
	return int(h.Sum32()%uint32(count)) == index
}

func collectStrings(rows interface {
	Next() bool
	Scan(...any) error
	Close()
	Err() error
}) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// metrics are the poller's collectors (no account label).
type metrics struct {
	lateness *prometheus.HistogramVec
	failures *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		lateness: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "contrack_poller_lateness_seconds",
			Help:    "Time from when a tracking was due by the schedule to its claim, by poll class (first, expected, regular).",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900},
		}, []string{"class"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contrack_poller_failures_total",
			Help: "Failures of the poller's own loops (claim, finish, refresh, capacity), each logged with its reason.",
		}, []string{"loop"}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.lateness, m.failures} {
			if err := reg.Register(c); err != nil {
				if are, ok := err.(prometheus.AlreadyRegisteredError); ok {
					switch c.(type) {
					case *prometheus.HistogramVec:
						m.lateness = are.ExistingCollector.(*prometheus.HistogramVec)
					case *prometheus.CounterVec:
						m.failures = are.ExistingCollector.(*prometheus.CounterVec)
					}
				}
			}
		}
	}
	return m
}
