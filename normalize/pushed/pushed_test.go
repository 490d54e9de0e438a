package pushed

import (
	"encoding/json"
	"errors"
	"flag"
	"github.com/contrack/contrack/reference"
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

var env = normalize.Envelope{SCAC: "HLCU", ReceivedAt: time.Date(2024, 6, 23, 0, 0, 0, 0, time.UTC)}

// TestSpecMessages: the constants are the interface's words, read from the
// spec's machine-readable Errors table.
func TestSpecMessages(t *testing.T) {
	raw, err := os.ReadFile(reference.Messages())
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Errors []struct{ Endpoint, Condition, Message string }
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, e := range spec.Errors {
		if e.Endpoint == "POST /events" {
			want[e.Condition] = e.Message
		}
	}
	for cond, got := range map[string]string{
		"empty body": MsgNoBody,
		"eventType is not EQUIPMENT or TRANSPORT": MsgNotEquipOrTransport,
		"equipmentReference missing":              MsgNoEquipmentRef,
	} {
		if want[cond] != got {
			t.Errorf("%s: constant %q, spec says %q", cond, got, want[cond])
		}
	}
	if len(want) != 3 {
		t.Errorf("spec has %d POST /events errors, this package knows 3: %v", len(want), want)
	}
}

const ok1 = `{"eventCreatedDateTime":"2024-06-22T03:00:00Z","eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":"2024-06-22T04:40:00+02:00","equipmentEventTypeCode":"LOAD","equipmentReference":"TCNU1182630","emptyIndicatorCode":"LADEN"}`

func TestCheck(t *testing.T) {
	for _, c := range []struct{ name, body, msg string }{
		{"zero bytes", "", MsgNoBody},
		{"whitespace", " \r\n\t ", MsgNoBody},
		{"empty array", " [ ] ", MsgNoBody},
		{"null", "null", MsgNotEquipOrTransport},
		{"empty object", "{}", MsgNotEquipOrTransport},
		{"number", "42", MsgNotEquipOrTransport},
		{"string", `"EQUIPMENT"`, MsgNotEquipOrTransport},
		{"array of scalars", `[1]`, "[0]: " + MsgNotEquipOrTransport},
		{"array with null", `[null]`, "[0]: " + MsgNotEquipOrTransport},
		{"shipment event", `{"eventType":"SHIPMENT","equipmentReference":"X"}`, MsgNotEquipOrTransport},
		{"operations event", `{"eventType":"OPERATIONS","equipmentReference":"X"}`, MsgNotEquipOrTransport},
		{"lower case type", `{"eventType":"equipment","equipmentReference":"X"}`, MsgNotEquipOrTransport},
		{"type not a string", `{"eventType":1,"equipmentReference":"X"}`, MsgNotEquipOrTransport},
		{"member name case matters", `{"EVENTTYPE":"EQUIPMENT","equipmentReference":"X"}`, MsgNotEquipOrTransport},
		{"eventType checked first", `{"equipmentReference":"X"}`, MsgNotEquipOrTransport},
		{"eventType checked first, both missing", `{"eventClassifierCode":"ACT"}`, MsgNotEquipOrTransport},
		{"no equipmentReference", `{"eventType":"EQUIPMENT"}`, MsgNoEquipmentRef},
		{"EQ reference does not count", `{"eventType":"TRANSPORT","references":[{"referenceType":"EQ","referenceValue":"APZU4812090"}]}`, MsgNoEquipmentRef},
		{"null equipmentReference", `{"eventType":"TRANSPORT","equipmentReference":null}`, MsgNoEquipmentRef},
		{"blank equipmentReference", `{"eventType":"TRANSPORT","equipmentReference":"  "}`, MsgNoEquipmentRef},
		{"array: first failure wins, named", `[` + ok1 + `,{"eventType":"EQUIPMENT"},{"eventType":"SHIPMENT"}]`, "[1]." + MsgNoEquipmentRef},
		{"array: later element, named", `[` + ok1 + `,{"eventType":"SHIPMENT"}]`, "[1]: " + MsgNotEquipOrTransport},
		{"array: the interface's rules before the others", `[` + strings.Replace(ok1, `"LOAD"`, `"LOADED"`, 1) + `,{"eventType":"EQUIPMENT"}]`, "[1]." + MsgNoEquipmentRef},
		{"2.x events in an envelope", `{"events":[` + ok1 + `]}`, ""},
		{"2.x events in an envelope, one bad", `{"events":[` + ok1 + `,{"eventType":"TRANSPORT"}]}`, "events[1]." + MsgNoEquipmentRef},
		{"empty envelope", `{"events":[]}`, "events: " + MsgNoBody},
		{"malformed", `{"eventType":`, "Malformed JSON: unexpected end of JSON input"},
		{"malformed array", `[` + ok1 + `,]`, "Malformed JSON: invalid character ']' looking for beginning of value"},
		{"malformed before the spec checks", `{"eventType":"SHIPMENT"`, "Malformed JSON: unexpected end of JSON input"},
		{"zone-less time is taken as UTC", strings.Replace(ok1, `"2024-06-22T04:40:00+02:00"`, `"2024-06-22T04:40:00"`, 1), ``},
		{"invalid date", strings.Replace(ok1, `"2024-06-22T04:40:00+02:00"`, `"22/06/2024 04:40"`, 1), `Invalid event: eventDateTime: "22/06/2024 04:40" is not an RFC 3339 date-time: too short`},
		{"invalid date in an array", `[` + ok1 + `,` + strings.Replace(ok1, `"LOAD"`, `"LOADED"`, 1) + `]`, `Invalid event: [1].equipmentEventTypeCode: "LOADED" is not a DCSA 2.0.2 code`},
		{"equipmentReference not a string", `{"eventType":"EQUIPMENT","equipmentReference":true}`, "Invalid event: equipmentReference: expected string, got boolean"},
		{"equipmentReference a number is read as its digits", `{"eventType":"EQUIPMENT","equipmentReference":7}`, "Invalid event: eventClassifierCode: required"},
		{"missing required field", `{"eventType":"TRANSPORT","equipmentReference":"X","eventClassifierCode":"ACT"}`, "Invalid event: eventDateTime: required"},
		{"valid", ok1, ""},
		{"valid array", `[` + ok1 + `]`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg, ok := Check([]byte(c.body))
			if ok != (c.msg == "") {
				t.Fatalf("Check = %q, %v", msg, ok)
			}
			if c.msg != "" && msg != c.msg && !(strings.HasPrefix(c.msg, MsgInvalidPrefix) && strings.HasPrefix(msg, c.msg)) {
				t.Errorf("Check = %q\nwant     %q", msg, c.msg)
			}
		})
	}
}

// TestParseRefusals: Parse refuses what Check refuses, with the same words
// and the element's path: a body that cannot be read at all is the error,
// an event the rules refuse is refused alone and the others come out.
func TestParseRefusals(t *testing.T) {
	for _, c := range []struct {
		body         string
		whole        bool
		events       int
		path, reason string
	}{
		{"", true, 0, "", MsgNoBody},
		{`[]`, true, 0, "", MsgNoBody},
		{`42`, true, 0, "", MsgNotEquipOrTransport},
		{`{`, true, 0, "", "Malformed JSON: unexpected end of JSON input"},
		{`{"eventType":"SHIPMENT"}`, false, 0, "", MsgNotEquipOrTransport},
		{`[` + ok1 + `,{"eventType":"TRANSPORT"}]`, false, 1, "[1]", MsgNoEquipmentRef},
		{`[{"eventType":"TRANSPORT"},` + ok1 + `]`, false, 1, "[0]", MsgNoEquipmentRef},
		{`{"events":[` + ok1 + `,{"eventType":"TRANSPORT"}]}`, false, 1, "events[1]", MsgNoEquipmentRef},
		{strings.Replace(ok1, `"LADEN"`, `"FULL"`, 1), false, 0, "emptyIndicatorCode", `"FULL" is not a DCSA 2.0.2 code`},
	} {
		res, err := Parse([]byte(c.body), env)
		if !c.whole {
			if err != nil || len(res.Events) != c.events || len(res.Refused) != 1 {
				t.Errorf("%s: got %d events, refusals %v, error %v; want %d events and one refusal", c.body, len(res.Events), res.Refused, err, c.events)
				continue
			}
			err = res.Refused[0]
		}
		var pe *normalize.ParseError
		if err == nil || !errors.As(err, &pe) || !errors.Is(err, normalize.ErrMalformed) {
			t.Errorf("%s: got %v, %v; want a ParseError", c.body, res, err)
			continue
		}
		if pe.Format != Format || pe.Path != c.path || !strings.HasPrefix(pe.Reason, c.reason) {
			t.Errorf("%s: got %s %s: %s, want %s: %s", c.body, pe.Format, pe.Path, pe.Reason, c.path, c.reason)
		}
	}
}

func TestGolden(t *testing.T) {
	validatetest.GoldenEvents(t, "testdata/*.input.json", ".input.json", *update, func(t *testing.T, _ string, raw []byte) ([]dcsa.Event, error) {
		if msg, ok := Check(raw); !ok {
			t.Fatalf("Check refused the fixture: %s", msg)
		}
		return normalize.Strict(Parse(raw, env))
	})
}

func TestMapping(t *testing.T) {
	raw, _ := os.ReadFile("testdata/callback.input.json")
	events, err := normalize.Strict(Parse(raw, env))
	if err != nil {
		t.Fatal(err)
	}
	arri, load := events[0], events[1]
	if arri.EventID != identity.EventID("HLCU", "3cecb101-7a1a-43a4-9d62-e88a131651e2") {
		t.Error("source eventID not used for the id")
	}
	if arri.TransportEventTypeCode != "ARRI" || arri.ChangeRemark != "Bad weather" || arri.EquipmentReference != "APZU4812090" {
		t.Errorf("TNT 2.2 deprecated fields not mapped: %+v", arri)
	}
	if load.TransportCall.TransportCallID != "123e4567-e89b-12d3-a456-426614174000" {
		t.Errorf("root transportCallID not moved into the transport call: %q", load.TransportCall.TransportCallID)
	}
	single, _ := os.ReadFile("testdata/single.input.json")
	evs, err := normalize.Strict(Parse(single, env))
	if err != nil {
		t.Fatal(err)
	}
	tc := evs[0].TransportCall
	if tc.TransportCallReference == "" || tc.PortVisitReference == "" || tc.CarrierVoyageNumber != "2425N" || evs[0].FacilityTypeCode != "POTE" {
		t.Errorf("2.0.2-only fields lost: %+v", tc)
	}
	if evs[0].CarrierCode != "HLCU" {
		t.Errorf("carrierCode = %q, want the pushing key's SCAC", evs[0].CarrierCode)
	}
}

// FuzzParse: no panics; Check accepts exactly what Parse accepts; accepted
// events meet the 2.0.2 structural contract.
func FuzzParse(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/*.input.json")
	for _, p := range inputs {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	for _, s := range []string{"", "[]", "{}", "null", ok1, `{"eventType":"EQUIPMENT"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		now := normalize.Envelope{SCAC: "HLCU", ReceivedAt: time.Now()}
		res, perr := Parse(raw, now)
		events, err := normalize.Strict(res, perr)
		msg, ok := Check(raw)
		if ok != (err == nil) {
			t.Fatalf("Check = %q, %v but Parse error = %v for %q", msg, ok, err, raw)
		}
		if err != nil {
			var pe *normalize.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a ParseError", err, err)
			}
			if msg == "" {
				t.Fatal("refusal without a message")
			}
			return
		}
		if len(events) == 0 {
			t.Fatalf("accepted %q but produced no event", raw)
		}
		for i, e := range events {
			if err := validate.Structural(e); err != nil {
				t.Fatalf("event %d breaks the 2.0.2 contract: %v\ninput: %q", i, err, raw)
			}
			if strings.TrimSpace(e.EquipmentReference) == "" {
				t.Fatalf("event %d accepted without equipmentReference", i)
			}
		}
		again, err := Parse(raw, now)
		if err != nil || !reflect.DeepEqual(res, again) {
			t.Fatalf("second parse differs: %v", err)
		}
	})
}

// BenchmarkCheck reports pushed bodies checked per second (the same
// parse without deriving the events' ids).
func BenchmarkCheck(b *testing.B) {
	raw, err := os.ReadFile("testdata/array.input.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if msg, ok := Check(raw); !ok {
			b.Fatal(msg)
		}
	}
}

// BenchmarkParse reports pushed events per second.
func BenchmarkParse(b *testing.B) {
	raw, err := os.ReadFile("testdata/array.input.json")
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

// TestCarriersDeviationsAccepted: a push with the deviations real carriers
// make (docs/normalize.md's table) is accepted by Check and read by Parse,
// each repair counted; before, Check refused it whole.
func TestCarriersDeviationsAccepted(t *testing.T) {
	ev := `{"eventId":"9f2c1e0b7a5d4c3b2a1908f7e6d5c4b3a2918070","eventCreatedDateTime":"2024-06-22T03:00:00Z","eventType":"EQUIPMENT",
	  "eventClassifierCode":"ACT","eventDateTime":"2024-06-22T04:40:00+02:00","equipmentEventTypeCode":"LOAD",
	  "equipmentReference":"MSCU1234565","emptyIndicatorCode":"LADEN","seals":[{"sealNumber":"ML123"}],
	  "transportCall":{"transportCallId":"TC-9","modeOfTransport":"VESSEL","unLocationCode":"NLRTM","facilityCode":"NLRTMECTD",
	    "vessel":{"vesselIMONumber":9778791,"vesselName":"MSC ANNA"}}}`
	feeder := strings.NewReplacer(`"eventId":"9f2c1e0b7a5d4c3b2a1908f7e6d5c4b3a2918070"`, `"eventId":4711000042`,
		`"vesselIMONumber":9778791`, `"vesselIMONumber":null`).Replace(ev)
	body := `{"events":[` + ev + `,` + feeder + `]}`
	if msg, ok := Check([]byte(body)); !ok {
		t.Fatalf("Check refused the carrier's push: %s", msg)
	}
	res, err := Parse([]byte(body), env)
	if err != nil || len(res.Refused) != 0 || len(res.Events) != 2 {
		t.Fatalf("got %d events, refusals %v, error %v", len(res.Events), res.Refused, err)
	}
	tc := res.Events[0].TransportCall
	if tc.UNLocationCode != "NLRTM" || tc.FacilityCode != "ECTD" || tc.TransportCallID != "TC-9" || tc.Vessel == nil || tc.Vessel.VesselIMONumber != "9778791" || res.Events[0].Seals != nil {
		t.Errorf("transport call %+v, seals %+v", tc, res.Events[0].Seals)
	}
	if res.Events[1].TransportCall.Vessel != nil {
		t.Errorf("feeder's IMO-less vessel kept: %+v", res.Events[1].TransportCall.Vessel)
	}
	kinds := map[normalize.RepairKind]int{}
	for _, r := range res.Repairs {
		kinds[r.Kind]++
	}
	want := map[normalize.RepairKind]int{normalize.RepairEventsEnvelope: 1, normalize.RepairMemberCase: 6, normalize.RepairEventIDNotUUID: 2,
		normalize.RepairNumberAsString: 2, normalize.RepairIncompleteSealLeftOut: 2, normalize.RepairFacilityCodeSplit: 2, normalize.RepairIncompleteVesselLeftOut: 1}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("repairs by kind %v, want %v", kinds, want)
	}
}
