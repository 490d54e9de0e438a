package schemas

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// TypeAlert is the HeaderType of an alert record on TopicAlerts: an
// EventRecord whose Event is an Alert, EventID its AlertID and ContentHash
// AlertHashPrefix + the hash of its content.
const TypeAlert = "alert"

// Alert kinds (Alert.AlertType).
const (
	// AlertETAChanged: the estimated arrival at the port of discharge
	// moved; delivered when the move is at least the subscription's (else
	// the account's) threshold, 6 h by default.
	AlertETAChanged = "ETA_CHANGED"
	// AlertRolled: the vessel or voyage planned to leave the port of
	// loading was replaced before it left.
	AlertRolled = "ROLLED"
	// AlertArrived: the vessel arrived at the port of discharge (actual).
	AlertArrived = "ARRIVED"
	// AlertAvailableForPickup: the container is available for pick-up at
	// the port of discharge.
	AlertAvailableForPickup = "AVAILABLE_FOR_PICKUP"
	// AlertHoldPlaced and AlertHoldReleased: a hold on the container at
	// the port of discharge was placed or released.
	AlertHoldPlaced   = "HOLD_PLACED"
	AlertHoldReleased = "HOLD_RELEASED"
	// AlertLFDApproaching: the last free day is at most the account's
	// warning days away (2 by default) and the container is still in the
	// terminal.
	AlertLFDApproaching = "LFD_APPROACHING"
	// AlertDemurrageStarted: the last free day passed with the container
	// still in the terminal.
	AlertDemurrageStarted = "DEMURRAGE_STARTED"
)

// AlertTypes are every alert kind.
var AlertTypes = []string{AlertETAChanged, AlertRolled, AlertArrived, AlertAvailableForPickup, AlertHoldPlaced,
	AlertHoldReleased, AlertLFDApproaching, AlertDemurrageStarted}

// AlertHashPrefix starts the ContentHash of an alert record (and of its
// rows in the delivery queue and the feed), which no event's hex hash does.
const AlertHashPrefix = "alert:"

// IsAlertHash says a content hash is an alert's.
func IsAlertHash(h string) bool { return strings.HasPrefix(h, AlertHashPrefix) }

// Alert is a notification contrack derives from a journey (or, for the
// last free day, from the journey and the account's free-time rules and
// the clock). Its AlertID is stable: the same occurrence always has the
// same id, whoever derives it again.
type Alert struct {
	AlertID   string `json:"alertID"`
	AlertType string `json:"alertType"`
	// EquipmentReference is the container; UNLocationCode where it
	// happened (the port of discharge, or of loading for ROLLED).
	EquipmentReference string `json:"equipmentReference"`
	UNLocationCode     string `json:"UNLocationCode,omitempty"`
	// AlertDateTime is when what the alert says happened (the event's
	// time; for LFD_APPROACHING and DEMURRAGE_STARTED the start of the day
	// it refers to).
	AlertDateTime string `json:"alertDateTime"`
	// ETA_CHANGED: the estimate before and now, and the move in minutes
	// (positive: later).
	PreviousDateTime string `json:"previousDateTime,omitempty"`
	NewDateTime      string `json:"newDateTime,omitempty"`
	ChangeMinutes    *int   `json:"changeMinutes,omitempty"`
	// ROLLED: the vessel and voyage planned before and now.
	PreviousVessel *AlertVessel `json:"previousVessel,omitempty"`
	NewVessel      *AlertVessel `json:"newVessel,omitempty"`
	// HOLD_PLACED, HOLD_RELEASED: the hold's kind (CUSTOMS, FREIGHT,
	// TERMINAL) and the carrier's code for it.
	HoldType string `json:"holdType,omitempty"`
	HoldCode string `json:"holdCode,omitempty"`
	// LFD_APPROACHING, DEMURRAGE_STARTED: the last free day (a date) and
	// the whole days left until its end (LFD_APPROACHING).
	LastFreeDay string `json:"lastFreeDay,omitempty"`
	DaysLeft    *int   `json:"daysLeft,omitempty"`
	// SourceEventIDs are the events it was derived from, when any.
	SourceEventIDs []string `json:"sourceEventIDs,omitempty"`
}

// AlertVessel is a vessel and voyage of ROLLED.
type AlertVessel struct {
	VesselIMONumber string `json:"vesselIMONumber,omitempty"`
	VesselName      string `json:"vesselName,omitempty"`
	Voyage          string `json:"voyage,omitempty"`
}

// AlertID is the stable id of an occurrence: a hash of its tracking, kind
// and what tells it from other occurrences of its kind.
func AlertID(trackingID, kind string, parts ...string) string {
	h := sha256.New()
	h.Write([]byte(trackingID + "\x00" + kind))
	for _, p := range parts {
		h.Write([]byte("\x00" + p))
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// AlertRecord wraps a for the alerts topic: base (its tracking, account,
// environment, SCAC and EmittedAt) with a as its event, the alert's id as
// EventID and a content hash over the alert's JSON.
func AlertRecord(a Alert, base EventRecord) (EventRecord, error) {
	raw, err := json.Marshal(a)
	if err != nil {
		return EventRecord{}, err
	}
	sum := sha256.Sum256(raw)
	rec := base
	rec.EventID, rec.ContentHash, rec.Event = a.AlertID, AlertHashPrefix+hex.EncodeToString(sum[:16]), raw
	return rec, nil
}
