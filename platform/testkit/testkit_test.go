package testkit_test

import (
	"fmt"
	"runtime"
	"strings"
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
	if !strings.Contains(r.msg, "timed out after 50ms waiting for the moon") {
		t.Errorf("failure message %q does not say what was waited for and how long", r.msg)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Errorf("gave up after %s, before its deadline of 50ms", waited)
	}
}
