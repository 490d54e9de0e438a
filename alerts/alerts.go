// Package alerts is the alerts stage: the alerts the clock raises, not an
// event. The journey projection raises what a journey change reveals
// (ETA_CHANGED, ROLLED, ARRIVED, AVAILABLE_FOR_PICKUP, HOLD_PLACED,
// HOLD_RELEASED) on the alerts topic; this stage looks every SweepInterval
// at the containers discharged at their port of discharge (ClickHouse
// readiness, written by the projection), computes their last free day under
// the account's free-time rules (schemas/readiness), and raises
// LFD_APPROACHING (the account's warning days before it, 2 by default) and
// DEMURRAGE_STARTED (the day after it) while the box is still in the
// terminal. Each is published once (Postgres alerts_published), on the same
// topic, which delivery and the feed push beside the events.
//
// Every SnapshotInterval it also writes each container's demurrage and
// detention days and estimated cost into ClickHouse (demurrage) for
// analysts (docs/analytics.md).
package alerts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	platformmetrics "github.com/contrack/contrack/platform/metrics"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/readiness"
)

// Config tunes the stage. Zero values take the documented defaults.
type Config struct {
	// SweepInterval is how often the containers in their terminal are
	// looked at (default 5 min): an alert of the last free day comes at
	// most this late after the day it names begins.
	SweepInterval time.Duration
	// Window: containers whose readiness changed within it are looked at
	// (default 60 days); a box left in a terminal longer than that without
	// news is not followed further.
	Window time.Duration
	// SnapshotInterval is how often the demurrage and detention figures
	// are written to ClickHouse for analysts (default 1 h).
	SnapshotInterval time.Duration
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.SweepInterval == 0 {
		c.SweepInterval = 5 * time.Minute
	}
	if c.Window == 0 {
		c.Window = 60 * 24 * time.Hour
	}
	if c.SnapshotInterval == 0 {
		c.SnapshotInterval = time.Hour
	}
	return c
}

// Validate reports every setting that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.SweepInterval < 0 || c.Window < 0 || c.SnapshotInterval < 0 {
		errs = append(errs, errors.New("alerts: negative duration"))
	}
	return errors.Join(errs...)
}

// Deps are the stage's connections.
type Deps struct {
	// Producer publishes the alerts.
	Producer  *kgo.Client
	Namespace schemas.Namespace
	// Pool reads the free-time rules and records what was published.
	Pool *pgxpool.Pool
	// CH reads the readiness facts and keeps the demurrage figures.
	CH  driver.Conn
	Log *slog.Logger
	// Now is the clock the last free days of live accounts are judged by
	// (default time.Now); SandboxNow that of sandbox accounts, the sandbox
	// journeys' present (default Now). Sweeps are paced on real time.
	Now        func() time.Time
	SandboxNow func() time.Time
	// Registry takes the stage's metrics (nil: not exported).
	Registry prometheus.Registerer
	// Loops, if set, supervises the sweeps (the loop "alerts-sweep", the
	// role's): a failed sweep is counted and a run of them turns /readyz
	// red until one succeeds.
	Loops *loop.Supervisor
}

// metrics are the stage's collectors (no account label).
type metrics struct {
	raised   *prometheus.CounterVec
	failures prometheus.Counter
	watched  prometheus.Gauge
	skipped  prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		raised: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "contrack_alerts_published_total",
			Help: "Alerts of the last free day published by the alerts stage, by kind."}, []string{"alert_type"}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "contrack_alerts_sweep_failures_total",
			Help: "Sweeps of the alerts stage that failed (a store unreachable); the next sweep tries again."}),
		watched: prometheus.NewGauge(prometheus.GaugeOpts{Name: "contrack_alerts_containers_watched",
			Help: "Containers discharged at their port of discharge that the last sweep looked at."}),
		skipped: prometheus.NewCounter(prometheus.CounterOpts{Name: "contrack_alerts_undecodable_facts_total",
			Help: "Containers' readiness facts a sweep could not decode and passed over (logged with the tracking)."}),
	}
	if err := platformmetrics.RegisterAll(reg, m.raised, m.failures, m.watched, m.skipped); err != nil {
		return nil, fmt.Errorf("alerts: metrics: %w", err)
	}
	return m, nil
}

// Run sweeps every SweepInterval until ctx ends; nil on a clean shutdown.
// A sweep that fails (a store unreachable) is counted, logged and tried
// again after the loop's backoff (the loop "alerts-sweep": a run of
// failures turns /readyz red), so the stage recovers by itself and Run
// returns nil: an alert comes late, never twice (it is recorded after it
// was published) and never lost.
func Run(ctx context.Context, cfg Config, deps Deps) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.WithDefaults()
	if deps.Producer == nil || deps.Pool == nil || deps.CH == nil {
		return errors.New("alerts: Deps.Producer, Deps.Pool and Deps.CH are required")
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.SandboxNow == nil {
		deps.SandboxNow = deps.Now
	}
	if deps.Log == nil {
		deps.Log = slog.Default()
	}
	m, err := newMetrics(deps.Registry)
	if err != nil {
		return err
	}
	s := &stage{cfg: cfg, deps: deps, log: deps.Log.With("stage", "alerts"), m: m}
	var lastSnapshot time.Time
	return deps.Loops.Loop("alerts-sweep", s.log).Run(ctx, cfg.SweepInterval, func(ctx context.Context) error {
		snapshot := time.Since(lastSnapshot) >= cfg.SnapshotInterval
		if err := s.sweep(ctx, snapshot); err != nil {
			if ctx.Err() == nil {
				s.m.failures.Inc()
			}
			return fmt.Errorf("alerts sweep: %w", err)
		}
		if snapshot {
			lastSnapshot = time.Now()
		}
		return nil
	})
}

type stage struct {
	cfg  Config
	deps Deps
	log  *slog.Logger
	m    *metrics
}

// container is one container's latest readiness facts.
type container struct {
	account, env, tracking, equipment, scac string
	facts                                   readiness.Facts
}

// sweep raises the alerts due now and, with snapshot, writes the
// demurrage figures.
func (s *stage) sweep(ctx context.Context, snapshot bool) error {
	live, sandbox := s.deps.Now(), s.deps.SandboxNow()
	earliest := live
	if sandbox.Before(live) {
		earliest = sandbox
	}
	cs, err := s.discharged(ctx, earliest)
	if err != nil {
		return err
	}
	s.m.watched.Set(float64(len(cs)))
	if len(cs) == 0 {
		return nil
	}
	accounts := map[string]bool{}
	for _, c := range cs {
		accounts[c.account] = true
	}
	rules, err := s.rules(ctx, accounts)
	if err != nil {
		return err
	}
	var due []schemas.EventRecord
	var rows [][]any
	for _, c := range cs {
		now := live
		if c.env == schemas.EnvSandbox {
			now = sandbox
		}
		ft := rules[c.account]
		v := readiness.Compute(c.facts, ft.rules, c.scac, now, ft.warn)
		if v.LastFreeDay == "" {
			continue // no rule applies
		}
		if snapshot {
			rows = append(rows, snapshotRow(c, v, now))
		}
		if c.facts.PickedUpDateTime != "" || v.DaysToLastFreeDay == nil {
			continue
		}
		left := *v.DaysToLastFreeDay
		a := schemas.Alert{EquipmentReference: c.equipment, UNLocationCode: c.facts.UNLocationCode, LastFreeDay: v.LastFreeDay,
			SourceEventIDs: []string{c.facts.DischargeEventID}}
		lfd, _ := time.Parse(time.DateOnly, v.LastFreeDay)
		switch {
		case left < 0:
			a.AlertType = schemas.AlertDemurrageStarted
			a.AlertDateTime = lfd.AddDate(0, 0, 1).Format(time.DateOnly) + "T00:00:00" + offset(c.facts.DischargedDateTime)
		case left <= ft.warn:
			a.AlertType = schemas.AlertLFDApproaching
			a.DaysLeft = &left
			a.AlertDateTime = lfd.AddDate(0, 0, -ft.warn).Format(time.DateOnly) + "T00:00:00" + offset(c.facts.DischargedDateTime)
		default:
			continue
		}
		a.AlertID = schemas.AlertID(c.tracking, a.AlertType, c.equipment, v.LastFreeDay)
		rec, err := schemas.AlertRecord(a, schemas.EventRecord{TrackingID: c.tracking, AccountID: c.account, Env: c.env, SCAC: c.scac, EmittedAt: now.UTC()})
		if err != nil {
			return fmt.Errorf("alerts: encode: %w", err)
		}
		due = append(due, rec)
	}
	if err := s.publish(ctx, due); err != nil {
		return err
	}
	if len(rows) > 0 {
		if err := clickhouse.InsertInBlocks(ctx, s.deps.CH, "demurrage", snapshotColumns, clickhouse.BlockBytes, rows...); err != nil {
			return fmt.Errorf("alerts: write demurrage figures: %w", err)
		}
	}
	return nil
}

// offset is the UTC offset an RFC 3339 time carries ("Z" if none).
func offset(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "Z"
	}
	return t.Format("Z07:00")
}

// discharged are the latest readiness facts of the containers discharged
// and not returned whose readiness changed within the window.
func (s *stage) discharged(ctx context.Context, now time.Time) ([]container, error) {
	rows, err := s.deps.CH.Query(ctx, `SELECT account_id, env, tracking_id, equipment_number, argMax(scac, version), argMax(facts_json, version),
			argMax(discharged_at, version) AS d, argMax(returned_at, version) AS r
		FROM readiness WHERE updated_at >= ?
		GROUP BY account_id, env, tracking_id, equipment_number
		HAVING d > toDateTime(0)`, now.Add(-s.cfg.Window).UTC().Truncate(time.Second))
	if err != nil {
		return nil, fmt.Errorf("alerts: read readiness: %w", err)
	}
	defer rows.Close()
	var out []container
	for rows.Next() {
		var c container
		var js string
		var d, r time.Time
		if err := rows.Scan(&c.account, &c.env, &c.tracking, &c.equipment, &c.scac, &js, &d, &r); err != nil {
			return nil, fmt.Errorf("alerts: read readiness: %w", err)
		}
		if err := json.Unmarshal([]byte(js), &c.facts); err != nil {
			s.m.skipped.Inc()
			s.log.Error("alerts: undecodable readiness facts skipped", "tracking_id", c.tracking, "err", err)
			continue
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("alerts: read readiness: %w", err)
	}
	return out, nil
}

// accountRules are an account's free-time rules and warning days.
type accountRules struct {
	rules []readiness.FreeTimeRule
	warn  int
}

func (s *stage) rules(ctx context.Context, accounts map[string]bool) (map[string]accountRules, error) {
	ids := make([]string, 0, len(accounts))
	for a := range accounts {
		ids = append(ids, a)
	}
	rows, err := s.deps.Pool.Query(ctx, `SELECT a.id::text, coalesce(a.lfd_warning_days, $2), r.rules
		FROM free_time_rules r JOIN accounts a ON a.id = r.account_id AND a.active
		WHERE r.account_id = ANY($1::uuid[])`, ids, readiness.DefaultWarningDays)
	if err != nil {
		return nil, fmt.Errorf("alerts: read free-time rules: %w", err)
	}
	defer rows.Close()
	out := map[string]accountRules{}
	for rows.Next() {
		var id string
		var r accountRules
		var raw []byte
		if err := rows.Scan(&id, &r.warn, &raw); err != nil {
			return nil, fmt.Errorf("alerts: read free-time rules: %w", err)
		}
		if err := json.Unmarshal(raw, &r.rules); err != nil {
			return nil, fmt.Errorf("alerts: decode free-time rules of %s: %w", id, err)
		}
		out[id] = r
	}
	return out, rows.Err()
}

// publish produces the alerts not published before, then records them: a
// crash in between publishes them again (the same ids and content, which
// delivery drops), never loses one.
func (s *stage) publish(ctx context.Context, due []schemas.EventRecord) error {
	if len(due) == 0 {
		return nil
	}
	accounts, ids := make([]string, len(due)), make([]string, len(due))
	for i, r := range due {
		accounts[i], ids[i] = r.AccountID, r.EventID
	}
	rows, err := s.deps.Pool.Query(ctx, `SELECT p.account_id::text, p.alert_id FROM unnest($1::uuid[], $2::text[]) AS d(account_id, alert_id)
		JOIN alerts_published p ON p.account_id = d.account_id AND p.alert_id = d.alert_id`, accounts, ids)
	if err != nil {
		return fmt.Errorf("alerts: read published: %w", err)
	}
	done := map[[2]string]bool{}
	for rows.Next() {
		var a, id string
		if err := rows.Scan(&a, &id); err != nil {
			rows.Close()
			return fmt.Errorf("alerts: read published: %w", err)
		}
		done[[2]string{a, id}] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("alerts: read published: %w", err)
	}
	var recs []*kgo.Record
	var newAccounts, newIDs, kinds []string
	for _, r := range due {
		if done[[2]string{r.AccountID, r.EventID}] {
			continue
		}
		v, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("alerts: encode: %w", err)
		}
		recs = append(recs, &kgo.Record{Topic: s.deps.Namespace.Topic(schemas.TopicAlerts), Key: []byte(r.TrackingID), Value: v,
			Headers: schemas.Headers{Type: schemas.TypeAlert, ID: r.EventID + "/" + r.ContentHash, Account: r.AccountID, Env: r.Env}.Kafka()})
		newAccounts, newIDs = append(newAccounts, r.AccountID), append(newIDs, r.EventID)
		var a schemas.Alert
		if json.Unmarshal(r.Event, &a) == nil {
			kinds = append(kinds, a.AlertType)
		}
	}
	if len(recs) == 0 {
		return nil
	}
	if err := kafka.ProduceSync(ctx, s.deps.Producer, recs...); err != nil {
		return fmt.Errorf("alerts: publish %d alerts: %w", len(recs), err)
	}
	if _, err := s.deps.Pool.Exec(ctx, `INSERT INTO alerts_published (account_id, alert_id, published_at)
		SELECT a, i, now() FROM unnest($1::uuid[], $2::text[]) AS d(a, i) ON CONFLICT DO NOTHING`, newAccounts, newIDs); err != nil {
		return fmt.Errorf("alerts: record published: %w", err)
	}
	for _, k := range kinds {
		s.m.raised.WithLabelValues(k).Inc()
	}
	s.log.Info("alerts published", "count", len(recs))
	return nil
}

// snapshotColumns are ClickHouse demurrage's columns, in insert order.
var snapshotColumns = []string{"account_id", "tracking_id", "equipment_number", "scac", "pod", "discharged_at", "last_free_day",
	"picked_up_at", "returned_at", "demurrage_days", "detention_days", "demurrage_cost", "detention_cost", "currency", "computed_at", "version"}

func snapshotRow(c container, v readiness.Readiness, now time.Time) []any {
	at := func(s string) time.Time {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return time.Unix(0, 0).UTC()
		}
		return t.UTC().Truncate(time.Second)
	}
	lfd, _ := time.Parse(time.DateOnly, v.LastFreeDay)
	var dc, tc float64
	currency := ""
	if v.EstimatedCost != nil {
		dc, tc, currency = v.EstimatedCost.Demurrage, v.EstimatedCost.Detention, v.EstimatedCost.Currency
	}
	return []any{c.account, c.tracking, c.equipment, c.scac, c.facts.UNLocationCode, at(c.facts.DischargedDateTime), lfd,
		at(c.facts.PickedUpDateTime), at(c.facts.EmptyReturnedDateTime), uint16(min(v.DemurrageDays, 65535)), uint16(min(v.DetentionDays, 65535)),
		dc, tc, currency, now.UTC().Truncate(time.Second), uint64(now.UnixNano())}
}
