// Package deliveries is the contract of webhook deliveries between the
// stages: the payloads a subscriber receives (built by the delivery stage,
// shown again by the query API's feed and delivery listings), the
// statuses deliveries go through, and the messages the API queues for the
// delivery stage to send (the webhook verification and the test delivery)
// and the replay of a dead one — what the API may write to the deliveries
// table, beside the delivery stage that owns its rows.
package deliveries

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/tnt3"
)

// Event formats a subscriber receives (the webhook's eventFormat, the
// feed's API-Version).
const (
	// FormatEventDomain is the interface's: EVENT_DOMAIN 2.0.2 events, the
	// default everywhere.
	FormatEventDomain = "EVENT_DOMAIN_2.0.2"
	// FormatTNT3 is DCSA Track & Trace 3.0.0: the body is a 3.0 POST
	// /events request (with the references beside its events), sent with
	// API-Version 3.0.0.
	FormatTNT3 = "TNT_3.0.0"
)

// References identify the subscription a delivery is for: the spec's
// "references" object. Every field is a string, "" when unknown.
type References struct {
	SubscriptionReference string `json:"subscriptionReference"`
	EquipmentNumber       string `json:"equipmentNumber"`
	BillNumber            string `json:"billNumber"`
	BookingNumber         string `json:"bookingNumber"`
	ScacCode              string `json:"scacCode"`
}

// Payload is the body of a webhook delivery (the spec's "Webhook delivery
// payload"): the subscription's references and one or more DCSA events in
// delivery order. RetractedEventIDs, beside them, name the events of the
// subscription the carrier withdrew (DCSA TNT 3.0's isRetracted) and that
// stay withdrawn at the end of the payload; each is also in events, as last
// delivered, its last occurrence there, so that events is never empty. A
// consumer applies events in order, then drops every event listed
// (docs/api.md, "Retractions").
//
// Alerts (schemas.Alert), for a webhook or feed reader that asked for
// them, come beside the events, in the order they were raised among
// themselves; a payload of alerts alone has "events": [].
type Payload struct {
	References        References        `json:"references"`
	Events            []json.RawMessage `json:"events"`
	RetractedEventIDs []string          `json:"retractedEventIDs,omitempty"`
	Alerts            []json.RawMessage `json:"alerts,omitempty"`
}

// PayloadTNT3 is the body of a TNT 3.0 delivery: 3.0's PostEventsRequest,
// the subscription's references beside its events; a withdrawn event is
// 3.0's own retraction (isRetracted, the same eventID).
type PayloadTNT3 struct {
	References References        `json:"references"`
	Events     []tnt3.Event      `json:"events"`
	Alerts     []json.RawMessage `json:"alerts,omitempty"`
}

// Stream are the events of one subscription's delivery (or feed item), as
// stored, in order: a retraction's row (Hashes[i] = schemas.RetractedHash)
// holds the event it withdraws as last delivered.
type Stream struct {
	Refs    References
	Events  [][]byte
	IDs     []string
	Hashes  []string
	Emitted []time.Time
}

// EventDomain is the stream as the interface's payload.
// A retraction followed in the stream by a later version of its event is
// not listed: the event stands at the end of the payload.
func (s Stream) EventDomain() Payload {
	s, alerts := s.splitAlerts()
	p := Payload{References: s.Refs, Events: make([]json.RawMessage, len(s.Events)), Alerts: alerts}
	var last map[string]int // each retracted event's last row
	for i, e := range s.Events {
		p.Events[i] = e
		if i < len(s.Hashes) && s.Hashes[i] == schemas.RetractedHash {
			if last == nil {
				last = map[string]int{}
			}
			last[s.IDs[i]] = -1
		}
	}
	if last == nil {
		return p
	}
	for i, id := range s.IDs {
		if _, ok := last[id]; ok {
			last[id] = i
		}
	}
	for i, id := range s.IDs {
		if last[id] == i && s.Hashes[i] == schemas.RetractedHash {
			p.RetractedEventIDs = append(p.RetractedEventIDs, id)
		}
	}
	return p
}

// TNT3 is the stream as a 3.0 payload: each event mapped to 3.0
// (tnt3.FromDCSA), updated when contrack emitted it, a retraction as 3.0's.
func (s Stream) TNT3() (PayloadTNT3, error) {
	s, alerts := s.splitAlerts()
	p := PayloadTNT3{References: s.Refs, Events: make([]tnt3.Event, len(s.Events)), Alerts: alerts}
	for i, raw := range s.Events {
		var at time.Time
		if i < len(s.Emitted) {
			at = s.Emitted[i]
		}
		if i < len(s.Hashes) && s.Hashes[i] == schemas.RetractedHash {
			p.Events[i] = tnt3.Retraction(s.IDs[i], s.Refs.ScacCode, at)
			continue
		}
		e, err := tnt3.FromDCSAJSON(raw, s.Refs.ScacCode, at)
		if err != nil {
			return PayloadTNT3{}, fmt.Errorf("deliveries: %w", err)
		}
		p.Events[i] = e
	}
	return p, nil
}

// splitAlerts takes the alerts (rows with an alert's content hash) out of
// the stream: the events stay, in order, and the alerts are returned.
func (s Stream) splitAlerts() (Stream, []json.RawMessage) {
	n := 0
	for _, h := range s.Hashes {
		if schemas.IsAlertHash(h) {
			n++
		}
	}
	if n == 0 {
		return s, nil
	}
	alerts := make([]json.RawMessage, 0, n)
	ev := Stream{Refs: s.Refs}
	for i, e := range s.Events {
		if i < len(s.Hashes) && schemas.IsAlertHash(s.Hashes[i]) {
			alerts = append(alerts, e)
			continue
		}
		ev.Events = append(ev.Events, e)
		if i < len(s.IDs) {
			ev.IDs = append(ev.IDs, s.IDs[i])
		}
		if i < len(s.Hashes) {
			ev.Hashes = append(ev.Hashes, s.Hashes[i])
		}
		if i < len(s.Emitted) {
			ev.Emitted = append(ev.Emitted, s.Emitted[i])
		}
	}
	return ev, alerts
}

// Encode returns the exact bytes sent (and signed) in format: compact
// JSON, no HTML escaping, no trailing newline; and the API-Version header
// to send with them ("" for the interface's format).
func (s Stream) Encode(format string) (body []byte, apiVersion string, err error) {
	var v any = s.EventDomain()
	if format == FormatTNT3 {
		p, err := s.TNT3()
		if err != nil {
			return nil, "", err
		}
		v, apiVersion = p, tnt3.Version
	}
	body, err = encodeJSON(v)
	return body, apiVersion, err
}

// EncodePayload returns the exact bytes of the interface's payload.
func EncodePayload(refs References, events []json.RawMessage) ([]byte, error) {
	return encodeJSON(Payload{References: refs, Events: events})
}

func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("deliveries: encode payload: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
