package alerts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/alerts"
	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/readiness"
)

// world is the stage's stores and a clock the test moves.
type world struct {
	t     *testing.T
	pg    testenv.PGDatabase
	ch    testenv.CHDatabase
	kc    testenv.KafkaCluster
	clock atomic.Int64
	mu    sync.Mutex
	got   []schemas.EventRecord
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, pg: testenv.Postgres(t), ch: testenv.ClickHouse(t), kc: testenv.Kafka(t, 3)}
	// Every record of the alerts topic, as it comes.
	cl, err := kafka.NewClient(w.kc.Brokers, testenv.Log(t), kgo.ConsumeTopics(w.kc.Topic(schemas.TopicAlerts)),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			fs.EachRecord(func(r *kgo.Record) {
				var rec schemas.EventRecord
				if err := json.Unmarshal(r.Value, &rec); err != nil {
					t.Errorf("undecodable alert record: %v", err)
					return
				}
				w.mu.Lock()
				w.got = append(w.got, rec)
				w.mu.Unlock()
			})
		}
	}()
	t.Cleanup(func() { cancel(); <-done; cl.Close() })
	return w
}

func (w *world) now() time.Time { return time.Unix(0, w.clock.Load()) }

func (w *world) set(s string) time.Time {
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		w.t.Fatal(err)
	}
	w.clock.Store(at.UnixNano())
	return at
}

func (w *world) exec(sql string, args ...any) {
	w.t.Helper()
	if _, err := w.pg.Pool.Exec(context.Background(), sql, args...); err != nil {
		w.t.Fatalf("%s: %v", sql, err)
	}
}

func (w *world) account(rules string, warn any) string {
	id := uuid.NewString()
	w.exec(`INSERT INTO accounts (id, client_slug, env, display_name, lfd_warning_days) VALUES ($1, $2, 'sandbox', 'test', $3)`, id, "a-"+id[:8], warn)
	if rules != "" {
		w.exec(`INSERT INTO free_time_rules (account_id, rules) VALUES ($1, $2)`, id, rules)
	}
	return id
}

// facts writes a container's readiness row as the journey projection does.
func (w *world) facts(acct, tracking, container string, f readiness.Facts) {
	w.t.Helper()
	js, _ := json.Marshal(f)
	at := func(s string) time.Time {
		if s == "" {
			return time.Unix(0, 0).UTC()
		}
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			w.t.Fatal(err)
		}
		return v.UTC()
	}
	cols := []string{"account_id", "env", "tracking_id", "equipment_number", "scac", "pod", "discharged_at",
		"available_at", "picked_up_at", "returned_at", "holds", "holds_open", "facts_json", "updated_at", "version"}
	if err := clickhouse.InsertInBlocks(context.Background(), w.ch.Conn, "readiness", cols, 0, []any{acct, "sandbox", tracking, container,
		"ZIMU", f.UNLocationCode, at(f.DischargedDateTime), at(f.AvailableDateTime), at(f.PickedUpDateTime), at(f.EmptyReturnedDateTime),
		uint16(0), uint16(0), string(js), time.Now().UTC().Truncate(time.Second), uint64(1)}); err != nil {
		w.t.Fatal(err)
	}
}

// run starts the stage on the world until the returned stop.
func (w *world) run(reg prometheus.Registerer) (stop func() error) {
	return w.runSupervised(reg, nil)
}

// runSupervised runs the stage with its sweeps supervised by loops.
func (w *world) runSupervised(reg prometheus.Registerer, loops *loop.Supervisor) (stop func() error) {
	prod, err := kafka.NewClient(w.kc.Brokers, testenv.Log(w.t))
	if err != nil {
		w.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- alerts.Run(ctx, alerts.Config{SweepInterval: 50 * time.Millisecond}, alerts.Deps{Producer: prod, Namespace: w.kc.NS,
			Pool: w.pg.Pool, CH: w.ch.Conn, Log: testenv.Log(w.t), Now: w.now, SandboxNow: w.now, Registry: reg, Loops: loops})
	}()
	return func() error {
		cancel()
		defer prod.Close()
		select {
		case err := <-done:
			return err
		case <-time.After(testkit.Scale(10 * time.Second)):
			return fmt.Errorf("the stage did not stop within 10 s")
		}
	}
}

// snapshot is a container's newest demurrage row.
type snapshot struct {
	LFD                  string
	Demurrage, Detention uint16
	Cost                 float64
	Version              uint64
}

func (w *world) snapshots() map[string]snapshot {
	rows, err := w.ch.Conn.Query(context.Background(), `SELECT equipment_number, toString(argMax(last_free_day, version)),
		argMax(demurrage_days, version), argMax(detention_days, version), argMax(demurrage_cost, version), max(version)
		FROM demurrage GROUP BY equipment_number`)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]snapshot{}
	for rows.Next() {
		var c string
		var s snapshot
		if err := rows.Scan(&c, &s.LFD, &s.Demurrage, &s.Detention, &s.Cost, &s.Version); err != nil {
			w.t.Fatal(err)
		}
		out[c] = s
	}
	return out
}

func (w *world) alerts() []schemas.Alert {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []schemas.Alert
	for _, r := range w.got {
		var a schemas.Alert
		if err := json.Unmarshal(r.Event, &a); err != nil {
			w.t.Fatalf("alert %s: %v", r.EventID, err)
		}
		out = append(out, a)
	}
	return out
}

// The stage raises LFD_APPROACHING the account's warning days before the
// last free day and DEMURRAGE_STARTED the day after it, each once (also
// across a restart), only for boxes discharged under a rule and still in
// the terminal; each sweep's first figures land in ClickHouse demurrage.
func TestLastFreeDayAlerts(t *testing.T) {
	w := newWorld(t)
	reg := prometheus.NewRegistry()
	// Three free days at Los Angeles, $100 a day; warned one day before.
	acme := w.account(`[{"port":"USLAX","scacCode":"*","demurrageDays":3,"detentionDays":2,"demurrageRate":100,"currency":"USD"}]`, 1)
	globex := w.account("", nil) // no rule: no last free day
	disc := readiness.Facts{UNLocationCode: "USLAX", DischargedDateTime: "2026-11-20T10:00:00-08:00", DischargeEventID: "disc-1"}
	waiting, left := disc, disc
	left.PickedUpDateTime = "2026-11-22T09:00:00-08:00"
	w.facts(acme, "t-waiting", "MSKU0000001", waiting) // last free day 11-23
	w.facts(acme, "t-left", "MSKU0000002", left)       // picked up before it: no alert
	w.facts(globex, "t-globex", "MSKU0000003", waiting)

	// Two days before: nothing yet (warned one day before). The first
	// sweep writes the figures.
	first := w.set("2026-11-21T12:00:00-08:00")
	stop := w.run(reg)
	testkit.Eventually(t, 20*time.Second, "the first figures", func() bool {
		return w.snapshots()["MSKU0000001"].Version == uint64(first.UnixNano())
	})
	if s := w.snapshots(); s["MSKU0000001"] != (snapshot{"2026-11-23", 0, 0, 0, uint64(first.UnixNano())}) ||
		s["MSKU0000002"] != (snapshot{"2026-11-23", 0, 0, 0, uint64(first.UnixNano())}) || len(s) != 2 {
		t.Errorf("figures two days before the last free day: %+v", s)
	}
	// The day before: LFD_APPROACHING, one day left.
	w.set("2026-11-22T00:30:00-08:00")
	testkit.Eventually(t, 20*time.Second, "LFD_APPROACHING", func() bool { return len(w.alerts()) > 0 })
	// The day after: DEMURRAGE_STARTED.
	w.set("2026-11-24T00:30:00-08:00")
	testkit.Eventually(t, 20*time.Second, "DEMURRAGE_STARTED", func() bool { return len(w.alerts()) > 1 })
	// A stage stopped between publishing and recording would publish it
	// again at its restart (as it must): wait for the record, which is
	// counted with it, before stopping.
	testkit.Eventually(t, 20*time.Second, "both recorded as published", func() bool {
		return gathered(t, reg, "contrack_alerts_published_total") >= 2
	})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	// A restarted stage publishes neither again; its first sweep writes
	// the figures: one day of demurrage, $100.
	restarted := w.set("2026-11-24T09:00:00-08:00")
	stop = w.run(prometheus.NewRegistry())
	testkit.Eventually(t, 20*time.Second, "the restarted stage's figures", func() bool {
		return w.snapshots()["MSKU0000001"].Version == uint64(restarted.UnixNano())
	})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if s := w.snapshots()["MSKU0000001"]; s != (snapshot{"2026-11-23", 1, 0, 100, uint64(restarted.UnixNano())}) {
		t.Errorf("figures the day after the last free day: %+v", s)
	}
	// Picked up 11-22: detention free until 11-24, none yet.
	if s := w.snapshots()["MSKU0000002"]; s != (snapshot{"2026-11-23", 0, 0, 0, uint64(restarted.UnixNano())}) {
		t.Errorf("figures of the box picked up: %+v", s)
	}

	var got []string
	for _, a := range w.alerts() {
		left := "-"
		if a.DaysLeft != nil {
			left = fmt.Sprint(*a.DaysLeft)
		}
		got = append(got, fmt.Sprintf("%s %s %s lfd=%s left=%s at=%s src=%v", a.AlertType, a.EquipmentReference, a.UNLocationCode,
			a.LastFreeDay, left, a.AlertDateTime, a.SourceEventIDs))
	}
	want := []string{
		"LFD_APPROACHING MSKU0000001 USLAX lfd=2026-11-23 left=1 at=2026-11-22T00:00:00-08:00 src=[disc-1]",
		"DEMURRAGE_STARTED MSKU0000001 USLAX lfd=2026-11-23 left=- at=2026-11-24T00:00:00-08:00 src=[disc-1]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("alerts:\n%v\nwant\n%v", got, want)
	}
	w.mu.Lock()
	for _, r := range w.got {
		if r.AccountID != acme || r.TrackingID != "t-waiting" || r.Env != schemas.EnvSandbox || r.SCAC != "ZIMU" || !schemas.IsAlertHash(r.ContentHash) {
			t.Errorf("record %+v", r)
		}
	}
	w.mu.Unlock()
	var published int
	if err := w.pg.Pool.QueryRow(context.Background(), `SELECT count(*) FROM alerts_published WHERE account_id = $1`, acme).Scan(&published); err != nil {
		t.Fatal(err)
	}
	if published != 2 {
		t.Errorf("alerts_published has %d rows, want 2", published)
	}
	if n := gathered(t, reg, "contrack_alerts_published_total"); n != 2 {
		t.Errorf("contrack_alerts_published_total %v, want 2", n)
	}
}

// A sweep that fails (ClickHouse's readiness missing) is counted and tried
// again; the stage keeps running and stops cleanly.
// Sweeps that fail are counted, and a run of them turns /readyz red naming
// the loop "alerts-sweep"; once the store answers again the next sweep
// succeeds and readiness is green.
func TestSweepFailuresAreCounted(t *testing.T) {
	w := newWorld(t)
	w.set("2026-11-24T09:00:00-08:00")
	// The readiness table out of the sweeps' reach, and back below.
	if err := w.ch.Conn.Exec(context.Background(), `RENAME TABLE readiness TO readiness_away`); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	health := httpapi.NewHealth(nil, 0, testenv.Log(t))
	loops, err := loop.New(loop.Config{UnreadyAfter: 3, Backoff: loop.Backoff{Initial: 20 * time.Millisecond, Max: 100 * time.Millisecond}},
		reg, health, testenv.Log(t))
	if err != nil {
		t.Fatal(err)
	}
	readyz := func() (int, string) {
		rec := httptest.NewRecorder()
		health.ServeReadyz(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return rec.Code, rec.Body.String()
	}
	stop := w.runSupervised(reg, loops)
	testkit.Eventually(t, 20*time.Second, "/readyz 503 naming the sweeps", func() bool {
		code, body := readyz()
		return code == http.StatusServiceUnavailable && strings.Contains(body, "alerts-sweep failing")
	})
	if n := gathered(t, reg, "contrack_alerts_sweep_failures_total"); n < 3 {
		t.Fatalf("%v failed sweeps counted, want at least 3", n)
	}
	if err := w.ch.Conn.Exec(context.Background(), `RENAME TABLE readiness_away TO readiness`); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, "/readyz 200 once a sweep succeeds", func() bool {
		code, _ := readyz()
		return code == http.StatusOK
	})
	if err := stop(); err != nil {
		t.Fatalf("Run after failed sweeps: %v", err)
	}
}

// gathered is the sum of a counter's values in reg (every label).
func gathered(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}
