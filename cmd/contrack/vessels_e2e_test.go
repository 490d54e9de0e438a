package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas/iso6346"
)

// atSeaContainer finds a sandbox container number of scac (owner code
// owner) whose journey, at journey time now, has its vessel at sea since
// at least 12 hours and for at least ahead more: a container that stays at
// sea while a test runs. The sandbox journeys cycle, so which number that
// is depends on the day.
func atSeaContainer(t *testing.T, scac, owner string, now time.Time, ahead time.Duration) (string, journey.Leg) {
	t.Helper()
	for serial := 1; serial < 5000; serial++ {
		n := fmt.Sprintf("%s%06d", owner, serial)
		n += fmt.Sprint(iso6346.CheckDigit(n))
		j, ok := sandbox.Shipment(scac, journey.KindContainer, n, now)
		if !ok {
			continue
		}
		for _, l := range j.Legs {
			if l.Mode == journey.ModeVessel && l.Vessel != nil && now.After(l.Departs.Add(12*time.Hour)) && now.Before(l.Arrives.Add(-ahead)) {
				return n, l
			}
		}
	}
	t.Fatalf("no %s container of %s at sea at %s", owner, scac, now)
	return "", journey.Leg{}
}
