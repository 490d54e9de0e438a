package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/contrack/contrack/ingest/sandbox/journey/journeydate"
)

// TestMain pins the sandbox journeys to one date (journeydate), so the
// tests' containers stand where they stood then, in the test executable run
// again as contrack too; with CONTRACK_TEST_MAIN=1 that executable is
// `contrack` itself.
func TestMain(m *testing.M) {
	if _, err := journeydate.Pin(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if os.Getenv("CONTRACK_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
