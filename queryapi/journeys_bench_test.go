package queryapi_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/projector/journey/journeytest"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/deliveries"
	"github.com/contrack/contrack/schemas/journeys"
)

// BenchmarkJourneyPull seeds CONTRACK_BENCH_JOURNEYS (default 100,000)
// container journeys shaped like the sandbox's straight into the read model,
// then, over HTTP with 32 connections while events are ingested at 200/s
// through the projector, pulls Zipf-distributed (s=1.1) and then uniformly
// random containers, and GET /account as the server's floor. It prints
// req/s and latencies, the process's memory with the cache's size, and the
// freshness of pulls: from an event's webhook delivery (the delivery stage
// runs, posting to a local receiver) to its presence in the pull. It runs
// once per invocation (b.N is not a count of anything here).
//
//	go test -run '^$' -bench JourneyPull -benchtime 1x ./queryapi/
func BenchmarkJourneyPull(b *testing.B) {
	if b.N > 1 {
		return // the first run (b.N == 1) measured; -benchtime Nx runs it again with N
	}
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("CONTRACK_BENCH_JOURNEYS")); err == nil && v > 0 {
		n = v
	}
	db := testenv.Postgres(b)
	ch := testenv.ClickHouse(b)
	// The delivery stage's harness: its Kafka is the benchmark's.
	dh := deliverytest.NewOn(b, db, false)
	dh.Partitions = 6
	kc := dh.Kafka()
	brokers := kc.Brokers
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := auth.NewStore(db.Pool)
	_, k, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "bench", Env: "sandbox", Plan: "enterprise"})
	if err != nil {
		b.Fatal(err)
	}
	// A key per connection: the plan's rate is per key.
	keys := make([]string, 32)
	for i := range keys {
		if keys[i], _, err = store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "bench", Env: "sandbox"}); err != nil {
			b.Fatal(err)
		}
	}

	// Templates: sandbox journeys of every format, mid-way, as the projector derives them.
	type template struct {
		res    journeys.Result
		chunks []string
		ves    string
		enh    string
	}
	var templates []template
	around := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range journeytest.Cases() {
		if c.Kind != "container" {
			continue
		}
		st := &journey.State{}
		st.ApplySubscription(schemas.SubscriptionChanged{TrackingID: "t", SCAC: c.SCAC, IdentifierKind: "container", Identifier: c.Value, TrackingOpen: true})
		seen := map[string]string{}
		polls := c.Polls(around, 24*time.Hour)
		for _, at := range polls[:len(polls)/2] {
			evs, err := c.Poll(k.Account.ID, "t", at, seen)
			if err != nil {
				b.Fatal(err)
			}
			for _, ev := range evs {
				st.ApplyEvent(ev)
			}
		}
		r := journey.Derive(st)[0]
		var chunks []string // as the projector writes them
		for lo := 0; lo < len(r.SourceEvents); lo += projector.SourceChunkEvents {
			chunks = append(chunks, string(journey.AppendArray(nil, r.SourceEvents[lo:min(lo+projector.SourceChunkEvents, len(r.SourceEvents))])))
		}
		ves, _ := json.Marshal(r.VesselEvents)
		enh, _ := json.Marshal(r.EnhancedEvents)
		templates = append(templates, template{res: r, chunks: chunks, ves: string(ves), enh: string(enh)})
	}
	container := func(i int) string { return fmt.Sprintf("BNCH%07d", i) }
	trackingID := func(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }
	seedStart := time.Now()
	if err := projector.EnsureJourneyTables(ctx, ch.Conn, 1); err != nil {
		b.Fatal(err)
	}
	var bytes int64
	for lo := 0; lo < n; lo += 5000 {
		var rows, chunkRows [][]any
		for i := lo; i < min(lo+5000, n); i++ {
			t := templates[i%len(templates)]
			c := container(i)
			versions := make([]uint64, len(t.chunks))
			for j, chunk := range t.chunks {
				chunk = strings.ReplaceAll(chunk, t.res.EquipmentNumber, c)
				bytes += int64(len(chunk))
				versions[j] = 1
				chunkRows = append(chunkRows, []any{k.Account.ID, "container", c, trackingID(i), c, uint32(j), chunk, uint64(1)})
			}
			src := "" // in its chunks
			if len(t.chunks) == 0 {
				src = "[]"
			}
			bytes += int64(len(t.ves) + len(t.enh))
			rows = append(rows, []any{k.Account.ID, "sandbox", "container", c, trackingID(i), seedStart.UTC().Truncate(time.Second), uint16(0),
				c, t.res.ScacCode, "OPEN", t.res.POL, t.res.POD, t.res.LastLocation, src, versions, t.ves, t.enh, seedStart.UTC().Truncate(time.Second), uint64(1)})
		}
		if err := clickhouse.Insert(ctx, ch.Conn, journeys.ChunksTable(1), []string{"account_id", "lookup_kind", "lookup_value", "tracking_id",
			"equipment_number", "chunk", "events", "version"}, chunkRows...); err != nil {
			b.Fatal(err)
		}
		if err := clickhouse.Insert(ctx, ch.Conn, journeys.JourneysTable(1), []string{"account_id", "env", "lookup_kind", "lookup_value", "tracking_id", "since", "position",
			"equipment_number", "scac", "tracking_status", "pol", "pod", "last_location", "source_events", "source_chunks", "vessel_events", "enhanced_events",
			"updated_at", "version"}, rows...); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d journeys (%.0f MB of encoded events) in %s", n, float64(bytes)/1e6, time.Since(seedStart).Round(time.Second))

	// The serving process: API with the cache following journey changes, and the projector.
	pcfg := projector.Config{}
	testenv.RunStage(b, "projector", func(ctx context.Context) error {
		return projector.Run(ctx, pcfg, projector.Deps{Brokers: brokers, Namespace: kc.NS, CH: ch.Conn, Log: testenv.Log(b)})
	})
	journeys := queryapi.NewJourneys(queryapi.JourneysConfig{CacheBytes: 256 << 20}, ch.Conn, testenv.Log(b))
	go func() {
		if err := journeys.Run(ctx, brokers, kc.NS); err != nil {
			fmt.Println("journey change follower:", err)
		}
	}()
	warmStart := time.Now()
	select {
	case <-journeys.Warmed():
	case <-time.After(10 * time.Minute):
		b.Fatal("the journey cache did not warm in 10 minutes")
	}
	fmt.Printf("journey cache warmed in %s: %d lookups, %d MB (bound 256 MB)\n", time.Since(warmStart).Round(100*time.Millisecond),
		journeys.CachedLookups(), journeys.CacheBytes()>>20)
	runtime.GC() // what the seeding and warming left is garbage now: the live heap serving starts with
	fmt.Printf("live heap after warming: %d MB\n", int64(readRT().values["/gc/heap/live:bytes"])>>20)
	// The API as cmd/contrack serves it: keys from the revocation-aware
	// cache, the usage plan's daily quota counted in memory.
	keyCache := auth.NewCachedAuthenticator(store, time.Minute, testenv.Log(b))
	testenv.RunStage(b, "api-key-cache", keyCache.Run)
	usage := auth.NewDailyUsage(db.Pool, auth.DefaultUsageFlush, testenv.Log(b))
	testenv.RunStage(b, "api-daily-quota", usage.Run)
	srv := httpapi.New(httpapi.Config{Version: "bench", Log: testenv.Log(b), Auth: keyCache, Limiter: httpapi.NewRateLimiter().WithQuota(usage)})
	queryapi.Register(srv.Fuego, queryapi.Deps{Pool: db.Pool, CH: ch.Conn, TokenKey: []byte("k"), Journeys: journeys})
	api := httptest.NewServer(srv.Handler())
	defer api.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}
	// The load reads answers as they come (gzip, asked for explicitly, so
	// the transport does not inflate them) and drops them: the generator
	// shares the server's process and heap, and inflating ~22 kB per pull
	// (a new inflater each) made it the process's main allocator, its
	// garbage collections the server's. The freshness pollers, which look
	// into the answer, inflate it. CONTRACK_BENCH_INFLATE=1 inflates every
	// answer as before.
	inflateAll := os.Getenv("CONTRACK_BENCH_INFLATE") == "1"
	// plain asks for answers without gzip (Accept-Encoding: identity), as a
	// client that does not send Accept-Encoding gets them.
	var plain atomic.Bool
	get := func(path, key string, inflate bool) (int, []byte, time.Duration) {
		req, _ := http.NewRequest("GET", api.URL+path, nil)
		req.Header.Set("x-api-key", key)
		if plain.Load() {
			req.Header.Set("Accept-Encoding", "identity")
		} else if !inflateAll {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, time.Since(start)
		}
		defer resp.Body.Close()
		var body []byte
		switch {
		case inflateAll:
			body, _ = io.ReadAll(resp.Body)
		case !inflate:
			_, _ = io.Copy(io.Discard, resp.Body) // drained for the connection's reuse; the status is what is checked
		case resp.Header.Get("Content-Encoding") == "gzip":
			if zr, err := gzip.NewReader(resp.Body); err == nil {
				body, _ = io.ReadAll(zr)
			}
		default:
			body, _ = io.ReadAll(resp.Body)
		}
		return resp.StatusCode, body, time.Since(start)
	}

	// Webhook delivery of the first 2,000 containers' events to a local
	// receiver: the account's webhook and subscriptions, as the API makes them.
	type sample struct {
		container string
		acked     time.Time
	}
	var samples sync.Map // event id -> sample, for 10 events a second
	var pending atomic.Int64
	var fresh, delivered []time.Duration
	var freshMu sync.Mutex
	ingestCtx, stopIngest := context.WithCancel(ctx)     // the freshness pollers
	produceCtx, stopProducing := context.WithCancel(ctx) // the events
	var ingestWG sync.WaitGroup
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := time.Now()
		var p deliveries.Payload
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			w.WriteHeader(400)
			return
		}
		w.WriteHeader(204)
		for _, raw := range p.Events {
			var ev struct{ EventID string }
			if err := json.Unmarshal(raw, &ev); err != nil {
				b.Fatal(err)
			}
			v, ok := samples.LoadAndDelete(ev.EventID)
			if !ok {
				continue
			}
			pending.Add(-1)
			s := v.(sample)
			freshMu.Lock()
			delivered = append(delivered, got.Sub(s.acked))
			freshMu.Unlock()
			ingestWG.Add(1)
			go func() { // polled every 20 ms: the measurement must not be the load
				defer ingestWG.Done()
				for ingestCtx.Err() == nil && time.Since(got) < 10*time.Second {
					if code, body, _ := get("/subscription/equipment?equipmentNumber="+s.container, keys[0], true); code == 200 && strings.Contains(string(body), ev.EventID) {
						freshMu.Lock()
						fresh = append(fresh, time.Since(got))
						freshMu.Unlock()
						return
					}
					time.Sleep(20 * time.Millisecond) // the polling pace of the measurement
				}
			}()
		}
	}))
	defer receiver.Close()
	dh.Webhook(k.Account.ID, receiver.URL, true)
	dh.Exec(`INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status, open_subscriptions)
		SELECT ('00000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid, $1, 'sandbox', 'MAEU', 'container', 'BNCH' || lpad(i::text, 7, '0'), 'CONNECTED', 1
		FROM generate_series(0, 1999) i`, k.Account.ID)
	dh.Exec(`INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
		SELECT gen_random_uuid(), $1, 'bench-' || i, ('00000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid, 'MAEU', 'BNCH' || lpad(i::text, 7, '0'), 'OPEN', now(), now() + interval '90 days'
		FROM generate_series(0, 1999) i`, k.Account.ID)
	dh.Start(deliverytest.Config())

	// Ingest at 200 events/s: subscription changes then events for the first
	// 2,000 containers, through the projector and the delivery stage.
	// Produced asynchronously, paced by the clock (a slow acknowledgement
	// must not lower the rate); the rate reached is printed.
	prod := testenv.KafkaClient(b, brokers)
	var ingested atomic.Int64
	ingestRate := 200.0
	if v, err := strconv.ParseFloat(os.Getenv("CONTRACK_BENCH_INGEST_RATE"), 64); err == nil {
		ingestRate = v
	}
	ingestStart := time.Now()
	ingestWG.Add(1)
	go func() {
		defer ingestWG.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for i := 0; produceCtx.Err() == nil; i++ {
			for float64(i) >= time.Since(ingestStart).Seconds()*ingestRate {
				select {
				case <-produceCtx.Done():
					return
				case <-tick.C:
				}
			}
			c := i % 2000
			trk := trackingID(c)
			var recs []*kgo.Record
			if i < 2000 {
				v, _ := json.Marshal(schemas.SubscriptionChanged{ID: trk, AccountID: k.Account.ID, Env: "sandbox", TrackingID: trk, SCAC: "MAEU",
					IdentifierKind: "container", Identifier: container(c), Status: "OPEN", TrackingOpen: true, OccurredAt: seedStart})
				recs = append(recs, &kgo.Record{Topic: kc.Topic(schemas.TopicSubscriptions), Key: []byte(trk), Value: v})
			}
			id := fmt.Sprintf("ev-%d", i)
			at := time.Now().UTC().Format(time.RFC3339)
			ev, _ := json.Marshal(dcsa.Event{EventID: id, EventType: dcsa.EventTypeEquipment, EventClassifierCode: "ACT", EventDateTime: at, EventCreatedDateTime: at,
				EquipmentEventTypeCode: "GTIN", EquipmentReference: container(c), EmptyIndicatorCode: "LADEN", EventLocation: &dcsa.Location{UNLocationCode: "NLRTM"}})
			v, _ := json.Marshal(schemas.EventRecord{TrackingID: trk, AccountID: k.Account.ID, Env: "sandbox", SCAC: "MAEU", EventID: id, ContentHash: id, Event: ev, EmittedAt: time.Now().UTC()})
			recs = append(recs, &kgo.Record{Topic: kc.Topic(schemas.TopicEvents), Key: []byte(trk), Value: v, Headers: []kgo.RecordHeader{
				{Key: schemas.HeaderType, Value: []byte(schemas.TypeEvent)}, {Key: schemas.HeaderID, Value: []byte(id + "/" + id)}}})
			if i%20 == 0 {
				samples.Store(id, sample{container(c), time.Now()})
				pending.Add(1)
			}
			for _, r := range recs {
				prod.Produce(ctx, r, func(r *kgo.Record, err error) {
					if err == nil && r.Topic == kc.Topic(schemas.TopicEvents) {
						ingested.Add(1)
					}
				})
			}
		}
	}()

	// CONTRACK_BENCH_TRACE=file writes a runtime/trace of the run named by
	// CONTRACK_BENCH_TRACE_RUN (a prefix; default the paced GET /account).
	tracePath, traceRun := os.Getenv("CONTRACK_BENCH_TRACE"), os.Getenv("CONTRACK_BENCH_TRACE_RUN")
	if traceRun == "" {
		traceRun = "GET /account at"
	}
	// run drives 32 connections for d: as fast as they go (rate 0), or at
	// rate requests per second in all, each connection sending on its own
	// schedule and latency counted from the scheduled send (open model, so a
	// server that falls behind cannot hide it).
	run := func(name string, d time.Duration, rate float64, path func(r *rand.Rand) string) {
		var lat, late []time.Duration
		var mu sync.Mutex
		var errs atomic.Int64
		var wg sync.WaitGroup
		if tracePath != "" && strings.HasPrefix(name, traceRun) {
			f, err := os.Create(tracePath)
			if err != nil {
				b.Fatal(err)
			}
			if err := trace.Start(f); err != nil {
				b.Fatal(err)
			}
			defer func() {
				trace.Stop()
				if err := f.Close(); err != nil {
					b.Error(err)
				}
			}()
		}
		rt := readRT()
		deadline := time.Now().Add(d)
		start := time.Now()
		for w := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 7))
				var mine, myLate []time.Duration
				var every time.Duration
				next := start
				if rate > 0 {
					every = time.Duration(float64(32*time.Second) / rate)
					next = start.Add(time.Duration(w) * every / 32)
				}
				for time.Now().Before(deadline) {
					if rate > 0 {
						time.Sleep(time.Until(next)) // the schedule, not a wait for a condition
						// How late the generator itself woke: part of every
						// latency below, and not the server's.
						myLate = append(myLate, max(0, time.Since(next)))
					}
					code, _, l := get(path(r), keys[w], false)
					if code != 200 {
						errs.Add(1)
					}
					if rate > 0 {
						l = time.Since(next)
						next = next.Add(every)
					}
					mine = append(mine, l)
				}
				mu.Lock()
				lat, late = append(lat, mine...), append(late, myLate...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		el := time.Since(start)
		slices.Sort(lat)
		q := func(p float64) time.Duration {
			return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(10 * time.Microsecond)
		}
		fmt.Printf("%-34s %8.0f req/s  p50 %-9s p99 %-9s errors %d\n", name, float64(len(lat))/el.Seconds(), q(0.5), q(0.99), errs.Load())
		if len(late) > 0 {
			// The open model counts from the scheduled send; the generator
			// shares the server's process and cores, so a busy moment
			// delays its own wake-ups too.
			slices.Sort(late)
			fmt.Printf("  the generator woke after its schedule: p50 %s p99 %s max %s\n", late[len(late)/2].Round(10*time.Microsecond),
				late[min(len(late)-1, len(late)*99/100)].Round(10*time.Microsecond), late[len(late)-1].Round(10*time.Microsecond))
		}
		fmt.Println(rtDelta(rt, readRT()))
	}
	zipf := func() func(r *rand.Rand) string {
		var mu sync.Mutex
		z := rand.NewZipf(rand.New(rand.NewPCG(1, 2)), 1.1, 1, uint64(n-1))
		perm := rand.New(rand.NewPCG(3, 4)).Perm(n) // hot containers spread over the key space
		return func(*rand.Rand) string {
			mu.Lock()
			i := perm[z.Uint64()]
			mu.Unlock()
			return "/subscription/equipment?equipmentNumber=" + container(i)
		}
	}()
	d := 15 * time.Second
	if v, err := time.ParseDuration(os.Getenv("CONTRACK_BENCH_DURATION")); err == nil {
		d = v
	}
	uniform := func(r *rand.Rand) string {
		return "/subscription/equipment?equipmentNumber=" + container(r.IntN(n))
	}
	account := func(*rand.Rand) string { return "/account" }
	// As fast as 32 connections go (the saturation throughput), then paced at
	// the target rates, where its latency targets apply.
	run("GET /subscription/equipment zipf", d, 0, zipf)
	fmt.Printf("journey cache %d kB\n", journeys.CacheBytes()>>10)
	run("GET /subscription/equipment uniform", d, 0, uniform)
	run("GET /account", 5*time.Second, 0, account)
	// Without gzip: the server sends the uncompressed answer (issue 32: p99
	// within twice GET /account's above).
	plain.Store(true)
	run("zipf without gzip", d, 0, zipf)
	run("uniform without gzip", d, 0, uniform)
	plain.Store(false)
	fmt.Printf("uncompressed answers kept %d kB\n", journeys.IdentityBytes()>>10)
	run("zipf at 2000 req/s", d, 2000, zipf)
	run("uniform at 1000 req/s", d, 1000, uniform)
	run("GET /account at 2000 req/s", 5*time.Second, 2000, account)
	// The sampled events' webhooks may lag: wait for them (up to a minute)
	// with ingest stopped, then for their pulls.
	ingestEnd := time.Now()
	stopProducing()
	// Not testkit.Eventually: the figures are printed with whatever came
	// within the minute, and the missing are reported, not a failure.
	for wait := time.Now().Add(time.Minute); pending.Load() > 0 && time.Now().Before(wait); {
		time.Sleep(50 * time.Millisecond) // polling pace, the condition is the loop's
	}
	stopIngest()
	ingestWG.Wait()
	fmt.Printf("ingest: %d events in %s (%.0f/s)\n", ingested.Load(), ingestEnd.Sub(ingestStart).Round(time.Second), float64(ingested.Load())/ingestEnd.Sub(ingestStart).Seconds())
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("memory: heap in use %d MB, from the OS %d MB; journey cache %d MB (bound 256 MB)\n",
		ms.HeapInuse>>20, ms.Sys>>20, journeys.CacheBytes()>>20)
	freshMu.Lock()
	defer freshMu.Unlock()
	quantiles := func(name string, ds []time.Duration) {
		slices.Sort(ds)
		if len(ds) == 0 {
			fmt.Printf("%s: no samples\n", name)
			return
		}
		fmt.Printf("%s, %d samples: p50 %s p99 %s max %s\n", name, len(ds),
			ds[len(ds)/2].Round(time.Millisecond), ds[min(len(ds)-1, len(ds)*99/100)].Round(time.Millisecond), ds[len(ds)-1].Round(time.Millisecond))
	}
	quantiles("webhook delivery (event produced → webhook received)", delivered)
	quantiles("freshness (webhook received → event in the pull)", fresh)
}
