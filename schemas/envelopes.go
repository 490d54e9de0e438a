package schemas

import (
	"encoding/json"
	"time"
)

// Record types (the HeaderType value).
const (
	TypeSubscriptionChanged = "subscription.changed"
	TypeCarrierRaw          = "carrier.raw"
	TypePollAttempt         = "poll.attempt"
	TypeEvent               = "event"
	// TypeEventRetracted is an EventRecord withdrawing every version of its
	// event (DCSA TNT 3.0's isRetracted): ContentHash is RetractedHash and
	// Event only {"eventID": …}.
	TypeEventRetracted = "event.retracted"
	// TypeEventTerminal is an EventRecord of a terminal's status the 2.0.2
	// event domain has no code for (dcsa.TerminalCodes: available for
	// pick-up, customs holds and releases): journeys read it for their
	// readiness; delivery and the feed push no such event.
	TypeEventTerminal = "event.terminal"
	// TypeEventTNT3 is an EventRecord of a DCSA TNT 3.0 event type that
	// EVENT_DOMAIN 2.0.2 has no form for (SHIPMENT, IOT, REEFER:
	// dcsa.IsTNT3Only; the event's TNT3 holds what only 3.0 has): the
	// events table keeps it, and only 3.0 outputs carry it (GET /v3/events,
	// TNT_3.0.0 webhooks, the feed read with API-Version 3.x). Its
	// retraction is an ordinary TypeEventRetracted record.
	TypeEventTNT3      = "event.tnt3"
	TypeJourneyChanged = "journey.changed"
)

// Environments of an account.
const (
	EnvLive    = "live"
	EnvSandbox = "sandbox"
)

// SubscriptionChanged is published (through the outbox) whenever a
// subscription is created or closed. Consumers are idempotent by ID.
type SubscriptionChanged struct {
	ID             string `json:"id"` // outbox record id, unique per change
	AccountID      string `json:"accountId"`
	Env            string `json:"env"`
	TrackingID     string `json:"trackingId"`
	SubscriptionID string `json:"subscriptionId"`
	SCAC           string `json:"scac"`
	IdentifierKind string `json:"identifierKind"` // container | booking | bill
	Identifier     string `json:"identifier"`
	Status         string `json:"status"` // OPEN | CLOSED
	// TrackingOpen says whether the tracking still has an open subscription
	// after this change; the poller stops when it turns false.
	TrackingOpen bool      `json:"trackingOpen"`
	OccurredAt   time.Time `json:"occurredAt"`
}

// CarrierRaw wraps a raw carrier payload. Payload holds the bytes exactly as
// received (base64 in the JSON record, so EDIFACT and JSON travel alike).
type CarrierRaw struct {
	ID         string    `json:"id"`
	Format     string    `json:"format"`
	SCAC       string    `json:"scac"`
	Env        string    `json:"env"`
	AccountID  string    `json:"accountId,omitempty"`  // empty for pushed events: they match trackings of any account of SCAC
	TrackingID string    `json:"trackingId,omitempty"` // empty for pushed events
	RequestID  string    `json:"requestId,omitempty"`
	ReceivedAt time.Time `json:"receivedAt"`
	Payload    []byte    `json:"payload"` // base64 in JSON; the bytes are unchanged

	// CarrierKeyID is the carrier key that pushed the payload (POST /events
	// only; SCAC is then the key's SCAC, the only carrier whose trackings its
	// events may reach). The normaliser counts its events that match none.
	CarrierKeyID string `json:"carrierKeyId,omitempty"`

	// Parts, when above zero, says Payload joins that many pushes of one
	// carrier key, each a single event, that POST /events took at the same
	// time (ingest's combiner): a JSON array whose elements the normaliser
	// parses and dead-letters each on its own, as if each had its own
	// record. Zero: Payload is one push or poll, parsed whole.
	Parts int `json:"parts,omitempty"`
}

// PollAttempt records one carrier poll.
type PollAttempt struct {
	ID         string    `json:"id"`
	AccountID  string    `json:"accountId"`
	Env        string    `json:"env"`
	SCAC       string    `json:"scac"`
	TrackingID string    `json:"trackingId"`
	Outcome    string    `json:"outcome"` // success | noData | error
	HTTPCode   int       `json:"httpCode"`
	LatencyMS  int64     `json:"latencyMs"`
	EventCount int       `json:"eventCount"`
	At         time.Time `json:"at"`
	// DueAt is when the poll was due by the schedule (At − DueAt is its
	// lateness); PollClass why: first (never polled), expected (an expected
	// event) or regular. Absent in attempts written before issue 29.
	DueAt     time.Time `json:"dueAt,omitzero"`
	PollClass string    `json:"pollClass,omitempty"`
}

// EventRecord is one normalised DCSA 2.0.2 event for one tracking, on the
// events topic keyed by TrackingID. The same EventID with a new ContentHash
// is an update of that event (an estimate moved), and so is a return to an
// earlier ContentHash after another (A → B → A); the same record again
// (same EmittedAt, which identifies the emission), or the ContentHash last
// seen for that EventID, is a repeat that consumers drop.
type EventRecord struct {
	TrackingID  string          `json:"trackingId"`
	AccountID   string          `json:"accountId"`
	Env         string          `json:"env"`
	SCAC        string          `json:"scac"`
	EventID     string          `json:"eventId"`
	ContentHash string          `json:"contentHash"`
	Update      bool            `json:"update"` // an earlier version of this event was emitted
	Event       json.RawMessage `json:"event"`  // the DCSA 2.0.2 event; {"eventID": …} in a retraction (Retraction)
	SourceID    string          `json:"sourceId"`
	EmittedAt   time.Time       `json:"emittedAt"`
}

// RetractedHash is the ContentHash of a retraction record: the version
// that withdraws an event. No content hash is ever equal to it (they are
// hex), so consumers that keep the last version per event see a retraction
// as a change, and a repeated one as a repeat.
const RetractedHash = "retracted"

// Retraction reports whether r withdraws its event rather than carrying a
// version of it.
func (r *EventRecord) Retraction() bool { return r.ContentHash == RetractedHash }

// RetractionEvent is the Event member of a retraction record of eventID.
func RetractionEvent(eventID string) json.RawMessage {
	b, _ := json.Marshal(struct {
		EventID string `json:"eventID"`
	}{eventID})
	return b
}

// JourneyChanged says the journeys of a tracking were rewritten in the
// journey read model (generation Generation) up to Version.
type JourneyChanged struct {
	AccountID      string `json:"accountId"`
	TrackingID     string `json:"trackingId"`
	IdentifierKind string `json:"identifierKind"`
	Identifier     string `json:"identifier"`
	Generation     uint32 `json:"generation"`
	Version        uint64 `json:"version"`
}
