package loop_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/testkit"
)

// runComponent runs c under sup until the test ends; the channel closes
// when Run has returned, and *result is then what it returned.
func runComponent(t *testing.T, sup *loop.Supervisor, c loop.Component) (done <-chan struct{}, result *error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	var err error
	go func() { err = sup.Run(ctx, c); close(ended) }()
	t.Cleanup(func() { cancel(); <-ended })
	return ended, &err
}

// A component's rounds run at start in their order, then at their ticks
// and wakes, one at a time; its failures are counted, turn /readyz red
// after a run of them and green at the next success.
func TestAComponentRunsItsRoundsAndIsSupervised(t *testing.T) {
	reg := prometheus.NewRegistry()
	health := httpapi.NewHealth(nil, 0, testLog(t))
	sup, err := loop.New(loop.Config{UnreadyAfter: 3}, reg, health, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		order   []string
		running atomic.Int32
		overlap atomic.Bool
		broken  atomic.Bool
		woken   atomic.Int32
	)
	broken.Store(true)
	wake := make(chan struct{}, 1)
	note := func(name string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, name)
	}
	do := func(name string, f func() error) func(context.Context) error {
		return func(context.Context) error {
			if running.Add(1) > 1 {
				overlap.Store(true)
			}
			defer running.Add(-1)
			note(name)
			return f()
		}
	}
	runComponent(t, sup, loop.Component{Name: "sweeper", Rounds: []loop.Round{
		{AtStart: true, Every: time.Millisecond, Do: do("sweep", func() error {
			if broken.Load() {
				return errors.New("store unreachable")
			}
			return nil
		})},
		{AtStart: true, Do: do("gauges", func() error { return nil })},
		{Wake: wake, Do: do("poked", func() error { woken.Add(1); return nil })},
	}})
	testkit.Eventually(t, 5*time.Second, "/readyz 503 naming the component", func() bool {
		code, body := readyz(t, health)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "sweeper failing")
	})
	if n := testkit.Counter(t, reg, "contrack_loop_failures_total", map[string]string{"loop": "sweeper"}); n < 3 {
		t.Fatalf("failures counted %v, want at least 3", n)
	}
	broken.Store(false)
	testkit.Eventually(t, 5*time.Second, "/readyz 200 once a round succeeds", func() bool {
		code, _ := readyz(t, health)
		return code == http.StatusOK
	})
	wake <- struct{}{}
	testkit.Eventually(t, 5*time.Second, "the woken round", func() bool { return woken.Load() == 1 })
	mu.Lock()
	defer mu.Unlock()
	if len(order) < 2 || order[0] != "sweep" || order[1] != "gauges" {
		t.Errorf("rounds ran %v, want sweep then gauges at start", order[:min(len(order), 2)])
	}
	if overlap.Load() {
		t.Error("two rounds of one component ran at once")
	}
}

// With OnFailure BackOff, a failed round makes the component wait the
// supervisor's backoff before any next round, however soon one is due.
func TestAComponentBacksOffAfterAFailure(t *testing.T) {
	const initial = 200 * time.Millisecond
	sup, err := loop.New(loop.Config{Backoff: loop.Backoff{Initial: initial, Max: initial}}, nil, nil, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	var failedAt, nextAt atomic.Int64
	runComponent(t, sup, loop.Component{Name: "claims", OnFailure: loop.BackOff, Rounds: []loop.Round{
		{AtStart: true, Every: time.Millisecond, Do: func(context.Context) error {
			now := time.Now().UnixNano()
			if failedAt.CompareAndSwap(0, now) {
				return errors.New("claim failed")
			}
			nextAt.CompareAndSwap(0, now)
			return nil
		}},
	}})
	testkit.Eventually(t, 5*time.Second, "a round after the failure", func() bool { return nextAt.Load() != 0 })
	// The backoff is within ±20% of initial.
	if gap := time.Duration(nextAt.Load() - failedAt.Load()); gap < initial*8/10 {
		t.Errorf("the next round came %v after the failure, want at least the backoff (%v ±20%%)", gap, initial)
	}
}

// An Unrecoverable round ends Run with the error and the component's
// name; an invalid declaration is refused before anything runs.
func TestAComponentStopsOnAnUnrecoverableErrorAndValidates(t *testing.T) {
	done, result := runComponent(t, nil, loop.Component{Name: "flusher", Rounds: []loop.Round{
		{AtStart: true, Do: func(context.Context) error { return loop.Unrecoverable(errors.New("schema gone")) }},
	}})
	select {
	case <-done:
		if err := *result; !errors.Is(err, loop.ErrUnrecoverable) || !strings.Contains(err.Error(), "flusher") {
			t.Errorf("Run returned %v, want the unrecoverable error with the component's name", err)
		}
	case <-time.After(testkit.Scale(5 * time.Second)):
		t.Fatal("Run did not stop on an unrecoverable error")
	}
	for _, c := range []loop.Component{
		{Rounds: []loop.Round{{AtStart: true, Do: func(context.Context) error { return nil }}}},
		{Name: "idle"},
		{Name: "never", Rounds: []loop.Round{{Do: func(context.Context) error { return nil }}}},
		{Name: "nothing", Rounds: []loop.Round{{Every: time.Second}}},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("component %+v validated", c)
		}
	}
}
