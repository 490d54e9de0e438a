package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/testenv"
)

func get(t *testing.T, url string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

var metrics = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "# HELP x\n") })

// TestOperatorRoutes: an operator route needs the operator token on the API
// server (constant-time compared), is refused when none is configured, and
// is served without a token by the admin handler.
func TestOperatorRoutes(t *testing.T) {
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	key, _, err := store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{"op-token", ""} {
		srv := httpapi.New(httpapi.Config{Log: testenv.Log(t), Auth: store, OperatorToken: token, Public: []string{"/healthz", "/readyz"}})
		srv.HandleOperator("/metrics", metrics)
		api := httptest.NewServer(srv.Handler())
		defer api.Close()
		admin := httptest.NewServer(srv.AdminHandler())
		defer admin.Close()
		for name, hdr := range map[string]map[string]string{
			"none": nil, "tenant key": {"x-api-key": key}, "wrong": {"Authorization": "Bearer op-tokem"},
			"empty bearer": {"Authorization": "Bearer "}, "prefix": {"Authorization": "Bearer op-toke"},
		} {
			if code, _, body := get(t, api.URL+"/metrics", hdr); code != 403 || body != "{\"message\":\"Forbidden\"}\n" {
				t.Errorf("token %q, %s: %d %s", token, name, code, body)
			}
		}
		code, _, body := get(t, api.URL+"/metrics", map[string]string{"Authorization": "Bearer op-token"})
		if token != "" && (code != 200 || body != "# HELP x\n") {
			t.Errorf("right token: %d %s", code, body)
		}
		if token == "" && code != 403 {
			t.Errorf("no token configured but served: %d", code)
		}
		if code, _, body := get(t, admin.URL+"/metrics", nil); code != 200 || body != "# HELP x\n" {
			t.Errorf("admin /metrics: %d %s", code, body)
		}
		for _, p := range []string{"/healthz", "/readyz"} {
			if code, _, body := get(t, admin.URL+p, nil); code != 200 {
				t.Errorf("admin %s: %d %s", p, code, body)
			}
		}
		if code, _, _ := get(t, admin.URL+"/account", nil); code != 404 {
			t.Errorf("admin serves API routes: %d", code)
		}
	}
}

// TestHealthIsCachedAndReadinessTracksParts: however many /healthz and
// /readyz requests arrive within the interval, every store is probed once;
// /readyz fails while a part of the process is down or a store is not
// answering.
func TestHealthIsCachedAndReadinessTracksParts(t *testing.T) {
	var probes atomic.Int32
	var failing atomic.Bool
	check := httpapi.Check{Name: "postgres", Ping: func(ctx context.Context) error {
		probes.Add(1)
		if failing.Load() {
			return fmt.Errorf("refused")
		}
		return nil
	}}
	health := httpapi.NewHealth([]httpapi.Check{check}, time.Hour, testenv.Log(t))
	srv := httpapi.New(httpapi.Config{Log: testenv.Log(t), Auth: nil, Health: health, Public: []string{"/healthz", "/readyz"}})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := []string{"/healthz", "/readyz"}[i%2]
			if code, _, body := get(t, ts.URL+path, nil); code != 200 {
				t.Errorf("%s: %d %s", path, code, body)
			}
		}()
	}
	wg.Wait()
	if n := probes.Load(); n != 1 {
		t.Fatalf("40 requests probed the store %d times, want 1", n)
	}

	health.SetReady("poller", false)
	health.SetReady("http", true)
	code, _, body := get(t, ts.URL+"/readyz", nil)
	if code != 503 || !strings.Contains(body, "poller not running") {
		t.Fatalf("readyz with a stage down: %d %s", code, body)
	}
	if code, _, _ := get(t, ts.URL+"/healthz", nil); code != 200 {
		t.Fatalf("healthz follows stages: %d", code)
	}
	health.SetReady("poller", true)

	// A failing store: a fresh Health (the hour-long cache above would hide it).
	failing.Store(true)
	h2 := httpapi.NewHealth([]httpapi.Check{check}, time.Hour, testenv.Log(t))
	srv2 := httpapi.New(httpapi.Config{Log: testenv.Log(t), Health: h2, Public: []string{"/healthz", "/readyz"}})
	ts2 := httptest.NewServer(srv2.Handler())
	defer ts2.Close()
	if code, _, body := get(t, ts2.URL+"/readyz", nil); code != 503 || !strings.Contains(body, "postgres not answering") {
		t.Fatalf("readyz with postgres down: %d %s", code, body)
	}
	if code, _, body := get(t, ts2.URL+"/healthz", nil); code != 503 || !strings.Contains(body, "Unavailable: postgres") {
		t.Fatalf("healthz with postgres down: %d %s", code, body)
	}
}

// TestPreAuthLimitPerAddress: requests that are not a known key's are
// limited per client address (429 with Retry-After over it); a cached valid
// key costs nothing, and another address has its own bucket.
func TestPreAuthLimitPerAddress(t *testing.T) {
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cache := auth.NewCachedAuthenticator(store, time.Hour, testenv.Log(t))
	testenv.RunStage(t, "api-key-cache", cache.Run)
	valid, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httpapi.New(httpapi.Config{Log: testenv.Log(t), Auth: cache, PreAuth: httpapi.NewAddrLimiter(0.001, 3, 0),
		PreAuthRefusals: httpapi.NewAddrLimiter(0.001, 1, 0),
		ClientIPHeader:  "X-Real-IP", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, Limiter: httpapi.NewRateLimiter()})
	srv.Fuego.Mux.HandleFunc("GET /ok", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	// The valid key: its first look-up takes a token, then it is cached
	// (once the revocation listener is up).
	waitCached(t, ctx, cache, valid)
	unknown := func(i int) string { return fmt.Sprintf("ct_sandbox_%043d", i) }
	for i := range 3 {
		if code, _, body := get(t, ts.URL+"/ok", map[string]string{"x-api-key": unknown(i)}); code != 403 {
			t.Fatalf("unknown key %d within the burst: %d %s", i, code, body)
		}
	}
	code, hdr, body := get(t, ts.URL+"/ok", map[string]string{"x-api-key": unknown(99)})
	if code != 429 || body != "{\"message\":\"Too Many Requests\"}\n" || hdr.Get("Retry-After") == "" {
		t.Fatalf("over the pre-auth limit: %d %q Retry-After %q", code, body, hdr.Get("Retry-After"))
	}
	// Refusals from memory have their own bucket (they cost CPU, not the
	// store): the negatively cached key is refused once from memory, then
	// that bucket is empty too.
	if code, _, _ := get(t, ts.URL+"/ok", map[string]string{"x-api-key": unknown(0)}); code != 403 {
		t.Fatalf("negatively cached key within the refusals' burst: %d", code)
	}
	if code, _, _ := get(t, ts.URL+"/ok", map[string]string{"x-api-key": unknown(0)}); code != 429 {
		t.Fatalf("negatively cached key over the refusals' limit: %d", code)
	}
	if code, _, body := get(t, ts.URL+"/ok", map[string]string{"x-api-key": valid}); code != 200 || body != "ok" {
		t.Fatalf("cached valid key from the flooding address: %d %s", code, body)
	}
	if code, _, _ := get(t, ts.URL+"/ok", map[string]string{"x-api-key": unknown(100), "X-Real-IP": "192.0.2.7"}); code != 403 {
		t.Fatalf("another address shares the bucket: %d", code)
	}
}

// TestClientAddressHeaderOnlyFromTrustedProxies: the client address header
// is believed only on connections from CONTRACK_TRUSTED_PROXIES; from any
// other peer a client sending its own X-Real-IP (a new one per request) is
// still charged to its connection's address and refused once that is over
// its limit. Behind a trusted proxy the header names the client, read from
// the nearest hop: a client cannot spoof the hops its proxy appended.
func TestClientAddressHeaderOnlyFromTrustedProxies(t *testing.T) {
	db := testenv.Postgres(t)
	cache := auth.NewCachedAuthenticator(auth.NewStore(db.Pool), time.Hour, testenv.Log(t))
	server := func(trusted string) string {
		ps, err := httpapi.ParseTrustedProxies([]string{trusted})
		if err != nil {
			t.Fatal(err)
		}
		// Requests without a key are refused from memory and charged to
		// PreAuthRefusals: one per address, none refilled during the test.
		srv := httpapi.New(httpapi.Config{Log: testenv.Log(t), Auth: cache, PreAuthRefusals: httpapi.NewAddrLimiter(0.001, 1, 0),
			ClientIPHeader: "X-Real-IP", TrustedProxies: ps, Limiter: httpapi.NewRateLimiter()})
		ts := httptest.NewServer(srv.Handler())
		t.Cleanup(ts.Close)
		return ts.URL
	}
	code := func(url string, header ...string) int {
		req, _ := http.NewRequest("GET", url+"/account", nil)
		for _, h := range header {
			req.Header.Add("X-Real-IP", h)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	// The test's connections come from 127.0.0.1, which is not trusted.
	untrusted := server("10.0.0.0/8")
	if got := code(untrusted, "192.0.2.1"); got != 403 {
		t.Fatalf("first request: %d, want 403", got)
	}
	for i := 2; i < 5; i++ {
		if got := code(untrusted, fmt.Sprintf("192.0.2.%d", i)); got != 429 {
			t.Fatalf("a spoofed X-Real-IP from an untrusted peer got a bucket of its own: %d, want 429", got)
		}
	}

	trusted := server("127.0.0.0/8")
	for i := 1; i < 4; i++ {
		if got := code(trusted, fmt.Sprintf("192.0.2.%d", i)); got != 403 {
			t.Fatalf("client 192.0.2.%d behind a trusted proxy: %d, want 403 (its own bucket)", i, got)
		}
	}
	if got := code(trusted, "192.0.2.1"); got != 429 {
		t.Fatalf("client 192.0.2.1 again: %d, want 429", got)
	}
	// A client's own header value comes first; the proxy appends the
	// address it saw, and trusted hops nearer still are skipped.
	if got := code(trusted, "192.0.2.99, 198.51.100.7", "127.0.0.5"); got != 403 {
		t.Fatalf("198.51.100.7's first request: %d", got)
	}
	if got := code(trusted, "192.0.2.100, 198.51.100.7"); got != 429 {
		t.Fatalf("198.51.100.7 escaped its bucket by prepending an address: %d", got)
	}
}

// TestAddrLimiterIsBounded: the per-address map forgets the least recently
// seen address beyond its bound.
func TestAddrLimiterIsBounded(t *testing.T) {
	l := httpapi.NewAddrLimiter(1, 1, 100)
	for i := range 1000 {
		l.Allow(fmt.Sprintf("10.0.%d.%d", i/256, i%256), 0)
	}
	if n := l.Len(); n != 100 {
		t.Fatalf("holds %d addresses, want 100", n)
	}
	// IPv6 addresses of one /64 share a bucket.
	if _, ok := l.Allow("2001:db8::1", 0); !ok {
		t.Fatal("first v6 request refused")
	}
	if _, ok := l.Allow("2001:db8::2", 0); ok {
		t.Fatal("another address of the same /64 got its own bucket")
	}
}

// TestCheckJSONText: escaped control characters and invalid UTF-8 in JSON
// strings are refused; tab and line breaks, an escaped backslash before
// "u0000" and ordinary non-ASCII text pass.
func TestCheckJSONText(t *testing.T) {
	for body, ok := range map[string]bool{
		`{"a":"x\u0000"}`: false, `{"a":"\u001F"}`: false, `{"a":"\u007f"}`: false, `{"a":"\u0085"}`: false,
		"{\"a\":\"\x7f\"}": false, "{\"a\":\"\xff\"}": false, "{\"a\":\"\xc2\x85\"}": false, "{\"\x00\":1}": false,
		`{"a":"\\u0000"}`: true, `{"a":"tab\tnl\nret\r"}`: true, `{"a":"Zürich ✓ 港"}`: true, `{"a":"\u00e9\"q\""}`: true,
	} {
		if err := httpapi.CheckJSONText([]byte(body)); (err == nil) != ok {
			t.Errorf("%q: err %v, want ok=%v", body, err, ok)
		}
	}
}

// A client a little over its address's pre-authentication rate is slowed,
// not refused: requests within MaxPreAuthWait of a token get their normal
// answer (403 for an unknown key), after waiting for it.
func TestPreAuthSlowsBeforeItRefuses(t *testing.T) {
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	srv := httpapi.New(httpapi.Config{Log: testenv.Log(t), Auth: auth.NewCachedAuthenticator(store, time.Hour, testenv.Log(t)),
		PreAuth: httpapi.NewAddrLimiter(10, 1, 0), Limiter: httpapi.NewRateLimiter()})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	start := time.Now()
	for i := range 4 {
		code, _, body := get(t, ts.URL+"/subscriptions", map[string]string{"x-api-key": fmt.Sprintf("ct_sandbox_%043d", i)})
		if code != 403 || body != "{\"message\":\"Forbidden\"}\n" {
			t.Fatalf("request %d at 10/s with a burst of 1: %d %s, want the normal 403", i, code, body)
		}
	}
	// Three of the four waited for a token at 10/s.
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Fatalf("4 requests at a limit of 10/s took %s: not paced", d)
	}
}
