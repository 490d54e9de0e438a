package journey_test

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/schemas/dcsa"
)

// legacyBuild is the query-time builder GET /subscription/equipment used
// before the read model (queryapi/journeys.go at 205f9ef), kept verbatim
// as the reference the read model must reproduce.
func legacyBuild(kind, value, scac, status string, events []dcsa.Event, equipment string) []journey.Result {
	var transport []dcsa.Event
	perContainer := map[string][]dcsa.Event{}
	var order []string
	if kind == "container" {
		order = append(order, value)
		perContainer[value] = nil
	}
	for _, ev := range events {
		if ev.EventType == dcsa.EventTypeTransport {
			transport = append(transport, ev)
			continue
		}
		c := ev.EquipmentReference
		if c == "" {
			continue
		}
		if _, seen := perContainer[c]; !seen {
			order = append(order, c)
		}
		perContainer[c] = append(perContainer[c], ev)
	}
	if kind == "container" {
		sort.Strings(order[1:])
	} else {
		sort.Strings(order)
	}
	vessel := legacyByTime(transport)
	var out []journey.Result
	for _, c := range order {
		if equipment != "" && c != equipment {
			continue
		}
		r := journey.Result{EquipmentNumber: c, ScacCode: scac, TrackingStatus: status,
			SourceEvents: []json.RawMessage{}, EnhancedEvents: []journey.Milestone{}, VesselEvents: []json.RawMessage{}}
		eq := legacyByTime(perContainer[c])
		var lastActual time.Time
		for _, t := range eq {
			r.SourceEvents = append(r.SourceEvents, legacyRaw(t.ev))
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
		for _, t := range vessel {
			r.VesselEvents = append(r.VesselEvents, legacyRaw(t.ev))
			if t.ev.EventClassifierCode == dcsa.ClassifierActual && !t.at.Before(lastActual) {
				lastActual, r.LastLocation = t.at, t.ev.Place()
			}
		}
		r.EnhancedEvents = legacyEnhance(r, eq, vessel)
		out = append(out, r)
	}
	return out
}

type legacyTimed struct {
	ev dcsa.Event
	at time.Time
}

func legacyByTime(evs []dcsa.Event) []legacyTimed {
	out := make([]legacyTimed, 0, len(evs))
	for _, ev := range evs {
		at, _ := time.Parse(time.RFC3339Nano, ev.EventDateTime)
		out = append(out, legacyTimed{ev, at})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

func legacyRaw(ev dcsa.Event) json.RawMessage {
	b, _ := json.Marshal(ev)
	return b
}

func legacyEnhance(r journey.Result, eq, vessel []legacyTimed) []journey.Milestone {
	out := []journey.Milestone{}
	for _, t := range eq {
		p := t.ev.Place()
		if t.ev.EquipmentEventTypeCode == "DISC" && p != "" && p != r.POL && p != r.POD {
			out = append(out, journey.Milestone{EnhancedEventType: "TRANSSHIPMENT", UNLocationCode: p, EventDateTime: t.ev.EventDateTime})
		}
	}
	var eta, ata *dcsa.Event
	for i := range vessel {
		ev := vessel[i].ev
		if ev.TransportEventTypeCode != "ARRI" || r.POD == "" || ev.Place() != r.POD {
			continue
		}
		if ev.EventClassifierCode == dcsa.ClassifierActual {
			ata = &ev
		} else {
			eta = &ev
		}
	}
	if ata != nil {
		out = append(out, journey.Milestone{EnhancedEventType: "ATA_POD", UNLocationCode: r.POD, EventDateTime: ata.EventDateTime})
	} else if eta != nil {
		out = append(out, journey.Milestone{EnhancedEventType: "ETA_POD", UNLocationCode: r.POD, EventDateTime: eta.EventDateTime})
	}
	return out
}
