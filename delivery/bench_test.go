package delivery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// BenchmarkDelivery measures the whole stage: b.N events produced to Kafka,
// fanned out to one subscription each over 20 endpoints (local receivers),
// queued in Postgres, signed, POSTed, acknowledged, recorded, and every
// attempt logged to ClickHouse. It reports deliveries/s and events/s over
// the healthy endpoints, and the p50/p99 time from an event's produce call
// to its receipt at a healthy endpoint.
//
// "fast" produces every event at once (a burst) and all 20 endpoints answer
// at once. "mixed" is the same burst with 2 endpoints that always fail (500)
// and 2 that take 2 s per answer: 10% failing, 10% slow. "paced" and
// "paced-mixed" are fast and mixed with events produced at BENCH_RATE per
// second (default 500) instead: latency without a backlog. The healthy
// endpoints get the same events at the same rate in both, so paced-mixed's
// healthy p50/p99 set against paced's is what the failing and slow
// endpoints cost the others.
//
//	go test -run '^$' -bench Delivery -benchtime 5000x ./delivery/
//
// "busy" and "busy-paced" are fast and paced with 200 subscriptions (10 per
// endpoint) instead of one per event, the events spread over them in
// turn: many events per subscription, as the end-to-end run's 200
// containers have.
//
// Each also reports what the run wrote to Postgres per delivered event
// (every healthy endpoint's event, sent or not), read from the WAL of the
// benchmark's own database (pg_walinspect, from the first event produced
// to the last delivery recorded): row writes (heap inserts, updates and
// deletes), WAL records and WAL bytes, FPIs left out (they follow
// checkpoint timing, not the load). Figures no other load on the machine
// moves; -v logs them per table (indexes and TOAST counted with their
// table).
//
// BENCH_PG_CONNS sets the stage's Postgres pool size (default 16);
// BENCH_NO_CLICKHOUSE=1 leaves the attempt log out.
func BenchmarkDelivery(b *testing.B) {
	b.Run("fast", func(b *testing.B) { benchDelivery(b, 0, 0, 0, 0) })
	b.Run("mixed", func(b *testing.B) { benchDelivery(b, 2, 2, 0, 0) })
	rate := 500
	if v, err := strconv.Atoi(os.Getenv("BENCH_RATE")); err == nil && v > 0 {
		rate = v
	}
	b.Run("paced", func(b *testing.B) { benchDelivery(b, 0, 0, rate, 0) })
	b.Run("paced-mixed", func(b *testing.B) { benchDelivery(b, 2, 2, rate, 0) })
	b.Run("busy", func(b *testing.B) { benchDelivery(b, 0, 0, 0, 10) })
	b.Run("busy-paced", func(b *testing.B) { benchDelivery(b, 0, 0, rate, 10) })
}

type benchReceiver struct {
	mu       sync.Mutex
	seen     map[string]bool
	latency  []time.Duration
	requests int
	acked    int
}

// benchDelivery runs 20 endpoints, the last failing+slow of them bad, and
// b.N events, produced at rate per second (0: at once), to subs
// subscriptions per endpoint (0: one per event).
func benchDelivery(b *testing.B, failing, slow, rate, subs int) {
	const endpoints = 20
	events := b.N
	conns := 16
	if v, err := strconv.Atoi(os.Getenv("BENCH_PG_CONNS")); err == nil && v > 0 {
		conns = v
	}
	db := testenv.Postgres(b)
	cfg, err := pgxpool.ParseConfig(db.URL)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = int32(conns)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	db.Pool = pool
	h := dt.NewOn(b, db, os.Getenv("BENCH_NO_CLICKHOUSE") == "")
	h.Partitions = 16
	if v, err := strconv.Atoi(os.Getenv("BENCH_PARTITIONS")); err == nil && v > 0 {
		h.Partitions = int32(v)
	}

	recv := &benchReceiver{seen: map[string]bool{}}
	type target struct {
		acct    string
		healthy bool
	}
	var targets []target
	for e := 0; e < endpoints; e++ {
		bad := e >= endpoints-failing
		sleepy := !bad && e >= endpoints-failing-slow
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			now := time.Now()
			if sleepy {
				time.Sleep(2 * time.Second) // the slow endpoints of the mix
			}
			if bad {
				w.WriteHeader(500)
				return
			}
			var p struct {
				Events []struct {
					ID    string `json:"eventID"`
					Bench int64  `json:"bench"`
				} `json:"events"`
			}
			if err := json.Unmarshal(body, &p); err != nil {
				b.Fatal(err)
			}
			recv.mu.Lock()
			recv.requests++
			if !sleepy {
				recv.acked++
				for _, ev := range p.Events {
					if !recv.seen[ev.ID] {
						recv.seen[ev.ID] = true
						recv.latency = append(recv.latency, now.Sub(time.Unix(0, ev.Bench)))
					}
				}
			}
			recv.mu.Unlock()
		}))
		b.Cleanup(srv.Close)
		acct := h.Account("sandbox")
		h.Webhook(acct, srv.URL, true)
		targets = append(targets, target{acct, !bad && !sleepy})
	}
	// One subscription (and tracking) per event, or subs per endpoint,
	// spread over the endpoints.
	type trk struct {
		id      string
		healthy bool
	}
	var trackings []trk
	perEndpoint := (events + endpoints - 1) / endpoints
	if subs > 0 {
		perEndpoint = subs
	}
	for e, tg := range targets {
		h.Exec(`
			INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status, open_subscriptions)
			SELECT gen_random_uuid(), $1, 'sandbox', 'MAEU', 'container', 'BNCH' || $2::int || '-' || g, 'CONNECTED', 1
			FROM generate_series(1, $3) g`, tg.acct, e, perEndpoint)
		h.Exec(`
			INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
			SELECT gen_random_uuid(), account_id, 'ref-' || identifier, id, 'MAEU', identifier, 'OPEN', now(), now() + interval '90 days'
			FROM trackings WHERE account_id = $1`, tg.acct)
		rows, _ := pool.Query(context.Background(), `SELECT id::text FROM trackings WHERE account_id = $1`, tg.acct)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			b.Fatal(err)
		}
		for _, id := range ids {
			trackings = append(trackings, trk{id, tg.healthy})
		}
	}
	// Interleave endpoints so every endpoint sees load from the start.
	order := make([]trk, 0, events)
	for i := 0; len(order) < events; i++ {
		order = append(order, trackings[(i%endpoints)*perEndpoint+(i/endpoints)%perEndpoint])
	}
	healthy := 0
	for _, t := range order {
		if t.healthy {
			healthy++
		}
	}

	dcfg := dt.Config()
	dcfg.Workers, dcfg.EndpointConcurrency = 64, 8
	dcfg.PollInterval = 100 * time.Millisecond
	dcfg.Schedule = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second}
	dcfg.Jitter = 0.2
	dcfg.BreakerFailures = 5
	dcfg.BreakerTimeout = 2 * time.Second
	dcfg.Timeout = 5 * time.Second
	dcfg.LogFlushInterval = time.Second
	dcfg.SweepInterval = 5 * time.Second
	dcfg.MetricsInterval = 5 * time.Second
	h.Start(dcfg)
	producer := testenv.KafkaClient(b, h.Brokers(), kgo.MaxBufferedRecords(1<<20))
	// The consumer group's join is not part of what is timed.
	adm := kadm.NewClient(producer)
	testkit.Eventually(b, 30*time.Second, "the delivery consumer group stable", func() bool {
		groups, err := adm.DescribeGroups(context.Background(), h.Kafka().Group(schemas.GroupDelivery))
		if err != nil {
			return false
		}
		g, ok := groups[h.Kafka().Group(schemas.GroupDelivery)]
		return ok && g.Err == nil && g.State == "Stable" && len(g.Members) > 0
	})

	wal := startWAL(b, pool)
	b.ResetTimer()
	start := time.Now()
	var produced sync.WaitGroup
	for i, t := range order {
		if rate > 0 {
			if d := time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))); d > 0 {
				time.Sleep(d) // pacing the offered load, not standing in for a condition
			}
		}
		id := "bench-" + strconv.Itoa(i)
		ev := fmt.Sprintf(`{"eventID":%q,"eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":"2026-11-20T10:00:00Z","equipmentEventTypeCode":"GTIN","equipmentReference":"BNCH","emptyIndicatorCode":"LADEN","bench":%d}`, id, time.Now().UnixNano())
		v, _ := json.Marshal(schemas.EventRecord{TrackingID: t.id, EventID: id, ContentHash: "h", Event: json.RawMessage(ev), EmittedAt: time.Now()})
		produced.Add(1)
		producer.Produce(context.Background(), &kgo.Record{Topic: h.Kafka().Topic(schemas.TopicEvents), Key: []byte(t.id), Value: v,
			Headers: schemas.Headers{Type: schemas.TypeEvent}.Kafka()},
			func(_ *kgo.Record, err error) {
				if err != nil {
					b.Error(err)
				}
				produced.Done()
			})
	}
	produced.Wait()
	testkit.Eventually(b, 5*time.Minute, "every healthy event delivered", func() bool {
		recv.mu.Lock()
		defer recv.mu.Unlock()
		return len(recv.seen) >= healthy
	})
	elapsed := time.Since(start)
	b.StopTimer()
	var healthyAccts []string
	for _, tg := range targets {
		if tg.healthy {
			healthyAccts = append(healthyAccts, tg.acct)
		}
	}
	testkit.Eventually(b, time.Minute, "the healthy endpoints' deliveries recorded", func() bool {
		var open int
		err := pool.QueryRow(context.Background(), `SELECT count(*) FROM deliveries
			WHERE account_id = ANY($1::uuid[]) AND status IN ('PENDING', 'FAILED')`, healthyAccts).Scan(&open)
		return err == nil && open == 0
	})
	wal.report(b, healthy)

	recv.mu.Lock()
	defer recv.mu.Unlock()
	lat := recv.latency
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(recv.acked)/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(float64(len(recv.seen))/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(lat[len(lat)/2])/float64(time.Millisecond), "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100])/float64(time.Millisecond), "p99-ms")
	b.ReportMetric(float64(len(recv.seen))/float64(max(recv.acked, 1)), "events/delivery")
}

// walMark is where the WAL stood when a benchmark's timed part began.
type walMark struct {
	pool *pgxpool.Pool
	lsn  string
}

func startWAL(b *testing.B, pool *pgxpool.Pool) walMark {
	ctx := context.Background()
	m := walMark{pool: pool}
	if _, err := pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_walinspect`); err != nil {
		b.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&m.lsn); err != nil {
		b.Fatal(err)
	}
	return m
}

// report reports the WAL of this database since m per event: row writes
// (heap inserts, updates, deletes), records and bytes without FPIs; and
// logs them per table.
func (m walMark) report(b *testing.B, events int) {
	rows, err := m.pool.Query(context.Background(), postgres.WALByTableSQL, m.lsn)
	if err != nil {
		b.Fatal(err)
	}
	var tRows, tRecs, tBytes int64
	for rows.Next() {
		var tbl string
		var n, recs, bytes int64
		if err := rows.Scan(&tbl, &n, &recs, &bytes); err != nil {
			b.Fatal(err)
		}
		tRows, tRecs, tBytes = tRows+n, tRecs+recs, tBytes+bytes
		b.Logf("%-28s %7.3f rows/event %7.3f WAL records/event %8.1f WAL B/event", tbl,
			float64(n)/float64(events), float64(recs)/float64(events), float64(bytes)/float64(events))
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(tRows)/float64(events), "pg-rows/event")
	b.ReportMetric(float64(tRecs)/float64(events), "wal-recs/event")
	b.ReportMetric(float64(tBytes)/float64(events), "wal-B/event")
}
