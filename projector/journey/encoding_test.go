package journey_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/journeys"
)

// The projector writes sourceEvents and vesselEvents with AppendArray
// instead of json.Marshal: after every poll of every sandbox journey, and
// for a state rebuilt from its header and events (as the projector loads
// it) or decoded from the JSON of a whole state (as written before the
// events were stored apart), the bytes are json.Marshal's.
func TestAppendArrayIsMarshal(t *testing.T) {
	for _, c := range sandboxCases() {
		t.Run(c.SCAC+"/"+string(c.Kind), func(t *testing.T) {
			st := &journey.State{}
			st.ApplySubscription(schemas.SubscriptionChanged{TrackingID: "trk", SCAC: c.SCAC, IdentifierKind: string(c.Kind), Identifier: c.Value, TrackingOpen: true})
			seen := map[string]string{}
			for _, at := range c.polls() {
				for _, rec := range Poll(t, c, at, seen) {
					st.ApplyEvent(rec)
				}
				sameAsMarshal(t, journey.Derive(st))
			}
			whole, _ := json.Marshal(st)
			old := &journey.State{}
			if err := json.Unmarshal(whole, old); err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(journey.Derive(st))
			for name, s := range map[string]*journey.State{"whole": old, "header and events": reload(t, st)} {
				got := journey.Derive(s)
				sameAsMarshal(t, got)
				if b, _ := json.Marshal(got); string(b) != string(want) {
					t.Fatalf("%s: derived from the reloaded state\n%s\nwant\n%s", name, b, want)
				}
			}
		})
	}
}

// An event that is not compact or holds characters json.Marshal escapes
// (<, >, &, U+2028) is stored as json.Marshal encodes it.
func TestAppendArrayEscapesAsMarshal(t *testing.T) {
	st := &journey.State{}
	st.ApplySubscription(schemas.SubscriptionChanged{TrackingID: "trk", SCAC: "MAEU", IdentifierKind: "container", Identifier: box, TrackingOpen: true})
	raw := json.RawMessage("{ \"eventID\": \"a\", \"eventType\": \"EQUIPMENT\",\n \"eventClassifierCode\": \"ACT\", \"eventDateTime\": \"2026-10-01T10:00:00Z\"," +
		" \"equipmentReference\": \"" + box + "\", \"changeRemark\": \"<b>&\u2028</b>\" }")
	st.ApplyEvent(schemas.EventRecord{TrackingID: "trk", AccountID: "a", EventID: "a", ContentHash: "h", Event: raw})
	st.ApplyEvent(record(dcsa.Event{EventID: "v", EventType: dcsa.EventTypeTransport, EventClassifierCode: "ACT",
		EventDateTime: "2026-10-02T10:00:00Z", TransportEventTypeCode: "DEPA", ChangeRemark: "a > b"}))
	rs := journey.Derive(st)
	if len(rs) != 1 || len(rs[0].SourceEvents) != 1 || len(rs[0].VesselEvents) != 1 {
		t.Fatalf("results %+v", rs)
	}
	sameAsMarshal(t, rs)
}

// UnsavedEvents are the events changed since MarkSaved, by position.
func TestUnsavedEvents(t *testing.T) {
	a := eq("a", "LOAD", "CNSHA", "2026-10-01T10:00:00Z", "ACT", false)
	b := eq("b", "DISC", "NLRTM", "2026-11-30T10:00:00Z", "EST", false)
	b2 := eq("b", "DISC", "NLRTM", "2026-12-01T10:00:00Z", "EST", false)
	c := eq("c", "GTOT", "NLRTM", "2026-12-03T10:00:00Z", "EST", false)
	st := &journey.State{}
	st.ApplyEvent(a)
	st.ApplyEvent(b)
	if got := st.UnsavedEvents(); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("unsaved %v", got)
	}
	st.MarkSaved()
	st.ApplyEvent(c)
	st.ApplyEvent(b2)
	st.ApplyEvent(b)
	st.ApplyEvent(a) // a repeat
	if got := st.UnsavedEvents(); !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("unsaved %v, want [1 2]", got)
	}
	st.MarkSaved()
	if got := st.UnsavedEvents(); len(got) != 0 {
		t.Fatalf("unsaved %v after MarkSaved", got)
	}
	st.MarkAllUnsaved()
	if got := st.UnsavedEvents(); !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("unsaved %v after MarkAllUnsaved", got)
	}
	h, _ := st.MarshalHeader()
	var fields map[string]any
	if err := json.Unmarshal(h, &fields); err != nil || fields["events"] != nil || fields["version"] == nil {
		t.Fatalf("header %s", h)
	}
}

// reload rebuilds st as the projector loads it: its header, then its
// events one by one.
func reload(t *testing.T, st *journey.State) *journey.State {
	t.Helper()
	h, err := st.MarshalHeader()
	if err != nil {
		t.Fatal(err)
	}
	out := &journey.State{}
	if err := json.Unmarshal(h, out); err != nil {
		t.Fatal(err)
	}
	for _, e := range st.Events {
		out.Events = append(out.Events, journey.Stored{ID: e.ID, Hash: e.Hash, Event: slices.Clone(e.Event)})
	}
	return out
}

func sameAsMarshal(t *testing.T, rs []journeys.Result) {
	t.Helper()
	for _, r := range rs {
		for _, list := range [][]json.RawMessage{r.SourceEvents, r.VesselEvents} {
			want, err := json.Marshal(list)
			if err != nil {
				t.Fatal(err)
			}
			if got := journey.AppendArray(nil, list); string(got) != string(want) {
				t.Fatalf("AppendArray\n%s\njson.Marshal\n%s", got, want)
			}
		}
	}
}

// Derive reads the events ApplyEvent parsed, not their JSON again: its
// allocations do not grow with the events (parsing allocates per event).
func TestDeriveDoesNotParseAgain(t *testing.T) {
	st := &journey.State{}
	st.ApplySubscription(schemas.SubscriptionChanged{TrackingID: "trk", SCAC: "MAEU", IdentifierKind: "container", Identifier: box, TrackingOpen: true})
	const n = 400
	for i := range n {
		at := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour).Format(time.RFC3339)
		st.ApplyEvent(eq(fmt.Sprint("e", i), []string{"LOAD", "DISC", "GTIN", "GTOT"}[i%4], "SGSIN", at, "ACT", false))
		st.ApplyEvent(tr(fmt.Sprint("v", i), "ARRI", "NLRTM", at, "EST", at))
	}
	if rs := journey.Derive(st); len(rs) != 1 || len(rs[0].SourceEvents) != n || len(rs[0].VesselEvents) != n {
		t.Fatalf("results %d", len(rs))
	}
	if allocs := testing.AllocsPerRun(3, func() { journey.Derive(st) }); allocs > n/4 {
		t.Fatalf("Derive of %d events: %.0f allocations", 2*n, allocs)
	}
}

// A state keeps few objects per event: every tracking a member owns stays
// in memory, and the GC visits each of their objects on every cycle. Beyond
// the record's own bytes, an event costs its id and hash (one allocation)
// and the strings derivation reads (one), and its share of the slice and
// the index.
func TestStateKeepsFewObjectsPerEvent(t *testing.T) {
	const n = 2000
	recs := make([]schemas.EventRecord, n)
	for i := range recs {
		at := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		recs[i] = eq(fmt.Sprint("e", i), "DISC", "SGSIN", at, "ACT", false)
		if i%2 == 1 {
			recs[i] = tr(fmt.Sprint("e", i), "ARRI", "NLRTM", at, "EST", at)
		}
	}
	st := &journey.State{}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, r := range recs {
		st.ApplyEvent(r)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(recs)
	if len(st.Events) != n {
		t.Fatalf("%d events", len(st.Events))
	}
	if perEvent := float64(after.HeapObjects-before.HeapObjects) / n; perEvent > 2.5 {
		t.Fatalf("%.2f objects kept per event, want at most 2.5", perEvent)
	}
	runtime.KeepAlive(st)
}
