package delivery

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/testenv"
)

func TestDefaultScheduleSpansThreeDays(t *testing.T) {
	c := Config{}.WithDefaults()
	var total time.Duration
	for _, d := range c.Schedule {
		total += d
	}
	if total < 72*time.Hour || c.attempts() != 10 {
		t.Fatalf("default schedule spans %s over %d attempts", total, c.attempts())
	}
	// With the largest jitter down, it still spans more than 24 h (DESIGN's floor).
	if lo := time.Duration(float64(total) * (1 - c.Jitter)); lo < 24*time.Hour {
		t.Fatalf("schedule with jitter spans %s", lo)
	}
}

func TestNextAttempt(t *testing.T) {
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	c := Config{Schedule: []time.Duration{time.Minute, time.Hour}, Jitter: 0.2, MaxRetryAfter: 30 * time.Minute}.WithDefaults()
	half := func() float64 { return 0.5 }
	cases := []struct {
		name       string
		round      int
		retryAfter time.Duration
		rnd        func() float64
		want       time.Duration
		more       bool
	}{
		{"first retry", 1, 0, half, time.Minute, true},
		{"second retry", 2, 0, half, time.Hour, true},
		{"schedule exhausted", 3, 0, half, 0, false},
		{"jitter low", 1, 0, func() float64 { return 0 }, 48 * time.Second, true},
		{"jitter high", 1, 0, func() float64 { return 0.999999 }, 72 * time.Second, true},
		{"retry-after later than the schedule", 1, 10 * time.Minute, half, 10 * time.Minute, true},
		{"retry-after earlier than the schedule", 2, 10 * time.Minute, half, time.Hour, true},
		{"retry-after bounded", 1, 5 * time.Hour, half, 30 * time.Minute, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			next, more := c.nextAttempt(tc.round, tc.retryAfter, now, tc.rnd)
			if more != tc.more || (more && next.Sub(now).Round(time.Second) != tc.want) {
				t.Fatalf("next %s more %v, want +%s %v", next.Sub(now), more, tc.want, tc.more)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              0,
		"120":                           2 * time.Minute,
		" 5 ":                           5 * time.Second,
		"-3":                            0,
		"soon":                          0,
		"Fri, 20 Nov 2026 10:01:00 GMT": time.Minute,
		"Fri, 20 Nov 2026 09:00:00 GMT": 0,
	} {
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("Retry-After %q: %s, want %s", v, got, want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Fatalf("zero config: %v", err)
	}
	err := Config{Workers: -1, Schedule: []time.Duration{time.Second, 0}, Jitter: 1, Timeout: time.Minute, Lease: time.Minute, SlowAfter: -1}.Validate()
	for _, want := range []string{"Workers", "Schedule[1]", "Jitter", "Lease", "SlowAfter"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want a problem with %s", err, want)
		}
	}
}

// The endpoint key computed in SQL (claims pass over busy endpoints by it)
// is the one computed in Go (breakers and limits are kept by it): the
// account and the host.
func TestEndpointKeySQLMatchesGo(t *testing.T) {
	db := testenv.Postgres(t)
	for _, u := range []string{
		"https://Hooks.Example.com/contrack?x=1",
		"http://127.0.0.1:8080/hook",
		"https://example.com",
		"https://user:pw@example.com:8443/p#frag",
		"http://[::1]:9000/x",
		"https://example.com?q=/a",
		"not a url",
	} {
		var got string
		acct := "0f8fad5b-d9cb-469f-a165-70867728950e"
		if err := db.Pool.QueryRow(context.Background(), `SELECT `+keyExpr+` FROM (SELECT $1::text AS target_url, $2::uuid AS account_id) w`, u, acct).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if want := endpointKey(acct, u); got != want {
			t.Errorf("%q: SQL %q, Go %q", u, got, want)
		}
	}
}

// A response is read up to the limit; a redirect is a failure, not followed.
func TestSendReadsLittleAndFollowsNoRedirect(t *testing.T) {
	var followed bool
	mux := http.NewServeMux()
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		_, _ = w.Write([]byte(strings.Repeat("é", 1<<20)))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/elsewhere", http.StatusFound) })
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) { followed = true })
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "90")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	// /slow answers only when the client gives up: the timeout, not a race
	// against a fixed delay, decides (a loaded machine made 100 ms too short).
	slowDone := make(chan struct{})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-slowDone:
		}
	})
	srv := testServer(t, mux)
	t.Cleanup(func() { close(slowDone) }) // before the server's Close, which waits for handlers
	client := *http.DefaultClient
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	s := &sender{client: &client, timeout: time.Second, userAgent: "t", limit: 4096, now: time.Now}
	c := &claimed{ID: "id", Body: []byte(`{}`)}
	send := func(path string) attempt {
		c.TargetURL = srv + path
		return s.send(context.Background(), c, "whsec_"+strings.Repeat("A", 44), nil)
	}
	if a := send("/big"); a.Outcome != OutcomeHTTPError || a.HTTPCode != 500 || len(a.Error) > 300 || !strings.HasPrefix(a.Error, "HTTP 500: é") {
		t.Errorf("big body: %+v", a)
	}
	if a := send("/redirect"); a.Outcome != OutcomeHTTPError || a.HTTPCode != 302 || followed || !strings.Contains(a.Error, "not followed") {
		t.Errorf("redirect: %+v, followed %v", a, followed)
	}
	if a := send("/busy"); a.RetryAfter != 90*time.Second {
		t.Errorf("429: %+v", a)
	}
	s.timeout = 100 * time.Millisecond
	if a := send("/slow"); a.Outcome != OutcomeTimeout {
		t.Errorf("slow: %+v", a)
	}
	s.timeout = 5 * time.Second
	if a := send("/"); a.Outcome != OutcomeHTTPError || a.HTTPCode != 404 {
		t.Errorf("404: %+v", a)
	}
	c.TargetURL = "http://127.0.0.1:1/closed"
	if a := s.send(context.Background(), c, "whsec_"+strings.Repeat("A", 44), nil); a.Outcome != OutcomeConnectionError {
		t.Errorf("closed port: %+v", a)
	}
}

// An attempt continues its events' stored trace contexts in body order,
// skipping events whose trace was not sampled (stored as "").
func TestEventContextsComeFromTheStoredTraceparents(t *testing.T) {
	a := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	b := "00-1af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01"
	c := &claimed{Traceparents: []string{"", b, "garbage", a}}
	got := eventContexts(c)
	if len(got) != 2 || got[0].TraceID().String() != "1af7651916cd43dd8448eb211c80319c" ||
		got[1].TraceID().String() != "0af7651916cd43dd8448eb211c80319c" || !got[0].IsRemote() {
		t.Fatalf("contexts %v", got)
	}
	if got := eventContexts(&claimed{}); got != nil {
		t.Fatalf("a delivery without stored contexts: %v", got)
	}
}
