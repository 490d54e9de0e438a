package carrier_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/cosco"
)

// fakeClock is a settable clock shared by a sandbox and an adapter.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

const tokenTTL = 10 * time.Minute

// env is one sandbox served over HTTP, counting token endpoint hits.
type env struct {
	srv        *httptest.Server
	clock      *fakeClock
	tokenHits  atomic.Int64
	eventsHits atomic.Int64
}

func newEnv(t *testing.T, cfg sandbox.Config) *env {
	t.Helper()
	e := &env{clock: newClock()}
	if cfg.Clock == nil {
		cfg.Clock = e.clock.Now
	}
	if cfg.TokenTTL == 0 {
		cfg.TokenTTL = tokenTTL
	}
	h := sandbox.NewHandler(cfg)
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "token") {
			e.tokenHits.Add(1)
		} else {
			e.eventsHits.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *env) adapter(t *testing.T, scac string, opts ...carrier.Option) carrier.Adapter {
	t.Helper()
	opts = append([]carrier.Option{carrier.WithClock(e.clock.Now)}, opts...)
	a, err := carrier.New(scac, e.srv.URL+"/"+strings.ToLower(scac), e.srv.Client(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// creds fills every required field of c with value (a valid-looking one when empty).
func creds(c carriers.Carrier, value string) carrier.Credentials {
	out := carrier.Credentials{}
	for _, f := range c.RequiredFields {
		out[f] = value
		if value == "" {
			out[f] = "sbx-" + strings.ToLower(c.SCAC) + "-" + f
		}
	}
	return out
}

func isTokenCarrier(scac string) bool {
	return scac == "EGLV" || scac == "MSCU" || scac == "ONEY" || scac == "ZIMU"
}

// paged formats split a shipment's events over pages.
func pagedFormat(f carriers.Format) bool {
	return f == carriers.FormatTNT22 || f == carriers.FormatTNT3
}

const container = "MSKU9070323"

func fetch(t *testing.T, a carrier.Adapter, cr carrier.Credentials, kind carrier.IdentifierKind, value string) carrier.Result {
	t.Helper()
	r, err := a.Fetch(context.Background(), cr, carrier.Query{Kind: kind, Value: value})
	if err != nil {
		t.Fatalf("Fetch(%s %s): %v", kind, value, err)
	}
	return r
}

func expect(t *testing.T, r carrier.Result, outcome carrier.Outcome, code int) {
	t.Helper()
	if r.Outcome != outcome || r.HTTPCode != code {
		t.Fatalf("got outcome %q code %d (reason %q), want %q %d", r.Outcome, r.HTTPCode, r.Reason, outcome, code)
	}
}

// countInPage counts events in one raw page by format, independently of the adapter.
func countInPage(t *testing.T, f carriers.Format, page []byte) int {
	t.Helper()
	switch f {
	case carriers.FormatTNT22:
		var list []map[string]any
		if err := json.Unmarshal(page, &list); err != nil {
			t.Fatalf("TNT 2.2 page is not a JSON array: %v", err)
		}
		for _, e := range list {
			if e["eventID"] == "" || e["eventType"] == nil {
				t.Fatalf("event without id or type: %v", e)
			}
		}
		return len(list)
	case carriers.FormatTNT3:
		var body struct{ Events *[]map[string]any }
		if err := json.Unmarshal(page, &body); err != nil || body.Events == nil {
			t.Fatalf("TNT 3.0 page is not {\"events\": [...]}: %v", err)
		}
		for _, e := range *body.Events {
			if e["eventID"] == "" || (e["eventClassification"] == nil && e["isRetracted"] != true) {
				t.Fatalf("event without id or classification: %v", e)
			}
		}
		return len(*body.Events)
	case carriers.FormatTNT12:
		var body struct{ Events []map[string]any }
		if err := json.Unmarshal(page, &body); err != nil {
			t.Fatalf("TNT 1.2 page: %v", err)
		}
		return len(body.Events)
	case carriers.FormatIFTSTA:
		if !bytes.HasPrefix(page, []byte("UNA:+.? '")) {
			t.Fatalf("IFTSTA page does not start with UNA: %.40q", page)
		}
		return bytes.Count(page, []byte("\nSTS+"))
	case carriers.FormatCOSCO:
		var resp cosco.Response
		if err := json.Unmarshal(page, &resp); err != nil || resp.Data == nil {
			t.Fatalf("COSCO page: %v", err)
		}
		n := 0
		for _, c := range resp.Data.Content.Containers {
			n += len(c.Events)
		}
		return n
	}
	t.Fatalf("unknown format %q", f)
	return 0
}

// TestAdapterBehaviour runs one behaviour suite against every carrier in the registry.
func TestAdapterBehaviour(t *testing.T) {
	for _, c := range carriers.All() {
		t.Run(c.SCAC, func(t *testing.T) {
			t.Parallel()
			runSuite(t, c)
		})
	}
}

func runSuite(t *testing.T, c carriers.Carrier) {
	good := creds(c, "")

	t.Run("auth succeeds for every identifier kind", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{})
		a := e.adapter(t, c.SCAC)
		if a.SCAC() != c.SCAC {
			t.Fatalf("SCAC() = %q", a.SCAC())
		}
		for _, q := range []carrier.Query{{Kind: carrier.KindContainer, Value: container}, {Kind: carrier.KindBooking, Value: "BK4471902"}, {Kind: carrier.KindBill, Value: c.SCAC + "123456789"}} {
			r := fetch(t, a, good, q.Kind, q.Value)
			expect(t, r, carrier.OutcomeSuccess, 200)
			if r.Format != c.Format || len(r.Pages) == 0 || r.EventCount == 0 || r.Latency <= 0 {
				t.Fatalf("%s: result %+v", q.Kind, r)
			}
			n := 0
			for _, p := range r.Pages {
				n += countInPage(t, c.Format, p)
			}
			if n != r.EventCount {
				t.Fatalf("%s: EventCount %d, pages hold %d", q.Kind, r.EventCount, n)
			}
		}
	})

	t.Run("bad credentials are unauthorized", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{})
		expect(t, fetch(t, e.adapter(t, c.SCAC), creds(c, sandbox.CredentialInvalid), carrier.KindContainer, container), carrier.OutcomeUnauthorized, 401)
	})

	t.Run("missing credential field is unauthorized without a request", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{})
		expect(t, fetch(t, e.adapter(t, c.SCAC), carrier.Credentials{}, carrier.KindContainer, container), carrier.OutcomeUnauthorized, 0)
		if e.tokenHits.Load()+e.eventsHits.Load() != 0 {
			t.Fatal("a request was sent without credentials")
		}
	})

	t.Run("special numbers", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{})
		a := e.adapter(t, c.SCAC)
		for _, tc := range []struct {
			value   string
			outcome carrier.Outcome
			codes   []int
		}{
			{"UNAU0000004", carrier.OutcomeUnauthorized, []int{401}},
			{"FRBU0000004", carrier.OutcomeUnauthorized, []int{403}},
			{"NOFU0000001", carrier.OutcomeNoData, []int{404, 200}},
			{"DWNU0000000", carrier.OutcomeError, []int{503}},
			{"ERRU0000005", carrier.OutcomeError, []int{500}},
			{"LMTU0000000", carrier.OutcomeError, []int{429}},
		} {
			if !journey.ValidContainer(tc.value) {
				t.Fatalf("%s is not ISO 6346-valid", tc.value)
			}
			r := fetch(t, a, good, carrier.KindContainer, tc.value)
			if r.Outcome != tc.outcome || !containsInt(tc.codes, r.HTTPCode) || r.Pages != nil {
				t.Errorf("%s: outcome %q code %d pages %d, want %q %v", tc.value, r.Outcome, r.HTTPCode, len(r.Pages), tc.outcome, tc.codes)
			}
		}
		// Booking and bill test numbers use the same prefixes.
		expect(t, fetch(t, a, good, carrier.KindBooking, "DWNU12345"), carrier.OutcomeError, 503)
	})

	t.Run("credentials marked down make the carrier unavailable", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{})
		expect(t, fetch(t, e.adapter(t, c.SCAC), creds(c, sandbox.CredentialDown), carrier.KindContainer, container), carrier.OutcomeError, 503)
	})

	t.Run("pagination is followed", func(t *testing.T) {
		paged := newEnv(t, sandbox.Config{PageSize: 3})
		whole := newEnv(t, sandbox.Config{PageSize: 1000})
		for _, q := range []carrier.Query{{Kind: carrier.KindBooking, Value: "BK4471902"}, {Kind: carrier.KindContainer, Value: "PAGU0000008"}} {
			r := fetch(t, paged.adapter(t, c.SCAC), good, q.Kind, q.Value)
			all := fetch(t, whole.adapter(t, c.SCAC), good, q.Kind, q.Value)
			expect(t, r, carrier.OutcomeSuccess, 200)
			if r.EventCount != all.EventCount || r.Truncated {
				t.Fatalf("%s: paged %d events (truncated %v), unpaged %d", q.Value, r.EventCount, r.Truncated, all.EventCount)
			}
			if pagedFormat(c.Format) {
				if len(r.Pages) < 2 {
					t.Fatalf("%s: %d pages, want several", q.Value, len(r.Pages))
				}
				if got, want := eventIDs(t, r.Pages), eventIDs(t, all.Pages); strings.Join(got, ",") != strings.Join(want, ",") {
					t.Fatalf("%s: paged ids differ from unpaged ids", q.Value)
				}
			} else if len(r.Pages) != 1 {
				t.Fatalf("%s: %d pages, want 1", q.Value, len(r.Pages))
			}
		}
	})

	t.Run("page count is bounded", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{})
		r := fetch(t, e.adapter(t, c.SCAC, carrier.WithMaxPages(2)), good, carrier.KindContainer, "PAGU0000008")
		expect(t, r, carrier.OutcomeSuccess, 200)
		if pagedFormat(c.Format) && (len(r.Pages) != 2 || !r.Truncated) {
			t.Fatalf("pages %d truncated %v, want 2 and true", len(r.Pages), r.Truncated)
		}
	})

	t.Run("unreachable carrier", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{})
		a := e.adapter(t, c.SCAC)
		e.srv.Close()
		expect(t, fetch(t, a, good, carrier.KindContainer, container), carrier.OutcomeUnreachable, 0)
		if h := a.Probe(context.Background(), good); h != (carrier.Health{Status: carrier.HealthUnreachable}) {
			t.Fatalf("Probe = %+v", h)
		}
	})

	t.Run("timeout is unreachable", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{SlowDelay: 2 * time.Second})
		client := &http.Client{Timeout: 100 * time.Millisecond}
		a, err := carrier.New(c.SCAC, e.srv.URL+"/"+strings.ToLower(c.SCAC), client, carrier.WithClock(e.clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		expect(t, fetch(t, a, good, carrier.KindContainer, "SLOU0000007"), carrier.OutcomeUnreachable, 0)
	})

	t.Run("cancelled context is an error", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := e.adapter(t, c.SCAC).Fetch(ctx, good, carrier.Query{Kind: carrier.KindContainer, Value: container}); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})

	t.Run("bad query is an error", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{})
		for _, q := range []carrier.Query{{Kind: "vessel", Value: container}, {Kind: carrier.KindBooking, Value: "  "}} {
			if _, err := e.adapter(t, c.SCAC).Fetch(context.Background(), good, q); !errors.Is(err, carrier.ErrBadQuery) {
				t.Fatalf("%+v: err = %v", q, err)
			}
		}
	})

	t.Run("probe", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{})
		a := e.adapter(t, c.SCAC)
		if h := a.Probe(context.Background(), good); h.Status != carrier.HealthOK || (h.HTTPCode != 200 && h.HTTPCode != 404) {
			t.Fatalf("good credentials: %+v", h)
		}
		if h := a.Probe(context.Background(), creds(c, sandbox.CredentialInvalid)); h != (carrier.Health{Status: carrier.HealthUnauthorized, HTTPCode: 401}) {
			t.Fatalf("invalid credentials: %+v", h)
		}
		if h := a.Probe(context.Background(), creds(c, sandbox.CredentialDown)); h != (carrier.Health{Status: carrier.HealthError, HTTPCode: 503}) {
			t.Fatalf("carrier down: %+v", h)
		}
	})

	if !isTokenCarrier(c.SCAC) {
		return
	}

	t.Run("token is cached per credentials and refreshed before expiry", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{})
		a := e.adapter(t, c.SCAC)
		for i := 0; i < 3; i++ {
			expect(t, fetch(t, a, good, carrier.KindContainer, container), carrier.OutcomeSuccess, 200)
		}
		if n := e.tokenHits.Load(); n != 1 {
			t.Fatalf("token endpoint hit %d times for 3 fetches, want 1", n)
		}
		other := carrier.Credentials{carriers.FieldClientID: "other-client", carriers.FieldClientSecret: "other-secret"}
		expect(t, fetch(t, a, other, carrier.KindContainer, container), carrier.OutcomeSuccess, 200)
		if n := e.tokenHits.Load(); n != 2 {
			t.Fatalf("token endpoint hit %d times after a second client, want 2", n)
		}
		e.clock.Advance(tokenTTL - 30*time.Second) // inside the refresh margin
		expect(t, fetch(t, a, good, carrier.KindContainer, container), carrier.OutcomeSuccess, 200)
		if n := e.tokenHits.Load(); n != 3 {
			t.Fatalf("token endpoint hit %d times after expiry, want 3", n)
		}
		if n := e.eventsHits.Load(); n != 5 {
			t.Fatalf("events endpoint hit %d times, want 5 (no 401 retries)", n)
		}
	})

	t.Run("token rejected with 401 is renewed once", func(t *testing.T) {
		e := newEnv(t, sandbox.Config{})
		adapterClock := newClock() // the adapter believes its token is fresh
		a, err := carrier.New(c.SCAC, e.srv.URL+"/"+strings.ToLower(c.SCAC), e.srv.Client(), carrier.WithClock(adapterClock.Now))
		if err != nil {
			t.Fatal(err)
		}
		expect(t, fetch(t, a, good, carrier.KindContainer, container), carrier.OutcomeSuccess, 200)
		e.clock.Advance(2 * tokenTTL) // the carrier now rejects it
		expect(t, fetch(t, a, good, carrier.KindContainer, container), carrier.OutcomeSuccess, 200)
		if n := e.tokenHits.Load(); n != 2 {
			t.Fatalf("token endpoint hit %d times, want 2", n)
		}
	})
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func eventIDs(t *testing.T, pages [][]byte) []string {
	t.Helper()
	var ids []string
	for _, p := range pages {
		var list []struct {
			EventID string `json:"eventID"`
		}
		if bytes.HasPrefix(bytes.TrimSpace(p), []byte("{")) { // TNT 3.0
			var body struct {
				Events []struct {
					EventID string `json:"eventID"`
				} `json:"events"`
			}
			if err := json.Unmarshal(p, &body); err != nil {
				t.Fatal(err)
			}
			list = body.Events
		} else if err := json.Unmarshal(p, &list); err != nil {
			t.Fatal(err)
		}
		for _, e := range list {
			ids = append(ids, e.EventID)
		}
	}
	return ids
}

func TestNew(t *testing.T) {
	for _, c := range carriers.All() {
		if _, err := carrier.New(c.SCAC, "https://api.example.com", nil); err != nil {
			t.Errorf("%s has no adapter: %v", c.SCAC, err)
		}
	}
	if _, err := carrier.New("XXXX", "https://api.example.com", nil); !errors.Is(err, carrier.ErrUnsupported) {
		t.Errorf("unknown SCAC: err = %v", err)
	}
	for _, u := range []string{"", "api.example.com", "ftp://x", "http://"} {
		if _, err := carrier.New("MAEU", u, nil); err == nil {
			t.Errorf("base URL %q accepted", u)
		}
	}
	if _, err := carrier.New("MAEU", "http://x", nil, carrier.WithMaxPages(0)); err == nil {
		t.Error("max pages 0 accepted")
	}
	if !journey.ValidContainer(carrier.ProbeContainer) || sandbox.SpecialOf(carrier.ProbeContainer) != sandbox.SpecialNotFound {
		t.Errorf("ProbeContainer %s must be valid and a not-found test number", carrier.ProbeContainer)
	}
}

func TestCOSCOSignatureVerifiedForKnownClients(t *testing.T) {
	e := newEnv(t, sandbox.Config{CoscoClients: map[string]string{"cosco-client": "s3cret"}})
	a := e.adapter(t, "COSU")
	ok := carrier.Credentials{carriers.FieldClientID: "cosco-client", carriers.FieldClientSecret: "s3cret"}
	expect(t, fetch(t, a, ok, carrier.KindContainer, container), carrier.OutcomeSuccess, 200)
	wrong := carrier.Credentials{carriers.FieldClientID: "cosco-client", carriers.FieldClientSecret: "guess"}
	expect(t, fetch(t, a, wrong, carrier.KindContainer, container), carrier.OutcomeUnauthorized, 401)

	// A clock 20 minutes off fails COSCO's date check.
	skewed := newClock()
	skewed.Advance(20 * time.Minute)
	b, err := carrier.New("COSU", e.srv.URL+"/cosu", e.srv.Client(), carrier.WithClock(skewed.Now))
	if err != nil {
		t.Fatal(err)
	}
	expect(t, fetch(t, b, ok, carrier.KindContainer, container), carrier.OutcomeUnauthorized, 401)
}

func TestNextPageForms(t *testing.T) {
	// Carriers send Next-Page as a bare cursor, a path or a full URL.
	for _, form := range []string{"cursor", "path", "url"} {
		t.Run(form, func(t *testing.T) {
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				page := r.URL.Query().Get("cursor")
				if page == "" {
					page = r.URL.Query().Get("p")
				}
				switch page {
				case "":
					next := map[string]string{"cursor": "c2", "path": "/maeu/track-and-trace-private/events?p=c2", "url": srv.URL + "/maeu/track-and-trace-private/events?p=c2"}[form]
					w.Header().Set("Next-Page", next)
					_, _ = w.Write([]byte(`[{"eventID":"a"},{"eventID":"b"}]`))
				case "c2":
					_, _ = w.Write([]byte(`[{"eventID":"c"}]`))
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			a, err := carrier.New("MAEU", srv.URL+"/maeu", srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			r := fetch(t, a, carrier.Credentials{carriers.FieldAPIKey: "k"}, carrier.KindContainer, container)
			expect(t, r, carrier.OutcomeSuccess, 200)
			if len(r.Pages) != 2 || r.EventCount != 3 {
				t.Fatalf("pages %d events %d, want 2 and 3", len(r.Pages), r.EventCount)
			}
		})
	}
}

func TestRepeatedCursorStops(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Next-Page", "same")
		_, _ = w.Write([]byte(`[{"eventID":"a"}]`))
	}))
	defer srv.Close()
	a, _ := carrier.New("HDMU", srv.URL, srv.Client())
	r := fetch(t, a, carrier.Credentials{carriers.FieldAPIKey: "k"}, carrier.KindContainer, container)
	if r.Outcome != carrier.OutcomeSuccess || !r.Truncated || len(r.Pages) != 2 {
		t.Fatalf("result %+v", r)
	}
}

// A TNT 2.2 page wrapped in {"events": [...]}, as some carriers send it,
// is a page of events, handed on unchanged.
func TestTNT22EnvelopeIsAPage(t *testing.T) {
	body := `{"events":[{"eventID":"a"},{"eventID":"b"}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	a, _ := carrier.New("MAEU", srv.URL, srv.Client())
	r := fetch(t, a, carrier.Credentials{carriers.FieldAPIKey: "k"}, carrier.KindContainer, container)
	if r.Outcome != carrier.OutcomeSuccess || r.EventCount != 2 || len(r.Pages) != 1 || string(r.Pages[0]) != body {
		t.Fatalf("result %+v", r)
	}
}

func TestMalformedBodiesAreErrors(t *testing.T) {
	for _, tc := range []struct{ scac, body string }{
		{"MAEU", `{"not":"an array"}`},
		{"ONEY", `[1,2`},
		{"OOLU", `hello`},
		{"COSU", `<html>`},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "token") {
				_, _ = w.Write([]byte(`{"access_token":"t","token_type":"Bearer","expires_in":60}`))
				return
			}
			_, _ = w.Write([]byte(tc.body))
		}))
		a, _ := carrier.New(tc.scac, srv.URL, srv.Client())
		c, _ := carriers.Lookup(tc.scac)
		expect(t, fetch(t, a, creds(c, ""), carrier.KindContainer, container), carrier.OutcomeError, 200)
		srv.Close()
	}
}

func TestCountSTS(t *testing.T) {
	for _, tc := range []struct {
		in string
		n  int
		ok bool
	}{
		{"UNA:+.? 'UNB+UNOC:3+A+B'STS+1+AE'FTX+AAI+++a?'STS+1 b'STS+1+VD'UNZ+1+1'", 2, true},
		{"UNA|*.# ~UNB*UNOC|3~STS*1*AE~STS*1*VA~", 2, true},
		{"UNB+UNOC:3'STS+1+AE'\r\nSTS+1+VA'\n", 2, true},
		{"\xef\xbb\xbfUNB+UNOC:3'STS+1+AE'\r\n", 1, true}, // a byte-order mark first
		{"<xml/>", 0, false},
	} {
		n, ok := carrier.CountSTS([]byte(tc.in))
		if n != tc.n || ok != tc.ok {
			t.Errorf("CountSTS(%q) = %d %v, want %d %v", tc.in, n, ok, tc.n, tc.ok)
		}
	}
}

// TestTokenCacheIsBounded: an adapter keeps the access tokens of at most
// WithMaxCachedTokens clients. Within the bound a client's token is reused;
// beyond it the least recently used client's token is forgotten (its next
// request fetches a new one), so a poller that has seen many accounts'
// credentials holds a bounded number of tokens.
func TestTokenCacheIsBounded(t *testing.T) {
	for _, scac := range []string{"EGLV", "MSCU", "ONEY"} {
		t.Run(scac, func(t *testing.T) {
			e := newEnv(t, sandbox.Config{})
			a := e.adapter(t, scac, carrier.WithMaxCachedTokens(2))
			c, _ := carriers.Lookup(scac)
			client := func(i int) carrier.Credentials {
				cr := creds(c, "")
				cr[carriers.FieldClientID] += "-" + string(rune('a'+i))
				return cr
			}
			tokens := func(i int) int64 {
				t.Helper()
				before := e.tokenHits.Load()
				expect(t, fetch(t, a, client(i), carrier.KindContainer, container), carrier.OutcomeSuccess, 200)
				return e.tokenHits.Load() - before
			}
			if n := tokens(0) + tokens(1); n != 2 {
				t.Fatalf("two clients fetched %d tokens, want 2", n)
			}
			if n := tokens(0) + tokens(1); n != 0 {
				t.Fatalf("within the bound the tokens were fetched again (%d)", n)
			}
			// A third client: the least recently used (client 0) is forgotten.
			if n := tokens(2); n != 1 {
				t.Fatalf("third client fetched %d tokens", n)
			}
			if n := tokens(1); n != 0 {
				t.Fatalf("client 1, recently used, lost its token (%d fetches)", n)
			}
			if n := tokens(0); n != 1 {
				t.Fatalf("client 0 beyond the bound: %d token fetches, want 1 (its token forgotten)", n)
			}
		})
	}
	if _, err := carrier.New("MSCU", "http://127.0.0.1:1/mscu", nil, carrier.WithMaxCachedTokens(0)); err == nil {
		t.Fatal("a cache bound of 0 accepted")
	}
}
