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
// BENCH_PG_CONNS sets the stage's Postgres pool size (default 16);
// BENCH_NO_CLICKHOUSE=1 leaves the attempt log out.
func BenchmarkDelivery(b *testing.B) {
	b.Run("fast", func(b *testing.B) { benchDelivery(b, 0, 0, 0) })
	b.Run("mixed", func(b *testing.B) { benchDelivery(b, 2, 2, 0) })
	rate := 500
	if v, err := strconv.Atoi(os.Getenv("BENCH_RATE")); err == nil && v > 0 {
		rate = v
	}
	b.Run("paced", func(b *testing.B) { benchDelivery(b, 0, 0, rate) })
	b.Run("paced-mixed", func(b *testing.B) { benchDelivery(b, 2, 2, rate) })
}

type benchReceiver struct {
	mu       sync.Mutex
	seen     map[string]bool
	latency  []time.Duration
	requests int
	acked    int
}

// benchDelivery runs 20 endpoints, the last failing+slow of them bad, and
// b.N events, produced at rate per second (0: at once).
func benchDelivery(b *testing.B, failing, slow, rate int) {
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
	// One subscription (and tracking) per event, spread over the endpoints.
	type trk struct {
		id      string
		healthy bool
	}
	var trackings []trk
	perEndpoint := (events + endpoints - 1) / endpoints
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
		order = append(order, trackings[(i%endpoints)*perEndpoint+i/endpoints])
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
