package journey_test

import (
	"fmt"
	"testing"

	"github.com/contrack/contrack/ingest/sandbox"
	sj "github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/projector/journey/journeytest"
	"github.com/contrack/contrack/schemas"
)

// TestSandboxMilestones: a sandbox journey of every carrier format, polled
// through to its end, shows each milestone once (revisions of the ETA as
// many times as it moved, each naming the estimate before it), and one
// transshipment per hub of its route.
func TestSandboxMilestones(t *testing.T) {
	for _, c := range sandboxCases() {
		t.Run(c.SCAC+"/"+string(c.Kind), func(t *testing.T) {
			st := &journey.State{}
			st.ApplySubscription(schemas.SubscriptionChanged{TrackingID: "trk", SCAC: c.SCAC, IdentifierKind: string(c.Kind), Identifier: c.Value, TrackingOpen: true})
			seen := map[string]string{}
			polls := c.polls()
			for _, at := range polls {
				for _, rec := range Poll(t, c, at, seen) {
					st.ApplyEvent(rec)
				}
			}
			j := sandbox.Journey(c.SCAC, c.Kind, c.Value, polls[len(polls)-1])
			hubs := 0
			for _, l := range j.Legs {
				if l.Mode == sj.ModeVessel {
					hubs++
				}
			}
			hubs--
			results := journey.Derive(st)
			if len(results) != len(j.Containers) {
				t.Fatalf("%d results for %d containers", len(results), len(j.Containers))
			}
			for _, r := range results {
				n := map[string]int{}
				prev := ""
				for _, m := range r.EnhancedEvents {
					n[m.EnhancedEventType]++
					if m.EnhancedEventType == journey.TypeETARevision {
						if m.PreviousEventDateTime != prev || m.EventDateTime == prev || m.RevisedDateTime == "" || m.UNLocationCode != r.POD {
							t.Errorf("%s: revision %+v after %q", r.EquipmentNumber, m, prev)
						}
						prev = m.EventDateTime
					}
					if m.EnhancedEventType == journey.TypeTransshipment && m.ReloadDateTime == "" {
						t.Errorf("%s: transshipment without reload %+v", r.EquipmentNumber, m)
					}
				}
				want := map[string]int{journey.TypeATDPOL: 1, journey.TypeATAPOD: 1, journey.TypeDischargePOD: 1,
					journey.TypeGateOutDestination: 1, journey.TypeEmptyReturn: 1, journey.TypeTransshipment: hubs}
				for typ, w := range want {
					if n[typ] != w {
						t.Errorf("%s (%s→%s): %d %s, want %d; %+v", r.EquipmentNumber, r.POL, r.POD, n[typ], typ, w, r.EnhancedEvents)
					}
				}
				if n[journey.TypeETARevision] < 2 || n[journey.TypeETAPOD] != 0 {
					t.Errorf("%s: %d ETA revisions, %d ETA_POD after arrival", r.EquipmentNumber, n[journey.TypeETARevision], n[journey.TypeETAPOD])
				}
			}
		})
	}
}

// TestSandboxRailOnCarriage: a sandbox journey that ends by rail, in every
// carrier format, keeps the port its vessel discharged at as POD, with
// its DISCHARGE_POD, and the rail ramp is no transshipment.
func TestSandboxRailOnCarriage(t *testing.T) {
	done := map[string]bool{}
	for _, sc := range sandboxCases() {
		if done[sc.SCAC] {
			continue
		}
		done[sc.SCAC] = true
		c, rail := railCase(t, sc.SCAC)
		t.Run(c.SCAC, func(t *testing.T) {
			st := &journey.State{}
			st.ApplySubscription(schemas.SubscriptionChanged{TrackingID: "trk", SCAC: c.SCAC, IdentifierKind: string(c.Kind), Identifier: c.Value, TrackingOpen: true})
			seen := map[string]string{}
			for _, at := range c.polls() {
				for _, rec := range Poll(t, c, at, seen) {
					st.ApplyEvent(rec)
				}
			}
			r := journey.Derive(st)[0]
			if r.POD != rail.From.Code {
				t.Fatalf("%s: POD %q, want %s where the train left from (rail to %s)", c.Value, r.POD, rail.From.Code, rail.To.Code)
			}
			discharged := 0
			for _, m := range r.EnhancedEvents {
				switch {
				case m.EnhancedEventType == journey.TypeDischargePOD && m.UNLocationCode == rail.From.Code:
					discharged++
				case m.EnhancedEventType == journey.TypeTransshipment && (m.UNLocationCode == rail.To.Code || m.UNLocationCode == rail.From.Code):
					t.Errorf("%s: transshipment at %s on the rail leg: %+v", c.Value, m.UNLocationCode, r.EnhancedEvents)
				}
			}
			if discharged != 1 {
				t.Errorf("%s: %d DISCHARGE_POD at %s, want 1: %+v", c.Value, discharged, rail.From.Code, r.EnhancedEvents)
			}
			if r.Facts.UNLocationCode != rail.From.Code || r.Facts.DischargedDateTime == "" {
				t.Errorf("%s: readiness facts %+v, want the discharge at %s", c.Value, r.Facts, rail.From.Code)
			}
		})
	}
}

// railCase finds a container of scac whose sandbox journey ends by rail.
func railCase(t *testing.T, scac string) (sandboxCase, sj.Leg) {
	t.Helper()
	for i := range 500 {
		v := sj.CompleteContainer(fmt.Sprintf("MSKU%06d", 100000+i))
		j := sandbox.Journey(scac, sj.KindContainer, v, sandboxStart)
		if n := len(j.Legs); n > 0 && j.Legs[n-1].Mode == sj.ModeRail {
			return sandboxCase{journeytest.Case{SCAC: scac, Kind: sj.KindContainer, Value: v}}, j.Legs[n-1]
		}
	}
	t.Fatalf("no %s sandbox container among 500 ends by rail", scac)
	return sandboxCase{}, sj.Leg{}
}
