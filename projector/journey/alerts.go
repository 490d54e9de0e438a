package journey

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/journeys"
	"github.com/contrack/contrack/schemas/readiness"
)

// maxAlerted bounds the alert ids a state remembers (a journey raises a
// few dozen).
const maxAlerted = 512

// Passage is the vessel and voyage planned to leave the port of loading:
// a change before the vessel leaves is a roll (ROLLED).
type Passage struct {
	POL    string `json:"pol"`
	IMO    string `json:"imo,omitempty"`
	Name   string `json:"name,omitempty"`
	Voyage string `json:"voyage,omitempty"`
}

func (p Passage) vessel() *schemas.AlertVessel {
	return &schemas.AlertVessel{VesselIMONumber: p.IMO, VesselName: p.Name, Voyage: p.Voyage}
}

// NewAlerts returns the alerts results (Derive's of s) reveal that s has
// not raised yet, and records them in s. The first call on a state with
// events sets the baseline instead: what the tracking's first events show
// (its history when subscribed mid-journey) raises nothing; alerts report
// what changes after.
//
// Each alert has a stable id (schemas.AlertID of the tracking, its kind,
// the container and what tells the occurrence apart), so deriving it again
// — a replayed batch, another generation — gives the same alert, which
// delivery and the feed's readers can drop.
func (s *State) NewAlerts(results []journeys.Result) []schemas.Alert {
	if len(s.Events) == 0 {
		return nil
	}
	cands := s.candidates(results)
	if !s.AlertsBaseline {
		s.AlertsBaseline = true
		for _, a := range cands {
			s.remember(a.AlertID)
		}
		return nil
	}
	var out []schemas.Alert
	for _, a := range cands {
		if slices.Contains(s.Alerted, a.AlertID) {
			continue
		}
		s.remember(a.AlertID)
		out = append(out, a)
	}
	return out
}

func (s *State) remember(id string) {
	s.Alerted = append(s.Alerted, id)
	if len(s.Alerted) > maxAlerted {
		s.Alerted = append(s.Alerted[:0:0], s.Alerted[len(s.Alerted)-maxAlerted:]...)
	}
}

// candidates are every alert the journey shows now, in a stable order.
// The passage planned from the port of loading is compared with the one
// last seen (and then recorded): its change is the one alert not read off
// the journey alone.
func (s *State) candidates(results []journeys.Result) []schemas.Alert {
	var out []schemas.Alert
	rolled := s.rolled(results)
	for _, r := range results {
		c := r.EquipmentNumber
		for _, m := range r.EnhancedEvents {
			switch m.EnhancedEventType {
			case TypeETARevision:
				if m.PreviousEventDateTime == "" {
					continue
				}
				prev, err1 := time.Parse(time.RFC3339Nano, m.PreviousEventDateTime)
				next, err2 := time.Parse(time.RFC3339Nano, m.EventDateTime)
				if err1 != nil || err2 != nil {
					continue
				}
				mins := int(next.Sub(prev).Round(time.Minute) / time.Minute)
				at := m.RevisedDateTime
				if at == "" {
					at = m.EventDateTime
				}
				out = append(out, schemas.Alert{AlertID: schemas.AlertID(s.TrackingID, schemas.AlertETAChanged, c, m.UNLocationCode, m.PreviousEventDateTime, m.EventDateTime),
					AlertType: schemas.AlertETAChanged, EquipmentReference: c, UNLocationCode: m.UNLocationCode, AlertDateTime: at,
					PreviousDateTime: m.PreviousEventDateTime, NewDateTime: m.EventDateTime, ChangeMinutes: &mins})
			case TypeATAPOD:
				out = append(out, schemas.Alert{AlertID: schemas.AlertID(s.TrackingID, schemas.AlertArrived, c, m.UNLocationCode),
					AlertType: schemas.AlertArrived, EquipmentReference: c, UNLocationCode: m.UNLocationCode, AlertDateTime: m.EventDateTime})
			}
		}
		if rolled != nil && rolled.to.POL == r.POL {
			out = append(out, schemas.Alert{AlertID: schemas.AlertID(s.TrackingID, schemas.AlertRolled, c, rolled.from.IMO+"/"+rolled.from.Voyage, rolled.to.IMO+"/"+rolled.to.Voyage),
				AlertType: schemas.AlertRolled, EquipmentReference: c, UNLocationCode: r.POL, AlertDateTime: rolled.at,
				PreviousVessel: rolled.from.vessel(), NewVessel: rolled.to.vessel(), SourceEventIDs: []string{rolled.event}})
		}
		out = append(out, readinessAlerts(s.TrackingID, c, r.Facts)...)
	}
	return out
}

// readinessAlerts are what a container's readiness facts raise: its
// availability for pick-up, each hold placed and released.
func readinessAlerts(tracking, c string, f readiness.Facts) []schemas.Alert {
	var out []schemas.Alert
	if f.AvailableDateTime != "" {
		out = append(out, schemas.Alert{AlertID: schemas.AlertID(tracking, schemas.AlertAvailableForPickup, c, f.AvailableEventID),
			AlertType: schemas.AlertAvailableForPickup, EquipmentReference: c, UNLocationCode: f.UNLocationCode,
			AlertDateTime: f.AvailableDateTime, SourceEventIDs: []string{f.AvailableEventID}})
	}
	for _, h := range f.Holds {
		out = append(out, schemas.Alert{AlertID: schemas.AlertID(tracking, schemas.AlertHoldPlaced, c, h.PlacedEventID),
			AlertType: schemas.AlertHoldPlaced, EquipmentReference: c, UNLocationCode: f.UNLocationCode, AlertDateTime: h.PlacedDateTime,
			HoldType: h.HoldType, HoldCode: h.HoldCode, SourceEventIDs: []string{h.PlacedEventID}})
		if h.ReleasedDateTime != "" {
			out = append(out, schemas.Alert{AlertID: schemas.AlertID(tracking, schemas.AlertHoldReleased, c, h.PlacedEventID, h.ReleasedEventID),
				AlertType: schemas.AlertHoldReleased, EquipmentReference: c, UNLocationCode: f.UNLocationCode, AlertDateTime: h.ReleasedDateTime,
				HoldType: h.HoldType, HoldCode: "CUSR", SourceEventIDs: []string{h.ReleasedEventID}})
		}
	}
	return out
}

// roll is a change of the passage planned from the port of loading.
type roll struct {
	from, to Passage
	at       string // when the carrier made the change
	event    string // the departure event that shows it
}

// rolled compares the departure planned from the port of loading (the
// newest estimated or planned DEPA there, before any actual one) with the
// passage last seen, records it, and returns the change if any.
func (s *State) rolled(results []journeys.Result) *roll {
	pol := ""
	for _, r := range results {
		if r.POL != "" {
			pol = r.POL
			break
		}
	}
	if pol == "" {
		return nil
	}
	var plan *Stored
	var planAt string
	for i := range s.Events {
		st := &s.Events[i]
		p := st.decode()
		if !p.ok || p.ev.EventType != dcsa.EventTypeTransport || p.ev.TransportEventTypeCode != "DEPA" || p.ev.Place() != pol {
			continue
		}
		if p.ev.EventClassifierCode == dcsa.ClassifierActual {
			return nil // it left: nothing can roll any more
		}
		if plan == nil || p.ev.EventCreatedDateTime >= planAt {
			plan, planAt = st, p.ev.EventCreatedDateTime
		}
	}
	if plan == nil {
		return nil
	}
	var ev struct {
		TransportCall struct {
			CarrierVoyageNumber       string `json:"carrierVoyageNumber"`
			CarrierExportVoyageNumber string `json:"carrierExportVoyageNumber"`
			Vessel                    struct {
				VesselIMONumber string `json:"vesselIMONumber"`
				VesselName      string `json:"vesselName"`
			} `json:"vessel"`
		} `json:"transportCall"`
	}
	if json.Unmarshal(plan.Event, &ev) != nil {
		return nil
	}
	tc := ev.TransportCall
	now := Passage{POL: pol, IMO: tc.Vessel.VesselIMONumber, Name: tc.Vessel.VesselName, Voyage: tc.CarrierExportVoyageNumber}
	if now.Voyage == "" {
		now.Voyage = tc.CarrierVoyageNumber
	}
	if now.IMO == "" && now.Voyage == "" {
		return nil // nothing to compare
	}
	before := s.Passage
	s.Passage = &now
	if before == nil || before.POL != now.POL || (before.IMO == now.IMO && before.Voyage == now.Voyage) {
		return nil
	}
	return &roll{from: *before, to: now, at: planAt, event: plan.ID}
}
