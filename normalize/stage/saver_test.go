package stage

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
)

// With Postgres out of its reach the dedupe saver used to log and retry
// every second, unseen. Now each failed save is counted, a run of them
// turns /readyz red naming the saver, and once Postgres is back the state
// kept meanwhile is saved and readiness is green again.
func TestDedupeSaverOutageTurnsReadinessRedAndRecovers(t *testing.T) {
	db := testenv.Postgres(t)
	pool, proxy := testenv.PoolVia(t, db)
	reg := prometheus.NewRegistry()
	health := httpapi.NewHealth(nil, 0, testenv.Log(t))
	loops, err := loop.New(loop.Config{UnreadyAfter: 3, Backoff: loop.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond}}, reg, health, testenv.Log(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := newSeenStore(pool, 100)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		seen.saveLoop(context.Background(), stop, loops.Loop("normalize-dedupe-saver", testenv.Log(t)), testenv.Log(t))
		close(done)
	}()
	t.Cleanup(func() { close(stop); <-done })

	saved := func(event string) bool {
		var n int
		if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM normalize_seen WHERE event_id = $1`, event).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	seen.committed([]seenUpdate{{tracking: "trk-1", event: "ev-before", hash: "h1"}})
	testkit.Eventually(t, 10*time.Second, "the first state saved", func() bool { return saved("ev-before") })

	proxy.Cut()
	seen.committed([]seenUpdate{{tracking: "trk-1", event: "ev-during", hash: "h2"}})
	testkit.Eventually(t, 10*time.Second, "/readyz 503 naming the saver", func() bool {
		code, body := readyz(health)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "normalize-dedupe-saver failing")
	})
	if n := testkit.Counter(t, reg, "contrack_loop_failures_total", map[string]string{"loop": "normalize-dedupe-saver"}); n < 3 {
		t.Fatalf("saver failures counted %v, want at least 3", n)
	}
	if saved("ev-during") {
		t.Fatal("state saved while Postgres was out of reach")
	}
	proxy.Restore()
	testkit.Eventually(t, 15*time.Second, "the state kept meanwhile saved", func() bool { return saved("ev-during") })
	testkit.Eventually(t, 5*time.Second, "/readyz 200 once saves succeed", func() bool {
		code, _ := readyz(health)
		return code == http.StatusOK
	})
}

func readyz(h *httpapi.Health) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeReadyz(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	return rec.Code, rec.Body.String()
}
