package loop_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/contrack/contrack/platform/loop"
)

// Run paces its rounds by the clock, not by how fast they return: after a
// success it waits every, after a failure the backoff (Initial, doubling,
// within the jitter), and a success starts the backoff again. In a
// synctest bubble the times are exact.
func TestRunPacesRoundsBySuccessAndBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const every = time.Second
		sup, err := loop.New(loop.Config{Backoff: loop.Backoff{Initial: 100 * time.Millisecond, Max: time.Minute}}, nil, nil, testLog(t))
		if err != nil {
			t.Fatal(err)
		}
		// Rounds 0 and 1 succeed, 2–4 fail, 5 succeeds, then the loop is
		// stopped in round 6.
		outcomes := []error{nil, nil, errors.New("down"), errors.New("down"), errors.New("down"), nil}
		ctx, cancel := context.WithCancel(context.Background())
		var at []time.Time
		start := time.Now()
		err = sup.Loop("paced", testLog(t)).Run(ctx, every, func(context.Context) error {
			at = append(at, time.Now())
			if len(at) > len(outcomes) {
				cancel()
				return nil
			}
			return outcomes[len(at)-1]
		})
		if err != nil {
			t.Fatalf("Run = %v after ctx ended, want nil", err)
		}
		if len(at) != 7 {
			t.Fatalf("%d rounds, want 7", len(at))
		}
		gap := func(i int) time.Duration { return at[i].Sub(at[i-1]) }
		if at[0] != start || gap(1) != every || gap(2) != every {
			t.Fatalf("rounds at %v, want at once, then every %s after each success", offsets(start, at), every)
		}
		// After the failures of rounds 2, 3 and 4: 100, 200 and 400 ms, ±20%.
		for i, want := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
			if g := gap(3 + i); g < want*8/10 || g > want*12/10 {
				t.Fatalf("wait after failure %d was %s, want %s ±20%% (rounds at %v)", i+1, g, want, offsets(start, at))
			}
		}
		if gap(6) != every {
			t.Fatalf("wait after the recovering success was %s, want every %s", gap(6), every)
		}
	})
}

// A loop waiting out its pace ends at once when its context does.
func TestRunEndsDuringItsWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		rounds := 0
		go func() {
			done <- (*loop.Supervisor)(nil).Loop("waiting", testLog(t)).Run(ctx, time.Hour, func(context.Context) error { rounds++; return nil })
		}()
		synctest.Wait() // the first round ran; the loop waits its hour
		start := time.Now()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
		if d := time.Since(start); d != 0 || rounds != 1 {
			t.Fatalf("Run ended %s after its context, after %d rounds; want at once, after 1", d, rounds)
		}
	})
}

func offsets(start time.Time, at []time.Time) []time.Duration {
	out := make([]time.Duration, len(at))
	for i, a := range at {
		out[i] = a.Sub(start)
	}
	return out
}
