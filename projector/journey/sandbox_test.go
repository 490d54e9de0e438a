package journey_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox"
	sj "github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/cosco"
	"github.com/contrack/contrack/normalize/iftsta"
	"github.com/contrack/contrack/normalize/tnt12"
	"github.com/contrack/contrack/normalize/tnt22"
	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/dcsa"
)

var parsers = map[carriers.Format]normalize.Parser{
	carriers.FormatTNT22:  tnt22.Parse,
	carriers.FormatTNT12:  tnt12.Parse,
	carriers.FormatIFTSTA: iftsta.Parse,
	carriers.FormatCOSCO:  cosco.Parse,
}

// Poll is what the normaliser emits for one sandbox poll: the events whose
// content changed since the previous poll (seen is carried across polls).
func Poll(t testing.TB, scac string, kind sj.Kind, value, trackingID string, at time.Time, seen map[string]string) []schemas.EventRecord {
	t.Helper()
	format, raw, err := sandbox.Render(scac, kind, value, at)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := parsers[format](raw, normalize.Envelope{SCAC: scac, TrackingID: trackingID, ReceivedAt: at})
	if err != nil {
		t.Fatalf("%s %s: parse: %v", scac, value, err)
	}
	var out []schemas.EventRecord
	for _, ev := range evs {
		body, _ := json.Marshal(ev)
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:8])
		if seen[ev.EventID] == hash {
			continue
		}
		seen[ev.EventID] = hash
		out = append(out, schemas.EventRecord{TrackingID: trackingID, AccountID: "acct", Env: "sandbox", SCAC: scac,
			EventID: ev.EventID, ContentHash: hash, Event: body, EmittedAt: at})
	}
	return out
}

// sandboxCase is one sandbox journey (one carrier per format) polled every
// 12 hours of journey time through one cycle: estimates move, events turn
// actual, the journey completes.
type sandboxCase struct {
	scac  string
	kind  sj.Kind
	value string
}

func sandboxCases() []sandboxCase {
	var cs []sandboxCase
	formats := map[carriers.Format]bool{}
	for _, c := range carriers.All() {
		if _, ok := parsers[c.Format]; !ok || formats[c.Format] {
			continue
		}
		formats[c.Format] = true
		cs = append(cs,
			sandboxCase{c.SCAC, sj.KindContainer, sj.CompleteContainer("MSKU907032")},
			sandboxCase{c.SCAC, sj.KindBooking, "PAGU" + c.SCAC + "1"},
			sandboxCase{c.SCAC, sj.KindBill, c.SCAC + "77120"},
		)
	}
	return cs
}

var sandboxStart = time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)

// polls returns the poll times of one cycle of the case's journey (the
// sandbox repeats a number's journey with new event ids), every 12 hours of
// journey time from its booking to its end.
func (c sandboxCase) polls() []time.Time {
	j := sandbox.Journey(c.scac, c.kind, c.value, sandboxStart)
	var out []time.Time
	for at := j.Booked; sandbox.Journey(c.scac, c.kind, c.value, at).Cycle == j.Cycle; at = at.Add(12 * time.Hour) {
		out = append(out, at)
	}
	return out
}

// TestReadModelMatchesQueryTimeBuilder: after every poll, the projected
// journeys are what the query-time builder returned from the same latest
// events, for sandbox journeys of every carrier format; the read model only
// adds milestones.
func TestReadModelMatchesQueryTimeBuilder(t *testing.T) {
	for _, c := range sandboxCases() {
		t.Run(c.scac+"/"+string(c.kind), func(t *testing.T) {
			st := &journey.State{}
			st.ApplySubscription(schemas.SubscriptionChanged{AccountID: "acct", Env: "sandbox", TrackingID: "trk", SCAC: c.scac,
				IdentifierKind: string(c.kind), Identifier: c.value, TrackingOpen: true, OccurredAt: sandboxStart})
			seen := map[string]string{}
			polls := 0
			for _, at := range c.polls() {
				for _, rec := range Poll(t, c.scac, c.kind, c.value, "trk", at, seen) {
					st.ApplyEvent(rec)
				}
				polls++
				var latest []dcsa.Event
				for _, s := range st.Events {
					var ev dcsa.Event
					json.Unmarshal(s.Event, &ev)
					latest = append(latest, ev)
				}
				want := legacyBuild(c.kind2(), c.value, c.scac, "OPEN", latest, "")
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

func (c sandboxCase) kind2() string { return string(c.kind) }

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
