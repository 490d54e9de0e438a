package journey

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/journeys"
)

// deriveByContainerMaps is Derive as it was before it sorted one slice:
// events grouped by container in a map, each group sorted by time. Derive
// must give the same results.
func deriveByContainerMaps(s *State) []journeys.Result {
	if s.Kind == "" {
		return nil
	}
	var transport []timed
	perContainer := map[string][]timed{}
	var order []string
	if s.Kind == "container" {
		order = append(order, s.Identifier)
		perContainer[s.Identifier] = nil
	}
	for i := range s.Events {
		st := &s.Events[i]
		p := st.decode()
		if !p.ok {
			continue
		}
		t := timed{&p.ev, st.Event, p.at, st.ID}
		if p.ev.EventType == dcsa.EventTypeTransport {
			transport = append(transport, t)
			continue
		}
		c := p.ev.EquipmentReference
		if c == "" {
			continue
		}
		if _, seen := perContainer[c]; !seen {
			order = append(order, c)
		}
		perContainer[c] = append(perContainer[c], t)
	}
	if s.Kind == "container" {
		slices.Sort(order[1:])
	} else {
		slices.Sort(order)
	}
	byTime(transport)
	out := make([]journeys.Result, 0, len(order))
	for _, c := range order {
		r := journeys.Result{EquipmentNumber: c, ScacCode: s.SCAC, TrackingStatus: s.Status(),
			SourceEvents: []json.RawMessage{}, EnhancedEvents: []journeys.Milestone{}, VesselEvents: []json.RawMessage{}}
		eq := perContainer[c]
		byTime(eq)
		var lastActual time.Time
		for _, t := range eq {
			r.SourceEvents = append(r.SourceEvents, t.raw)
			switch t.ev.EquipmentEventTypeCode {
			case "LOAD":
				if r.POL == "" {
					r.POL = t.ev.Place()
				}
			case "DISC":
				r.POD = t.ev.Place()
			}
			if t.ev.EventClassifierCode == dcsa.ClassifierActual && !t.at.Before(lastActual) {
				lastActual, r.LastLocation = t.at, t.ev.Place()
			}
		}
		for _, t := range transport {
			r.VesselEvents = append(r.VesselEvents, t.raw)
			if t.ev.EventClassifierCode == dcsa.ClassifierActual && !t.at.Before(lastActual) {
				lastActual, r.LastLocation = t.at, t.ev.Place()
			}
		}
		r.EnhancedEvents = milestones(r, eq, transport, s.ETAs)
		r.Facts = facts(r, eq, nil) // (readiness has tests of its own; these states have no terminal events)
		out = append(out, r)
	}
	return out
}

// randomState is a tracking of up to three containers (the tracked one
// possibly without events), vessel events, events without a container and
// one that is not a DCSA event, with many equal times.
func randomState(rng *rand.Rand) *State {
	st := &State{}
	kind, identifier := "container", "MSKU0000001"
	if rng.IntN(3) == 0 {
		kind, identifier = "booking", "BK1"
	}
	st.ApplySubscription(schemas.SubscriptionChanged{TrackingID: "trk", AccountID: "a", SCAC: "MAEU",
		IdentifierKind: kind, Identifier: identifier, TrackingOpen: rng.IntN(2) == 0})
	containers := []string{"MSKU0000001", "MSKU0000002", "TGHU0000003", ""}[:1+rng.IntN(4)]
	if rng.IntN(4) == 0 && len(containers) > 1 {
		containers = containers[1:] // the tracked container has no events
	}
	places := []string{"CNSHA", "SGSIN", "NLRTM", "DEHAM"}
	classifiers := []string{"ACT", "EST", "PLN"}
	for i := range 1 + rng.IntN(60) {
		at := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(8)) * time.Hour).Format(time.RFC3339)
		id := fmt.Sprint("e", rng.IntN(40)) // repeats: a new version of an earlier event
		e := dcsa.Event{EventID: id, EventClassifierCode: classifiers[rng.IntN(3)], EventDateTime: at, EventCreatedDateTime: at}
		switch {
		case rng.IntN(4) == 0:
			e.EventType = dcsa.EventTypeTransport
			e.TransportEventTypeCode = []string{"ARRI", "DEPA"}[rng.IntN(2)]
			e.TransportCall = &dcsa.TransportCall{TransportCallID: "tc", ModeOfTransport: "VESSEL", UNLocationCode: places[rng.IntN(4)]}
		default:
			e.EventType = dcsa.EventTypeEquipment
			e.EquipmentEventTypeCode = []string{"LOAD", "DISC", "GTIN", "GTOT"}[rng.IntN(4)]
			e.EquipmentReference = containers[rng.IntN(len(containers))]
			e.EmptyIndicatorCode = []string{"LADEN", "EMPTY"}[rng.IntN(2)]
			e.EventLocation = &dcsa.Location{UNLocationCode: places[rng.IntN(4)]}
		}
		b, err := json.Marshal(e)
		if err != nil {
			panic(err)
		}
		if i == 7 {
			b = []byte(`{"eventID":"` + id + `","eventType":7}`) // not a DCSA event
		}
		st.ApplyEvent(schemas.EventRecord{TrackingID: "trk", AccountID: "a", SCAC: "MAEU", EventID: id, ContentHash: string(b), Event: b})
	}
	return st
}

func TestDeriveSameAsByContainerMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2026))
	for i := range 3000 {
		st := randomState(rng)
		got, want := Derive(st), deriveByContainerMaps(st)
		if !reflect.DeepEqual(got, want) {
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			t.Fatalf("state %d: Derive\n%s\nby container maps\n%s", i, gj, wj)
		}
	}
}

// BenchmarkDerive derives a container's journey of 750 events (a tracking
// of the e2e load after 30 s), as every change of it does.
func BenchmarkDerive(b *testing.B) {
	st := &State{}
	st.ApplySubscription(schemas.SubscriptionChanged{TrackingID: "trk", AccountID: "a", SCAC: "MAEU",
		IdentifierKind: "container", Identifier: "MSKU0000001", TrackingOpen: true})
	codes := []string{"GTOT", "LOAD", "DISC", "GTIN"}
	for i := range 750 {
		at := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		e := dcsa.Event{EventID: fmt.Sprint("e", i), EventType: dcsa.EventTypeEquipment, EventClassifierCode: "ACT",
			EventDateTime: at, EventCreatedDateTime: at, EquipmentEventTypeCode: codes[i%4], EquipmentReference: "MSKU0000001",
			EmptyIndicatorCode: "LADEN", EventLocation: &dcsa.Location{UNLocationCode: "SGSIN"}}
		v, _ := json.Marshal(e)
		st.ApplyEvent(schemas.EventRecord{TrackingID: "trk", AccountID: "a", EventID: e.EventID, ContentHash: fmt.Sprint(i), Event: v})
	}
	b.Run("sorted", func(b *testing.B) {
		for b.Loop() {
			Derive(st)
		}
	})
	b.Run("maps", func(b *testing.B) {
		for b.Loop() {
			deriveByContainerMaps(st)
		}
	})
}
