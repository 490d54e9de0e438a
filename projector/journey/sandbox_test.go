package journey_test

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/projector/journey/journeytest"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/journeys"
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
// journeys are what the query-time builder (the one GET
// /subscription/equipment used before the read model) returned from the
// same latest events, for sandbox journeys of every carrier format; the
// read model only adds milestones. The builder's answers are golden files,
// testdata/querytime/<SCAC>-<kind>.jsonl.gz: per poll the SHA-256 of its
// results (milestones reduced by legacyKinds), the results in full at the
// middle and last polls. They were written once by the builder, which was
// then removed; see testdata/querytime/README.md.
func TestReadModelMatchesQueryTimeBuilder(t *testing.T) {
	for _, c := range sandboxCases() {
		t.Run(c.SCAC+"/"+string(c.Kind), func(t *testing.T) {
			golden := readGolden(t, c)
			st := &journey.State{}
			st.ApplySubscription(schemas.SubscriptionChanged{AccountID: "acct", Env: "sandbox", TrackingID: "trk", SCAC: c.SCAC,
				IdentifierKind: string(c.Kind), Identifier: c.Value, TrackingOpen: true, OccurredAt: sandboxStart})
			seen := map[string]string{}
			polls := c.polls()
			if len(polls) != len(golden) {
				t.Fatalf("%d polls, the builder's file has %d", len(polls), len(golden))
			}
			for i, at := range polls {
				for _, rec := range Poll(t, c, at, seen) {
					st.ApplyEvent(rec)
				}
				want := golden[i]
				if !want.At.Equal(at) {
					t.Fatalf("poll %d at %s, the builder's at %s", i+1, at, want.At)
				}
				got := journey.Derive(st)
				for i := range got {
					got[i].EnhancedEvents = legacyKinds(got[i].EnhancedEvents)
				}
				gb, _ := json.Marshal(got)
				sum := sha256.Sum256(gb)
				if len(got) != want.Count || hex.EncodeToString(sum[:]) != want.SHA256 {
					if want.Results != nil {
						t.Fatalf("poll %d at %s: %d results, builder %d:\n read model %s\n builder    %s", i+1, at, len(got), want.Count, gb, want.Results)
					}
					t.Fatalf("poll %d at %s: %d results, builder %d; read model %s", i+1, at, len(got), want.Count, gb)
				}
				if want.Results != nil && string(want.Results) != string(gb) {
					t.Fatalf("poll %d: the golden results do not match their hash", i+1)
				}
			}
		})
	}
}

// goldenPoll is what the query-time builder returned after one poll.
type goldenPoll struct {
	Poll    int             `json:"poll"`
	At      time.Time       `json:"at"`
	Count   int             `json:"count"`
	SHA256  string          `json:"sha256"`
	Results json.RawMessage `json:"results,omitempty"`
}

func readGolden(t *testing.T, c sandboxCase) []goldenPoll {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "querytime", c.SCAC+"-"+string(c.Kind)+".jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenPoll
	dec := json.NewDecoder(zr)
	for dec.More() {
		var p goldenPoll
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// legacyKinds keeps the milestones the builder derived: ETA_POD and ATA_POD
// as they were, and the ports of TRANSSHIPMENTs (the builder listed the
// estimated and the actual discharge of a port as two, the read model one).
func legacyKinds(ms []journeys.Milestone) []journeys.Milestone {
	out := []journeys.Milestone{}
	hub := map[string]bool{}
	for _, m := range ms {
		switch m.EnhancedEventType {
		case journey.TypeTransshipment:
			if !hub[m.UNLocationCode] {
				hub[m.UNLocationCode] = true
				out = append(out, journeys.Milestone{EnhancedEventType: m.EnhancedEventType, UNLocationCode: m.UNLocationCode})
			}
		case journey.TypeETAPOD, journey.TypeATAPOD:
			out = append(out, m)
		}
	}
	return out
}
