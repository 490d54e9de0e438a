package dcsa_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contrack/contrack/schemas/dcsa"
)

// summaryFields are the values a Summary gives, Place included.
type summaryFields [9]string

func (f summaryFields) String() string { return strings.Join(f[:], "|") }

// summaryOf is what a Summary reads, taken from a whole Event.
func summaryOf(e *dcsa.Event) summaryFields {
	return summaryFields{e.EventCreatedDateTime, e.EventType, e.EventClassifierCode, e.EventDateTime, e.EquipmentEventTypeCode,
		e.EquipmentReference, e.EmptyIndicatorCode, e.TransportEventTypeCode, e.Place()}
}

func fieldsOf(s *dcsa.Summary) summaryFields {
	return summaryFields{s.EventCreatedDateTime, s.EventType, s.EventClassifierCode, s.EventDateTime, s.EquipmentEventTypeCode,
		s.EquipmentReference, s.EmptyIndicatorCode, s.TransportEventTypeCode, s.Place()}
}

// eventsIn collects every JSON object with an eventType under v.
func eventsIn(v any, out *[]json.RawMessage) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["eventType"]; ok {
			b, _ := json.Marshal(v)
			*out = append(*out, b)
			return
		}
		for _, c := range v {
			eventsIn(c, out)
		}
	case []any:
		for _, c := range v {
			eventsIn(c, out)
		}
	}
}

// TestSummaryReadsWhatEventReads: for every DCSA event the normalisers'
// golden files hold, and for events built to take each branch of Place,
// a Summary decodes the same values as a whole Event.
func TestSummaryReadsWhatEventReads(t *testing.T) {
	var events []json.RawMessage
	err := filepath.WalkDir("../../normalize", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") || !strings.Contains(path, "testdata") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var v any
		if json.Unmarshal(b, &v) == nil {
			eventsIn(v, &events)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) < 20 {
		t.Fatalf("found %d golden events; the normalisers' testdata moved?", len(events))
	}
	loc := func(code string) *dcsa.Location { return &dcsa.Location{LocationName: "x", UNLocationCode: code} }
	for _, e := range []dcsa.Event{
		{EventType: dcsa.EventTypeEquipment, EventLocation: loc("NLRTM")},
		{EventType: dcsa.EventTypeEquipment, EventLocation: loc(""), TransportCall: &dcsa.TransportCall{UNLocationCode: "DEHAM"}},
		{EventType: dcsa.EventTypeTransport, TransportEventTypeCode: "ARRI", TransportCall: &dcsa.TransportCall{UNLocationCode: "DEHAM", Location: loc("BEANR")}},
		{EventType: dcsa.EventTypeTransport, TransportCall: &dcsa.TransportCall{Location: loc("")}},
		{EventType: dcsa.EventTypeEquipment},
	} {
		b, _ := json.Marshal(e)
		events = append(events, b)
	}
	places := map[string]bool{}
	for _, raw := range events {
		var e dcsa.Event
		if err := json.Unmarshal(raw, &e); err != nil {
			continue // not a 2.0.2 event (a source format's)
		}
		var s dcsa.Summary
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("summary of %s: %v", raw, err)
		}
		if got, want := fieldsOf(&s), summaryOf(&e); got != want {
			t.Fatalf("summary of %s:\n got %s\nwant %s", raw, got, want)
		}
		places[e.Place()] = true
	}
	for _, p := range []string{"NLRTM", "DEHAM", "BEANR", ""} {
		if !places[p] {
			t.Errorf("no event placed at %q: a branch of Place untested", p)
		}
	}
}

func BenchmarkDecodeEvent(b *testing.B) {
	raw := []byte(`{"eventID":"b2804a98-123c-586f-9f25-08d7be39e312","eventCreatedDateTime":"2026-03-11T04:00:00Z","eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":"2026-03-10T15:30:00Z","equipmentEventTypeCode":"LOAD","equipmentReference":"TCNU5521901","ISOEquipmentCode":"45R1","emptyIndicatorCode":"LADEN","eventLocation":{"locationName":"Rotterdam","UNLocationCode":"NLRTM"},"transportCall":{"transportCallID":"x1","carrierVoyageNumber":"2103S","UNLocationCode":"NLRTM","modeOfTransport":"VESSEL","vessel":{"vesselIMONumber":"9321483","vesselName":"King of the Seas"}},"documentReferences":[{"documentReferenceType":"BKG","documentReferenceValue":"ABC123"},{"documentReferenceType":"TRD","documentReferenceValue":"T-1"}],"references":[{"referenceType":"FF","referenceValue":"R1"}],"seals":[{"sealNumber":"S1","sealSource":"CAR","sealType":"WIR"}]}`)
	b.Run("Event", func(b *testing.B) {
		for b.Loop() {
			var e dcsa.Event
			if err := json.Unmarshal(raw, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Summary", func(b *testing.B) {
		for b.Loop() {
			var s dcsa.Summary
			if err := json.Unmarshal(raw, &s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DecodeSummary", func(b *testing.B) {
		for b.Loop() {
			var s dcsa.Summary
			if err := dcsa.DecodeSummary(raw, &s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DecodeValidSummary", func(b *testing.B) {
		for b.Loop() {
			var s dcsa.Summary
			if err := dcsa.DecodeValidSummary(raw, &s); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// sameAsUnmarshal fails t unless DecodeSummary gives what json.Unmarshal
// gives for raw: an error for the same inputs, else the same fields.
func sameAsUnmarshal(t *testing.T, raw []byte) {
	t.Helper()
	var want dcsa.Summary
	werr := json.Unmarshal(raw, &want)
	var got dcsa.Summary
	gerr := dcsa.DecodeSummary(raw, &got)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: DecodeSummary error %v, Unmarshal error %v", raw, gerr, werr)
	}
	if werr != nil {
		return
	}
	if fieldsOf(&got) != fieldsOf(&want) || (got.EventLocation == nil) != (want.EventLocation == nil) ||
		(got.TransportCall == nil) != (want.TransportCall == nil) ||
		(got.TransportCall != nil && (got.TransportCall.Location == nil) != (want.TransportCall.Location == nil)) {
		t.Fatalf("%q:\n got %s %+v\nwant %s %+v", raw, fieldsOf(&got), got, fieldsOf(&want), want)
	}
}

// summarySeeds are events in contrack's form and around it: escapes,
// nulls, duplicates, other spellings, wrong types, invalid JSON.
var summarySeeds = []string{
	`{"eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":"2025-01-01T00:00:00Z","equipmentEventTypeCode":"GTIN","equipmentReference":"MSKU1234565","emptyIndicatorCode":"LADEN","eventLocation":{"UNLocationCode":"NLRTM","locationName":"x"},"documentReferences":[{"a":"b"},1,2.5e3,true,null],"n":-1}`,
	`{"eventType":"TRANSPORT","transportEventTypeCode":"ARRI","transportCall":{"transportCallID":"1","UNLocationCode":"DEHAM","location":{"UNLocationCode":"BEANR"},"vessel":{"x":[1,{"y":"}"}]}}}`,
	`{"eventType":"TRANSPORT","transportCall":{"UNLocationCode":"DEHAM","location":null}}`,
	` { "eventType" : "EQ\u0055IPMENT" , "eventLocation" : { } } `,
	`{"eventType":"A","eventType":"B"}`,
	`{"eventLocation":{"UNLocationCode":"A"},"eventLocation":{}}`,
	`{"EventType":"EQUIPMENT","eventtype":"x"}`,
	`{"unlocationcode":"x","eventLocation":{"unLocationCode":"NLRTM"}}`,
	`{"eventType":null,"eventLocation":null,"transportCall":null}`,
	`{"eventType":1}`,
	`{"eventLocation":"NLRTM"}`,
	`{"eventType":"\xff"}`,
	`{"eventType":"EQUIPMENT"`,
	`[{"eventType":"EQUIPMENT"}]`,
	`{"k\u0065y":"v","eventType":"E"}`,
	`{"eventType":"E","x":"a\"b\\","y":["]",{"}":"{"}]}`,
	`{}`, `null`, `"x"`, ``,
}

func TestDecodeSummaryIsUnmarshal(t *testing.T) {
	for _, s := range summarySeeds {
		sameAsUnmarshal(t, []byte(s))
	}
}

func FuzzDecodeSummary(f *testing.F) {
	for _, s := range summarySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameAsUnmarshal(t, raw) })
}
