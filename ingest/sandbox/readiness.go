package sandbox

import (
	"fmt"
	"time"

	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas/tnt3"
)

// The terminal's status at the port of discharge, which DCSA TNT 3.0
// carriers report (AVPU, CUSI, CUSR): every container is available for
// pick-up availableAfter its actual discharge there; a Hold test number's
// is first held by customs (CUSI) holdAfter the discharge, released (CUSR)
// releaseAfter it and available an hour after the release (a full
// gate-out comes at least about 20 hours after a discharge).
const (
	availableAfter = 2 * time.Hour
	holdAfter      = time.Hour
	releaseAfter   = 12 * time.Hour
)

// TerminalTimes are a container's terminal events at the port of
// discharge: when it was held, released (zero without a hold) and made
// available.
type TerminalTimes struct {
	Held, Released, Available time.Time
}

// Terminal says, for container c of journey j, when its terminal holds,
// releases and makes it available; ok is false until its discharge at the
// port of discharge is actual at j.Now (the times follow from it, so they
// are the same at any later time of the cycle).
func Terminal(j journey.Journey, c int, hold bool) (TerminalTimes, bool) {
	pod := j.POD()
	var disc time.Time
	for _, e := range j.Events {
		if e.Container == c && e.Code == journey.CodeDischarge && e.Port.Code == pod.Code && e.Mode == journey.ModeVessel && e.Classifier == journey.ACT {
			disc = e.Time.UTC()
		}
	}
	if disc.IsZero() {
		return TerminalTimes{}, false
	}
	if !hold {
		return TerminalTimes{Available: disc.Add(availableAfter)}, true
	}
	t := TerminalTimes{Held: disc.Add(holdAfter), Released: disc.Add(releaseAfter)}
	t.Available = t.Released.Add(time.Hour)
	return t, true
}

// terminalEvents are the TNT 3.0 terminal events of j's containers that
// happened by j.Now (only once the discharge is actual).
func terminalEvents(j journey.Journey, hold bool, routing *tnt3.EventRouting) []tnt3.Event {
	var out []tnt3.Event
	pod := j.POD()
	for c, ctr := range j.Containers {
		t, ok := Terminal(j, c, hold)
		if !ok {
			continue
		}
		add := func(code string, at time.Time) {
			if at.IsZero() || at.After(j.Now) {
				return
			}
			out = append(out, tnt3.Event{EventRouting: routing, EventID: fmt.Sprintf("%s-%s-%d-%s", j.Booking, code, j.Cycle, ctr.Number),
				EventDateTime: at.In(pod.Location()).Format(dcsaTime), EventUpdatedDateTime: at.Add(5 * time.Minute).Format(dcsaTime),
				EventLocation:       tnt3Location(pod, journey.FacilityPort),
				EventClassification: &tnt3.EventClassification{EventTypeCode: tnt3.EventTypeEquipment, EventClassifierCode: "ACT", EquipmentEventTypeCode: code},
				ShipmentDetails:     &tnt3.ShipmentDetails{DocumentReference: &tnt3.DocumentReference{TypeCode: "BKG", Reference: j.Booking}},
				EquipmentDetails:    &tnt3.EquipmentDetails{EquipmentReference: ctr.Number, ISOEquipmentCode: ctr.ISOCode, EmptyIndicatorCode: "LADEN"}})
		}
		add("CUSI", t.Held)
		add("CUSR", t.Released)
		add("AVPU", t.Available)
	}
	return out
}

// rollLead is how long before the first departure a Rolled test number's
// booking moves to the vessel it sails on; before, it shows another vessel
// of the fleet and the voyage before.
const rollLead = 72 * time.Hour

// Rolled says when a Rolled test number's journey moves to its vessel,
// and the vessel and voyage it was planned on until then.
func Rolled(j journey.Journey) (at time.Time, from journey.Vessel, voyage string) {
	leg := j.Legs[0]
	from = journey.FleetVessel(j.SCAC, 1)
	if leg.Vessel != nil && from.IMO == leg.Vessel.IMO {
		from = journey.FleetVessel(j.SCAC, 2)
	}
	return leg.Departs.Add(-rollLead), from, "R" + leg.Voyage
}

// roll shows a Rolled test number's first leg on the vessel it was planned
// on before the roll, while j.Now is before it.
func roll(j journey.Journey) journey.Journey {
	if len(j.Legs) == 0 || j.Legs[0].Vessel == nil {
		return j
	}
	at, from, voyage := Rolled(j)
	if !j.Now.Before(at) {
		return j
	}
	j.Legs = append([]journey.Leg(nil), j.Legs...)
	j.Legs[0].Vessel, j.Legs[0].Voyage = &from, voyage
	return j
}
