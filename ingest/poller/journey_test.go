package poller

import (
	"testing"
	"time"

	"github.com/contrack/contrack/schemas/dcsa"
)

func eq(container, classifier, code, empty, at string) dcsa.Event {
	return dcsa.Event{EventType: dcsa.EventTypeEquipment, EventClassifierCode: classifier, EquipmentEventTypeCode: code,
		EquipmentReference: container, EmptyIndicatorCode: empty, EventDateTime: at}
}

// The journey ends when every container has an actual empty gate-in (or
// drop) after its last actual discharge; nothing else ends it. It ended
// when the last container was returned.
func TestJourneyEnded(t *testing.T) {
	pickup := eq("A", "ACT", "GTOT", "EMPTY", "2026-01-01T08:00:00Z")
	disc := eq("A", "ACT", "DISC", "LADEN", "2026-02-01T08:00:00Z")
	ret := eq("A", "ACT", "GTIN", "EMPTY", "2026-02-05T08:00:00+01:00")
	cases := []struct {
		name   string
		events []dcsa.Event
		want   string // when it ended; "" not ended
	}{
		{"no events", nil, ""},
		{"empty pick-up only", []dcsa.Event{pickup}, ""},
		{"discharged, not returned", []dcsa.Event{pickup, disc}, ""},
		{"returned after discharge", []dcsa.Event{pickup, disc, ret}, "2026-02-05T07:00:00Z"},
		{"empty drop after discharge", []dcsa.Event{disc, eq("A", "ACT", "DROP", "EMPTY", "2026-02-05T08:00:00Z")}, "2026-02-05T08:00:00Z"},
		{"estimated return", []dcsa.Event{disc, eq("A", "EST", "GTIN", "EMPTY", "2026-02-05T08:00:00Z")}, ""},
		{"laden gate-in after discharge", []dcsa.Event{disc, eq("A", "ACT", "GTIN", "LADEN", "2026-02-05T08:00:00Z")}, ""},
		{"empty gate-in before a later discharge (transshipment)", []dcsa.Event{eq("A", "ACT", "GTIN", "EMPTY", "2026-01-20T08:00:00Z"), disc}, ""},
		{"one of two containers returned", []dcsa.Event{disc, ret, eq("B", "ACT", "DISC", "LADEN", "2026-02-01T09:00:00Z")}, ""},
		{"both returned", []dcsa.Event{disc, ret, eq("B", "ACT", "DISC", "LADEN", "2026-02-01T09:00:00Z"), eq("B", "ACT", "GTIN", "EMPTY", "2026-02-06T09:00:00Z")}, "2026-02-06T09:00:00Z"},
		{"transport events only", []dcsa.Event{{EventType: dcsa.EventTypeTransport, EventClassifierCode: "ACT", EventDateTime: "2026-02-01T08:00:00Z"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			at, ended := journeyEnded(c.events)
			got := ""
			if ended {
				got = at.UTC().Format(time.RFC3339)
			}
			if got != c.want {
				t.Fatalf("journeyEnded = %q, want %q", got, c.want)
			}
		})
	}
}

// A connector's poll that asked only for what changed records no journey
// end (one container's return in it says nothing of the others) and, with
// nothing new, no change of the events; a change it does see is one. The
// poller here has no store: reaching one would panic.
func TestIncrementalPollRecordsNoJourneyEnd(t *testing.T) {
	p := &poller{}
	since := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	c := claim{id: "t", kind: "booking", since: &since, fingerprint: "old"}
	disc := eq("A", "ACT", "DISC", "LADEN", "2026-02-01T08:00:00Z")
	ret := eq("A", "ACT", "GTIN", "EMPTY", "2026-02-05T08:00:00Z")
	if got := p.journeyFacts(t.Context(), nil, c, parsedPoll{ok: true, all: true}); got != "" {
		t.Fatalf("nothing new changed the fingerprint to %q", got)
	}
	if got := p.journeyFacts(t.Context(), nil, c, parsedPoll{ok: true, all: true, events: []dcsa.Event{disc, ret}}); got == "" || got == "old" {
		t.Fatalf("new events gave fingerprint %q", got)
	}
}
