package testenv

import (
	"fmt"
	"strings"
	"testing"
)

// failingTB is a test that has failed: it keeps its cleanups and what it
// logs, for the test to look at.
type failingTB struct {
	testing.TB
	cleanups []func()
	logged   strings.Builder
}

func (f *failingTB) Cleanup(fn func())               { f.cleanups = append(f.cleanups, fn) }
func (f *failingTB) Failed() bool                    { return true }
func (f *failingTB) Logf(format string, args ...any) { fmt.Fprintf(&f.logged, format, args...) }
func (f *failingTB) Name() string                    { return "failing" }
func (f *failingTB) Helper()                         {}

// A failed test prints what its stages logged, every logger of it in one
// tail, bounded to its last logTail bytes.
func TestAFailedTestPrintsItsLogTail(t *testing.T) {
	f := &failingTB{TB: t}
	Log(f).Info("first stage up", "stage", "api")
	Log(f).Error("pull failed", "err", "clickhouse: read journeys: timeout")
	for i := range 2000 {
		Log(f).Info("filler", "i", i)
	}
	Log(f).Warn("last words")
	if len(f.cleanups) != 1 {
		t.Fatalf("%d cleanups registered for one test's loggers, want 1", len(f.cleanups))
	}
	f.cleanups[0]()
	out := f.logged.String()
	if !strings.Contains(out, "last words") || strings.Contains(out, "first stage up") {
		t.Fatalf("printed %d bytes; want the tail with the last line and without the first:\n%.300s", len(out), out)
	}
	if n := len(out); n > logTail+200 {
		t.Fatalf("printed %d bytes, want at most the tail of %d", n, logTail)
	}
}
