package testkit_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/testkit"
)

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	testkit.Eventually(t, 5*time.Second, "the third call", func() bool {
		calls++
		return calls == 3
	})
	if calls != 3 {
		t.Errorf("cond called %d times, want 3 (Eventually must stop as soon as it holds)", calls)
	}
}

// recorder is a testing.TB whose Fatalf records the message and ends the
// goroutine, as the real one does.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestEventuallyFailsWithWhatItWaitedFor(t *testing.T) {
	r := &recorder{TB: t}
	var wg sync.WaitGroup
	wg.Add(1)
	start := time.Now()
	go func() {
		defer wg.Done()
		testkit.Eventually(r, 50*time.Millisecond, "the moon", func() bool { return false })
		t.Error("Eventually returned although its condition never held")
	}()
	wg.Wait()
	if want := fmt.Sprintf("timed out after %s waiting for the moon", testkit.Scale(50*time.Millisecond)); r.msg != want {
		t.Errorf("failure message %q does not say what was waited for and how long", r.msg)
	}
	if waited := time.Since(start); waited < testkit.Scale(50*time.Millisecond) {
		t.Errorf("gave up after %s, before its deadline of 50ms", waited)
	}
}

func TestWaitFailsWithWhatItSawLast(t *testing.T) {
	r := &recorder{TB: t}
	var wg sync.WaitGroup
	wg.Add(1)
	n := 0
	go func() {
		defer wg.Done()
		testkit.Wait(r, 30*time.Millisecond, "five moons", func() (bool, any) {
			n++
			return false, fmt.Sprintf("%d moons", min(n, 2))
		})
		t.Error("Wait returned although its condition never held")
	}()
	wg.Wait()
	if want := fmt.Sprintf("timed out after %s waiting for five moons; last saw 2 moons", testkit.Scale(30*time.Millisecond)); r.msg != want {
		t.Errorf("failure message %q, want %q", r.msg, want)
	}
}

func TestScaleMultipliesByTheFactor(t *testing.T) {
	want := 1.0
	if v := os.Getenv(testkit.ScaleVariable); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		want = f
	}
	if got := testkit.Scale(10 * time.Second); got != time.Duration(want*float64(10*time.Second)) {
		t.Errorf("Scale(10s) = %s with %s=%q", got, testkit.ScaleVariable, os.Getenv(testkit.ScaleVariable))
	}
}
