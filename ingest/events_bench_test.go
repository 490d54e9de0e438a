package ingest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// BenchmarkPostEvents measures POST /events through the real stack (key
// check with the cache, body
// check, produce acknowledged by the broker) with 32 concurrent clients (BENCH_CLIENTS overrides).
// "memory" is kfake in memory; "fsync" is the embedded broker with a log
// on disk and an fsync per produce. "separate" gives each request a record
// and a produce of its own; "combined" has concurrent ones share them
// (EventsDeps.Combine, as `contrack` runs by default); BENCH_LINGER (a Go
// duration) sets their EventsDeps.Linger.
//
//	go test -run '^$' -bench PostEvents -benchtime 20000x ./ingest/
func BenchmarkPostEvents(b *testing.B) {
	for _, mode := range []string{"memory", "fsync"} {
		for _, combine := range []bool{false, true} {
			name := mode + "/separate"
			if combine {
				name = mode + "/combined"
			}
			b.Run(name, func(b *testing.B) { benchPostEvents(b, mode, combine) })
		}
	}
}

func benchPostEvents(b *testing.B, mode string, combine bool) {
	db := testenv.Postgres(b)
	var brokers []string
	var ns schemas.Namespace
	if mode == "fsync" {
		dir, _ := os.MkdirTemp("", "contrack-bench-kafka")
		b.Cleanup(func() { os.RemoveAll(dir) })
		br, err := kafka.StartEmbedded("127.0.0.1:0", dir, 6, 0, testenv.Log(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(br.Close)
		brokers = []string{br.Addr()}
		cl := testenv.KafkaClient(b, brokers)
		if err := kafka.EnsureTopics(context.Background(), cl, "", 6, schemas.AllTopics...); err != nil {
			b.Fatal(err)
		}
	} else {
		kc := testenv.Kafka(b, 6)
		brokers, ns = kc.Brokers, kc.NS
	}
	store := auth.NewStore(db.Pool)
	keys := auth.NewCachedAuthenticator(store, time.Minute, testenv.Log(b))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	testenv.RunStage(b, "api-key-cache", keys.Run)
	// No rate limiter: one key here stands for the traffic of many carriers.
	srv := httpapi.New(httpapi.Config{Log: testenv.Log(b), Auth: keys})
	producer := testenv.KafkaClient(b, brokers)
	linger, _ := time.ParseDuration(os.Getenv("BENCH_LINGER"))
	ingest.RegisterEvents(srv.Fuego, ingest.EventsDeps{Producer: producer, Namespace: ns, Log: testenv.Log(b), Check: pushed.Check,
		Combine: combine, Linger: linger})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	key, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "bench", Env: "live", Role: auth.RoleCarrier, SCAC: "MAEU", Plan: "enterprise"})
	if err != nil {
		b.Fatal(err)
	}
	testkit.Eventually(b, 10*time.Second, "the key cache listening", keys.Listening)

	clients := 32
	if v, err := strconv.Atoi(os.Getenv("BENCH_CLIENTS")); err == nil && v > 0 {
		clients = v
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	body := equipmentEvent
	latencies := make([]time.Duration, b.N)
	var next atomic.Int64
	var failures atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				req, _ := http.NewRequest("POST", ts.URL+"/events", strings.NewReader(body))
				req.Header.Set("x-api-key", key)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					failures.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body) // drained for the connection's reuse; the status is what is checked
				resp.Body.Close()
				latencies[i] = time.Since(t0)
				if resp.StatusCode != 200 {
					failures.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if f := failures.Load(); f > 0 {
		b.Fatalf("%d of %d requests failed", f, b.N)
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	if testing.Verbose() {
		fmt.Printf("POST /events %s: %d requests in %v\n", mode, b.N, elapsed)
	}
}
