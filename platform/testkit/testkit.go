// Package testkit holds the waiting and metric-reading helpers every test shares. It depends
// on nothing of contrack's, so any package's tests can import it.
package testkit

import (
	"testing"
	"time"
)

// pollEvery is how often Eventually checks its condition: often enough that
// a test waits no longer than it must, rarely enough not to load the store
// the condition queries.
const pollEvery = 10 * time.Millisecond

// Eventually polls cond until it holds, and fails the test (stopping it) if
// it still does not hold after within. what says what was waited for, as
// the failure message reads "timed out after <within> waiting for <what>".
// cond runs on the test's goroutine and may call t.Fatal itself.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(pollEvery)
	}
}
