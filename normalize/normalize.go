// Package normalize turns every carrier source format into DCSA EVENT_DOMAIN
// 2.0.2 events. Each format has its own sub-package with a pure Parse
// function of the Parser shape; this package holds what they share.
package normalize

import (
	"errors"
	"fmt"
	"time"

	"github.com/contrack/contrack/schemas/dcsa"
)

// Envelope is what the pipeline knows about a raw payload besides its bytes.
type Envelope struct {
	// SCAC is the carrier the payload came from (the polled carrier, or the
	// carrier of the key that pushed it).
	SCAC string
	// TrackingID is the tracking the payload was polled for; empty for pushed events.
	TrackingID string
	// ReceivedAt is when contrack received the payload; parsers use it as
	// eventCreatedDateTime when the source gives none.
	ReceivedAt time.Time
}

// Parser turns one raw payload into DCSA 2.0.2 events. It never panics on any
// input. An element it cannot read is refused on its own (Result.Refused)
// and the others still come out; the error is only for a payload that
// cannot be read at all (not JSON, not an events array or envelope, a
// broken EDIFACT interchange): a *ParseError, or another error when the
// payload is not at fault (tnt12.ErrNoReceivedAt).
type Parser func(raw []byte, env Envelope) (Result, error)

// Result is what a parser read from one payload.
type Result struct {
	// Events are the events of the elements that could be read.
	Events []dcsa.Event
	// Refused are the elements that could not be read, in payload order,
	// each with its index, path and reason.
	Refused []*ParseError
	// Repairs are the carrier's deviations the parser repaired or left out
	// while reading, each with the element's path: counted by (carrier,
	// kind) and kept, so nothing is dropped in silence.
	Repairs []Repair
}

// Err is the first refusal, nil when there is none: the verdict of a
// caller that accepts a payload only whole (the POST /events check).
func (r Result) Err() error {
	if len(r.Refused) == 0 {
		return nil
	}
	return r.Refused[0]
}

// Strict is the whole-payload reading of a parser's answer: the events,
// or the page's error, or else the first refused element's. Tests and
// callers that want every element or none call it as
// Strict(parser(raw, env)).
func Strict(r Result, err error) ([]dcsa.Event, error) {
	if err != nil {
		return nil, err
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return r.Events, nil
}

// RepairKind names one kind of deviation from the standard a parser
// repairs (or, for a value it cannot place, leaves out and reports). The
// set is small and fixed, so it can label a metric.
type RepairKind string

// The repairs parsers make; docs/normalize.md lists where each was seen.
const (
	// RepairMemberCase: a member name in another letter case
	// ("unLocationCode", "eventId") was read as the standard's.
	RepairMemberCase RepairKind = "member_case"
	// RepairNumberAsString: a JSON number where the standard says string
	// (an IMO number, an id) was read as its digits.
	RepairNumberAsString RepairKind = "number_as_string"
	// RepairEventIDNotUUID: an event id that is not a UUID was kept as the
	// source id, and the event's id derived from it.
	RepairEventIDNotUUID RepairKind = "event_id_not_uuid"
	// RepairFacilityCodeSplit: a facility code with a UN/LOCODE prefix
	// (UN/LOCODE + terminal code) was split into its parts.
	RepairFacilityCodeSplit RepairKind = "facility_code_split"
	// RepairEventsEnvelope: a 2.x events array came inside
	// {"events": [...]}.
	RepairEventsEnvelope RepairKind = "events_envelope"
	// RepairIncompleteSealLeftOut: a seal without its required sealType
	// was left out of the event (Repair.Value keeps its number).
	RepairIncompleteSealLeftOut RepairKind = "seal_incomplete_left_out"
	// RepairIncompleteVesselLeftOut: a vessel without an IMO number was
	// left out of the transport call (Repair.Value keeps its name).
	RepairIncompleteVesselLeftOut RepairKind = "vessel_incomplete_left_out"
	// RepairUnknownCode: an element whose status or event code no table
	// knows was left out (Repair.Value is the code).
	RepairUnknownCode RepairKind = "unknown_code_left_out"
	// RepairNotCarriedLeftOut: an event contrack carries in no format (a
	// TNT 2.x or 1.2 SHIPMENT event, a TNT 3.0 AVDO or CROS, a MULTIMODAL
	// transport event, an IFTSTA status that is no movement such as a
	// customs release, COSCO's "Cargo Received") was left out (Repair.Value
	// says why).
	RepairNotCarriedLeftOut RepairKind = "not_carried_left_out"
	// RepairEnvelopeMismatch: an EDIFACT interchange trailer (UNZ) whose
	// control count or reference does not match its header, around
	// messages that are whole (each closed by its UNT): the messages are
	// read (Repair.Value says what did not match).
	RepairEnvelopeMismatch RepairKind = "envelope_mismatch"
	// RepairCommentsRemoved: a JSON body with "//" line comments (COSCO's
	// published answers) was read without them (Repair.Value counts them).
	RepairCommentsRemoved RepairKind = "comments_removed"
	// RepairLocalTimeAsUTC: a time with no offset and no place that says
	// its zone (COSCO's local times, with free-text places) was read as
	// UTC, its wall-clock digits kept (Repair.Value is the time as sent).
	RepairLocalTimeAsUTC RepairKind = "local_time_as_utc"
	// RepairDraftMember: a member under its name in a draft of the
	// standard (TNT 3.0 before 3.0.0: transportCallID, vessel, flat voyage
	// numbers, a flat position) was read as the released standard's.
	RepairDraftMember RepairKind = "draft_member"
	// RepairTooLongLeftOut: an optional value longer than EVENT_DOMAIN
	// 2.0.2 allows (a 6-character service code) was left out of the event
	// (Repair.Value keeps it).
	RepairTooLongLeftOut RepairKind = "too_long_left_out"
)

// Repair is one deviation a parser repaired or left out.
type Repair struct {
	Kind RepairKind `json:"kind"`
	// Path is where in the payload, e.g. "[2].transportCall.location.unLocationCode".
	Path string `json:"path"`
	// Value is what was read there when it could not be placed in the
	// event (a seal's number, a vessel's name, an unknown code), else "".
	Value string `json:"value,omitempty"`
}

// ErrMalformed is wrapped by every ParseError, so callers can route any parse
// failure to the dead-letter topic with errors.Is.
var ErrMalformed = errors.New("normalize: malformed payload")

// ParseError says why a payload (or one element of it) could not be normalised.
type ParseError struct {
	Format string // e.g. "tnt22"
	// Element is the index of the refused element among the payload's
	// events (Result.Refused); 0 for a whole-payload error.
	Element int
	Path    string // where in the payload, e.g. "[3].eventDateTime" or "segment 12 (DTM)"
	Reason  string
}

func (e *ParseError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s: %s", e.Format, e.Reason)
	}
	return fmt.Sprintf("%s: %s: %s", e.Format, e.Path, e.Reason)
}

// Unwrap makes every ParseError match ErrMalformed.
func (e *ParseError) Unwrap() error { return ErrMalformed }
