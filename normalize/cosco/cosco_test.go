package cosco

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/normalize/validate/validatetest"
	"github.com/contrack/contrack/schemas/cosco"
	"github.com/contrack/contrack/schemas/dcsa"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var testEnv = normalize.Envelope{SCAC: "COSU", TrackingID: "trk-1", ReceivedAt: time.Date(2026, 4, 22, 12, 0, 0, 0, time.UTC)}

// TestGolden parses every testdata/*.json and compares events, stats or the
// error with testdata/golden/<name>.json; every event must validate against
// EVENT_DOMAIN 2.0.2. Run with -update to rewrite, then read the diff.
func TestGolden(t *testing.T) {
	validatetest.GoldenOutcomes(t, "testdata/*.json", ".json",
		func(name string) string { return filepath.Join("testdata", "golden", name+".json") }, *update,
		func(raw []byte) (normalize.Result, Stats, error) { return ParseStats(raw, testEnv) })
}

// TestEventCodes pins what each COSCO code becomes, restating schemas/cosco's
// documented mapping rather than reading eventTable.
func TestEventCodes(t *testing.T) {
	tests := []struct {
		code, eventType, dcsaCode, empty, mode string
	}{
		{"EPU", "EQUIPMENT", "GTOT", "EMPTY", ""},
		{"GTI", "EQUIPMENT", "GTIN", "LADEN", ""},
		{"LOD", "EQUIPMENT", "LOAD", "LADEN", "VESSEL"},
		{"VDL", "TRANSPORT", "DEPA", "", "VESSEL"},
		{"VAD", "TRANSPORT", "ARRI", "", "VESSEL"},
		{"DIS", "EQUIPMENT", "DISC", "LADEN", "VESSEL"},
		{"GTO", "EQUIPMENT", "GTOT", "LADEN", ""},
		{"ERT", "EQUIPMENT", "GTIN", "EMPTY", ""},
		{"RLD", "EQUIPMENT", "LOAD", "LADEN", "RAIL"},
		{"RUL", "EQUIPMENT", "DISC", "LADEN", "RAIL"},
	}
	if len(eventTable) != len(tests) {
		t.Errorf("eventTable has %d codes, this test pins %d", len(eventTable), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			e := only(t, response(`{"eventId":"x1","eventCode":"`+tt.code+`","eventTime":"2026-03-01 14:20:00","timeZone":"+08:00","eventStatus":"A","isActual":true,"location":{"unlocode":"CNSHA","name":"Shanghai"}}`))
			if e.EventType != tt.eventType || e.EquipmentEventTypeCode+e.TransportEventTypeCode != tt.dcsaCode || e.EmptyIndicatorCode != tt.empty {
				t.Errorf("got %s %s%s %q", e.EventType, e.EquipmentEventTypeCode, e.TransportEventTypeCode, e.EmptyIndicatorCode)
			}
			mode := ""
			if e.TransportCall != nil {
				mode = e.TransportCall.ModeOfTransport
			}
			if mode != tt.mode {
				t.Errorf("mode %q, want %q", mode, tt.mode)
			}
			if e.EventDateTime != "2026-03-01T14:20:00+08:00" || e.EventClassifierCode != "ACT" || e.EquipmentReference != "CSNU1234560" || e.CarrierCode != "COSU" {
				t.Errorf("%+v", e)
			}
		})
	}
}

// TestBookingInTransit checks, beside the golden file, the decisions the
// booking fixture exercises.
func TestBookingInTransit(t *testing.T) {
	raw, err := os.ReadFile("testdata/booking_in_transit.json")
	if err != nil {
		t.Fatal(err)
	}
	res, st, err := ParseStats(raw, testEnv)
	if err != nil {
		t.Fatal(err)
	}
	events := res.Events
	if st.Containers != 2 || st.Events != 13 || st.Unknown["CUS"] != 1 || len(events) != 13 {
		t.Fatalf("stats %+v, %d events", st, len(events))
	}
	// The unknown code is left out, counted and kept.
	if len(res.Repairs) != 1 || res.Repairs[0].Kind != normalize.RepairUnknownCode || res.Repairs[0].Value != "CUS" {
		t.Errorf("repairs %+v, want the CUS event left out as unknown_code_left_out", res.Repairs)
	}
	byClass := map[string]int{}
	for _, e := range events {
		byClass[e.EventClassifierCode]++
		if len(e.DocumentReferences) != 2 || e.DocumentReferences[0] != (dcsa.DocumentReference{DocumentReferenceType: "BKG", DocumentReferenceValue: "6301234567"}) ||
			e.DocumentReferences[1] != (dcsa.DocumentReference{DocumentReferenceType: "TRD", DocumentReferenceValue: "COSU6301234567"}) {
			t.Errorf("documentReferences %+v", e.DocumentReferences)
		}
	}
	if byClass["ACT"] != 10 || byClass["EST"] != 2 || byClass["PLN"] != 1 {
		t.Errorf("classifiers %v", byClass)
	}
	// Both containers' VDL share COSCO's eventId; their eventIDs must differ.
	if events[3].TransportEventTypeCode != "DEPA" || events[12].TransportEventTypeCode != "DEPA" || events[3].EventID == events[12].EventID {
		t.Errorf("DEPA ids %q %q", events[3].EventID, events[12].EventID)
	}
	// eventId case does not change the id (upper-case EPU id, lower-case others).
	again := strings.Replace(string(raw), "8F3C2A10-1B2C-4D5E-9F00-0A1B2C3D4E01", "8f3c2a10-1b2c-4d5e-9f00-0a1b2c3d4e01", 1)
	ev2, err := normalize.Strict(Parse([]byte(again), testEnv))
	if err != nil || ev2[0].EventID != events[0].EventID {
		t.Errorf("eventId case changed the id: %v", err)
	}
	gtin := events[1]
	if l := gtin.EventLocation; l == nil || l.UNLocationCode != "CNSHA" || l.FacilityCode != "WGQ5" || l.FacilityCodeListProvider != "SMDG" ||
		l.LocationName != "Waigaoqiao Phase V" || l.Latitude != "31.3571" {
		t.Errorf("gate-in location %+v", gtin.EventLocation)
	}
	if gtin.TransportCall != nil || gtin.EventCreatedDateTime != "2026-02-28T08:41:10Z" {
		t.Errorf("gate-in: transportCall %+v, created %q", gtin.TransportCall, gtin.EventCreatedDateTime)
	}
	load, depa := events[2], events[3]
	if tc := load.TransportCall; tc == nil || tc.Vessel == nil || tc.Vessel.VesselIMONumber != "9783502" || tc.CarrierVoyageNumber != "042W" ||
		tc.CarrierServiceCode != "AEU3" || tc.TransportCallID != depa.TransportCall.TransportCallID {
		t.Errorf("LOAD transportCall %+v / DEPA %+v", load.TransportCall, depa.TransportCall)
	}
	if depa.EventLocation != nil || depa.TransportCall.Location == nil || depa.TransportCall.Location.UNLocationCode != "CNSHA" {
		t.Errorf("DEPA location: %+v / %+v", depa.EventLocation, depa.TransportCall.Location)
	}
}

func TestDecisions(t *testing.T) {
	t.Run("barge refines a vessel code", func(t *testing.T) {
		e := only(t, response(`{"eventId":"x","eventCode":"DIS","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","eventStatus":"A","transportMode":"BARGE","location":{"unlocode":"NLRTM"}}`))
		if e.TransportCall.ModeOfTransport != "BARGE" {
			t.Errorf("mode %q", e.TransportCall.ModeOfTransport)
		}
	})
	t.Run("rail code ignores a contradicting transportMode", func(t *testing.T) {
		e := only(t, response(`{"eventId":"x","eventCode":"RLD","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","eventStatus":"A","transportMode":"VESSEL","location":{"unlocode":"DEHAM"}}`))
		if e.TransportCall.ModeOfTransport != "RAIL" {
			t.Errorf("mode %q", e.TransportCall.ModeOfTransport)
		}
	})
	t.Run("missing eventStatus falls back to isActual", func(t *testing.T) {
		e := only(t, response(`{"eventId":"x","eventCode":"GTI","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","isActual":true,"location":{"unlocode":"DEHAM"}}`))
		f := only(t, response(`{"eventId":"x","eventCode":"GTI","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","isActual":false,"location":{"unlocode":"DEHAM"}}`))
		if e.EventClassifierCode != "ACT" || f.EventClassifierCode != "EST" {
			t.Errorf("%s %s", e.EventClassifierCode, f.EventClassifierCode)
		}
	})
	t.Run("emptyFull wins over the code's default", func(t *testing.T) {
		e := only(t, response(`{"eventId":"x","eventCode":"LOD","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","eventStatus":"A","emptyFull":"E","location":{"unlocode":"DEHAM"}}`))
		if e.EmptyIndicatorCode != "EMPTY" {
			t.Errorf("%q", e.EmptyIndicatorCode)
		}
	})
	t.Run("no eventId: id from the fields", func(t *testing.T) {
		a := only(t, response(`{"eventCode":"GTO","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","eventStatus":"A","location":{"unlocode":"DEHAM"}}`))
		b := only(t, response(`{"eventCode":"GTO","eventTime":"2026-03-01 15:20:00","timeZone":"+01:00","eventStatus":"A","location":{"unlocode":"DEHAM"}}`))
		if a.EventID == "" || a.EventID == b.EventID {
			t.Errorf("ids %q %q", a.EventID, b.EventID)
		}
	})
	t.Run("bad UN/LOCODE and position are left out", func(t *testing.T) {
		e := only(t, response(`{"eventId":"x","eventCode":"VAD","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","eventStatus":"A","location":{"unlocode":"Hamburg","name":"Hamburg","latitude":"953.5","longitude":"9.9"}}`))
		if tc := e.TransportCall; tc.Location != nil || tc.UNLocationCode != "" {
			t.Errorf("transportCall %+v", tc)
		}
	})
	t.Run("booking number from the query", func(t *testing.T) {
		raw := `{"code":"200","data":{"content":{"trackingType":"BOOKING","trackingNo":"6300000001","containers":[{"containerNo":"CSNU1234560","events":[` +
			`{"eventId":"x","eventCode":"GTI","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","eventStatus":"A","location":{"unlocode":"DEHAM"}}]}]}}}`
		e := only(t, []byte(raw))
		if len(e.DocumentReferences) != 1 || e.DocumentReferences[0].DocumentReferenceValue != "6300000001" {
			t.Errorf("%+v", e.DocumentReferences)
		}
	})
	t.Run("no updateTime: receipt time", func(t *testing.T) {
		e := only(t, response(`{"eventId":"x","eventCode":"GTI","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","eventStatus":"A","location":{"unlocode":"DEHAM"}}`))
		if e.EventCreatedDateTime != "2026-04-22T12:00:00Z" {
			t.Errorf("%q", e.EventCreatedDateTime)
		}
	})
}

// TestEventTimeFastPath: the fast path agrees with cosco.Event.Time, the
// schema's own definition, on valid and invalid values.
func TestEventTimeFastPath(t *testing.T) {
	for _, tt := range []struct{ at, zone string }{
		{"2026-03-01 14:20:00", "+08:00"}, {"2026-03-01 14:20:00", "-05:00"}, {"2026-03-01 14:20:00", "+00:00"},
		{"2026-03-01 14:20:00", "+05:45"}, {"2026-03-01 14:20:00", "+5:45"}, {"2026-02-29 10:00:00", "+01:00"},
		{"2026-04-31 10:00:00", "+01:00"}, {"2026-03-01 24:00:00", "+01:00"}, {"2026-03-01T14:20:00", "+01:00"},
		{"2026-03-01 14:20", "+01:00"}, {"2026-03-01 14:20:00", ""}, {"2026-03-01 14:20:00", "Z"}, {"2026-03-01 14:20:00", "+15:00"},
	} {
		ev := cosco.Event{EventTime: tt.at, TimeZone: tt.zone}
		got, gotErr := eventTime(&ev)
		want, wantErr := ev.Time()
		if (gotErr != nil) != (wantErr != nil) || !got.Equal(want) || got.Format(time.RFC3339) != want.Format(time.RFC3339) {
			t.Errorf("%q %q: got %v %v, cosco.Event.Time %v %v", tt.at, tt.zone, got, gotErr, want, wantErr)
		}
	}
}

func TestNoData(t *testing.T) {
	for _, raw := range []string{
		`{"code":"404","message":"not found","data":null}`,
		`{"code":"200","message":"success","data":null}`,
		`{"code":"200","message":"success","data":{"content":{"trackingType":"CONTAINER","trackingNo":"X","containers":[{"containerNo":"CSNU1234560","events":[]}]}}}`,
	} {
		events, err := normalize.Strict(Parse([]byte(raw), testEnv))
		if err != nil || len(events) != 0 {
			t.Errorf("%s: %d events, %v", raw, len(events), err)
		}
	}
}

// TestErrors: a response that is not tracking data fails whole; an event
// (or container) that cannot be read is refused alone with its index, and
// the response's other events come out.
func TestErrors(t *testing.T) {
	const good = `{"eventId":"g1","eventCode":"GTO","eventTime":"2026-03-02 09:00:00","timeZone":"+01:00","eventStatus":"A"}`
	tests := []struct {
		name, raw, path, reason string
	}{
		{"not JSON", `<html>`, "", "invalid JSON"},
		{"wrong type", `{"code":true}`, "", "code: bool where string"},
		{"no code", `{"message":"x"}`, "code", "missing"},
		{"401", `{"code":"401","message":"Invalid signature","data":null}`, "code", `"401" (Invalid signature)`},
		{"503", `{"code":"503","message":"busy","data":null}`, "code", "not tracking data"},
		{"bad eventStatus", string(response(`{"eventCode":"GTI","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","eventStatus":"X"}`, good)), "data.content.containers[0].events[0].eventStatus", "not A, E or P"},
		{"bad eventTime", string(response(good, `{"eventCode":"GTI","eventTime":"01/03/2026 14:20","timeZone":"+01:00","eventStatus":"A"}`)), "data.content.containers[0].events[1].eventTime", "is not"},
		{"missing timeZone", string(response(`{"eventCode":"GTI","eventTime":"2026-03-01 14:20:00","eventStatus":"A"}`)), "data.content.containers[0].events[0].eventTime", "timeZone"},
		{"bad updateTime", string(response(`{"eventCode":"GTI","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","eventStatus":"A","updateTime":"yesterday"}`)), "data.content.containers[0].events[0].updateTime", "is not"},
		{"placeholder time", string(response(`{"eventCode":"GTI","eventTime":"1970-01-01 00:00:00","timeZone":"+00:00","eventStatus":"A"}`)), "data.content.containers[0].events[0].eventTime", "not a real event time"},
		{"actual in the future", string(response(`{"eventCode":"GTI","eventTime":"2026-05-01 00:00:00","timeZone":"+00:00","eventStatus":"A"}`)), "data.content.containers[0].events[0].eventTime", "after its eventCreatedDateTime"},
		{"container number too long", `{"code":"200","data":{"content":{"containers":[{"containerNo":"CSNU12345601234567","events":[]}]}}}`, "data.content.containers[0].containerNo", "longer than 15"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Parse([]byte(tt.raw), testEnv)
			whole := strings.Count(tt.path, "[") == 0
			if !whole {
				// One element refused; the good one (if any) comes out.
				if err != nil || len(res.Refused) != 1 {
					t.Fatalf("got %v, refusals %v; want one refused element", err, res.Refused)
				}
				if wantGood := strings.Contains(tt.raw, `"g1"`); (len(res.Events) == 1) != wantGood {
					t.Errorf("%d events, want the good one: %v", len(res.Events), wantGood)
				}
				err = res.Refused[0]
			} else if res.Events != nil || res.Refused != nil {
				t.Errorf("events or refusals with the response's error")
			}
			var pe *normalize.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, normalize.ErrMalformed) {
				t.Fatalf("got %v; want a ParseError", err)
			}
			if tt.name == "bad eventTime" && pe.Element != 1 {
				t.Errorf("Element = %d, want 1 (the second event)", pe.Element)
			}
			if pe.Format != Format || pe.Path != tt.path || !strings.Contains(pe.Reason, tt.reason) {
				t.Errorf("got %q %q %q, want path %q, reason containing %q", pe.Format, pe.Path, pe.Reason, tt.path, tt.reason)
			}
		})
	}
	if _, err := normalize.Strict(Parse(response(`{"eventCode":"GTI","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","eventStatus":"A"}`), normalize.Envelope{SCAC: "COSU"})); err == nil {
		t.Error("no updateTime and no receipt time: no error")
	}
}

// response wraps container events of CSNU1234560 in a "200" response.
func response(events ...string) []byte {
	return []byte(`{"code":"200","message":"success","data":{"content":{"trackingType":"CONTAINER","trackingNo":"CSNU1234560",` +
		`"containers":[{"containerNo":"CSNU1234560","containerType":"40HQ","isoCode":"45G1","events":[` + strings.Join(events, ",") + `]}]}}}`)
}

func only(t *testing.T, raw []byte) dcsa.Event {
	t.Helper()
	events, err := normalize.Strict(Parse(raw, testEnv))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 {
		t.Fatalf("%d events, want 1", len(events))
	}
	if err := validate.Structural(events[0]); err != nil {
		t.Fatal(err)
	}
	return events[0]
}

// TestNumbersAsStrings: COSCO's response with numbers where it documents
// strings (the IMO number, the response code, coordinates) is read, and
// each number counted as a repair with its path.
func TestNumbersAsStrings(t *testing.T) {
	raw := []byte(`{"code":200,"message":"success","data":{"content":{"trackingType":"CONTAINER","trackingNo":"CSNU1234560",` +
		`"containers":[{"containerNo":"CSNU1234560","isoCode":"45G1","events":[{"eventId":"v1","eventCode":"VDL","eventTime":"2026-03-01 14:20:00",` +
		`"timeZone":"+08:00","eventStatus":"A","vesselImo":9783502,"vesselName":"COSCO ANNA","voyageNo":"041E","location":{"unlocode":"CNSHA","name":"Shanghai","latitude":31.23,"longitude":121.47}}]}]}}}`)
	res, err := Parse(raw, testEnv)
	if err != nil || len(res.Events) != 1 || len(res.Refused) != 0 {
		t.Fatalf("got %d events, refusals %v, error %v", len(res.Events), res.Refused, err)
	}
	if tc := res.Events[0].TransportCall; tc == nil || tc.Vessel == nil || tc.Vessel.VesselIMONumber != "9783502" {
		t.Errorf("transport call %+v, want the vessel's IMO 9783502", res.Events[0].TransportCall)
	}
	var got []string
	for _, r := range res.Repairs {
		got = append(got, string(r.Kind)+" "+r.Path+"="+r.Value)
	}
	want := []string{"number_as_string code=200",
		"number_as_string data.content.containers[0].events[0].location.latitude=31.23",
		"number_as_string data.content.containers[0].events[0].location.longitude=121.47",
		"number_as_string data.content.containers[0].events[0].vesselImo=9783502"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("repairs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A number where no string is documented still fails as before.
	if _, err := Parse([]byte(`{"code":"200","data":{"content":{"containers":[{"containerNo":"X","events":[{"isActual":1}]}]}}}`), testEnv); err == nil {
		t.Error("isActual as a number: no error")
	}
}
