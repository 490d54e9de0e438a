package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/testenv"
)

type echoBody struct {
	Name string `json:"name"`
}

func register(s *fuego.Server) {
	fuego.Post(s, "/echo", func(c fuego.ContextNoBody) (echoBody, error) {
		var b echoBody
		if err := httpapi.DecodeJSON(c.Request(), &b); err != nil {
			return b, err
		}
		if b.Name == "" {
			return b, httpapi.BadRequest("Missing Parameter 'name'")
		}
		return b, nil
	})
	fuego.Get(s, "/boom", func(c fuego.ContextNoBody) (echoBody, error) {
		return echoBody{}, errors.New("database password=hunter2 exploded")
	})
	// A real Postgres connection to a port nothing listens on: a store out
	// of reach, as during a restart.
	fuego.Get(s, "/store-down", func(c fuego.ContextNoBody) (echoBody, error) {
		conn, err := pgx.Connect(c.Context(), "postgres://postgres:hunter2@127.0.0.1:1/x?connect_timeout=2")
		if err == nil {
			conn.Close(c.Context())
		}
		return echoBody{}, fmt.Errorf("look-up: %w", err)
	})
}

func TestKeyCheckComesFirst(t *testing.T) {
	db := testenv.Postgres(t)
	api := testenv.NewAPI(t, db.Pool, register)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	revoked := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if _, err := api.Store.RevokeKey(context.Background(), revoked); err != nil {
		t.Fatal(err)
	}
	for name, k := range map[string]string{"missing": "", "unknown": "ct_sandbox_unknown", "revoked": revoked} {
		for _, path := range []string{"/echo", "/no-such-path"} {
			r := api.Do("POST", path, k, "{not json")
			if r.Status != 403 || string(r.Raw) != "{\"message\":\"Forbidden\"}\n" {
				t.Errorf("%s key POST %s: %d %s", name, path, r.Status, r.Raw)
			}
		}
	}
	if r := api.Do("POST", "/echo", key, `{"name":"x"}`); r.Status != 200 || r.JSON["name"] != "x" {
		t.Errorf("good key: %d %s", r.Status, r.Raw)
	}
}

func TestBodiesAndErrors(t *testing.T) {
	db := testenv.Postgres(t)
	api := testenv.NewAPI(t, db.Pool, register)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	cases := []struct {
		name, method, path string
		body               any
		status             int
		message            string
	}{
		{"json without content-type", "POST", "/echo", `{"name":"curl"}`, 200, ""},
		{"empty body reads as {}", "POST", "/echo", nil, 400, "Missing Parameter 'name'"},
		{"malformed json", "POST", "/echo", `{"name":`, 400, "Malformed JSON body: unexpected end of JSON input at byte 8"},
		{"wrong type", "POST", "/echo", `{"name":5}`, 400, "Invalid JSON body: 'name' must be a string, not number"},
		{"over 1 MiB", "POST", "/echo", `{"name":"` + strings.Repeat("a", 1<<20) + `"}`, 413, httpapi.MsgTooLarge},
		{"unknown route", "GET", "/nope", nil, 404, "Not Found"},
		{"wrong method", "DELETE", "/echo", nil, 405, "Method Not Allowed"},
		{"internal error hides details", "GET", "/boom", nil, 500, "Internal Server Error"},
		{"a store out of reach is 503", "GET", "/store-down", nil, 503, "Service Unavailable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := api.Do(c.method, c.path, key, c.body)
			if r.Status != c.status {
				t.Fatalf("status %d, want %d: %s", r.Status, c.status, r.Raw)
			}
			if c.message != "" && r.Message() != c.message {
				t.Fatalf("message %q, want %q", r.Message(), c.message)
			}
			if r.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("content type %q", r.Header.Get("Content-Type"))
			}
			if c.status == 503 && r.Header.Get("Retry-After") != "5" {
				t.Errorf("503 without Retry-After 5: %v", r.Header)
			}
			if strings.Contains(string(r.Raw), "hunter2") {
				t.Fatal("internal error leaked")
			}
		})
	}
}

// A route asked with a method it does not have answers 405 with the methods
// it has, on the API and on the admin listener; a path without routes stays 404.
func TestWrongMethodIs405WithAllow(t *testing.T) {
	db := testenv.Postgres(t)
	api := testenv.NewAPI(t, db.Pool, register)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	for _, c := range []struct{ method, path, allow string }{
		{"GET", "/echo", "POST"},
		{"PUT", "/echo", "POST"},
		{"POST", "/boom", "GET, HEAD"},
		{"DELETE", "/healthz", "GET, HEAD"},
	} {
		r := api.Do(c.method, c.path, key, nil)
		if r.Status != 405 || r.Message() != httpapi.MsgNotAllowed || r.Header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow %q %s, want 405 Allow %q", c.method, c.path, r.Status, r.Header.Get("Allow"), r.Raw, c.allow)
		}
	}
	if r := api.Do("POST", "/nope", key, nil); r.Status != 404 || r.Header.Get("Allow") != "" {
		t.Errorf("POST /nope: %d Allow %q, want 404 without Allow", r.Status, r.Header.Get("Allow"))
	}

	admin := httpapi.NewAdminHandler(httpapi.NewHealth(nil, 0, slog.New(slog.DiscardHandler)), slog.New(slog.DiscardHandler), nil)
	w := httptest.NewRecorder()
	admin.ServeHTTP(w, httptest.NewRequest("POST", "/readyz", nil))
	if w.Code != 405 || w.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("admin POST /readyz: %d Allow %q", w.Code, w.Header().Get("Allow"))
	}
	w = httptest.NewRecorder()
	admin.ServeHTTP(w, httptest.NewRequest("POST", "/nope", nil))
	if w.Code != 404 {
		t.Errorf("admin POST /nope: %d", w.Code)
	}
}

func TestRateLimitAnswers429WithRetryAfter(t *testing.T) {
	db := testenv.Postgres(t)
	api := testenv.NewAPI(t, db.Pool, register)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "tiny", Env: "live", Plan: "trial"})
	other := api.Key(auth.CreateKeyParams{ClientSlug: "big", Env: "live"})
	const trialBurst = 5 // seeded by migration 0022
	var limited *testenv.Response
	for i := 0; i < trialBurst+3; i++ {
		r := api.Do("POST", "/echo", key, `{"name":"x"}`)
		if r.Status == 429 {
			limited = &r
			break
		}
	}
	if limited == nil {
		t.Fatal("no 429 after exceeding the burst")
	}
	if limited.Message() != "Too Many Requests" || limited.Header.Get("Retry-After") == "" {
		t.Fatalf("429: %s Retry-After=%q", limited.Raw, limited.Header.Get("Retry-After"))
	}
	// Another key is not affected.
	if r := api.Do("POST", "/echo", other, `{"name":"x"}`); r.Status != 200 {
		t.Fatalf("other key: %d", r.Status)
	}
}

func TestHealthzNamesTheDependencyDown(t *testing.T) {
	db := testenv.Postgres(t)
	up := httpapi.Check{Name: "postgres", Ping: func(ctx context.Context) error { return db.Pool.Ping(ctx) }}
	down := httpapi.Check{Name: "kafka", Ping: func(context.Context) error { return errors.New("no broker") }}
	api := testenv.NewAPI(t, db.Pool, nil, up)
	if r := api.Do("GET", "/healthz", "", nil); r.Status != 200 {
		t.Fatalf("healthy: %d %s", r.Status, r.Raw)
	}
	api = testenv.NewAPI(t, db.Pool, nil, up, down)
	r := api.Do("GET", "/healthz", "", nil)
	if r.Status != 503 || r.Message() != "Unavailable: kafka not answering" {
		t.Fatalf("unhealthy: %d %s", r.Status, r.Raw)
	}
}

func TestOpenAPIIsServedWithoutKey(t *testing.T) {
	db := testenv.Postgres(t)
	api := testenv.NewAPI(t, db.Pool, register)
	r := api.Do("GET", "/openapi.json", "", nil)
	if r.Status != 200 || r.JSON["openapi"] == nil || !strings.Contains(string(r.Raw), "/echo") || !strings.Contains(string(r.Raw), "x-api-key") {
		t.Fatalf("openapi: %d %.200s", r.Status, r.Raw)
	}
	// Without a DocsUI the page only links the spec: never fuego's default,
	// which loads its viewer from a public CDN.
	if r := api.Do("GET", "/docs/", "", nil); r.Status != 200 || !strings.Contains(string(r.Raw), `href="/openapi.json"`) ||
		strings.Contains(string(r.Raw), "http://") || strings.Contains(string(r.Raw), "https://") {
		t.Fatalf("docs: %d %s", r.Status, r.Raw)
	}
}

func TestShutdownFinishesInFlightRequests(t *testing.T) {
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	key, _, _ := store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	srv := httpapi.New(httpapi.Config{Log: testenv.Log(t), Auth: store})
	started := make(chan struct{})
	fuego.Get(srv.Fuego, "/slow", func(c fuego.ContextNoBody) (echoBody, error) {
		close(started)
		time.Sleep(300 * time.Millisecond) // the slow request whose completion shutdown must wait for
		return echoBody{Name: "done"}, nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	status := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/slow", nil)
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			status <- -1
			return
		}
		resp.Body.Close()
		status <- resp.StatusCode
	}()
	<-started
	cancel() // SIGTERM arrives mid-request
	if s := <-status; s != 200 {
		t.Fatalf("in-flight request got %d", s)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve returned %v on clean shutdown", err)
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Fatal("still accepting connections after shutdown")
	}
}

// TestResponsesCarryARequestID: every answer, refusals included, names its
// request: the caller's X-Request-ID echoed, or a new one.
func TestResponsesCarryARequestID(t *testing.T) {
	db := testenv.Postgres(t)
	api := testenv.NewAPI(t, db.Pool, register)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	a, b := api.Do("POST", "/echo", key, `{"name":"x"}`), api.Do("POST", "/echo", "", `{}`)
	ida, idb := a.Header.Get("X-Request-ID"), b.Header.Get("X-Request-ID")
	if len(ida) != 36 || len(idb) != 36 || ida == idb {
		t.Errorf("generated request ids %q (200) and %q (403): want two different UUIDs", ida, idb)
	}
	req, _ := http.NewRequest("POST", api.URL+"/echo", strings.NewReader(`{"name":"x"}`))
	req.Header.Set("x-api-key", key)
	req.Header.Set("X-Request-ID", "caller-chosen-42")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Request-ID"); got != "caller-chosen-42" {
		t.Errorf("echoed request id %q, want the caller's", got)
	}
}

// TestAnswersCarryNoFrameworkHeaders: no answer names the framework or its
// timings, and none is chunked: each carries the Content-Length of its body
// (fuego's Trailer declaration made every answer chunked).
func TestAnswersCarryNoFrameworkHeaders(t *testing.T) {
	db := testenv.Postgres(t)
	api := testenv.NewAPI(t, db.Pool, register)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	for _, c := range []struct {
		name, method, path, key, body string
		status                        int
	}{
		{"answer", "POST", "/echo", key, `{"name":"x"}`, 200},
		{"refused input", "POST", "/echo", key, `{}`, 400},
		{"no key", "POST", "/echo", "", `{}`, 403},
		{"handler failure", "GET", "/boom", key, "", 500},
		{"no route", "GET", "/nowhere", key, "", 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, api.URL+c.path, strings.NewReader(c.body))
			if c.key != "" {
				req.Header.Set("x-api-key", c.key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			for _, h := range []string{"X-Powered-By", "Server-Timing", "Trailer"} {
				if v := resp.Header.Values(h); len(v) > 0 {
					t.Errorf("header %s: %q", h, v)
				}
			}
			if len(resp.Trailer) > 0 {
				t.Errorf("trailers %v", resp.Trailer)
			}
			if len(resp.TransferEncoding) > 0 || resp.ContentLength != int64(len(body)) {
				t.Errorf("transfer encoding %v, Content-Length %d for a body of %d bytes: want the length, not chunks",
					resp.TransferEncoding, resp.ContentLength, len(body))
			}
		})
	}
}
