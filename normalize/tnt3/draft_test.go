package tnt3_test

import (
	"os"
	"testing"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/tnt3"
	"github.com/contrack/contrack/reference"
	"github.com/contrack/contrack/schemas/dcsa"
)

// DCSA's first TNT 3.0 sample names the transport call's and the reefer
// probes' members as the drafts did; the vessel, voyages, call reference
// and probe readings are read, each member counted, not dropped.
func TestDraftMembers(t *testing.T) {
	raw, err := os.ReadFile(reference.Path("carriers", "DCSA", "conformance-gateway-tnt-300-response-2026-01-21.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := tnt3.Parse(raw, normalize.Envelope{SCAC: "DCSA", ReceivedAt: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil || len(res.Events) == 0 {
		t.Fatalf("%d events, err %v", len(res.Events), err)
	}
	var tc *dcsa.TransportCall
	for _, ev := range res.Events {
		if ev.EventType == dcsa.EventTypeTransport {
			tc = ev.TransportCall
			break
		}
	}
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
	if n != 12 {
		t.Fatalf("%d draft members counted, want 12 (transportCallID, carrierServiceCode, two voyages, vessel, a position, and three reefer probes' temperature and number)", n)
	}
}
