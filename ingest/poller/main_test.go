package poller_test

import (
	"testing"

	"github.com/contrack/contrack/ingest/sandbox/journey/journeydate"
)

// TestMain pins the sandbox journeys to one date (journeydate): the tests
// pick sandbox containers by where their journeys stand.
func TestMain(m *testing.M) { journeydate.Main(m) }
