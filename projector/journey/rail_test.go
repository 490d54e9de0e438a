package journey_test

import (
	"encoding/json"
	"testing"

	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
)

// leg is an equipment event on a transport call of the given mode.
func leg(id, code, place, at, mode string) schemas.EventRecord {
	e := dcsa.Event{EventID: id, EventType: dcsa.EventTypeEquipment, EventClassifierCode: "ACT", EventDateTime: at, EventCreatedDateTime: at,
		EquipmentEventTypeCode: code, EquipmentReference: box, EmptyIndicatorCode: "LADEN",
		TransportCall: &dcsa.TransportCall{TransportCallID: id, ModeOfTransport: mode, UNLocationCode: place}}
	return record(e)
}

// A box that goes by sea to USSEA, then by rail to USMEM: the port of
// discharge is the last port a vessel discharged it at, not the rail
// ramp; the ramp is no transshipment; the discharge at POD is a
// milestone, and the readiness facts (so the last free day) are the
// port's, where the box left the terminal on the train.
func TestRailOnCarriageIsNotThePortOfDischarge(t *testing.T) {
	r := derive(t,
		leg("r0", "LOAD", "USCHI", "2026-09-28T10:00:00Z", "RAIL"), // pre-carriage to the port of loading
		leg("r1", "DISC", "CNSHA", "2026-09-30T10:00:00Z", "RAIL"),
		leg("l1", "LOAD", "CNSHA", "2026-10-01T10:00:00Z", "VESSEL"),
		leg("x1", "DISC", "USSEA", "2026-10-20T10:00:00Z", "VESSEL"),
		leg("r2", "LOAD", "USSEA", "2026-10-21T08:00:00Z", "RAIL"),
		leg("r3", "DISC", "USMEM", "2026-10-25T16:00:00Z", "RAIL"),
		leg("g1", "GTOT", "USMEM", "2026-10-26T09:00:00Z", "TRUCK"),
	)
	if r.POL != "CNSHA" || r.POD != "USSEA" {
		t.Fatalf("POL %q POD %q, want CNSHA and USSEA (rail legs are pre- and on-carriage)", r.POL, r.POD)
	}
	got, _ := json.Marshal(r.EnhancedEvents)
	want := `[{"enhancedEventType":"DISCHARGE_POD","UNLocationCode":"USSEA","eventDateTime":"2026-10-20T10:00:00Z"},` +
		`{"enhancedEventType":"GATE_OUT_FULL_DESTINATION","UNLocationCode":"USMEM","eventDateTime":"2026-10-26T09:00:00Z"}]`
	if string(got) != want {
		t.Fatalf("milestones\n got %s\nwant %s", got, want)
	}
	if f := r.Facts; f.UNLocationCode != "USSEA" || f.DischargedDateTime != "2026-10-20T10:00:00Z" || f.PickedUpDateTime != "2026-10-21T08:00:00Z" {
		t.Fatalf("readiness facts %+v, want discharged at USSEA and gone on the train the next morning", f)
	}
}

// A box whose only legs are by rail still has a route: its first load and
// last discharge.
func TestRailOnlyJourneyKeepsItsEnds(t *testing.T) {
	r := derive(t,
		leg("r0", "LOAD", "DEHAM", "2026-09-28T10:00:00Z", "RAIL"),
		leg("r1", "DISC", "DEMUC", "2026-09-30T10:00:00Z", "RAIL"),
	)
	if r.POL != "DEHAM" || r.POD != "DEMUC" {
		t.Fatalf("POL %q POD %q, want DEHAM and DEMUC", r.POL, r.POD)
	}
}
