package tnt3_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/tnt3"
	"github.com/contrack/contrack/schemas/tnt3/tnt3test"
)

// goldenEvents are the 2.0.2 events every parser's golden files hold:
// what contrack's pipeline carries, from every source format.
func goldenEvents(t *testing.T) map[string][]json.RawMessage {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "normalize")
	var files []string
	for _, pattern := range []string{"*/testdata/*.golden.json", "*/testdata/golden/*.json"} {
		m, _ := filepath.Glob(filepath.Join(root, pattern))
		files = append(files, m...)
	}
	out := map[string][]json.RawMessage{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var evs []json.RawMessage
		if json.Unmarshal(raw, &evs) != nil {
			var wrapped struct{ Events []json.RawMessage }
			if json.Unmarshal(raw, &wrapped) != nil || len(wrapped.Events) == 0 {
				continue // an error golden
			}
			evs = wrapped.Events
		}
		rel, _ := filepath.Rel(root, f)
		out[rel] = evs
	}
	return out
}

// Every event any parser emits maps to a 3.0 event that validates
// against the published schema.
func TestFromDCSAValidates(t *testing.T) {
	updated := time.Date(2026, 11, 26, 19, 11, 0, 123e6, time.UTC)
	n := 0
	for file, evs := range goldenEvents(t) {
		for i, raw := range evs {
			e, err := tnt3.FromDCSAJSON(raw, "MAEU", updated)
			if err != nil {
				t.Fatalf("%s[%d]: %v", file, i, err)
			}
			out, _ := json.Marshal(e)
			if err := tnt3test.Event(out); err != nil {
				t.Errorf("%s[%d]: %v\n%s", file, i, err, out)
			}
			n++
		}
	}
	if n < 50 {
		t.Fatalf("only %d golden events", n)
	}
	t.Logf("%d events", n)
}

func TestFromDCSAMapsFields(t *testing.T) {
	seq := 3
	e := dcsa.Event{
		EventID: "e63da6b9-e792-5fbb-9c32-55b80e069dcb", EventCreatedDateTime: "2026-01-01T00:00:00Z",
		EventType: dcsa.EventTypeTransport, EventClassifierCode: "EST", EventDateTime: "2026-02-01T10:00:00+01:00",
		TransportEventTypeCode: "ARRI", DelayReasonCode: "WEA", ChangeRemark: "storm", CarrierCode: "HLCU",
		FacilityTypeCode: "BOCR",
		TransportCall: &dcsa.TransportCall{TransportCallID: "x", TransportCallSequenceNumber: &seq, ModeOfTransport: "VESSEL",
			CarrierServiceCode: "AE7", CarrierExportVoyageNumber: "412W", CarrierImportVoyageNumber: "412E",
			UNLocationCode: "NLRTM", FacilityCode: "ECTDE", FacilityCodeListProvider: "SMDG",
			Vessel: &dcsa.Vessel{VesselIMONumber: "9321483", VesselName: "Ever Given", VesselCallSignNumber: "H3RC"}},
		DocumentReferences: []dcsa.DocumentReference{{DocumentReferenceType: "BKG", DocumentReferenceValue: "B1"}, {DocumentReferenceType: "TRD", DocumentReferenceValue: "T1"}},
		References:         []dcsa.Reference{{ReferenceType: "EQ", ReferenceValue: "ABCDEFGHIJKLMNO"}},
		EquipmentReference: "ABCDEFGHIJKLMNO",
	}
	got := tnt3.FromDCSA(e, "MAEU", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	b, _ := json.Marshal(got)
	want := `{"eventRouting":{"originatingParty":{"partyCode":"HLCU","codeListProvider":"NMFTA","codeListName":"SCAC","partyFunction":"CA"}},` +
		`"eventID":"e63da6b9-e792-5fbb-9c32-55b80e069dcb","eventDateTime":"2026-02-01T10:00:00+01:00","eventUpdatedDateTime":"2026-01-02T03:04:05.000Z",` +
		`"eventLocation":{"facilityTypeCode":"BORD","UNLocationCode":"NLRTM","facility":{"facilityCode":"ECTDE","facilityCodeListProvider":"SMDG"}},` +
		`"eventClassification":{"eventTypeCode":"TRANSPORT","eventClassifierCode":"EST","transportEventTypeCode":"ARRI"},` +
		`"shipmentDetails":{"documentReference":{"typeCode":"BKG","reference":"B1"},"additionalDocumentReferences":[{"typeCode":"TRD","reference":"T1"}],` +
		`"shipmentReferences":[{"typeCode":"EQ","reference":"ABCDEFGHIJKLMNO"}]},` +
		`"transportDetails":{"delayReasonCodes":["WEA"],"changeRemark":"storm","transportCall":{"transportCallSequenceNumber":3,"modeOfTransport":"VESSEL",` +
		`"serviceCodeOrReference":{"carrierServiceCode":"AE7"},"exportVoyageNumberOrReference":{"carrierVoyageNumber":"412W"},` +
		`"importVoyageNumberOrReference":{"carrierVoyageNumber":"412E"},"vesselTransport":{"vesselIMONumber":"9321483","vesselName":"Ever Given","vesselCallSign":"H3RC"}}}}`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
	tnt3test.Must(t, tnt3test.Event(b))
}

func TestRetractionValidates(t *testing.T) {
	b, _ := json.Marshal(tnt3.Retraction("e63da6b9-e792-5fbb-9c32-55b80e069dcb", "MAEU", time.Now()))
	tnt3test.Must(t, tnt3test.Event(b))
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back["isRetracted"] != true || back["eventID"] != "e63da6b9-e792-5fbb-9c32-55b80e069dcb" {
		t.Errorf("retraction %s", b)
	}
}

func TestIsVersion3(t *testing.T) {
	for v, want := range map[string]bool{"3": true, "3.0.0": true, " 3.0 ": true, "3.1.0-Beta-1": true, "": false, "2.2.0": false, "30": false, "2": false} {
		if tnt3.IsVersion3(v) != want {
			t.Errorf("IsVersion3(%q) = %v", v, !want)
		}
	}
}
