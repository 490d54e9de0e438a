package journey_test

import (
	"encoding/json"
	"testing"

	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/journeys"
)

const box = "MSKU9070323"

// eq and tr make an event record: id, code, place, time, classifier
// (created is the event's creation time, for ETA revisions).
func eq(id, code, place, at, cls string, empty bool) schemas.EventRecord {
	e := dcsa.Event{EventID: id, EventType: dcsa.EventTypeEquipment, EventClassifierCode: cls, EventDateTime: at, EventCreatedDateTime: at,
		EquipmentEventTypeCode: code, EquipmentReference: box, EmptyIndicatorCode: "LADEN", EventLocation: &dcsa.Location{UNLocationCode: place}}
	if empty {
		e.EmptyIndicatorCode = "EMPTY"
	}
	return record(e)
}

func tr(id, code, place, at, cls, created string) schemas.EventRecord {
	e := dcsa.Event{EventID: id, EventType: dcsa.EventTypeTransport, EventClassifierCode: cls, EventDateTime: at, EventCreatedDateTime: created,
		TransportEventTypeCode: code, TransportCall: &dcsa.TransportCall{TransportCallID: "tc", ModeOfTransport: "VESSEL", UNLocationCode: place}}
	return record(e)
}

func record(e dcsa.Event) schemas.EventRecord {
	b, _ := json.Marshal(e)
	return schemas.EventRecord{TrackingID: "trk", AccountID: "a", Env: "sandbox", SCAC: "MAEU", EventID: e.EventID, ContentHash: string(b), Event: b}
}

func derive(t *testing.T, recs ...schemas.EventRecord) journeys.Result {
	t.Helper()
	st := &journey.State{}
	st.ApplySubscription(schemas.SubscriptionChanged{TrackingID: "trk", SCAC: "MAEU", IdentifierKind: "container", Identifier: box, TrackingOpen: true})
	for _, r := range recs {
		st.ApplyEvent(r)
	}
	rs := journey.Derive(st)
	if len(rs) != 1 {
		t.Fatalf("%d results", len(rs))
	}
	return rs[0]
}

func TestMilestones(t *testing.T) {
	base := []schemas.EventRecord{
		eq("l1", "LOAD", "CNSHA", "2026-10-01T10:00:00Z", "ACT", false),
		tr("d1", "DEPA", "CNSHA", "2026-10-01T20:00:00Z", "ACT", "2026-10-01T20:05:00Z"),
		eq("x1", "DISC", "SGSIN", "2026-10-08T10:00:00Z", "ACT", false),
		eq("l2", "LOAD", "SGSIN", "2026-10-10T10:00:00Z", "ACT", false),
		eq("x2", "DISC", "NLRTM", "2026-11-30T10:00:00Z", "EST", false),
	}
	cases := []struct {
		name string
		recs []schemas.EventRecord
		want string
	}{
		{"departure from POL and a transshipment with its reload", base,
			`[{"enhancedEventType":"ATD_POL","UNLocationCode":"CNSHA","eventDateTime":"2026-10-01T20:00:00Z"},` +
				`{"enhancedEventType":"TRANSSHIPMENT","UNLocationCode":"SGSIN","eventDateTime":"2026-10-08T10:00:00Z","reloadDateTime":"2026-10-10T10:00:00Z"}]`},
		{"estimated and actual discharge at a hub are one transshipment", append([]schemas.EventRecord{
			eq("x1e", "DISC", "SGSIN", "2026-10-07T10:00:00Z", "EST", false)}, base...),
			`[{"enhancedEventType":"ATD_POL","UNLocationCode":"CNSHA","eventDateTime":"2026-10-01T20:00:00Z"},` +
				`{"enhancedEventType":"TRANSSHIPMENT","UNLocationCode":"SGSIN","eventDateTime":"2026-10-08T10:00:00Z","reloadDateTime":"2026-10-10T10:00:00Z"}]`},
		{"every revision of the ETA at POD with the previous one, and the current ETA", append(base[:0:0],
			eq("x2", "DISC", "NLRTM", "2026-11-30T10:00:00Z", "EST", false),
			tr("a1", "ARRI", "NLRTM", "2026-11-29T08:00:00Z", "EST", "2026-10-02T00:00:00Z"),
			tr("a1", "ARRI", "NLRTM", "2026-11-29T08:00:00Z", "EST", "2026-10-02T00:00:00Z"), // a repeat is no revision
			tr("a1", "ARRI", "NLRTM", "2026-11-30T08:00:00Z", "EST", "2026-10-05T00:00:00Z"),
			tr("s1", "ARRI", "SGSIN", "2026-10-08T08:00:00Z", "EST", "2026-10-05T00:00:00Z"), // not POD
			tr("a1", "ARRI", "NLRTM", "2026-11-28T08:00:00Z", "EST", "2026-10-09T00:00:00Z")),
			`[{"enhancedEventType":"ETA_REVISION","UNLocationCode":"NLRTM","eventDateTime":"2026-11-29T08:00:00Z","revisedDateTime":"2026-10-02T00:00:00Z"},` +
				`{"enhancedEventType":"ETA_REVISION","UNLocationCode":"NLRTM","eventDateTime":"2026-11-30T08:00:00Z","previousEventDateTime":"2026-11-29T08:00:00Z","revisedDateTime":"2026-10-05T00:00:00Z"},` +
				`{"enhancedEventType":"ETA_REVISION","UNLocationCode":"NLRTM","eventDateTime":"2026-11-28T08:00:00Z","previousEventDateTime":"2026-11-30T08:00:00Z","revisedDateTime":"2026-10-09T00:00:00Z"},` +
				`{"enhancedEventType":"ETA_POD","UNLocationCode":"NLRTM","eventDateTime":"2026-11-28T08:00:00Z"}]`},
		{"arrival, discharge, full gate-out and empty return at destination", append(base[:0:0],
			eq("x2", "DISC", "NLRTM", "2026-11-30T10:00:00Z", "ACT", false),
			tr("a1", "ARRI", "NLRTM", "2026-11-29T08:00:00Z", "EST", "2026-10-02T00:00:00Z"),
			tr("a2", "ARRI", "NLRTM", "2026-11-30T06:00:00Z", "ACT", "2026-11-30T06:10:00Z"),
			eq("g1", "GTOT", "NLRTM", "2026-12-02T09:00:00Z", "ACT", false),
			eq("g2", "GTIN", "NLRTM", "2026-12-06T09:00:00Z", "EST", true), // not yet returned
			eq("g3", "GTIN", "NLRTM", "2026-12-07T09:00:00Z", "ACT", true)),
			`[{"enhancedEventType":"ETA_REVISION","UNLocationCode":"NLRTM","eventDateTime":"2026-11-29T08:00:00Z","revisedDateTime":"2026-10-02T00:00:00Z"},` +
				`{"enhancedEventType":"ATA_POD","UNLocationCode":"NLRTM","eventDateTime":"2026-11-30T06:00:00Z"},` +
				`{"enhancedEventType":"DISCHARGE_POD","UNLocationCode":"NLRTM","eventDateTime":"2026-11-30T10:00:00Z"},` +
				`{"enhancedEventType":"GATE_OUT_FULL_DESTINATION","UNLocationCode":"NLRTM","eventDateTime":"2026-12-02T09:00:00Z"},` +
				`{"enhancedEventType":"EMPTY_RETURN","UNLocationCode":"NLRTM","eventDateTime":"2026-12-07T09:00:00Z"}]`},
		{"no gate-out before the discharge at POD, no empty return before the gate-out", append(base[:0:0],
			eq("g0", "GTOT", "CNSHA", "2026-09-30T09:00:00Z", "ACT", true),
			eq("x2", "DISC", "NLRTM", "2026-11-30T10:00:00Z", "EST", false)),
			`[]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := json.Marshal(derive(t, c.recs...).EnhancedEvents)
			if string(got) != c.want {
				t.Fatalf("\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// The latest version of an event is the last one in the topic's order:
// A, then B, then A again shows A.
func TestLastVersionInTopicOrderWins(t *testing.T) {
	a := eq("x2", "DISC", "NLRTM", "2026-11-30T10:00:00Z", "EST", false)
	b := eq("x2", "DISC", "NLRTM", "2026-12-02T10:00:00Z", "EST", false)
	r := derive(t, a, b, a)
	var ev dcsa.Event
	if err := json.Unmarshal(r.SourceEvents[0], &ev); err != nil {
		t.Fatal(err)
	}
	if len(r.SourceEvents) != 1 || ev.EventDateTime != "2026-11-30T10:00:00Z" {
		t.Fatalf("source events %s", r.SourceEvents)
	}
	st := &journey.State{}
	if !st.ApplyEvent(a) || st.ApplyEvent(a) || !st.ApplyEvent(b) {
		t.Fatal("a repeat must change nothing, a new version must")
	}
}
