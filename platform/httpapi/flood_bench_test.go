package httpapi_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
)

// BenchmarkFlood measures a valid key's request latency (p50/p99, a
// Postgres query per request, as the API's handlers make) quiet, then while
// other goroutines flood the server at full speed with random well-formed
// keys from the same address, and reports both and the p99 ratio (target:
// ≤ 2). "protected" is contrack's wiring (negative key cache, pre-auth limit
// per address at the default 20/s); "unprotected" is the plain store, every
// flood request a Postgres query on the pool the valid requests need.
//
//	go test -run '^$' -bench Flood -benchtime 3000x ./platform/httpapi/
func BenchmarkFlood(b *testing.B) {
	b.Run("protected", func(b *testing.B) { benchFlood(b, true) })
	b.Run("unprotected", func(b *testing.B) { benchFlood(b, false) })
}

func benchFlood(b *testing.B, protected bool) {
	db := testenv.Postgres(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := auth.NewStore(db.Pool)
	valid, k, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		b.Fatal(err)
	}
	cfg := httpapi.Config{Log: testenv.Log(b), Auth: store}
	if protected {
		cache := auth.NewCachedAuthenticator(store, time.Minute, testenv.Log(b))
		testenv.RunStage(b, "api-key-cache", cache.Run)
		cfg.Auth = cache
		cfg.PreAuth, cfg.PreAuthRefusals = httpapi.NewAddrLimiter(20, 40, 0), httpapi.NewAddrLimiter(200, 400, 0) // the defaults
		// Wait for the revocation listener so the valid key is cached.
		waitCached(b, ctx, cache, valid)
	}
	srv := httpapi.New(cfg)
	// A handler shaped like the API's: one indexed Postgres read.
	srv.Fuego.Mux.HandleFunc("GET /work", func(w http.ResponseWriter, r *http.Request) {
		var n int
		if err := db.Pool.QueryRow(r.Context(), `SELECT count(*) FROM accounts WHERE id = $1`, k.Account.ID).Scan(&n); err != nil {
			httpapi.WriteError(w, r, cfg.Log, err)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	validClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	send := func(c *http.Client, key string) (int, error) {
		req, _ := http.NewRequest("GET", ts.URL+"/work", nil)
		req.Header.Set("x-api-key", key)
		resp, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body) // drained for the connection's reuse; the status is what is checked
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	measure := func(n int) []time.Duration {
		lat := make([]time.Duration, 0, n)
		for range n {
			start := time.Now()
			code, err := send(validClient, valid)
			if err != nil || code != 200 {
				b.Fatalf("valid request: %d %v", code, err)
			}
			lat = append(lat, time.Since(start))
		}
		slices.Sort(lat)
		return lat
	}
	pct := func(lat []time.Duration, p float64) float64 {
		return float64(lat[min(len(lat)-1, int(float64(len(lat))*p))].Microseconds()) / 1000
	}

	measure(min(b.N, 200)) // warm up connections and the pool
	b.ResetTimer()
	quiet := measure(b.N)

	const flooders = 8
	floodClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: flooders}}
	var sent, refused429, refused403 atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range flooders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw := make([]byte, 32)
			for {
				select {
				case <-stop:
					return
				default:
				}
				rand.Read(raw)
				code, err := send(floodClient, "ct_sandbox_"+base64.RawURLEncoding.EncodeToString(raw))
				if err != nil {
					continue
				}
				sent.Add(1)
				switch code {
				case 429:
					refused429.Add(1)
				case 403:
					refused403.Add(1)
				}
			}
		}()
	}
	testkit.Eventually(b, 30*time.Second, "the flood at full speed before measuring", func() bool { return sent.Load() >= 200 })
	floodStart, sentBefore := time.Now(), sent.Load()
	flood := measure(b.N)
	floodRate := float64(sent.Load()-sentBefore) / time.Since(floodStart).Seconds()
	close(stop)
	wg.Wait()
	b.StopTimer()

	b.ReportMetric(pct(quiet, 0.50), "quiet-p50-ms")
	b.ReportMetric(pct(quiet, 0.99), "quiet-p99-ms")
	b.ReportMetric(pct(flood, 0.50), "flood-p50-ms")
	b.ReportMetric(pct(flood, 0.99), "flood-p99-ms")
	b.ReportMetric(pct(flood, 0.99)/pct(quiet, 0.99), "p99-ratio")
	b.ReportMetric(floodRate, "flood-req/s")
	b.ReportMetric(float64(refused429.Load())/float64(max(1, sent.Load())), "flood-429-share")
	b.ReportMetric(0, "ns/op")
}
