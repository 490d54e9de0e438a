// Package testkit holds the waiting and metric-reading helpers every test shares. It depends
// on nothing of contrack's, so any package's tests can import it.
package testkit

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// pollEvery is how often Eventually checks its condition: often enough that
// a test waits no longer than it must, rarely enough not to load the store
// the condition queries.
const pollEvery = 10 * time.Millisecond

// ScaleVariable multiplies every bound Eventually and Wait wait for (a
// decimal factor, default 1), so a busy machine or a slow CI can give the
// suite more time without editing a test.
const ScaleVariable = "CONTRACK_TEST_TIMEOUT_SCALE"

// scale is ScaleVariable's factor, read once; an unreadable value panics
// (a test run with a typo in its environment must not silently wait 1×).
var scale = sync.OnceValue(func() float64 {
	v := os.Getenv(ScaleVariable)
	if v == "" {
		return 1
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		panic(fmt.Sprintf("testkit: %s=%q is not a positive number", ScaleVariable, v))
	}
	return f
})

// Scale returns d multiplied by ScaleVariable's factor: the bound to use for
// any wait a test makes on something other than Eventually or Wait.
func Scale(d time.Duration) time.Duration { return time.Duration(float64(d) * scale()) }

// Eventually polls cond until it holds, and fails the test (stopping it) if
// it still does not hold after within (times ScaleVariable's factor). what
// says what was waited for, as the failure message reads "timed out after
// <within> waiting for <what>". cond runs on the test's goroutine and may
// call t.Fatal itself. Wait also says what it saw last.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	Wait(t, within, what, func() (bool, any) { return cond(), nil })
}

// Wait is Eventually for a condition that also returns what it saw: a
// failure ends with the last value seen ("…; last saw <saw>"), so a failed
// run says how far it got.
func Wait(t testing.TB, within time.Duration, what string, cond func() (ok bool, saw any)) {
	t.Helper()
	within = Scale(within)
	deadline := time.Now().Add(within)
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if saw == nil {
				t.Fatalf("timed out after %s waiting for %s", within, what)
			}
			t.Fatalf("timed out after %s waiting for %s; last saw %v", within, what, saw)
		}
		time.Sleep(pollEvery)
	}
}
