package tnt3_test

import (
	"os"
	"testing"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/tnt3"
	"github.com/contrack/contrack/reference"
)

// DCSA's first TNT 3.0 sample names the transport call's members as the
// drafts did; the vessel, voyages and call reference are read, each member
// counted, not dropped.
func TestDraftMembers(t *testing.T) {
	raw, err := os.ReadFile(reference.Path("carriers", "DCSA", "conformance-gateway-tnt-300-response-2026-01-21.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := tnt3.Parse(raw, normalize.Envelope{SCAC: "DCSA", ReceivedAt: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil || len(res.Events) == 0 {
		t.Fatalf("%d events, err %v", len(res.Events), err)
	}
	tc := res.Events[0].TransportCall
	if tc == nil || tc.Vessel == nil || tc.Vessel.VesselIMONumber != "7654321" || tc.Vessel.VesselName != "Example Vessel Beta" ||
		tc.ExportVoyageNumber != "V002E" || tc.ImportVoyageNumber != "V002N" || tc.TransportCallReference != "tc-67890-def" {
		t.Fatalf("transport call %+v", tc)
	}
	n := 0
	for _, r := range res.Repairs {
		if r.Kind == normalize.RepairDraftMember {
			n++
		}
	}
	if n != 6 {
		t.Fatalf("%d draft members counted, want 6 (transportCallID, carrierServiceCode, two voyages, vessel, a position)", n)
	}
}
