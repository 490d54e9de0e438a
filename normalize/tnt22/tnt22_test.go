package tnt22

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/normalize/validate/validatetest"
	"github.com/contrack/contrack/schemas/dcsa"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// receivedAt is after every eventCreatedDateTime in the fixtures.
var receivedAt = time.Date(2024, 7, 1, 8, 0, 0, 0, time.UTC)

// goldenEnvs gives each testdata/<name>.input.json its envelope.
var goldenEnvs = map[string]normalize.Envelope{
	"dcsa-sample": {SCAC: "MAEU", TrackingID: "APZU4812090", ReceivedAt: receivedAt},
	// The tracked container is the second EQ reference of the transport
	// events, so the golden file shows TrackingID choosing it.
	"journey": {SCAC: "MAEU", TrackingID: "MRKU2356709", ReceivedAt: receivedAt},
	"empty":   {SCAC: "MAEU", ReceivedAt: receivedAt},
	// A TNT 2.2 page with the deviations of issue 44 (docs/normalize.md's
	// table), written from them; TestDeviations pins each repair.
	"carrier-deviations": {SCAC: "MSCU", TrackingID: "MSCU4812090", ReceivedAt: receivedAt},
}

func TestGolden(t *testing.T) {
	validatetest.GoldenEvents(t, "testdata/*.input.json", ".input.json", *update, func(t *testing.T, name string, raw []byte) ([]dcsa.Event, error) {
		env, ok := goldenEnvs[name]
		if !ok {
			t.Fatalf("add %q to goldenEnvs", name)
		}
		return normalize.Strict(Parse(raw, env))
	})
}

// TestMapping pins the rules the golden files only show by example, so a
// regenerated golden file cannot quietly change them.
func TestMapping(t *testing.T) {
	raw, err := os.ReadFile("testdata/journey.input.json")
	if err != nil {
		t.Fatal(err)
	}
	env := goldenEnvs["journey"]
	events, err := normalize.Strict(Parse(raw, env))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 5 {
		t.Fatalf("got %d events, want 5 (6 elements, the SHIPMENT one dropped)", len(events))
	}
	gtot, gtin, depa, arri, disc := events[0], events[1], events[2], events[3], events[4]

	t.Run("source eventID gives the id, case-insensitively", func(t *testing.T) {
		if want := identity.EventID("MAEU", "5b7f64d8-2f1e-4c55-9a51-0d5b3c1e9a02"); gtot.EventID != want {
			t.Errorf("eventID = %s, want EventID(MAEU, lower-cased source id) = %s", gtot.EventID, want)
		}
	})
	t.Run("no source eventID: id from fields", func(t *testing.T) {
		arri.EventID = ""
		if want := identity.EventIDFromFields(arri, "MAEU"); events[3].EventID != want {
			t.Errorf("eventID = %s, want %s", events[3].EventID, want)
		}
	})
	t.Run("export voyage under all three names", func(t *testing.T) {
		tc := gtin.TransportCall
		if tc.CarrierVoyageNumber != "426W" || tc.ExportVoyageNumber != "426W" || tc.CarrierExportVoyageNumber != "426W" {
			t.Errorf("voyages = %q/%q/%q, want 426W everywhere", tc.CarrierVoyageNumber, tc.ExportVoyageNumber, tc.CarrierExportVoyageNumber)
		}
		if arri.TransportCall.ImportVoyageNumber != "427E" || arri.TransportCall.CarrierImportVoyageNumber != "427E" {
			t.Errorf("import voyage not kept: %+v", arri.TransportCall)
		}
	})
	t.Run("TrackingID picks the EQ reference", func(t *testing.T) {
		if depa.EquipmentReference != "MRKU2356709" {
			t.Errorf("equipmentReference = %q, want the tracked MRKU2356709", depa.EquipmentReference)
		}
		other := env
		other.TrackingID = ""
		evs, err := normalize.Strict(Parse(raw, other))
		if err != nil {
			t.Fatal(err)
		}
		if evs[2].EquipmentReference != "MSKU9070323" {
			t.Errorf("without TrackingID equipmentReference = %q, want the first EQ reference", evs[2].EquipmentReference)
		}
	})
	t.Run("deprecated fields fill current ones", func(t *testing.T) {
		if depa.TransportEventTypeCode != "DEPA" {
			t.Errorf("transportEventTypeCode = %q, want DEPA from eventTypeCode", depa.TransportEventTypeCode)
		}
		if depa.ChangeRemark != "Berth congestion after port strike" {
			t.Errorf("changeRemark = %q, want vesselScheduleChangeRemark", depa.ChangeRemark)
		}
		if depa.FacilityTypeCode != "POTE" {
			t.Errorf("facilityTypeCode = %q, want the transport call's POTE", depa.FacilityTypeCode)
		}
	})
	t.Run("timestamps canonical RFC 3339 keeping the offset", func(t *testing.T) {
		for _, c := range []struct{ got, want string }{
			{gtin.EventDateTime, "2024-06-07T08:45:30.5+08:00"},
			{gtin.EventCreatedDateTime, "2024-06-07T01:00:00Z"},
			{depa.EventDateTime, "2024-06-10T22:40:00+08:00"},
			{arri.EventCreatedDateTime, "2024-06-28T11:00:00Z"},
			{disc.EventDateTime, "2024-07-21T10:00:00+02:00"},
			{disc.EventCreatedDateTime, "2024-06-28T11:00:00Z"},
		} {
			if c.got != c.want {
				t.Errorf("got %s, want %s", c.got, c.want)
			}
		}
	})
	t.Run("place fields merged into transportCall.location", func(t *testing.T) {
		l := arri.TransportCall.Location
		if l == nil || l.UNLocationCode != "NLRTM" || l.Latitude != "51.95442" {
			t.Errorf("location = %+v, want geo position plus UN/LOCODE NLRTM", l)
		}
		if l := gtin.TransportCall.Location; l == nil || l.FacilityCode != "NBCT" || l.FacilityCodeListProvider != "SMDG" {
			t.Errorf("location = %+v, want one built from the flat fields", l)
		}
	})
	t.Run("transportCallID derived when missing, stable per call", func(t *testing.T) {
		if disc.TransportCall.TransportCallID == "" || disc.TransportCall.TransportCallID != identity.TransportCallID("MAEU", *disc.TransportCall) {
			t.Errorf("transportCallID = %q, want identity.TransportCallID", disc.TransportCall.TransportCallID)
		}
		if gtin.TransportCall.TransportCallID != "TC-CNNGB-426W-01" {
			t.Errorf("source transportCallID not kept: %q", gtin.TransportCall.TransportCallID)
		}
	})
	t.Run("free text cut, codes kept", func(t *testing.T) {
		if n := validate.RuneLen(arri.ChangeRemark); n != validate.MaxChangeRemark {
			t.Errorf("changeRemark has %d characters, want it cut to %d", n, validate.MaxChangeRemark)
		}
		if gtin.EventLocation.Latitude != "29.9345678" {
			t.Errorf("latitude = %q, want 29.9345678 (cut to 10 characters)", gtin.EventLocation.Latitude)
		}
		if !strings.HasSuffix(gtot.EventLocation.LocationName, "宁波") {
			t.Errorf("locationName = %q, want the \\u escapes decoded", gtot.EventLocation.LocationName)
		}
	})
	t.Run("carrierCode is the envelope's SCAC", func(t *testing.T) {
		for i, e := range events {
			if e.CarrierCode != "MAEU" {
				t.Errorf("event %d carrierCode = %q", i, e.CarrierCode)
			}
		}
	})
}

// TestIdentityAcrossPolls: the same payload polled twice gives the same ids
// and hashes; an estimate that moved keeps its id and changes its hash.
func TestIdentityAcrossPolls(t *testing.T) {
	raw, err := os.ReadFile("testdata/journey.input.json")
	if err != nil {
		t.Fatal(err)
	}
	env := goldenEnvs["journey"]
	first, err := normalize.Strict(Parse(raw, env))
	if err != nil {
		t.Fatal(err)
	}
	later := env
	later.ReceivedAt = env.ReceivedAt.Add(time.Hour)
	again, err := normalize.Strict(Parse(raw, later))
	if err != nil {
		t.Fatal(err)
	}
	for i := range first {
		if first[i].EventID != again[i].EventID || identity.ContentHash(first[i]) != identity.ContentHash(again[i]) {
			t.Errorf("event %d changed between two polls of the same payload", i)
		}
	}
	moved := strings.Replace(string(raw), `"eventDateTime":"2024-07-20T05:00:00+02:00"`, `"eventDateTime":"2024-07-21T18:00:00+02:00"`, 1)
	if moved == string(raw) {
		t.Fatal("fixture changed: the EST ARRI eventDateTime was not found")
	}
	evs, err := normalize.Strict(Parse([]byte(moved), env))
	if err != nil {
		t.Fatal(err)
	}
	if evs[3].EventID != first[3].EventID {
		t.Errorf("moved estimate got a new id %s, want %s", evs[3].EventID, first[3].EventID)
	}
	if identity.ContentHash(evs[3]) == identity.ContentHash(first[3]) {
		t.Error("moved estimate kept its content hash")
	}
}

// TestNoAliasing: events must not share memory with the caller's buffer,
// which the pipeline reuses for the next record.
func TestNoAliasing(t *testing.T) {
	raw, err := os.ReadFile("testdata/journey.input.json")
	if err != nil {
		t.Fatal(err)
	}
	env := goldenEnvs["journey"]
	events, err := normalize.Strict(Parse(raw, env))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(events)
	for i := range raw {
		raw[i] = 'X'
	}
	after, _ := json.Marshal(events)
	if string(before) != string(after) {
		t.Fatal("overwriting the input changed the parsed events")
	}
}

// TestSamples: each deliberately broken DCSA sample has each bad element
// refused on its own, with its path, and the others read (they are SHIPMENT
// events, checked and left out, each counted); the ids that are not UUIDs
// are kept as source ids and counted.
func TestSamples(t *testing.T) {
	for _, c := range []struct {
		file    string
		refused []string // "path: reason"
		repairs []string // "kind path"
	}{
		{"tnt-220-response-wrong-attribute-values.json", []string{
			`[0].transportCall.location.UNLocationCode: "XYBCD" contradicts transportCall.UNLocationCode "XYABC"`,
			`[2].transportCall.location.UNLocationCode: "XYCDE" contradicts transportCall.UNLocationCode "XYBCD"`},
			[]string{"not_carried_left_out [1]"}},
		{"tnt-220-response-wrong-date-times.json", []string{
			"[1].eventCreatedDateTime: required",
			"[2].eventDateTime: required",
			`[3].eventCreatedDateTime: "2021 01 01 14:12:56" is not an RFC 3339 date-time: want YYYY-MM-DD`,
			`[4].eventDateTime: "2019/11/12 07:41:00 +08:30" is not an RFC 3339 date-time: want YYYY-MM-DD`,
			"[5].eventCreatedDateTime: 1999-01-01T14:12:56Z is before 2000-01-01: not a real event time",
			"[6].eventCreatedDateTime: 2099-01-01T14:12:56Z is more than a day after the payload was received (2024-07-01T08:00:00Z)"},
			[]string{"not_carried_left_out [0]"}},
		{"tnt-220-response-wrong-event-ids.json", []string{
			"[3].eventID: 3cecb101-7a1a-43a4-9d62-e88a131651e8 repeats the eventID of element [2]",
			"[6].eventID: af7728dc-0e1e-42d2-ad78-61c5c0c25878 repeats the eventID of element [5]"},
			[]string{"number_as_string [0].eventID", "event_id_not_uuid [0].eventID", "not_carried_left_out [0]", "event_id_not_uuid [1].eventID",
				"not_carried_left_out [1]", "not_carried_left_out [2]", "not_carried_left_out [4]", "not_carried_left_out [5]"}},
		{"tnt-220-response-wrong-structure.json", []string{
			"[0].eventType: required (the element is not a DCSA event)",
			"[1].eventType: required (the element is not a DCSA event)"}, nil},
	} {
		t.Run(c.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(validatetest.SamplesDir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Parse(raw, normalize.Envelope{SCAC: "MAEU", ReceivedAt: receivedAt})
			if err != nil {
				t.Fatalf("payload refused whole: %v", err)
			}
			var refused, repairs []string
			for _, r := range res.Refused {
				refused = append(refused, r.Path+": "+r.Reason)
				if r.Element != elementOf(r.Path) {
					t.Errorf("%s: Element %d", r.Path, r.Element)
				}
			}
			for _, r := range res.Repairs {
				repairs = append(repairs, string(r.Kind)+" "+r.Path)
			}
			if strings.Join(refused, "\n") != strings.Join(c.refused, "\n") {
				t.Errorf("refused:\n%s\nwant:\n%s", strings.Join(refused, "\n"), strings.Join(c.refused, "\n"))
			}
			if strings.Join(repairs, "\n") != strings.Join(c.repairs, "\n") {
				t.Errorf("repairs: %q, want %q", repairs, c.repairs)
			}
		})
	}
}

// TestSampleElements runs every element of the broken samples on its own,
// so each of their test cases is shown to be caught, not only the first.
func TestSampleElements(t *testing.T) {
	for _, c := range []struct {
		file   string
		index  int
		path   string // "" for an element that is valid on its own
		reason string
	}{
		{"tnt-220-response-wrong-attribute-values.json", 0, "[0].transportCall.location.UNLocationCode", "contradicts"},
		{"tnt-220-response-wrong-attribute-values.json", 1, "", ""},
		{"tnt-220-response-wrong-attribute-values.json", 2, "[0].transportCall.location.UNLocationCode", `"XYCDE" contradicts transportCall.UNLocationCode "XYBCD"`},
		{"tnt-220-response-wrong-date-times.json", 0, "", ""},
		{"tnt-220-response-wrong-date-times.json", 1, "[0].eventCreatedDateTime", "required"},
		{"tnt-220-response-wrong-date-times.json", 2, "[0].eventDateTime", "required"},
		{"tnt-220-response-wrong-date-times.json", 3, "[0].eventCreatedDateTime", "not an RFC 3339 date-time"},
		{"tnt-220-response-wrong-date-times.json", 4, "[0].eventDateTime", "not an RFC 3339 date-time"},
		{"tnt-220-response-wrong-date-times.json", 5, "[0].eventCreatedDateTime", "before 2000-01-01"},
		{"tnt-220-response-wrong-date-times.json", 6, "[0].eventCreatedDateTime", "after the payload was received"},
		{"tnt-220-response-wrong-event-ids.json", 0, "", ""}, // a number: repaired (TestSamples)
		{"tnt-220-response-wrong-event-ids.json", 1, "", ""}, // not a UUID: repaired
		{"tnt-220-response-wrong-event-ids.json", 2, "", ""},
		{"tnt-220-response-wrong-structure.json", 0, "[0].eventType", "required"},
	} {
		t.Run(c.file+"/"+itoa(c.index), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(validatetest.SamplesDir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			var elems []json.RawMessage
			if err := json.Unmarshal(raw, &elems); err != nil {
				t.Fatal(err)
			}
			one := append(append([]byte("["), elems[c.index]...), ']')
			res, err := Parse(one, normalize.Envelope{SCAC: "MAEU", ReceivedAt: receivedAt})
			if c.path == "" {
				if err != nil || res.Err() != nil {
					t.Fatalf("element is valid on its own, got %v, %v", err, res.Err())
				}
				return
			}
			assertParseError(t, res, err, c.path, c.reason)
		})
	}
	// The duplicate ids of wrong-event-ids are only wrong together.
	raw, err := os.ReadFile(filepath.Join(validatetest.SamplesDir, "tnt-220-response-wrong-event-ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]int{{2, 3}, {5, 6}} {
		two := []byte("[" + string(elems[pair[0]]) + "," + string(elems[pair[1]]) + "]")
		res, err := Parse(two, normalize.Envelope{SCAC: "MAEU", ReceivedAt: receivedAt})
		assertParseError(t, res, err, "[1].eventID", "repeats the eventID of element [0]")
	}
}

func itoa(i int) string { return index(i)[1 : len(index(i))-1] }

// assertParseError checks the payload's one failure: the payload's error,
// or else the refusal of exactly one element, at path with reason.
func assertParseError(t *testing.T, res normalize.Result, err error, path, reason string) {
	t.Helper()
	if err == nil {
		if len(res.Refused) != 1 {
			t.Fatalf("got %d events, %d refusals and no error, want one failure %s: …%s…", len(res.Events), len(res.Refused), path, reason)
		}
		err = res.Refused[0]
		if want := elementOf(path); res.Refused[0].Element != want {
			t.Errorf("refusal's Element = %d, want %d", res.Refused[0].Element, want)
		}
	} else if res.Events != nil || res.Refused != nil {
		t.Errorf("got %d events and %d refusals with the payload's error, want none", len(res.Events), len(res.Refused))
	}
	if !errors.Is(err, normalize.ErrMalformed) {
		t.Errorf("error %v does not wrap normalize.ErrMalformed", err)
	}
	var pe *normalize.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %T is not a *normalize.ParseError", err)
	}
	if pe.Format != Format {
		t.Errorf("Format = %q, want %q", pe.Format, Format)
	}
	if pe.Path != path || !strings.Contains(pe.Reason, reason) {
		t.Errorf("got %s: %s\nwant %s: …%s…", pe.Path, pe.Reason, path, reason)
	}
}

// elementOf is the index a path starts with ("[3].x" → 3), 0 if none.
func elementOf(path string) int {
	_, rest, ok := strings.Cut(path, "[")
	n := 0
	for i := 0; ok && i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
		n = n*10 + int(rest[i]-'0')
	}
	return n
}

// VerdictOnly reads the payload in place, so the error it returns must not
// alias the payload: its caller may reuse the buffer at once. A member's
// name at the top of a single object is the path as the lexer read it.
func TestVerdictOnlyErrorDoesNotAliasThePayload(t *testing.T) {
	body := []byte(`{"eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":5,"eventCreatedDateTime":"2024-06-22T03:00:00Z","equipmentEventTypeCode":"LOAD","equipmentReference":"TCNU1182630","emptyIndicatorCode":"LADEN"}`)
	res, err := ParseWithOptions(body, normalize.Envelope{SCAC: "MAEU"}, Options{SingleObject: true, CheckOnly: true, VerdictOnly: true})
	var pe *normalize.ParseError
	if err != nil || !errors.As(res.Err(), &pe) || res.Events != nil || pe.Path != "eventDateTime" {
		t.Fatalf("got %v, %v and %d events, want a refusal at eventDateTime", err, res.Err(), len(res.Events))
	}
	path, reason := strings.Clone(pe.Path), strings.Clone(pe.Reason)
	for i := range body {
		body[i] = 'x'
	}
	if pe.Path != path || pe.Reason != reason {
		t.Fatalf("the error changed with the payload: %q: %q, was %q: %q", pe.Path, pe.Reason, path, reason)
	}
}

// The payload's own error (JSON that cannot be read on) must not alias the
// payload either: its path names a member as read in place.
func TestVerdictOnlyPageErrorDoesNotAliasThePayload(t *testing.T) {
	body := []byte(`{"carrierVoyage":"\x"}`)
	_, err := ParseWithOptions(body, normalize.Envelope{SCAC: "MAEU"}, Options{SingleObject: true, CheckOnly: true, VerdictOnly: true})
	var pe *normalize.ParseError
	if !errors.As(err, &pe) || pe.Path != "carrierVoyage" {
		t.Fatalf("got %v, want the payload's error at carrierVoyage", err)
	}
	for i := range body {
		body[i] = 'x'
	}
	if pe.Path != "carrierVoyage" {
		t.Fatalf("the error changed with the payload: %q", pe.Path)
	}
}
