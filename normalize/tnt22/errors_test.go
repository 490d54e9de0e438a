package tnt22

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/schemas/dcsa"
)

// base returns a valid TNT 2.2 transport event as a generic map for the
// table below to break one field at a time.
func base() map[string]any {
	return map[string]any{
		"eventID":                "3cecb101-7a1a-43a4-9d62-e88a131651e2",
		"eventCreatedDateTime":   "2024-06-10T15:02:00Z",
		"eventType":              "TRANSPORT",
		"eventClassifierCode":    "ACT",
		"eventDateTime":          "2024-06-10T14:40:00Z",
		"transportEventTypeCode": "DEPA",
		"transportCall": map[string]any{
			"transportCallID":    "TC-1",
			"exportVoyageNumber": "426W",
			"UNLocationCode":     "CNNGB",
			"modeOfTransport":    "VESSEL",
			"vessel":             map[string]any{"vesselIMONumber": "9778791"},
		},
	}
}

func equipmentBase() map[string]any {
	m := base()
	delete(m, "transportEventTypeCode")
	m["eventType"] = "EQUIPMENT"
	m["equipmentEventTypeCode"] = "LOAD"
	m["equipmentReference"] = "MRKU2356709"
	m["emptyIndicatorCode"] = "LADEN"
	return m
}

func set(path string, v any) func(map[string]any) {
	return func(m map[string]any) {
		keys := strings.Split(path, ".")
		for _, k := range keys[:len(keys)-1] {
			m = m[k].(map[string]any)
		}
		if v == nil {
			delete(m, keys[len(keys)-1])
			return
		}
		m[keys[len(keys)-1]] = v
	}
}

func TestErrors(t *testing.T) {
	type mut = func(map[string]any)
	for _, c := range []struct {
		name      string
		equipment bool // start from the equipment event
		mutate    []mut
		path      string
		reason    string
	}{
		{"unknown eventType", false, []mut{set("eventType", "OPERATIONS")}, "[1].eventType", `"OPERATIONS" is not EQUIPMENT, TRANSPORT or SHIPMENT`},
		{"classifier REQ", false, []mut{set("eventClassifierCode", "REQ")}, "[1].eventClassifierCode", `"REQ" is not a DCSA 2.0.2 code (one of ACT, PLN, EST)`},
		{"transport code OMIT", false, []mut{set("transportEventTypeCode", "OMIT")}, "[1].transportEventTypeCode", `"OMIT" is not a DCSA 2.0.2 code`},
		{"type codes contradict", false, []mut{set("eventTypeCode", "ARRI")}, "[1].transportEventTypeCode", `"DEPA" contradicts eventTypeCode "ARRI"`},
		{"equipment code unknown", true, []mut{set("equipmentEventTypeCode", "LOAD ")}, "[1].equipmentEventTypeCode", `"LOAD " is not a DCSA 2.0.2 code`},
		{"emptyIndicatorCode missing", true, []mut{set("emptyIndicatorCode", nil)}, "[1].emptyIndicatorCode", "required"},
		{"emptyIndicatorCode lower case", true, []mut{set("emptyIndicatorCode", "laden")}, "[1].emptyIndicatorCode", `"laden" is not a DCSA 2.0.2 code`},
		{"equipmentReference too long", true, []mut{set("equipmentReference", "MRKU2356709-0001")}, "[1].equipmentReference", "longer than 15 characters"},
		{"eventDateTime without zone", false, []mut{set("eventDateTime", "2024-06-10T14:40:00")}, "[1].eventDateTime", "has no UTC offset"},
		{"eventDateTime date only", false, []mut{set("eventDateTime", "2024-06-10")}, "[1].eventDateTime", "a date without time"},
		{"eventDateTime 31 June", false, []mut{set("eventDateTime", "2024-06-31T14:40:00Z")}, "[1].eventDateTime", "out of range"},
		{"eventDateTime not a string", false, []mut{set("eventDateTime", 1718030400)}, "[1].eventDateTime", "expected string, got number"},
		{"created in the future", false, []mut{set("eventCreatedDateTime", "2024-07-03T00:00:00Z"), set("eventDateTime", "2024-07-02T00:00:00Z")}, "[1].eventCreatedDateTime", "more than a day after the payload was received"},
		{"estimate after creation is fine, a huge id is not", false, []mut{set("eventClassifierCode", "EST"), set("eventDateTime", "2025-01-01T00:00:00Z"), set("eventID", strings.Repeat("x", 501))}, "[1].eventID", "neither a UUID nor an id of at most 500 characters"},
		{"seal type unknown", true, []mut{set("seals", []any{map[string]any{"sealNumber": "S1", "sealType": "WAX"}})}, "[1].seals[0].sealType", `"WAX" is not a DCSA 2.0.2 code`},
		{"IMO a fraction", false, []mut{set("transportCall.vessel.vesselIMONumber", 9778791.5)}, "[1].transportCall.vessel.vesselIMONumber", `"9778791.5" is not a 7-digit IMO number`},
		{"facility code with another place's UN/LOCODE", false, []mut{set("transportCall.facilityCode", "NLRTMECTD")}, "[1].transportCall.facilityCode", "longer than 6 characters"},
		{"actual event after creation", false, []mut{set("eventDateTime", "2024-06-12T14:40:00Z")}, "[1].eventDateTime", "actual event at 2024-06-12T14:40:00Z is more than a day after"},
		{"transportCall missing", false, []mut{set("transportCall", nil)}, "[1].transportCall", "required for TRANSPORT events"},
		{"transportCall not an object", false, []mut{set("transportCall", "TC-1")}, "[1].transportCall", "expected object, got string"},
		{"modeOfTransport AIR", false, []mut{set("transportCall.modeOfTransport", "AIR")}, "[1].transportCall.modeOfTransport", `"AIR" is not a DCSA 2.0.2 code (one of VESSEL, RAIL, TRUCK, BARGE)`},
		{"modeOfTransport missing", false, []mut{set("transportCall.modeOfTransport", nil)}, "[1].transportCall.modeOfTransport", "required"},
		{"IMO not 7 digits", false, []mut{set("transportCall.vessel.vesselIMONumber", "IMO9778791")}, "[1].transportCall.vessel.vesselIMONumber", "not a 7-digit IMO number"},
		{"sequence number a string", false, []mut{set("transportCall.transportCallSequenceNumber", "2")}, "[1].transportCall.transportCallSequenceNumber", "expected integer, got string"},
		{"sequence number a fraction", false, []mut{set("transportCall.transportCallSequenceNumber", 2.5)}, "[1].transportCall.transportCallSequenceNumber", "expected an integer (int32), got 2.5"},
		{"UN/LOCODE malformed", false, []mut{set("transportCall.UNLocationCode", "Ningbo")}, "[1].transportCall.UNLocationCode", `"Ningbo" is not a UN/LOCODE`},
		{"facility provider unknown", false, []mut{set("transportCall.facilityCodeListProvider", "UNECE")}, "[1].transportCall.facilityCodeListProvider", `"UNECE" is not a DCSA 2.0.2 code (one of BIC, SMDG)`},
		{"facility type not TRN", false, []mut{set("transportCall.facilityTypeCode", "BRTH")}, "[1].transportCall.facilityTypeCode", `"BRTH" is not a DCSA 2.0.2 code`},
		{"voyage names contradict", false, []mut{set("transportCall.carrierExportVoyageNumber", "427W")}, "[1].transportCall.carrierExportVoyageNumber", `"427W" contradicts exportVoyageNumber "426W"`},
		{"latitude not a number", true, []mut{set("eventLocation", map[string]any{"latitude": "north", "longitude": "4.0"})}, "[1].eventLocation.latitude", `"north" is not a decimal number`},
		{"longitude out of range", true, []mut{set("eventLocation", map[string]any{"latitude": "51.9", "longitude": "190"})}, "[1].eventLocation.longitude", "out of range ±180"},
		{"document reference type", false, []mut{set("documentReferences", []any{map[string]any{"documentReferenceType": "BOL", "documentReferenceValue": "X"}})}, "[1].documentReferences[0].documentReferenceType", `"BOL" is not a DCSA 2.0.2 code (one of CBR, BKG, SHI, TRD)`},
		{"document reference value", false, []mut{set("documentReferences", []any{map[string]any{"documentReferenceType": "BKG"}})}, "[1].documentReferences[0].documentReferenceValue", "required"},
		{"reference type", false, []mut{set("references", []any{map[string]any{"referenceType": "EQ", "referenceValue": "A"}, map[string]any{"referenceType": "XX", "referenceValue": "B"}})}, "[1].references[1].referenceType", `"XX" is not a DCSA 2.0.2 code`},
		{"seal not an object", true, []mut{set("seals", []any{"S1"})}, "[1].seals[0]", "expected object, got string"},
		{"delay reason too long", false, []mut{set("delayReasonCode", "WEATHER")}, "[1].delayReasonCode", "longer than 3 characters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := base()
			if c.equipment {
				m = equipmentBase()
			}
			for _, f := range c.mutate {
				f(m)
			}
			// Element [0] is valid: it comes out, and only [1] is refused.
			raw, err := json.Marshal([]any{equipmentBase(), m, base()})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Parse(raw, normalize.Envelope{SCAC: "MAEU", ReceivedAt: receivedAt})
			if err != nil {
				t.Fatalf("payload refused whole: %v", err)
			}
			// [2] repeats [0]'s eventID (another kind of event): refused too.
			if len(res.Events) != 1 || res.Events[0].EventType != dcsa.EventTypeEquipment {
				t.Errorf("got %d events, want element [0]'s", len(res.Events))
			}
			if len(res.Refused) != 2 || res.Refused[1].Path != "[2].eventID" {
				t.Fatalf("refusals %v, want [1] and [2] (a repeated eventID)", res.Refused)
			}
			res.Refused = res.Refused[:1]
			assertParseError(t, res, nil, c.path, c.reason)
		})
	}
}

func TestPayloadErrors(t *testing.T) {
	valid, _ := json.Marshal(base())
	for _, c := range []struct {
		name, raw, path, reason string
	}{
		{"empty", "", "", "empty payload"},
		{"whitespace", " \n\t", "", "empty payload"},
		{"object instead of array", `{"data":[]}`, "", "expected a JSON array of events, got object"},
		{"envelope whose events are not an array", `{"events":{"eventType":"TRANSPORT"}}`, "", "expected a JSON array of events, got object"},
		{"null", `null`, "", "expected a JSON array of events, got null"},
		{"truncated", `[` + string(valid[:40]), "[0]", "invalid JSON: unexpected end of input"},
		{"trailing data", `[] []`, "", "expected end of input after the JSON value"},
		{"trailing comma", `[` + string(valid) + `,]`, "[1]", "expected array element after ','"},
		{"element not an object", `[1]`, "[0]", "expected object, got number"},
		{"element null", `[null]`, "[0]", "expected an event object, got null"},
		{"bad escape", `[{"eventID":"\x"}]`, "[0].eventID", `invalid escape character`},
		{"control character", "[{\"eventID\":\"a\tb\"}]", "[0].eventID", "control character in string"},
		{"single quotes", `[{'eventID':1}]`, "[0]", "expected member name"},
		{"too deeply nested unknown member", `[{"x":` + strings.Repeat("[", 80) + strings.Repeat("]", 80) + `}]`, "[0].x", "JSON nested too deeply"},
		{"duplicate eventID", `[` + string(valid) + `,` + string(valid) + `]`, "[1].eventID", "3cecb101-7a1a-43a4-9d62-e88a131651e2 repeats the eventID of element [0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Parse([]byte(c.raw), normalize.Envelope{SCAC: "MAEU", ReceivedAt: receivedAt})
			assertParseError(t, res, err, c.path, c.reason)
		})
	}
}

// TestLenient pins what is accepted although a strict reader might refuse.
func TestLenient(t *testing.T) {
	m := base()
	m["unknownMember"] = map[string]any{"a": []any{1, true, nil, "x"}}
	m["delayReasonCode"] = nil // null is absent
	m["changeRemark"] = ""     // empty is absent
	tc := m["transportCall"].(map[string]any)
	tc["location"] = map[string]any{"locationName": "Quay 7"} // nothing 2.0.2's anyOf accepts…
	delete(tc, "UNLocationCode")                              // …and no flat place to add: dropped
	raw, _ := json.Marshal([]any{m})
	events, err := normalize.Strict(Parse(raw, normalize.Envelope{SCAC: "MAEU", ReceivedAt: receivedAt}))
	if err != nil {
		t.Fatal(err)
	}
	e := events[0]
	if e.DelayReasonCode != "" || e.ChangeRemark != "" || e.TransportCall.Location != nil {
		t.Errorf("got %+v", e)
	}
}
