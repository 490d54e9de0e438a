package iftsta

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/validate/validatetest"
	"github.com/contrack/contrack/schemas/dcsa"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testEnv is what the pipeline would pass for an OOCL mailbox pull.
var testEnv = normalize.Envelope{SCAC: "OOLU", ReceivedAt: time.Date(2026, 4, 22, 12, 0, 0, 0, time.UTC)}

// TestGolden parses every testdata/*.edi and compares events, stats or the
// error with testdata/<name>.golden.json. Every emitted event must validate
// against EVENT_DOMAIN 2.0.2. Run with -update to rewrite the golden files,
// then read the diff.
func TestGolden(t *testing.T) {
	validatetest.GoldenOutcomes(t, "testdata/*.edi", ".edi",
		func(name string) string { return filepath.Join("testdata", name+".golden.json") }, *update,
		func(raw []byte) (normalize.Result, Stats, error) { return ParseStats(raw, testEnv) })
}

// TestBookingTwoContainers spells out, independently of the golden file,
// what the D.99B fixture must give: every status for both containers of the
// booking, in order, with the table's codes.
func TestBookingTwoContainers(t *testing.T) {
	raw, err := os.ReadFile("testdata/d99b_booking_two_containers.edi")
	if err != nil {
		t.Fatal(err)
	}
	events, st, err := strictStats(raw, testEnv)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ typ, code, container, empty, classifier, when, locode string }
	want := []row{
		{"EQUIPMENT", "GTOT", "OOLU1234567", "EMPTY", "ACT", "2026-03-02T09:30:00Z", "CNSHA"},
		{"EQUIPMENT", "GTOT", "OOLU7654320", "EMPTY", "ACT", "2026-03-02T09:30:00Z", "CNSHA"},
		{"EQUIPMENT", "GTIN", "OOLU1234567", "LADEN", "ACT", "2026-03-04T14:10:00+08:00", "CNSHA"},
		{"EQUIPMENT", "GTIN", "OOLU7654320", "LADEN", "ACT", "2026-03-04T14:10:00+08:00", "CNSHA"},
		{"EQUIPMENT", "LOAD", "OOLU1234567", "LADEN", "ACT", "2026-03-07T22:05:00+08:00", "CNSHA"},
		{"EQUIPMENT", "LOAD", "OOLU7654320", "LADEN", "ACT", "2026-03-07T22:05:00+08:00", "CNSHA"},
		{"TRANSPORT", "DEPA", "OOLU1234567", "", "ACT", "2026-03-08T01:30:00+08:00", "CNSHA"},
		{"TRANSPORT", "DEPA", "OOLU7654320", "", "ACT", "2026-03-08T01:30:00+08:00", "CNSHA"},
		{"TRANSPORT", "ARRI", "OOLU1234567", "", "EST", "2026-04-09T18:00:00+02:00", "NLRTM"},
		{"TRANSPORT", "ARRI", "OOLU7654320", "", "EST", "2026-04-09T18:00:00+02:00", "NLRTM"},
	}
	if len(events) != len(want) {
		t.Fatalf("got %d events, want %d", len(events), len(want))
	}
	for i, e := range events {
		code, locode := e.EquipmentEventTypeCode+e.TransportEventTypeCode, ""
		if e.EventLocation != nil {
			locode = e.EventLocation.UNLocationCode
		} else if e.TransportCall != nil && e.TransportCall.Location != nil {
			locode = e.TransportCall.Location.UNLocationCode
		}
		got := row{e.EventType, code, e.EquipmentReference, e.EmptyIndicatorCode, e.EventClassifierCode, e.EventDateTime, locode}
		if got != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, got, want[i])
		}
		if e.CarrierCode != "OOLU" || e.EventCreatedDateTime != "2026-03-12T08:15:00Z" {
			t.Errorf("event %d: carrierCode %q, eventCreatedDateTime %q", i, e.CarrierCode, e.EventCreatedDateTime)
		}
		wantDocs := []dcsa.DocumentReference{{DocumentReferenceType: "TRD", DocumentReferenceValue: "OOLU2701234560"}, {DocumentReferenceType: "BKG", DocumentReferenceValue: "2701234560"}}
		if !equalDocs(e.DocumentReferences, wantDocs) {
			t.Errorf("event %d documentReferences = %+v", i, e.DocumentReferences)
		}
	}
	// The vessel statuses carry the voyage and the vessel; GTOT empty at the
	// depot has no transport call (its status names no TDT).
	if tc := events[4].TransportCall; tc == nil || tc.CarrierVoyageNumber != "042W" || tc.Vessel == nil ||
		tc.Vessel.VesselIMONumber != "9776171" || tc.Vessel.VesselName != "OOCL HONG KONG" || tc.ModeOfTransport != "VESSEL" {
		t.Errorf("LOAD transportCall = %+v", events[4].TransportCall)
	}
	if events[0].TransportCall != nil {
		t.Errorf("empty pick-up has a transportCall: %+v", events[0].TransportCall)
	}
	if events[4].TransportCall.TransportCallID != events[6].TransportCall.TransportCallID {
		t.Errorf("LOAD and DEPA of one call have different transportCallIDs")
	}
	if events[0].EventID == events[1].EventID || events[0].EventID == events[2].EventID {
		t.Errorf("distinct events share an eventID")
	}
	if l := events[2].EventLocation; l.FacilityCode != "YSPII" || l.FacilityCodeListProvider != "SMDG" {
		t.Errorf("gate-in location = %+v, want SMDG terminal YSPII", l)
	}
	if st.Statuses != 6 || st.Skipped["CT"] != 1 || len(st.Unknown) != 0 || st.Events != 10 {
		t.Errorf("stats = %+v", st)
	}
}

func equalDocs(a, b []dcsa.DocumentReference) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDeterministic: parsing the same payload twice gives the same ids, so a
// redelivered interchange is recognised downstream.
func TestDeterministic(t *testing.T) {
	raw, err := os.ReadFile("testdata/d14a_equipment_headed.edi")
	if err != nil {
		t.Fatal(err)
	}
	a, err := normalize.Strict(Parse(raw, testEnv))
	if err != nil {
		t.Fatal(err)
	}
	later := testEnv
	later.ReceivedAt = later.ReceivedAt.Add(time.Hour)
	b, err := normalize.Strict(Parse(raw, later))
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i].EventID != b[i].EventID || a[i].EventID == "" {
			t.Fatalf("event %d: ids %q and %q", i, a[i].EventID, b[i].EventID)
		}
	}
}

// strictStats is ParseStats read whole: the events, or the payload's error
// or else its first refused status.
func strictStats(raw []byte, env normalize.Envelope) ([]dcsa.Event, Stats, error) {
	res, st, err := ParseStats(raw, env)
	events, err := normalize.Strict(res, err)
	return events, st, err
}
