package tnt22

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/schemas/dcsa"
)

// rename moves the member at path (dotted) to the name to.
func rename(path, to string) func(map[string]any) {
	return func(m map[string]any) {
		keys := strings.Split(path, ".")
		for _, k := range keys[:len(keys)-1] {
			m = m[k].(map[string]any)
		}
		last := keys[len(keys)-1]
		m[to] = m[last]
		delete(m, last)
	}
}

// TestDeviations: each deviation real carriers make (docs/normalize.md's
// table) is read, the event comes out repaired, and the repair is counted
// with its kind and path.
func TestDeviations(t *testing.T) {
	type mut = func(map[string]any)
	const hexID = "9f2c1e0b7a5d4c3b2a1908f7e6d5c4b3a2918070"
	for _, c := range []struct {
		name      string
		equipment bool
		mutate    []mut
		repairs   []string // "kind path"
		check     func(t *testing.T, e dcsa.Event)
	}{
		{"seal without sealType", true, []mut{set("seals", []any{map[string]any{"sealNumber": "HL123", "sealSource": "CAR"}, map[string]any{"sealNumber": "S2", "sealType": "BLT"}})},
			[]string{"seal_incomplete_left_out [0].seals[0]"}, func(t *testing.T, e dcsa.Event) {
				if len(e.Seals) != 1 || e.Seals[0].SealNumber != "S2" {
					t.Errorf("seals = %+v, want only the complete S2", e.Seals)
				}
			}},
		{"vesselIMONumber null on a feeder", false, []mut{set("transportCall.vessel", map[string]any{"vesselIMONumber": nil, "vesselName": "FEEDER ONE"})},
			[]string{"vessel_incomplete_left_out [0].transportCall.vessel"}, func(t *testing.T, e dcsa.Event) {
				if e.TransportCall == nil || e.TransportCall.Vessel != nil || e.TransportCall.UNLocationCode != "CNNGB" {
					t.Errorf("transport call = %+v, want it without the vessel", e.TransportCall)
				}
			}},
		{"IMO number as a JSON number", false, []mut{set("transportCall.vessel", map[string]any{"vesselIMONumber": 9778791})},
			[]string{"number_as_string [0].transportCall.vessel.vesselIMONumber"}, func(t *testing.T, e dcsa.Event) {
				if e.TransportCall.Vessel == nil || e.TransportCall.Vessel.VesselIMONumber != "9778791" {
					t.Errorf("vessel = %+v, want IMO 9778791", e.TransportCall.Vessel)
				}
			}},
		{"facilityCode with the UN/LOCODE prefix", false, []mut{set("transportCall.UNLocationCode", "NLRTM"), set("transportCall.facilityCode", "NLRTMECTD"), set("transportCall.facilityCodeListProvider", "SMDG")},
			[]string{"facility_code_split [0].transportCall.facilityCode"}, func(t *testing.T, e dcsa.Event) {
				tc := e.TransportCall
				if tc.FacilityCode != "ECTD" || tc.UNLocationCode != "NLRTM" || tc.Location == nil || tc.Location.FacilityCode != "ECTD" || tc.Location.FacilityCodeListProvider != "SMDG" {
					t.Errorf("transport call = %+v (location %+v), want NLRTM + ECTD (SMDG)", tc, tc.Location)
				}
			}},
		{"facilityCode with a prefix and no UN/LOCODE", true, []mut{set("eventLocation", map[string]any{"facilityCode": "DEHAMCTA"})},
			[]string{"facility_code_split [0].eventLocation.facilityCode"}, func(t *testing.T, e dcsa.Event) {
				if l := e.EventLocation; l == nil || l.UNLocationCode != "DEHAM" || l.FacilityCode != "CTA" {
					t.Errorf("eventLocation = %+v, want DEHAM + CTA", e.EventLocation)
				}
			}},
		{"eventID a 40-character hash", false, []mut{set("eventID", hexID)},
			[]string{"event_id_not_uuid [0].eventID"}, func(t *testing.T, e dcsa.Event) {
				if want := identity.EventID("MAEU", hexID); e.EventID != want {
					t.Errorf("eventID = %s, want EventID(MAEU, source id) = %s", e.EventID, want)
				}
			}},
		{"eventID a 10-digit number", false, []mut{set("eventID", 4711000042)},
			[]string{"number_as_string [0].eventID", "event_id_not_uuid [0].eventID"}, func(t *testing.T, e dcsa.Event) {
				if want := identity.EventID("MAEU", "4711000042"); e.EventID != want {
					t.Errorf("eventID = %s, want %s", e.EventID, want)
				}
			}},
		{"unLocationCode (MSC)", false, []mut{rename("transportCall.UNLocationCode", "unLocationCode")},
			[]string{"member_case [0].transportCall.unLocationCode"}, func(t *testing.T, e dcsa.Event) {
				if e.TransportCall.UNLocationCode != "CNNGB" || e.TransportCall.Location == nil || e.TransportCall.Location.UNLocationCode != "CNNGB" {
					t.Errorf("transport call = %+v, want CNNGB read", e.TransportCall)
				}
			}},
		{"eventId and transportCallId", false, []mut{rename("eventID", "eventId"), rename("transportCall.transportCallID", "transportCallId")},
			[]string{"member_case [0].eventId", "member_case [0].transportCall.transportCallId"}, func(t *testing.T, e dcsa.Event) {
				if want := identity.EventID("MAEU", "3cecb101-7a1a-43a4-9d62-e88a131651e2"); e.EventID != want || e.TransportCall.TransportCallID != "TC-1" {
					t.Errorf("eventID %s, transportCallID %q: the members were not read", e.EventID, e.TransportCall.TransportCallID)
				}
			}},
		{"vessel operator code a UUID (DCSA's own sample)", false, []mut{set("transportCall.vessel", map[string]any{"vesselIMONumber": "9778791", "vesselOperatorCarrierCode": "5b80b59b-76cd-4003-8d10-c382b10704e9", "vesselOperatorCarrierCodeListProvider": "NMFTA"})},
			[]string{"too_long_left_out [0].transportCall.vessel.vesselOperatorCarrierCode"}, func(t *testing.T, e dcsa.Event) {
				v := e.TransportCall.Vessel
				if v == nil || v.VesselIMONumber != "9778791" || v.VesselOperatorCarrierCode != "" || v.VesselOperatorCarrierCodeListProvider != "" {
					t.Errorf("vessel = %+v, want IMO 9778791 without the operator code or its provider", v)
				}
			}},
		{"voyage number longer than 50", false, []mut{set("transportCall.importVoyageNumber", strings.Repeat("V", 51))},
			[]string{"too_long_left_out [0].transportCall.importVoyageNumber"}, func(t *testing.T, e dcsa.Event) {
				if e.TransportCall == nil || e.TransportCall.ImportVoyageNumber != "" || e.TransportCall.CarrierVoyageNumber != "426W" {
					t.Errorf("transport call = %+v, want it kept without the voyage number", e.TransportCall)
				}
			}},
		{"nested location in lower case", true, []mut{set("eventLocation", map[string]any{"unlocationcode": "NLRTM", "LocationName": "Euromax"})},
			[]string{"member_case [0].eventLocation.LocationName", "member_case [0].eventLocation.unlocationcode"}, func(t *testing.T, e dcsa.Event) {
				if l := e.EventLocation; l == nil || l.UNLocationCode != "NLRTM" || l.LocationName != "Euromax" {
					t.Errorf("eventLocation = %+v", e.EventLocation)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := base()
			if c.equipment {
				m = equipmentBase()
			}
			for _, f := range c.mutate {
				f(m)
			}
			raw, err := json.Marshal([]any{m})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Parse(raw, normalize.Envelope{SCAC: "MAEU", ReceivedAt: receivedAt})
			if err != nil || len(res.Refused) > 0 || len(res.Events) != 1 {
				t.Fatalf("got %d events, refusals %v, error %v; want the event", len(res.Events), res.Refused, err)
			}
			var got []string
			for _, r := range res.Repairs {
				got = append(got, string(r.Kind)+" "+r.Path)
			}
			if strings.Join(got, ", ") != strings.Join(c.repairs, ", ") {
				t.Errorf("repairs %q, want %q", got, c.repairs)
			}
			if err := validate.Structural(res.Events[0]); err != nil {
				t.Errorf("repaired event breaks the 2.0.2 contract: %v", err)
			}
			c.check(t, res.Events[0])
		})
	}
}

// TestLeftOutValuesKept: what an incomplete sub-object said is kept in its
// repair, not dropped.
func TestLeftOutValuesKept(t *testing.T) {
	m := equipmentBase()
	m["seals"] = []any{map[string]any{"sealNumber": "HL123"}}
	m["transportCall"].(map[string]any)["vessel"] = map[string]any{"vesselName": "FEEDER ONE"}
	raw, _ := json.Marshal([]any{m})
	res, err := Parse(raw, normalize.Envelope{SCAC: "MAEU", ReceivedAt: receivedAt})
	if err != nil || len(res.Repairs) != 2 {
		t.Fatalf("repairs %+v, error %v", res.Repairs, err)
	}
	if res.Repairs[0].Value != "FEEDER ONE" || res.Repairs[1].Value != "HL123/" {
		t.Errorf("repairs %+v, want the vessel's name and the seal's number kept", res.Repairs)
	}
}

// TestEventsEnvelope: a 2.x array inside {"events": [...]} reads as the
// array does, counted once.
func TestEventsEnvelope(t *testing.T) {
	eq := equipmentBase()
	eq["eventID"] = "6c1f3b8e-2d4a-4e5f-9a7b-1c2d3e4f5a6b"
	arr, _ := json.Marshal([]any{base(), eq})
	env := normalize.Envelope{SCAC: "MAEU", ReceivedAt: receivedAt}
	want, err := normalize.Strict(Parse(arr, env))
	if err != nil {
		t.Fatal(err)
	}
	wrapped := []byte(`{"next":null,"events":` + string(arr) + `}`)
	res, err := Parse(wrapped, env)
	if err != nil || len(res.Refused) > 0 {
		t.Fatalf("refusals %v, error %v", res.Refused, err)
	}
	b1, _ := json.Marshal(want)
	b2, _ := json.Marshal(res.Events)
	if string(b1) != string(b2) {
		t.Errorf("wrapped events differ from the array's:\n%s\n%s", b2, b1)
	}
	if len(res.Repairs) != 1 || res.Repairs[0].Kind != normalize.RepairEventsEnvelope {
		t.Errorf("repairs %+v, want one events_envelope", res.Repairs)
	}
	// An element of the envelope refused: named under events.
	bad := []byte(`{"events":[` + string(arr[1:len(arr)-1]) + `,{"eventType":"TRANSPORT"}]}`)
	res, err = Parse(bad, env)
	if err != nil || len(res.Events) != 2 || len(res.Refused) != 1 || res.Refused[0].Path != "events[2].eventClassifierCode" || res.Refused[0].Element != 2 {
		t.Fatalf("got %d events, refusals %v, error %v; want 2 and events[2] refused", len(res.Events), res.Refused, err)
	}
}

// TestRefusalSkipsTheRestOfTheElement: an element refused in the middle of
// its members (a type error) is skipped whole, and the next one is read.
func TestRefusalSkipsTheRestOfTheElement(t *testing.T) {
	bad := base()
	bad["eventDateTime"] = []any{map[string]any{"deep": []any{1, 2}}}
	bad["eventID"] = "0d6b5ff4-0f4e-4fb8-8f4b-6b8a7e6e0c11"
	raw, _ := json.Marshal([]any{bad, equipmentBase()})
	res, err := Parse(raw, normalize.Envelope{SCAC: "MAEU", ReceivedAt: receivedAt})
	if err != nil || len(res.Events) != 1 || len(res.Refused) != 1 || res.Refused[0].Path != "[0].eventDateTime" {
		t.Fatalf("got %d events, refusals %v, error %v", len(res.Events), res.Refused, err)
	}
}
