// Package journeydate pins the sandbox journeys of a test binary to one
// date, so that no test depends on the day it runs.
//
// The journeys cycle from journey.Epoch, so which containers are under way,
// at sea or delivered depends on the date. Pin moves the epoch so that at
// the test binary's start every journey is where it stood at the pinned
// date, and runs on in real time from there. Event times stay near the wall
// clock, so every comparison the pipeline makes with its own clock (receipt
// times, expiry, last free days) holds as in production.
//
// CONTRACK_TEST_DATE chooses the date: an RFC 3339 time or a YYYY-MM-DD
// day (midnight UTC); "now" runs on the wall clock's date; unset, Default.
// `make test` runs the date-sensitive packages at three dates this way.
package journeydate

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox/journey"
)

// DateVariable is the environment variable Pin reads.
const DateVariable = "CONTRACK_TEST_DATE"

// epochVariable carries the pinned epoch to the processes a test starts
// (the test binary run again as contrack), so they show the same journeys.
const epochVariable = "CONTRACK_TEST_JOURNEY_EPOCH"

// Default is the date the journeys stand at when DateVariable is unset.
var Default = time.Date(2026, 6, 15, 9, 30, 0, 0, time.UTC)

// Main pins the journeys (Pin) and runs the package's tests; call it from
// TestMain.
func Main(m *testing.M) {
	if _, err := Pin(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// Pin moves journey.Epoch so that the journeys stand now where they stood at
// the date DateVariable names, and returns that date. Call it once, before
// any test runs: journey.Epoch is read without a lock.
func Pin() (time.Time, error) {
	if v := os.Getenv(epochVariable); v != "" {
		epoch, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return time.Time{}, fmt.Errorf("journeydate: %s=%q: %w", epochVariable, v, err)
		}
		date, err := Date(os.Getenv(DateVariable), time.Now())
		journey.Epoch = epoch
		return date, err
	}
	date, err := Date(os.Getenv(DateVariable), time.Now())
	if err != nil {
		return time.Time{}, err
	}
	journey.Epoch = journey.Epoch.Add(time.Since(date))
	return date, os.Setenv(epochVariable, journey.Epoch.Format(time.RFC3339Nano))
}

// Date parses a DateVariable value; now is what "now" means.
func Date(v string, now time.Time) (time.Time, error) {
	switch v {
	case "":
		return Default, nil
	case "now":
		return now, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("journeydate: %s=%q is neither an RFC 3339 time nor a YYYY-MM-DD date", DateVariable, v)
}
