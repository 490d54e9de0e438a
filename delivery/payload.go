package delivery

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// delivery order.
type Payload struct {
	References References        `json:"references"`
	Events     []json.RawMessage `json:"events"`
}

// encodePayload returns the exact bytes sent (and signed): compact JSON,
// events as the normaliser wrote them, no HTML escaping, no trailing newline.
func encodePayload(refs References, events []json.RawMessage) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Payload{References: refs, Events: events}); err != nil {
		return nil, fmt.Errorf("delivery: encode payload: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// batch picks the queued events that go into one delivery: in queue order,
// at most maxEvents and maxBytes of event JSON, but always the first.
func batch(events []json.RawMessage, maxEvents, maxBytes int) int {
	n, size := 0, 0
	for _, e := range events {
		if n == maxEvents || (n > 0 && size+len(e) > maxBytes) {
			break
		}
		n++
		size += len(e)
	}
	return n
}
