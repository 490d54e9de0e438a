package tnt3

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/normalize/validate/validatetest"
	"github.com/contrack/contrack/reference"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/tnt3"
	"github.com/contrack/contrack/schemas/tnt3/tnt3test"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// receivedAt is after every actual event of the fixtures and samples.
var receivedAt = time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)

var env = normalize.Envelope{SCAC: "ZIMU", ReceivedAt: receivedAt}

// events without the retractions, the terminal events and the 3.0-only
// events, which are no 2.0.2 events.
func emitted(evs []dcsa.Event) []dcsa.Event {
	var out []dcsa.Event
	for _, e := range evs {
		if !e.Retracted && !e.Terminal && e.TNT3 == nil {
			out = append(out, e)
		}
	}
	return out
}

// validThreeOnly checks the 3.0-only events of evs as contrack emits them
// against the 3.0 schema.
func validThreeOnly(t *testing.T, evs []dcsa.Event) {
	t.Helper()
	for _, e := range evs {
		if e.TNT3 == nil {
			continue
		}
		raw, _ := json.Marshal(tnt3.FromDCSA(e, "ZIMU", receivedAt))
		if err := tnt3test.Event(raw); err != nil {
			t.Errorf("%s event %s: %v", e.EventType, e.EventID, err)
		}
	}
}

// DCSA's published 3.0 messages and contrack's own fixture, polled: each
// golden file holds the 2.0.2 events, each valid against EVENT_DOMAIN 2.0.2.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(reference.Samples(), "tnt-300-*.json"))
	files = append(files, "testdata/mapping.input.json")
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".json"), ".input")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			evs, err := normalize.Strict(Parse(raw, env))
			if err != nil {
				t.Fatal(err)
			}
			validatetest.ValidateAll(t, emitted(evs))
			validThreeOnly(t, evs)
			var out []any
			for _, e := range evs {
				if e.Retracted {
					out = append(out, map[string]string{"retracted": e.EventID})
					continue
				}
				if e.Terminal {
					out = append(out, map[string]any{"terminal": e})
					continue
				}
				out = append(out, e)
			}
			validatetest.Golden(t, filepath.Join("testdata", name+".golden.json"), out, *update)
		})
	}
}

// TestMapping pins the rules the golden files only show by example.
func TestMapping(t *testing.T) {
	raw, err := os.ReadFile("testdata/mapping.input.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Parse(raw, env)
	evs := res.Events
	if err != nil || len(res.Refused) != 0 {
		t.Fatal(err, res.Refused)
	}
	if len(res.Repairs) != 0 {
		t.Errorf("repairs %+v, want none: the IOT event is carried", res.Repairs)
	}
	if len(evs) != 6 {
		t.Fatalf("got %d, want 6: LOAD, DEPA, DEPA's retraction, IOT (3.0 only), CUSR (a terminal event), GTIN", len(evs))
	}
	load, depa, retract, iot, cusr, gtin := evs[0], evs[1], evs[2], evs[3], evs[4], evs[5]
	t.Run("an IoT event is carried with its 3.0 codes, for 3.0 outputs only", func(t *testing.T) {
		if iot.EventType != dcsa.EventTypeIoT || iot.TNT3 == nil || iot.TNT3.IotEventTypeCode != "DETC" ||
			string(iot.TNT3.IotDetails) != `{"iotEventCode":"DRO"}` || iot.EquipmentReference != "ZCSU8823456" || iot.Terminal {
			t.Errorf("IOT: %+v %+v", iot, iot.TNT3)
		}
		if want := identity.EventID("ZIMU", "zim-iot-1"); iot.EventID != want {
			t.Errorf("eventID %s, want %s", iot.EventID, want)
		}
		out := tnt3.FromDCSA(iot, "ZIMU", receivedAt)
		if c := out.EventClassification; c.EventTypeCode != "IOT" || c.IotEventTypeCode != "DETC" || out.IotDetails == nil || out.IotDetails.IotEventCode != "DRO" ||
			out.EquipmentDetails == nil || out.EquipmentDetails.EquipmentReference != "ZCSU8823456" {
			t.Errorf("3.0 form: %+v %+v", out, out.EventClassification)
		}
	})
	t.Run("a customs release is carried as a terminal event, its 3.0 code kept", func(t *testing.T) {
		if !cusr.Terminal || cusr.EquipmentEventTypeCode != "CUSR" || cusr.EquipmentReference != "ZCSU8823456" || cusr.EventClassifierCode != "ACT" {
			t.Errorf("CUSR: %+v", cusr)
		}
	})
	t.Run("a UUID eventID gives the id a 2.2 carrier's would, whatever its case", func(t *testing.T) {
		if want := identity.EventID("ZIMU", "5b7f64d8-2f1e-4c55-9a51-0d5b3c1e9a02"); load.EventID != want {
			t.Errorf("eventID %s, want %s", load.EventID, want)
		}
	})
	t.Run("any other eventID is the source id as it is", func(t *testing.T) {
		if want := identity.EventID("ZIMU", "zim-depa-rtm-12W"); depa.EventID != want {
			t.Errorf("eventID %s, want %s", depa.EventID, want)
		}
	})
	t.Run("a retraction names the same id and nothing else", func(t *testing.T) {
		if !retract.Retracted || retract.EventID != depa.EventID || retract.EventType != "" {
			t.Errorf("retraction %+v", retract)
		}
	})
	t.Run("no eventID: the id from the fields", func(t *testing.T) {
		e := gtin
		e.EventID = ""
		if want := identity.EventIDFromFields(e, "ZIMU"); gtin.EventID != want {
			t.Errorf("eventID %s, want %s", gtin.EventID, want)
		}
	})
	t.Run("eventUpdatedDateTime is eventCreatedDateTime; the time received when absent", func(t *testing.T) {
		if load.EventCreatedDateTime != "2026-03-02T07:20:00Z" {
			t.Errorf("created %s", load.EventCreatedDateTime)
		}
		if gtin.EventCreatedDateTime != receivedAt.Format(time.RFC3339Nano) {
			t.Errorf("created %s, want the time received", gtin.EventCreatedDateTime)
		}
	})
	t.Run("document replacements route to the old and new documents", func(t *testing.T) {
		var got []string
		for _, d := range depa.DocumentReferences {
			got = append(got, d.DocumentReferenceType+":"+d.DocumentReferenceValue)
		}
		if strings.Join(got, ",") != "BKG:ZIMU12345,BKG:ZIMU12345A,BKG:ZIMU12345B" {
			t.Errorf("documentReferences %v", got)
		}
	})
	t.Run("codes 2.0.2 lacks are left out", func(t *testing.T) {
		if len(load.DocumentReferences) != 2 || len(load.References) != 1 || len(load.Seals) != 1 {
			t.Errorf("INV, AES and a seal without type kept: %+v %+v %+v", load.DocumentReferences, load.References, load.Seals)
		}
		if depa.FacilityTypeCode != "BOCR" || depa.DelayReasonCode != "WEA" {
			t.Errorf("BORD → BOCR, first delay code: %q %q", depa.FacilityTypeCode, depa.DelayReasonCode)
		}
	})
	t.Run("a transport event without a call gets one at its place", func(t *testing.T) {
		tc := depa.TransportCall
		if tc == nil || tc.ModeOfTransport != "VESSEL" || tc.UNLocationCode != "NLRTM" || tc.TransportCallID == "" {
			t.Errorf("transportCall %+v", tc)
		}
	})
	t.Run("the voyage under all three 2.0.2 names, the vessel kept", func(t *testing.T) {
		tc := load.TransportCall
		if tc.CarrierVoyageNumber != "12W" || tc.ExportVoyageNumber != "12W" || tc.CarrierExportVoyageNumber != "12W" ||
			tc.Vessel == nil || tc.Vessel.VesselIMONumber != "9839284" || tc.Vessel.VesselOperatorCarrierCodeListProvider != "NMFTA" {
			t.Errorf("transportCall %+v vessel %+v", tc, tc.Vessel)
		}
	})
}

func TestCheck(t *testing.T) {
	raw, _ := os.ReadFile("testdata/mapping.input.json")
	v := Check(raw, "ZIMU", receivedAt)
	// The IoT event and the customs release (a terminal event, for
	// readiness) are accepted too.
	if v.Message != "" || v.Accepted != 6 || v.NotCarried != 0 || v.Refused != 0 || len(v.Feedback) != 0 {
		t.Fatalf("verdict %+v", v)
	}

	for name, c := range map[string]struct {
		body, message, path, reason string
	}{
		"empty":               {body: " \n", message: MsgNoBody},
		"no events":           {body: `{"events":[]}`, message: MsgNoBody},
		"not JSON":            {body: `{"events":[`, message: MsgMalformedPrefix + "unexpected end of JSON input"},
		"an array":            {body: `[{"eventType":"EQUIPMENT"}]`, message: MsgNotEventList},
		"events not an array": {body: `{"events":{}}`, message: MsgNotEventList},
		"not an object":       {body: `{"events":[1]}`, path: "$.events[0]", reason: "not a JSON object"},
		"wrong type":          {body: `{"events":[{"eventID":true}]}`, path: "$.events[0].eventID", reason: "must be a string"},
		"an id as a number is read as its digits": {body: `{"events":[{"eventID":7}]}`, path: "$.events[0].eventClassification.eventTypeCode", reason: "required"},
		"no type":               {body: `{"events":[{"eventID":"a"}]}`, path: "$.events[0].eventClassification.eventTypeCode", reason: "required"},
		"retraction without id": {body: `{"events":[{"isRetracted":true}]}`, path: "$.events[0].eventID", reason: "required to retract"},
		"bad date": {body: `{"events":[{"eventDateTime":"2026-03-02","eventClassification":{"eventTypeCode":"TRANSPORT","eventClassifierCode":"ACT","transportEventTypeCode":"ARRI"},"shipmentDetails":{"documentReference":{"typeCode":"BKG","reference":"B"}}}]}`,
			path: "$.events[0].eventDateTime", reason: "not an RFC 3339 date-time"},
		"nothing to route by": {body: `{"events":[{"eventDateTime":"2026-03-02T00:00:00Z","eventClassification":{"eventTypeCode":"TRANSPORT","eventClassifierCode":"ACT","transportEventTypeCode":"ARRI"}}]}`,
			path: "$.events[0]", reason: "names no equipmentReference, booking (BKG) or transport document (TRD)"},
		"bad UN/LOCODE": {body: `{"events":[{"eventDateTime":"2026-03-02T00:00:00Z","eventLocation":{"UNLocationCode":"nlrtm"},"eventClassification":{"eventTypeCode":"EQUIPMENT","eventClassifierCode":"ACT","equipmentEventTypeCode":"GTIN"},"equipmentDetails":{"equipmentReference":"ZCSU8823456","emptyIndicatorCode":"LADEN"}}]}`,
			path: "$.events[0].eventLocation.UNLocationCode", reason: "is not a UN/LOCODE"},
		"shipment event without its code": {body: `{"events":[{"eventDateTime":"2026-03-02T00:00:00Z","eventClassification":{"eventTypeCode":"SHIPMENT","eventClassifierCode":"ACT"},"shipmentDetails":{"documentReference":{"typeCode":"BKG","reference":"B"}}}]}`,
			path: "$.events[0].eventClassification.shipmentEventTypeCode", reason: "required"},
		"shipment event of an unknown code": {body: `{"events":[{"eventDateTime":"2026-03-02T00:00:00Z","eventClassification":{"eventTypeCode":"SHIPMENT","eventClassifierCode":"ACT","shipmentEventTypeCode":"NOPE"},"shipmentDetails":{"documentReference":{"typeCode":"BKG","reference":"B"}}}]}`,
			path: "$.events[0].eventClassification.shipmentEventTypeCode", reason: "is not one of AMCF"},
		"IoT event of an unknown code": {body: `{"events":[{"eventDateTime":"2026-03-02T00:00:00Z","eventClassification":{"eventTypeCode":"IOT","eventClassifierCode":"ACT","iotEventTypeCode":"DETC"},"iotDetails":{"iotEventCode":"OPEN"},"equipmentDetails":{"equipmentReference":"ZCSU8823456"}}]}`,
			path: "$.events[0].iotDetails.iotEventCode", reason: "is not one of DRC, DRO, LOC"},
		"reefer temperatures in no unit": {body: `{"events":[{"eventDateTime":"2026-03-02T00:00:00Z","eventClassification":{"eventTypeCode":"REEFER","eventClassifierCode":"ACT","reeferEventTypeCode":"MEAS"},"reeferDetails":{"ambientMeasuredTemperature":3.5},"equipmentDetails":{"equipmentReference":"ZCSU8823456"}}]}`,
			path: "$.events[0].reeferDetails.temperatureUnit", reason: "required"},
		"reefer reading not a number": {body: `{"events":[{"eventDateTime":"2026-03-02T00:00:00Z","eventClassification":{"eventTypeCode":"REEFER","eventClassifierCode":"ACT","reeferEventTypeCode":"MEAS"},"reeferDetails":{"temperatureUnit":"CEL","ambientMeasuredTemperature":"warm"},"equipmentDetails":{"equipmentReference":"ZCSU8823456"}}]}`,
			path: "$.events[0].reeferDetails.ambientMeasuredTemperature", reason: "must be a number"},
		"no empty indicator": {body: `{"events":[{"eventDateTime":"2026-03-02T00:00:00Z","eventClassification":{"eventTypeCode":"EQUIPMENT","eventClassifierCode":"ACT","equipmentEventTypeCode":"GTIN"},"equipmentDetails":{"equipmentReference":"ZCSU8823456"}}]}`,
			path: "$.events[0].equipmentDetails.emptyIndicatorCode", reason: "required"},
	} {
		t.Run(name, func(t *testing.T) {
			v := Check([]byte(c.body), "ZIMU", receivedAt)
			if c.message != "" {
				if v.Message != c.message {
					t.Errorf("message %q, want %q", v.Message, c.message)
				}
				return
			}
			if v.Message != "" || v.Refused != 1 || len(v.Feedback) != 1 || v.Feedback[0].Severity != tnt3.SeverityError ||
				v.Feedback[0].PropertyPath != c.path || !strings.Contains(v.Feedback[0].Message, c.reason) {
				t.Errorf("verdict %+v, want one ERROR at %s about %q", v, c.path, c.reason)
			}
			// Pushed, the refused event is skipped (the carrier was told);
			// polled, it is refused on its own, with its index.
			if res, err := ParsePushed([]byte(c.body), env); err != nil || len(res.Events) != 0 || len(res.Refused) != 0 {
				t.Errorf("ParsePushed: %+v %v", res, err)
			}
			if name == "nothing to route by" {
				return // a polled event belongs to the tracking polled
			}
			res, err := Parse([]byte(c.body), env)
			if err != nil || len(res.Refused) != 1 || res.Refused[0].Format != Format || res.Refused[0].Element != 0 ||
				"$."+res.Refused[0].Path != c.path {
				t.Errorf("Parse: %v, %v; want the event refused at %s", err, res.Refused, c.path)
			}
		})
	}
}

// A pushed body's verdict counts exactly the events ParsePushed yields.
func TestCheckAgreesWithParsePushed(t *testing.T) {
	raw, _ := os.ReadFile("testdata/mapping.input.json")
	var body map[string][]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	body["events"] = append(body["events"], json.RawMessage(`{"eventID":"x","eventClassification":{"eventTypeCode":"NOPE"}}`))
	raw, _ = json.Marshal(body)
	v := Check(raw, "ZIMU", receivedAt)
	res, err := ParsePushed(raw, env)
	if err != nil || v.Accepted != len(res.Events) || v.Refused != 1 {
		t.Errorf("verdict %+v, ParsePushed %d events, %v", v, len(res.Events), err)
	}
}

// An IMO number sent as a JSON number is read as its digits, counted with
// its path; the event is otherwise the same as with the string.
func TestIMONumberAsNumber(t *testing.T) {
	raw, err := os.ReadFile("testdata/mapping.input.json")
	if err != nil {
		t.Fatal(err)
	}
	numbered := strings.Replace(string(raw), `"vesselIMONumber": "9839284"`, `"vesselIMONumber": 9839284`, 1)
	if numbered == string(raw) {
		t.Fatal("fixture edit did not apply")
	}
	want, err := normalize.Strict(Parse(raw, env))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Parse([]byte(numbered), env)
	if err != nil || len(res.Refused) != 0 || !reflect.DeepEqual(res.Events, want) {
		t.Fatalf("refusals %v, error %v, or the events differ from the string IMO's", res.Refused, err)
	}
	var numbers []normalize.Repair
	for _, r := range res.Repairs {
		if r.Kind == normalize.RepairNumberAsString {
			numbers = append(numbers, r)
		}
	}
	if len(numbers) != 1 || !strings.HasSuffix(numbers[0].Path, ".vesselIMONumber") || !strings.HasPrefix(numbers[0].Path, "events[") || numbers[0].Value != "9839284" {
		t.Errorf("number repairs %+v, want the IMO number's", numbers)
	}
}
