package journey_test

import (
	"encoding/json"
	"testing"

	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/journeys"
)

func retraction(id string) schemas.EventRecord {
	return schemas.EventRecord{TrackingID: "trk", AccountID: "a", Env: "sandbox", SCAC: "MAEU", EventID: id,
		ContentHash: schemas.RetractedHash, Event: schemas.RetractionEvent(id)}
}

// A withdrawn event leaves the journey and the milestones are derived as
// if it never came: a wrong discharge at a hub makes no transshipment, a
// withdrawn ETA no revision, a withdrawn arrival leaves the ETA; a later
// version of the event brings it back; a repeated retraction or one of an
// event the journey never had changes nothing.
func TestRetractionRecomputesMilestones(t *testing.T) {
	base := []schemas.EventRecord{
		eq("l1", "LOAD", "CNSHA", "2026-10-01T10:00:00Z", "ACT", false),
		tr("d1", "DEPA", "CNSHA", "2026-10-01T20:00:00Z", "ACT", "2026-10-01T20:05:00Z"),
		eq("x1", "DISC", "SGSIN", "2026-10-08T10:00:00Z", "ACT", false),
		eq("x2", "DISC", "NLRTM", "2026-11-30T10:00:00Z", "EST", false),
		tr("a1", "ARRI", "NLRTM", "2026-11-29T08:00:00Z", "EST", "2026-10-02T00:00:00Z"),
		tr("a2", "ARRI", "NLRTM", "2026-11-30T06:00:00Z", "ACT", "2026-11-30T06:05:00Z"),
	}
	ms := func(r journeys.Result) string { b, _ := json.Marshal(r.EnhancedEvents); return string(b) }
	before := derive(t, base...)
	const withHub = `[{"enhancedEventType":"ATD_POL","UNLocationCode":"CNSHA","eventDateTime":"2026-10-01T20:00:00Z"},` +
		`{"enhancedEventType":"TRANSSHIPMENT","UNLocationCode":"SGSIN","eventDateTime":"2026-10-08T10:00:00Z"},` +
		`{"enhancedEventType":"ETA_REVISION","UNLocationCode":"NLRTM","eventDateTime":"2026-11-29T08:00:00Z","revisedDateTime":"2026-10-02T00:00:00Z"},` +
		`{"enhancedEventType":"ATA_POD","UNLocationCode":"NLRTM","eventDateTime":"2026-11-30T06:00:00Z"}]`
	if got := ms(before); got != withHub {
		t.Fatalf("before:\n%s", got)
	}
	for _, c := range []struct {
		name string
		more []schemas.EventRecord
		want string
		src  int // source events left
	}{
		{"a wrong discharge at a hub", []schemas.EventRecord{retraction("x1")},
			`[{"enhancedEventType":"ATD_POL","UNLocationCode":"CNSHA","eventDateTime":"2026-10-01T20:00:00Z"},` +
				`{"enhancedEventType":"ETA_REVISION","UNLocationCode":"NLRTM","eventDateTime":"2026-11-29T08:00:00Z","revisedDateTime":"2026-10-02T00:00:00Z"},` +
				`{"enhancedEventType":"ATA_POD","UNLocationCode":"NLRTM","eventDateTime":"2026-11-30T06:00:00Z"}]`, 2},
		{"the arrival and the estimate", []schemas.EventRecord{retraction("a2"), retraction("a1")},
			`[{"enhancedEventType":"ATD_POL","UNLocationCode":"CNSHA","eventDateTime":"2026-10-01T20:00:00Z"},` +
				`{"enhancedEventType":"TRANSSHIPMENT","UNLocationCode":"SGSIN","eventDateTime":"2026-10-08T10:00:00Z"}]`, 3},
		{"the arrival only: the estimate is the ETA again", []schemas.EventRecord{retraction("a2")},
			`[{"enhancedEventType":"ATD_POL","UNLocationCode":"CNSHA","eventDateTime":"2026-10-01T20:00:00Z"},` +
				`{"enhancedEventType":"TRANSSHIPMENT","UNLocationCode":"SGSIN","eventDateTime":"2026-10-08T10:00:00Z"},` +
				`{"enhancedEventType":"ETA_REVISION","UNLocationCode":"NLRTM","eventDateTime":"2026-11-29T08:00:00Z","revisedDateTime":"2026-10-02T00:00:00Z"},` +
				`{"enhancedEventType":"ETA_POD","UNLocationCode":"NLRTM","eventDateTime":"2026-11-29T08:00:00Z"}]`, 3},
		{"withdrawn, then sent again", []schemas.EventRecord{retraction("x1"), eq("x1", "DISC", "SGSIN", "2026-10-08T10:00:00Z", "ACT", false)}, withHub, 3},
		{"of an event never had", []schemas.EventRecord{retraction("nope")}, withHub, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := derive(t, append(append([]schemas.EventRecord{}, base...), c.more...)...)
			if got := ms(r); got != c.want {
				t.Errorf("milestones:\n got  %s\n want %s", got, c.want)
			}
			if len(r.SourceEvents) != c.src {
				t.Errorf("%d source events, want %d", len(r.SourceEvents), c.src)
			}
		})
	}
	st := &journey.State{}
	if st.ApplyEvent(retraction("x")) {
		t.Error("a retraction of nothing changed an empty state")
	}
	st.ApplyEvent(base[0])
	if !st.ApplyEvent(retraction(base[0].EventID)) || st.ApplyEvent(retraction(base[0].EventID)) {
		t.Error("a retraction changes the state once")
	}
}
