package loop_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/testkit"
)

func readyz(t *testing.T, h *httpapi.Health) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeReadyz(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	return rec.Code, rec.Body.String()
}

// A loop whose rounds keep failing is counted, turns /readyz red after
// UnreadyAfter failures in a row, and turns it green again, its last
// success stamped, once a round succeeds.
func TestAFailingLoopTurnsReadinessRedAndRecovers(t *testing.T) {
	reg := prometheus.NewRegistry()
	health := httpapi.NewHealth(nil, 0, testLog(t))
	sup, err := loop.New(loop.Config{UnreadyAfter: 3, Backoff: loop.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond}}, reg, health, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	var broken atomic.Bool
	broken.Store(true)
	var rounds atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- sup.Loop("saver", nil).Run(ctx, time.Millisecond, func(context.Context) error {
			rounds.Add(1)
			if broken.Load() {
				return errors.New("store unreachable")
			}
			return nil
		})
	}()
	testkit.Eventually(t, 5*time.Second, "/readyz 503 naming the loop", func() bool {
		code, body := readyz(t, health)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "saver failing")
	})
	if n := testkit.Counter(t, reg, "contrack_loop_failures_total", map[string]string{"loop": "saver"}); n < 3 {
		t.Fatalf("failures counted %v, want at least 3", n)
	}
	broken.Store(false)
	testkit.Eventually(t, 5*time.Second, "/readyz 200 once the loop succeeds", func() bool {
		code, _ := readyz(t, health)
		return code == http.StatusOK
	})
	if ts := gauge(t, reg, "contrack_loop_last_success_timestamp_seconds", "saver"); ts < float64(time.Now().Add(-time.Minute).Unix()) {
		t.Fatalf("last success %v, want about now", ts)
	}
	if n := gauge(t, reg, "contrack_loop_consecutive_failures", "saver"); n != 0 {
		t.Fatalf("consecutive failures %v after a success, want 0", n)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after ctx ended: %v, want nil", err)
	}
}

// Fewer failures in a row than UnreadyAfter leave /readyz green: a blip
// is counted, not reported as an outage.
func TestAShortRunOfFailuresStaysReady(t *testing.T) {
	reg := prometheus.NewRegistry()
	health := httpapi.NewHealth(nil, 0, testLog(t))
	sup, err := loop.New(loop.Config{UnreadyAfter: 3}, reg, health, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	l := sup.Loop("claim", nil)
	for range 5 {
		l.Failed(errors.New("blip"))
		l.Failed(errors.New("blip"))
		l.Succeeded()
	}
	if code, body := readyz(t, health); code != http.StatusOK {
		t.Fatalf("readyz %d %s after runs of two failures, want 200", code, body)
	}
	if n := testkit.Counter(t, reg, "contrack_loop_failures_total", map[string]string{"loop": "claim"}); n != 10 {
		t.Fatalf("failures counted %v, want 10", n)
	}
}

// An error marked Unrecoverable ends Run with the loop's name, for the
// stage's errgroup to carry up.
func TestAnUnrecoverableErrorEndsTheLoop(t *testing.T) {
	sup, err := loop.New(loop.Config{}, nil, nil, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	cause := errors.New("schema missing")
	err = sup.Loop("relay", nil).Run(context.Background(), 0, func(context.Context) error { return loop.Unrecoverable(cause) })
	if !errors.Is(err, cause) || !strings.HasPrefix(err.Error(), "relay: ") {
		t.Fatalf("Run = %v, want the cause prefixed with the loop's name", err)
	}
}

// The backoff grows from Initial towards Max, within the jitter, and a
// success starts it again from Initial.
func TestBackoffGrowsAndResets(t *testing.T) {
	sup, err := loop.New(loop.Config{Backoff: loop.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}}, nil, nil, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	l := sup.Loop("x", nil)
	var waits []time.Duration
	for range 8 {
		waits = append(waits, l.Failed(errors.New("down")))
	}
	if waits[0] < 80*time.Millisecond || waits[0] > 120*time.Millisecond {
		t.Fatalf("first wait %s, want 100 ms ±20%%", waits[0])
	}
	if last := waits[len(waits)-1]; last < 800*time.Millisecond || last > 1200*time.Millisecond {
		t.Fatalf("eighth wait %s, want Max 1 s ±20%%", last)
	}
	l.Succeeded()
	if w := l.Failed(errors.New("down")); w > 120*time.Millisecond {
		t.Fatalf("wait after a success %s, want Initial again", w)
	}
}

// A nil Supervisor still backs off, counting nothing: stages' unit tests
// run their loops without one.
func TestANilSupervisorStillBacksOff(t *testing.T) {
	var sup *loop.Supervisor
	l := sup.Loop("x", nil)
	if w := l.Failed(errors.New("down")); w <= 0 {
		t.Fatalf("wait %s, want a backoff", w)
	}
	l.Succeeded()
}

func TestConfigValidate(t *testing.T) {
	bad := loop.Config{UnreadyAfter: -1, Backoff: loop.Backoff{Initial: time.Second, Max: time.Millisecond}}
	err := bad.Validate()
	if err == nil || !strings.Contains(err.Error(), "UnreadyAfter") || !strings.Contains(err.Error(), "Max") {
		t.Fatalf("Validate = %v, want both problems", err)
	}
	if err := (loop.Config{}).Validate(); err != nil {
		t.Fatalf("zero config: %v", err)
	}
}

func gauge(t *testing.T, reg prometheus.Gatherer, name, loopName string) float64 {
	t.Helper()
	return testkit.Gauge(t, reg, name, map[string]string{"loop": loopName})
}

func testLog(testing.TB) *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
