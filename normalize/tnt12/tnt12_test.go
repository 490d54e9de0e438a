package tnt12

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
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

var env = normalize.Envelope{SCAC: "ONEY", TrackingID: "ONEU1234566", ReceivedAt: time.Date(2024, 7, 1, 8, 0, 0, 0, time.UTC)}

func TestGolden(t *testing.T) {
	validatetest.GoldenEvents(t, "testdata/*.json", ".json", *update, func(_ *testing.T, _ string, raw []byte) ([]dcsa.Event, error) {
		return normalize.Strict(Parse(raw, env))
	})
}

// TestMapping pins the TNT 1.2 specific rules.
func TestMapping(t *testing.T) {
	raw, err := os.ReadFile("testdata/response.json")
	if err != nil {
		t.Fatal(err)
	}
	events, err := normalize.Strict(Parse(raw, env))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 8 {
		t.Fatalf("got %d events, want 8 (9 elements, the SHIPMENT one dropped)", len(events))
	}
	gtot, gtin, load, depa, arri, disc, rail := events[0], events[1], events[2], events[3], events[4], events[5], events[7]

	if gtot.EmptyIndicatorCode != "EMPTY" || gtin.EmptyIndicatorCode != "LADEN" {
		t.Errorf("emptyIndicatorCode %q/%q, want EMPTY/LADEN from Empty/Laden", gtot.EmptyIndicatorCode, gtin.EmptyIndicatorCode)
	}
	if gtot.EventLocation.LocationName != "Shanghai Waigaoqiao Empty Depot" {
		t.Errorf("otherFacility not in locationName: %+v", gtot.EventLocation)
	}
	if l := gtin.EventLocation; l.UNLocationCode != "CNSHA" || l.FacilityCode != "SGI" || l.FacilityCodeListProvider != "SMDG" {
		t.Errorf("facility CNSHASGI not split into CNSHA + SMDG SGI: %+v", l)
	}
	if load.EventType != dcsa.EventTypeEquipment || load.EquipmentEventTypeCode != "LOAD" || load.TransportCall == nil {
		t.Errorf("TRANSPORTEQUIPMENT LOAD not an equipment event with a transport call: %+v", load)
	}
	if tc := load.TransportCall; tc.Vessel.VesselIMONumber != "9806079" || tc.CarrierVoyageNumber != "025W" || tc.ModeOfTransport != "VESSEL" {
		t.Errorf("transportReference/transportLegReference/modeOfTransportCode mapped wrong: %+v", tc)
	}
	if depa.TransportCall.TransportCallID != load.TransportCall.TransportCallID {
		t.Error("LOAD and DEPA of the same call got different transportCallIDs")
	}
	if arri.TransportCall.ModeOfTransport != "VESSEL" {
		t.Errorf("mode not inferred from the IMO transport reference: %q", arri.TransportCall.ModeOfTransport)
	}
	if disc.EventClassifierCode != "PLN" || disc.EventDateTime != "2024-07-15T11:30:00+02:00" {
		t.Errorf("DISC: %s %s", disc.EventClassifierCode, disc.EventDateTime)
	}
	if tc := rail.TransportCall; tc.ModeOfTransport != "RAIL" || tc.Vessel != nil || tc.FacilityCode != "DUIDIT" || tc.FacilityCodeListProvider != "" {
		t.Errorf("rail call: %+v", tc)
	}
	if rail.EventDateTime != "2024-07-20T09:00:00+02:00" {
		t.Errorf("eventDateTime not canonical: %s", rail.EventDateTime)
	}
	for i, e := range events {
		if e.EventCreatedDateTime != "2024-07-01T08:00:00Z" {
			t.Errorf("event %d eventCreatedDateTime = %s, want ReceivedAt", i, e.EventCreatedDateTime)
		}
		if e.CarrierCode != "ONEY" {
			t.Errorf("event %d carrierCode = %q", i, e.CarrierCode)
		}
	}
	if want := identity.EventID("ONEY", "TRANSPORTEQUIPMENT/88120"); load.EventID != want {
		t.Errorf("numeric eventID 88120: id %s, want EventID(ONEY, TRANSPORTEQUIPMENT/88120) = %s", load.EventID, want)
	}
}

// TestIdentityAcrossPolls: ReceivedAt differs between polls, ids and content
// hashes must not.
func TestIdentityAcrossPolls(t *testing.T) {
	raw, err := os.ReadFile("testdata/response.json")
	if err != nil {
		t.Fatal(err)
	}
	first, err := normalize.Strict(Parse(raw, env))
	if err != nil {
		t.Fatal(err)
	}
	later := env
	later.ReceivedAt = later.ReceivedAt.Add(6 * time.Hour)
	again, err := normalize.Strict(Parse(raw, later))
	if err != nil {
		t.Fatal(err)
	}
	for i := range first {
		if first[i].EventID != again[i].EventID || identity.ContentHash(first[i]) != identity.ContentHash(again[i]) {
			t.Errorf("event %d changed between polls", i)
		}
	}
	// Without source ids, a moved estimate keeps its id.
	var resp struct{ Events []map[string]any }
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatal(err)
	}
	arri := resp.Events[5]
	delete(arri, "eventID")
	one, _ := json.Marshal([]any{arri})
	a, err := normalize.Strict(Parse(one, env))
	if err != nil {
		t.Fatal(err)
	}
	arri["eventDateTime"] = "2024-07-16T06:00:00+02:00"
	one, _ = json.Marshal([]any{arri})
	b, err := normalize.Strict(Parse(one, env))
	if err != nil {
		t.Fatal(err)
	}
	if a[0].EventID != b[0].EventID || identity.ContentHash(a[0]) == identity.ContentHash(b[0]) {
		t.Error("moved EST without eventID: want same id, new hash")
	}
}

func base() map[string]any {
	return map[string]any{
		"eventID": "1", "eventType": "TRANSPORT", "eventDateTime": "2024-06-10T22:40:00+08:00",
		"eventClassifierCode": "ACT", "eventTypeCode": "DEPA", "transportReference": "9806079",
		"transportLegReference": "025W", "facilityTypeCode": "POTE", "UNLocationCode": "CNSHA",
		"facilityCode": "CNSHASGI", "modeOfTransportCode": "1",
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		edit   map[string]any // nil value deletes
		path   string
		reason string
	}{
		{"unknown eventType", map[string]any{"eventType": "OPERATIONS"}, "events[1].eventType", `"OPERATIONS" is not EQUIPMENT, TRANSPORT, TRANSPORTEQUIPMENT or SHIPMENT`},
		{"no eventType", map[string]any{"eventType": nil}, "events[1].eventType", "required"},
		{"transport code for equipment", map[string]any{"eventType": "TRANSPORTEQUIPMENT", "emptyIndicatorCode": "LADEN"}, "events[1].eventTypeCode", `"DEPA" is not a DCSA 2.0.2 code`},
		{"equipment code unknown", map[string]any{"eventType": "EQUIPMENT", "eventTypeCode": "RECE", "emptyIndicatorCode": "LADEN"}, "events[1].eventTypeCode", `"RECE" is not a DCSA 2.0.2 code`},
		{"emptyIndicatorCode missing", map[string]any{"eventType": "EQUIPMENT", "eventTypeCode": "GTIN"}, "events[1].emptyIndicatorCode", "required"},
		{"classifier", map[string]any{"eventClassifierCode": "REQ"}, "events[1].eventClassifierCode", `"REQ" is not a DCSA 2.0.2 code`},
		{"no zone", map[string]any{"eventDateTime": "2024-06-10T22:40:00"}, "events[1].eventDateTime", "has no UTC offset"},
		{"actual in the future", map[string]any{"eventDateTime": "2024-07-05T00:00:00Z"}, "events[1].eventDateTime", "more than a day after its eventCreatedDateTime"},
		{"no UN/LOCODE", map[string]any{"UNLocationCode": nil}, "events[1].UNLocationCode", "required"},
		{"bad UN/LOCODE", map[string]any{"UNLocationCode": "Shanghai"}, "events[1].UNLocationCode", `"Shanghai" is not a UN/LOCODE`},
		{"facility code too long", map[string]any{"facilityCode": "SHANGHAIT1"}, "events[1].facilityCode", "neither the UN/LOCODE followed by a terminal code"},
		{"terminal code too long", map[string]any{"facilityCode": "CNSHATERMINAL"}, "events[1].facilityCode", "longer than 6 characters"},
		{"facility type", map[string]any{"facilityTypeCode": "PORT"}, "events[1].facilityTypeCode", `"PORT" is not a DCSA 2.0.2 code`},
		{"mode unknown", map[string]any{"modeOfTransportCode": "4"}, "events[1].modeOfTransportCode", `"4" is not a known mode`},
		{"mode not inferable", map[string]any{"modeOfTransportCode": nil, "transportReference": "TRUCK-77"}, "events[1].modeOfTransportCode", "required when transportReference is not an IMO number"},
		{"vessel without IMO", map[string]any{"transportReference": "ONE APUS"}, "events[1].transportReference", "not a 7-digit IMO number"},
		{"eventType a number", map[string]any{"eventType": 3}, "events[1].eventType", "expected string, got number"},
		{"transportReference an object", map[string]any{"transportReference": map[string]any{}}, "events[1]", "expected string or number"},
		{"equipmentReference too long", map[string]any{"eventType": "EQUIPMENT", "eventTypeCode": "GTIN", "emptyIndicatorCode": "LADEN", "equipmentReference": "ONEU1234566-00001"}, "events[1].equipmentReference", "longer than 15"},
		{"duplicate id", map[string]any{"eventID": "0"}, "events[1].eventID", `"TRANSPORT/0" repeats the eventType and eventID of element [0]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := base()
			for k, v := range c.edit {
				if v == nil {
					delete(m, k)
				} else {
					m[k] = v
				}
			}
			first := base()
			first["eventID"] = "0"
			// Element [0] is good and comes out; only [1] is refused.
			raw, _ := json.Marshal(map[string]any{"events": []any{first, m}})
			res, err := Parse(raw, env)
			if err != nil || len(res.Events) != 1 {
				t.Fatalf("got %d events and error %v, want element [0]'s event", len(res.Events), err)
			}
			assertParseError(t, res, err, c.path, c.reason)
		})
	}
}

func TestPayloadErrors(t *testing.T) {
	for _, c := range []struct{ name, raw, path, reason string }{
		{"empty", "", "", "empty payload"},
		{"no events member", `{"data":[]}`, "events", "required"},
		{"string", `"events"`, "", "got string"},
		{"malformed", `{"events":[{]}`, "", "invalid JSON"},
		{"events not an array", `{"events":{}}`, "events", "expected an array of events"},
		{"element not an object", `[1]`, "[0]", "expected an event object, got number"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Parse([]byte(c.raw), env)
			assertParseError(t, res, err, c.path, c.reason)
		})
	}
	if _, err := Parse([]byte(`{"events":[]}`), normalize.Envelope{SCAC: "ONEY"}); !errors.Is(err, ErrNoReceivedAt) {
		t.Errorf("zero ReceivedAt: got %v, want ErrNoReceivedAt", err)
	}
	if evs, err := normalize.Strict(Parse([]byte(`[]`), env)); err != nil || len(evs) != 0 {
		t.Errorf("bare empty array: %v %v", evs, err)
	}
}

// assertParseError checks the payload's one failure: its error, or else
// the refusal of exactly one element.
func assertParseError(t *testing.T, res normalize.Result, err error, path, reason string) {
	t.Helper()
	if err == nil {
		if len(res.Refused) != 1 {
			t.Fatalf("got %d events, refusals %v and no error, want %s: …%s…", len(res.Events), res.Refused, path, reason)
		}
		err = res.Refused[0]
	} else if res.Events != nil || res.Refused != nil {
		t.Errorf("got %d events with the error, want none", len(res.Events))
	}
	var pe *normalize.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, normalize.ErrMalformed) {
		t.Fatalf("error %T %v is not a ParseError", err, err)
	}
	if pe.Format != Format || pe.Path != path || !strings.Contains(pe.Reason, reason) {
		t.Errorf("got %s %s: %s\nwant %s: …%s…", pe.Format, pe.Path, pe.Reason, path, reason)
	}
}

// FuzzParse: no panics, errors are ParseErrors, accepted output meets the
// 2.0.2 structural contract, parsing is deterministic.
func FuzzParse(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/*.json")
	for _, p := range inputs {
		if strings.HasSuffix(p, ".golden.json") {
			continue
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`[{"eventType":"TRANSPORTEQUIPMENT","eventID":1,"transportReference":9806079}]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := Parse(raw, env)
		events := res.Events
		if err != nil {
			var pe *normalize.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a ParseError", err, err)
			}
			return
		}
		for i, e := range events {
			if err := validate.Structural(e); err != nil {
				t.Fatalf("event %d breaks the 2.0.2 contract: %v\ninput: %q", i, err, raw)
			}
		}
		again, err := Parse(raw, env)
		if err != nil || !reflect.DeepEqual(res, again) {
			t.Fatalf("second parse differs: %v", err)
		}
	})
}

// BenchmarkParse reports emitted events per second for the fixture.
func BenchmarkParse(b *testing.B) {
	raw, err := os.ReadFile("testdata/response.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		res, err := Parse(raw, env)
		if err != nil {
			b.Fatal(err)
		}
		n = len(res.Events)
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
}

// A member name in another case is read (encoding/json's rule) and
// counted, with its path.
func TestMemberCaseCounted(t *testing.T) {
	m := base()
	m["unLocationCode"] = m["UNLocationCode"]
	delete(m, "UNLocationCode")
	raw, _ := json.Marshal(map[string]any{"events": []any{base(), m}})
	raw = []byte(strings.Replace(string(raw), `"eventID":"1"`, `"eventID":"0"`, 1))
	res, err := Parse(raw, env)
	if err != nil || len(res.Refused) != 0 || len(res.Events) != 2 || res.Events[1].TransportCall.UNLocationCode != "CNSHA" {
		t.Fatalf("got %d events, refusals %v, error %v", len(res.Events), res.Refused, err)
	}
	want := []normalize.Repair{{Kind: normalize.RepairMemberCase, Path: "events[1].unLocationCode"}}
	if !reflect.DeepEqual(res.Repairs, want) {
		t.Errorf("repairs %+v, want %+v", res.Repairs, want)
	}
}
