package journey_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/projector/journey/journeytest"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
)

var sandboxStart = time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)

type sandboxCase struct{ journeytest.Case }

func sandboxCases() []sandboxCase {
	var out []sandboxCase
	for _, c := range journeytest.Cases() {
		out = append(out, sandboxCase{c})
	}
	return out
}

// polls: one cycle of the journey, every 12 hours of journey time.
func (c sandboxCase) polls() []time.Time { return c.Polls(sandboxStart, 12*time.Hour) }

// Poll is the normaliser's output for one poll.
func Poll(t testing.TB, c sandboxCase, at time.Time, seen map[string]string) []schemas.EventRecord {
	t.Helper()
	recs, err := c.Poll("acct", "trk", at, seen)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestReadModelMatchesQueryTimeBuilder: after every poll, the projected
// journeys are what the query-time builder returned from the same latest
// events, for sandbox journeys of every carrier format; the read model only
// adds milestones.
func TestReadModelMatchesQueryTimeBuilder(t *testing.T) {
	for _, c := range sandboxCases() {
		t.Run(c.SCAC+"/"+string(c.Kind), func(t *testing.T) {
			st := &journey.State{}
			st.ApplySubscription(schemas.SubscriptionChanged{AccountID: "acct", Env: "sandbox", TrackingID: "trk", SCAC: c.SCAC,
				IdentifierKind: string(c.Kind), Identifier: c.Value, TrackingOpen: true, OccurredAt: sandboxStart})
			seen := map[string]string{}
			polls := 0
			for _, at := range c.polls() {
				for _, rec := range Poll(t, c, at, seen) {
					st.ApplyEvent(rec)
				}
				polls++
				var latest []dcsa.Event
				for _, s := range st.Events {
					var ev dcsa.Event
					json.Unmarshal(s.Event, &ev)
					latest = append(latest, ev)
				}
				want := legacyBuild(string(c.Kind), c.Value, c.SCAC, "OPEN", latest, "")
				got := journey.Derive(st)
				if len(got) != len(want) {
					t.Fatalf("poll %d: %d results, builder %d", polls, len(got), len(want))
				}
				for i := range got {
					g, w := got[i], want[i]
					g.EnhancedEvents, w.EnhancedEvents = legacyKinds(g.EnhancedEvents), legacyKinds(w.EnhancedEvents)
					gb, _ := json.Marshal(g)
					wb, _ := json.Marshal(w)
					if string(gb) != string(wb) {
						t.Fatalf("poll %d at %s, container %d:\n read model %s\n builder    %s", polls, at, i, gb, wb)
					}
				}
			}
		})
	}
}

// legacyKinds keeps the milestones the builder derived: ETA_POD and ATA_POD
// as they were, and the ports of TRANSSHIPMENTs (the builder listed the
// estimated and the actual discharge of a port as two, the read model one).
func legacyKinds(ms []journey.Milestone) []journey.Milestone {
	out := []journey.Milestone{}
	hub := map[string]bool{}
	for _, m := range ms {
		switch m.EnhancedEventType {
		case journey.TypeTransshipment:
			if !hub[m.UNLocationCode] {
				hub[m.UNLocationCode] = true
				out = append(out, journey.Milestone{EnhancedEventType: m.EnhancedEventType, UNLocationCode: m.UNLocationCode})
			}
		case journey.TypeETAPOD, journey.TypeATAPOD:
			out = append(out, m)
		}
	}
	return out
}
