package feed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/feed"
	"github.com/contrack/contrack/ingest"
	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// BenchmarkFeed measures the account event feed through the real pipeline:
// POST /events (a carrier key) → carrier-raw topic → normaliser (Kafka
// transactions) → events topic → feed stage → Postgres + NOTIFY → a
// consumer's GET /subscriptions/events, all in one process on in-process
// Kafka (kfake) and the local Postgres:
//
//	go test -run '^$' -bench Feed ./feed/
//
// Fixed workloads (b.N is ignored; the benchmark timer includes the set-up,
// so any -benchtime up to a few seconds runs each once; the figures are
// measured separately and printed):
//
//   - latency: one consumer long-polls with wait=20 while events are
//     POSTed at BENCH_RATE/s (default 200) to BENCH_SUBS subscriptions
//     (default 100); figures from POST /events answered 200 to the event
//     in a long-poll answer, BENCH_EVENTS events (default 2,000).
//   - drain: BENCH_BACKLOG events (default 50,000) produced straight onto
//     the events topic and written by the feed stage (its write rate is
//     printed too), then one consumer reads them all, limit=1000.
func BenchmarkFeed(b *testing.B) {
	b.Run("latency", benchLatency)
	b.Run("drain", benchDrain)
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// benchWorld is the pipeline of the benchmark on one HTTP server.
type benchWorld struct {
	h        *deliverytest.Harness
	url      string
	store    *auth.Store
	consumer string // key
	account  string
	subs     []deliverytest.Sub
	client   *http.Client
}

func newBenchWorld(b *testing.B, subs int) *benchWorld {
	h := deliverytest.New(b, false)
	h.Partitions = 6
	brokers := h.Brokers()
	store := auth.NewStore(h.DB.Pool)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	keys := auth.NewCachedAuthenticator(store, time.Minute, testenv.Log(b))
	testenv.RunStage(b, "api-key-cache", keys.Run)
	n := feed.NewNotifier(h.DB.Pool, testenv.Log(b), 0)
	testenv.RunStage(b, "feed-notifier", n.Run)
	// No rate limiter: one key here stands for many consumers' traffic.
	srv := httpapi.New(httpapi.Config{Log: testenv.Log(b), Auth: keys})
	producer := testenv.KafkaClient(b, brokers)
	ingest.RegisterEvents(srv.Fuego, ingest.EventsDeps{Producer: producer, Namespace: h.Kafka().NS, Log: testenv.Log(b), Check: pushed.Check})
	queryapi.Register(srv.Fuego, queryapi.Deps{Pool: h.DB.Pool, Log: testenv.Log(b), TokenKey: []byte("bench"), Feed: n})
	ts := httptest.NewServer(srv.Handler())
	b.Cleanup(ts.Close)
	key, k, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "bench", Env: "sandbox", Plan: "enterprise"})
	if err != nil {
		b.Fatal(err)
	}
	w := &benchWorld{h: h, url: ts.URL, store: store, consumer: key, account: k.Account.ID,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	// Subscriptions as the API makes them: rows in Postgres and their
	// changes on the subscriptions topic (the normaliser routes pushed
	// events by them).
	var recs []*kgo.Record
	for i := range subs {
		s := h.Subscribe(w.account, fmt.Sprintf("ref-%d", i))
		w.subs = append(w.subs, s)
		v, _ := json.Marshal(schemas.SubscriptionChanged{ID: uuid.NewString(), AccountID: w.account, Env: "sandbox",
			TrackingID: s.Tracking, SubscriptionID: s.ID, SCAC: "MAEU", IdentifierKind: "container", Identifier: s.Container,
			Status: "OPEN", TrackingOpen: true, OccurredAt: time.Now().UTC()})
		recs = append(recs, &kgo.Record{Topic: h.Kafka().Topic(schemas.TopicSubscriptions), Key: []byte(s.Tracking), Value: v, Headers: schemas.Headers{
			Type: schemas.TypeSubscriptionChanged, ID: uuid.NewString(),
		}.Kafka()})
	}
	if err := kafka.ProduceSync(ctx, producer, recs...); err != nil {
		b.Fatal(err)
	}
	return w
}

func (w *benchWorld) run(b *testing.B, name string, fn func(context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("%s: %v", name, err)
		}
	})
}

// poll is one GET /subscriptions/events; it returns the event IDs and the next cursor.
func (w *benchWorld) poll(cursor string, limit, wait int) ([]string, string, error) {
	req, _ := http.NewRequest("GET", fmt.Sprintf("%s/subscriptions/events?limit=%d&wait=%d&cursor=%s", w.url, limit, wait, url.QueryEscape(cursor)), nil)
	req.Header.Set("x-api-key", w.consumer)
	resp, err := w.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return nil, "", fmt.Errorf("GET /subscriptions/events: %d %s", resp.StatusCode, body)
	}
	var p struct {
		Items []struct {
			Events []struct {
				EventID string `json:"eventID"`
			} `json:"events"`
		} `json:"items"`
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, "", err
	}
	var ids []string
	for _, it := range p.Items {
		for _, e := range it.Events {
			ids = append(ids, e.EventID)
		}
	}
	return ids, p.NextCursor, nil
}

func pushedEvent(id, container string) string {
	return fmt.Sprintf(`{"eventID":%q,"eventCreatedDateTime":"2026-03-01T10:00:00Z","eventType":"EQUIPMENT","eventClassifierCode":"ACT",
"eventDateTime":"2026-03-01T09:30:00+01:00","equipmentEventTypeCode":"LOAD","equipmentReference":%q,"emptyIndicatorCode":"LADEN",
"eventLocation":{"locationName":"Rotterdam","UNLocationCode":"NLRTM"},
"transportCall":{"transportCallID":"TC-1","modeOfTransport":"VESSEL","carrierVoyageNumber":"2103S","UNLocationCode":"NLRTM",
"vessel":{"vesselIMONumber":"9321483","vesselName":"King of the Seas"}}}`, id, container)
}

func benchLatency(b *testing.B) {
	subs, rate, total := envInt("BENCH_SUBS", 100), envInt("BENCH_RATE", 200), envInt("BENCH_EVENTS", 2000)
	w := newBenchWorld(b, subs)
	carrierKey, _, err := w.store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "carrier", Env: "sandbox",
		Role: auth.RoleCarrier, SCAC: "MAEU", Plan: "enterprise"})
	if err != nil {
		b.Fatal(err)
	}
	brokers := w.h.Brokers()
	w.run(b, "normalize", func(ctx context.Context) error {
		return stage.Run(ctx, stage.Config{}, stage.Deps{Brokers: brokers, Namespace: w.h.Kafka().NS, Pool: w.h.DB.Pool, Log: testenv.Log(b),
			Parsers: map[carriers.Format]normalize.Parser{carriers.FormatPushed: pushed.Parse}})
	})
	w.run(b, "feed", func(ctx context.Context) error {
		return feed.Run(ctx, feed.Config{}, feed.Deps{Brokers: brokers, Namespace: w.h.Kafka().NS, Pool: w.h.DB.Pool, Log: testenv.Log(b)})
	})
	post := func(id, container string) {
		req, _ := http.NewRequest("POST", w.url+"/events", strings.NewReader(pushedEvent(id, container)))
		req.Header.Set("x-api-key", carrierKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := w.client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body) // drained for the connection's reuse; the status is what is checked
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("POST /events: %d", resp.StatusCode)
		}
	}
	// Warm-up: one event through the whole pipeline (consumer groups
	// joined, routing index ready), and the consumer's cursor after it.
	post(uuid.NewString(), w.subs[0].Container)
	cursor := ""
	// Each look is a long-poll (wait=20): it paces itself.
	testkit.Eventually(b, 60*time.Second, "the warm-up event in the feed", func() bool {
		ids, next, err := w.poll(cursor, 1000, 20)
		if err != nil {
			b.Fatal(err)
		}
		cursor = next
		return len(ids) > 0
	})

	var mu sync.Mutex
	accepted := make(map[string]time.Time, total)
	seen := make(map[string]time.Time, total)
	consumed := make(chan error, 1)
	go func() {
		for {
			ids, next, err := w.poll(cursor, 1000, 20)
			if err != nil {
				consumed <- err
				return
			}
			now := time.Now()
			cursor = next
			mu.Lock()
			for _, id := range ids {
				if _, ok := seen[id]; !ok {
					seen[id] = now
				}
			}
			n := len(seen)
			mu.Unlock()
			if n >= total {
				consumed <- nil
				return
			}
		}
	}()
	start := time.Now()
	interval := time.Second / time.Duration(rate)
	for i := range total {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d) // pacing the offered load, not standing in for a condition
		}
		id := uuid.NewString()
		post(id, w.subs[i%len(w.subs)].Container)
		at := time.Now()
		mu.Lock()
		accepted[identity.EventID("MAEU", id)] = at // the id the normaliser gives it
		mu.Unlock()
	}
	select {
	case err := <-consumed:
		if err != nil {
			b.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		mu.Lock()
		b.Fatalf("only %d of %d events seen after 2 minutes", len(seen), total)
	}
	b.StopTimer()
	lat := make([]time.Duration, 0, total)
	mu.Lock()
	for id, at := range accepted {
		s, ok := seen[id]
		if !ok {
			b.Fatalf("event %s accepted but never seen in the feed", id)
		}
		d := s.Sub(at)
		if d < 0 {
			d = 0 // seen before its POST's answer was read
		}
		lat = append(lat, d)
	}
	mu.Unlock()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
	b.ReportMetric(float64(q(0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(q(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	fmt.Printf("feed latency: %d events POSTed at %d/s over %d subscriptions; POST /events accepted → seen by a wait=20 long-poll: p50 %s, p99 %s, max %s\n",
		total, rate, subs, q(0.5).Round(100*time.Microsecond), q(0.99).Round(100*time.Microsecond), lat[len(lat)-1].Round(100*time.Microsecond))
}

func benchDrain(b *testing.B) {
	subs, backlog := envInt("BENCH_SUBS", 1000), envInt("BENCH_BACKLOG", 50_000)
	w := newBenchWorld(b, subs)
	brokers := w.h.Brokers()
	prod := testenv.KafkaClient(b, brokers, kgo.ProducerLinger(5*time.Millisecond))
	recs := make([]*kgo.Record, 0, backlog)
	for i := range backlog {
		s := w.subs[i%len(w.subs)]
		id := uuid.NewString()
		v, _ := json.Marshal(schemas.EventRecord{TrackingID: s.Tracking, AccountID: w.account, Env: "sandbox", SCAC: "MAEU",
			EventID: id, ContentHash: "h1", Event: json.RawMessage(pushedEvent(id, s.Container)), EmittedAt: time.Now().UTC()})
		recs = append(recs, &kgo.Record{Topic: w.h.Kafka().Topic(schemas.TopicEvents), Key: []byte(s.Tracking), Value: v, Headers: schemas.Headers{
			Type: schemas.TypeEvent, ID: id + "/h1",
		}.Kafka()})
	}
	if err := kafka.ProduceSync(context.Background(), prod, recs...); err != nil {
		b.Fatal(err)
	}
	// The feed stage writes the backlog.
	t0 := time.Now()
	w.run(b, "feed", func(ctx context.Context) error {
		return feed.Run(ctx, feed.Config{}, feed.Deps{Brokers: brokers, Namespace: w.h.Kafka().NS, Pool: w.h.DB.Pool, Log: testenv.Log(b)})
	})
	// The per-account counters sum the rows written (each write bumps its
	// account's by the rows it inserts): one row per account, so polling
	// them does not load the writer being timed, as count(*) would.
	testkit.Eventually(b, 5*time.Minute, fmt.Sprintf("%d feed events written", backlog), func() bool {
		var n int64
		if err := w.h.DB.Pool.QueryRow(context.Background(), `SELECT coalesce(sum(last_seq), 0) FROM feed_accounts`).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n >= int64(backlog)
	})
	written := time.Since(t0)
	if _, err := w.h.DB.Pool.Exec(context.Background(), `ANALYZE feed_batches`); err != nil {
		b.Fatal(err)
	}

	// One consumer drains it.
	start := time.Now()
	cursor, n, pages := "", 0, 0
	for n < backlog {
		ids, next, err := w.poll(cursor, 1000, 0)
		if err != nil {
			b.Fatal(err)
		}
		if len(ids) == 0 {
			b.Fatalf("drained %d of %d", n, backlog)
		}
		n += len(ids)
		pages++
		cursor = next
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(n)/elapsed.Seconds(), "drain-events/s")
	b.ReportMetric(float64(backlog)/written.Seconds(), "write-events/s")
	fmt.Printf("feed drain: one consumer read %d events in %d pages of 1000 in %s: %.0f events/s (the feed stage wrote them from the events topic at %.0f events/s over %d subscriptions)\n",
		n, pages, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), float64(backlog)/written.Seconds(), subs)
}
