// Package eventfilter is what a subscriber chooses to receive, shared by
// the places that choose (POST /webhook/configure, the feed's query
// parameters) and the stages that apply it (delivery, feed): event types,
// classifiers, "milestones only", and the alert kinds to receive.
//
// An event is judged from itself alone (delivery and the feed see one event
// at a time, not its journey): Tags lists what it is, and a filter matches
// tags. A milestone kind (projector/journey's enhancedEvents types) tags the
// events that milestone is derived from; the journey decides which of them
// becomes the milestone (an actual departure is ATD_POL only at the port of
// loading), so a milestone kind selects those events wherever they happen.
package eventfilter

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
)

// Milestone kinds, as projector/journey names them in enhancedEvents.
const (
	ATDPOL             = "ATD_POL"
	Transshipment      = "TRANSSHIPMENT"
	ETARevision        = "ETA_REVISION"
	ETAPOD             = "ETA_POD"
	ATAPOD             = "ATA_POD"
	DischargePOD       = "DISCHARGE_POD"
	GateOutDestination = "GATE_OUT_FULL_DESTINATION"
	EmptyReturn        = "EMPTY_RETURN"
)

// MilestoneKinds are every milestone kind, in journey order.
var MilestoneKinds = []string{ATDPOL, Transshipment, ETARevision, ETAPOD, ATAPOD, DischargePOD, GateOutDestination, EmptyReturn}

// EventTypes are the eventTypes values a filter accepts: DCSA event types
// and milestone kinds.
var EventTypes = append([]string{dcsa.EventTypeEquipment, dcsa.EventTypeTransport}, MilestoneKinds...)

// Classifiers are the classifiers values a filter accepts.
var Classifiers = []string{dcsa.ClassifierActual, dcsa.ClassifierPlanned, dcsa.ClassifierEstimated}

// Tags lists what an event is: its eventType, its eventClassifierCode and
// the milestone kinds derived from events like it.
func Tags(ev *dcsa.Summary) []string {
	tags := []string{ev.EventType, ev.EventClassifierCode}
	act := ev.EventClassifierCode == dcsa.ClassifierActual
	switch ev.EventType {
	case dcsa.EventTypeTransport:
		switch ev.TransportEventTypeCode {
		case "DEPA":
			if act {
				tags = append(tags, ATDPOL)
			}
		case "ARRI":
			if act {
				tags = append(tags, ATAPOD)
			} else {
				tags = append(tags, ETARevision, ETAPOD)
			}
		}
	case dcsa.EventTypeEquipment:
		switch ev.EquipmentEventTypeCode {
		case "DISC":
			tags = append(tags, Transshipment)
			if act {
				tags = append(tags, DischargePOD)
			}
		case "LOAD":
			tags = append(tags, Transshipment) // the reload at a hub
		case "GTOT":
			if act && ev.EmptyIndicatorCode != "EMPTY" {
				tags = append(tags, GateOutDestination)
			}
		case "GTIN":
			if act && ev.EmptyIndicatorCode == "EMPTY" {
				tags = append(tags, EmptyReturn)
			}
		}
	}
	return tags
}

// Filter selects the events (and alerts) a webhook or feed consumer gets.
// The zero Filter selects every event and no alert: what every webhook got
// before filters existed.
type Filter struct {
	// EventTypes: events whose eventType or a milestone kind of theirs is
	// listed. nil: every event; empty (not nil): no event (alerts only).
	EventTypes []string `json:"eventTypes"`
	// Classifiers: events whose eventClassifierCode is listed; nil: all.
	Classifiers []string `json:"classifiers"`
	// MilestonesOnly: only events a milestone kind is derived from.
	MilestonesOnly bool `json:"milestonesOnly"`
	// AlertTypes: the alert kinds received (schemas.Alert*); none by
	// default.
	AlertTypes []string `json:"alertTypes"`
}

// IsZero says f selects what an unfiltered consumer gets.
func (f Filter) IsZero() bool {
	return f.EventTypes == nil && f.Classifiers == nil && !f.MilestonesOnly && len(f.AlertTypes) == 0
}

// MatchEvent says an event with tags passes f.
func (f Filter) MatchEvent(tags []string) bool {
	if f.EventTypes != nil && !overlaps(tags, f.EventTypes) {
		return false
	}
	if f.Classifiers != nil && !overlaps(tags, f.Classifiers) {
		return false
	}
	return !f.MilestonesOnly || overlaps(tags, MilestoneKinds)
}

// MatchAlert says an alert of kind passes f.
func (f Filter) MatchAlert(kind string) bool { return slices.Contains(f.AlertTypes, kind) }

func overlaps(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// Normalize returns the canonical form of list (upper case, trimmed,
// deduplicated, in allowed's order) and the values not in allowed. nil
// stays nil.
func Normalize(list, allowed []string) (out, unknown []string) {
	if list == nil {
		return nil, nil
	}
	seen := map[string]bool{}
	for _, v := range list {
		c := strings.ToUpper(strings.TrimSpace(v))
		if !slices.Contains(allowed, c) {
			unknown = append(unknown, v)
			continue
		}
		seen[c] = true
	}
	out = []string{}
	for _, a := range allowed {
		if seen[a] {
			out = append(out, a)
		}
	}
	return out, unknown
}

// Record is what a filter judges of an events-topic or alerts-topic
// record: an event's tags, or an alert's kind and ETA move.
type Record struct {
	Tags []string
	// AlertType is set for an alert; ChangeMinutes for an ETA_CHANGED one.
	AlertType     string
	ChangeMinutes *int
}

// Of reads what a filter judges of rec (its event already valid JSON).
// A retraction has no tags: it follows its event wherever that went.
func Of(rec *schemas.EventRecord) Record {
	if schemas.IsAlertHash(rec.ContentHash) {
		var a schemas.Alert
		if json.Unmarshal(rec.Event, &a) != nil {
			return Record{}
		}
		return Record{AlertType: a.AlertType, ChangeMinutes: a.ChangeMinutes}
	}
	if rec.Retraction() {
		return Record{}
	}
	var ev dcsa.Summary
	if dcsa.DecodeValidSummary(rec.Event, &ev) != nil {
		return Record{}
	}
	return Record{Tags: Tags(&ev)}
}
