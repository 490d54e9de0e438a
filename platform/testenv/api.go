package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-fuego/fuego"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
)

// API is an HTTP server with contrack's real plumbing (key check, rate
// limits, error format) over a test database.
type API struct {
	t     testing.TB
	URL   string
	Store *auth.Store
}

// NewAPI serves the routes register adds, authenticating against pool.
func NewAPI(t testing.TB, pool *pgxpool.Pool, register func(s *fuego.Server), checks ...httpapi.Check) *API {
	t.Helper()
	store := auth.NewStore(pool)
	srv := httpapi.New(httpapi.Config{
		Version: "test",
		Log:     Log(t),
		Auth:    store,
		Checks:  checks,
		Limiter: httpapi.NewRateLimiter(),
		Public:  []string{"/healthz", "/openapi.json", "/docs", "/docs/", "HEAD /events"},
	})
	if register != nil {
		register(srv.Fuego)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return &API{t: t, URL: ts.URL, Store: store}
}

// Key creates a key (and its account if new) and returns the plaintext.
func (a *API) Key(p auth.CreateKeyParams) string {
	a.t.Helper()
	key, _, err := a.Store.CreateKey(context.Background(), p)
	if err != nil {
		a.t.Fatal(err)
	}
	return key
}

// Response is a decoded answer.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	JSON   map[string]any
}

// Message is the "message" field of the body.
func (r Response) Message() string {
	m, _ := r.JSON["message"].(string)
	return m
}

// Do sends method path with key (none if empty) and body: nil, a []byte or
// string sent as is (no Content-Type), or any value sent as JSON.
func (a *API) Do(method, path, key string, body any) Response {
	a.t.Helper()
	var rdr io.Reader
	contentType := ""
	switch b := body.(type) {
	case nil:
	case []byte:
		rdr = bytes.NewReader(b)
	case string:
		rdr = bytes.NewReader([]byte(b))
	default:
		j, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		rdr = bytes.NewReader(j)
		contentType = "application/json"
	}
	req, err := http.NewRequest(method, a.URL+path, rdr)
	if err != nil {
		a.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.JSON)
	return out
}
