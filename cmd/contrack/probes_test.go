package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/ingest/poller"
	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
)

// countingCarriers is the sandbox carriers behind a counter of token and
// events requests and of events requests in flight (the most at once).
type countingCarriers struct {
	url                  string
	tokens, events       atomic.Int64
	inflight, maxInFlite atomic.Int64
	delay                time.Duration
}

func newCountingCarriers(t *testing.T, delay time.Duration) *countingCarriers {
	c := &countingCarriers{delay: delay}
	h := sandbox.NewHandler(sandbox.Config{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "token") {
			c.tokens.Add(1)
		} else {
			c.events.Add(1)
			n := c.inflight.Add(1)
			defer c.inflight.Add(-1)
			for m := c.maxInFlite.Load(); n > m && !c.maxInFlite.CompareAndSwap(m, n); m = c.maxInFlite.Load() {
			}
			time.Sleep(c.delay) // the carrier's answer time, so calls overlap
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c.url = strings.TrimPrefix(ts.URL, "http://")
	return c
}

// TestCarrierProbesThroughTheGates: POST /carrier/health-check (and carrier
// inference, the same prober) goes through the poller's gates: the
// carrier's one adapter (a token is fetched once for many checks), the
// carrier-wide concurrency where the carrier has a platform-wide cap (never
// more calls at once than it allows, whatever the number of accounts), the account's pause after repeated
// failures (so health checks are no credential-testing oracle), and the
// account's own probe budget.
func TestCarrierProbesThroughTheGates(t *testing.T) {
	carriers := newCountingCarriers(t, 150*time.Millisecond)
	h := newHarness(t, Config{
		SandboxAddr: carriers.url,
		// MAEU has a platform-wide cap here (carriers have none unless
		// configured): one call at a time over all accounts.
		Poller: poller.Config{CarrierRate: map[string]float64{"sandbox/MAEU": 100}, CarrierConcurrency: 1,
			AccountConcurrency: 1, AccountFailures: 3, RetryBase: time.Minute},
		Commands: commandapi.Config{ProbesPerMinute: 5},
	})
	check := func(key, scac string) (int, map[string]any, http.Header) {
		code, hdr, m, _ := h.do("POST", "/carrier/health-check", map[string]string{"x-api-key": key}, []byte(`{"scacCode":"`+scac+`"}`))
		return code, m, hdr
	}
	account := func(slug, scac, creds string) string {
		key, _ := h.key(auth.CreateKeyParams{ClientSlug: slug, Env: "sandbox"})
		if code, _, m, _ := h.do("POST", "/carrier/credentials", map[string]string{"x-api-key": key}, []byte(`{"`+scac+`":`+creds+`}`)); code != 200 {
			t.Fatalf("credentials: %d %v", code, m)
		}
		return key
	}

	// The token carrier's token is fetched once for three checks.
	a := account("tokens", "EGLV", `{"clientId":"sbx-eglv","clientSecret":"s"}`)
	for range 3 {
		if code, m, _ := check(a, "EGLV"); code != 200 || m["status"] != "OK" {
			t.Fatalf("EGLV health check: %d %v", code, m)
		}
	}
	if n := carriers.tokens.Load(); n != 1 {
		t.Fatalf("3 health checks fetched %d tokens, want 1 (the gates' adapter caches it)", n)
	}

	// Three accounts checking MAEU at once: one call at a time (the
	// carrier's concurrency is 1 here), every check answered.
	var wg sync.WaitGroup
	for _, slug := range []string{"one", "two", "three"} {
		key := account(slug, "MAEU", `{"apiKey":"sbx-maeu"}`)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code, m, _ := check(key, "MAEU"); code != 200 || m["status"] != "OK" {
				t.Errorf("MAEU health check of %s: %d %v", slug, code, m)
			}
		}()
	}
	wg.Wait()
	if n := carriers.maxInFlite.Load(); n != 1 {
		t.Fatalf("%d calls reached the carrier at once, over its concurrency of 1", n)
	}

	// Refused credentials pause the account's calls after 3 failures: the
	// fourth check is refused without reaching the carrier.
	bad := account("oracle", "MAEU", `{"apiKey":"invalid"}`)
	for range 3 {
		if code, m, _ := check(bad, "MAEU"); code != 200 || m["status"] != "UNAUTHORIZED" {
			t.Fatalf("refused credentials: %d %v", code, m)
		}
	}
	before := carriers.events.Load()
	code, m, hdr := check(bad, "MAEU")
	if code != 429 || m["message"] != "Calls to MAEU with this account's credentials are paused after repeated failures; try again later" || hdr.Get("Retry-After") == "" {
		t.Fatalf("after 3 refusals: %d %v %v", code, m, hdr)
	}
	if carriers.events.Load() != before {
		t.Fatal("a paused account's check reached the carrier")
	}

	// The account's budget: 5 probes a minute; 3 were spent.
	for range 2 {
		if code, _, _ := check(a, "EGLV"); code != 200 {
			t.Fatalf("within the budget: %d", code)
		}
	}
	code, m, hdr = check(a, "EGLV")
	if code != 429 || !strings.HasPrefix(m["message"].(string), "Too many carrier probes: an account may make 5 a minute") || hdr.Get("Retry-After") == "" {
		t.Fatalf("over the budget: %d %v %v", code, m, hdr)
	}
	if code, m, _ := check(account("fresh", "EGLV", `{"clientId":"sbx-eglv","clientSecret":"s"}`), "EGLV"); code != 200 || m["status"] != "OK" {
		t.Fatalf("another account's budget: %d %v", code, m)
	}

	// In a process running both (contrack all), the poller's polls and the
	// API's probes pass the same gates.
	cfg := Config{SandboxAddr: carriers.url}
	if pollerDeps(cfg, testenv.Log(t), h.in).Gates != h.in.carrierGates(cfg, testenv.Log(t)) {
		t.Fatal("the poller and the API's probes have gates of their own")
	}
}
