// Package pushed normalises events carriers push to POST /events: one DCSA
// 2.0.2 event object, a JSON array of them, or a TNT 2.2 notification body
// (the subscription callback's array of events). The 2.0.2 and TNT 2.2
// event shapes differ only in fields added or deprecated between them, so
// one decoder (package tnt22's) reads both.
//
// The HTTP handler calls Check before answering, so a carrier learns at once
// why an event is refused; the normaliser later calls Parse on the stored
// body. Check accepts exactly what Parse accepts (time aside: Check judges
// eventCreatedDateTime against now, Parse against Envelope.ReceivedAt).
package pushed

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/tnt22"
	"github.com/contrack/contrack/schemas/dcsa"
)

// Format is the ParseError.Format of this parser.
const Format = "pushed"

// The public interface's exact messages for refused POST /events bodies.
const (
	MsgNoBody              = "No event body"
	MsgNotEquipOrTransport = "No equipment or transport event provided"
	MsgNoEquipmentRef      = "equipmentReference is required"
)

// Prefixes of Check's other messages, which carry a detail after them.
const (
	MsgMalformedPrefix = "Malformed JSON: "
	MsgInvalidPrefix   = "Invalid event: "
)

// Check is the cheap admission test of a POST /events body. It returns
// ok=true when Parse will accept the body, else the message to answer with:
//
//   - zero bytes or only whitespace: MsgNoBody; an empty array likewise;
//   - not JSON: "Malformed JSON: <detail>";
//   - then per event, in order, the first failure of: eventType is
//     EQUIPMENT or TRANSPORT (else MsgNotEquipOrTransport — also for a
//     non-object, `null` or `{}`); equipmentReference present and non-blank
//     (else MsgNoEquipmentRef; an EQ reference does not stand in for it);
//   - then anything Parse rejects: "Invalid event: <path>: <reason>".
func Check(raw []byte) (msg string, ok bool) {
	if pe := precheck(raw); pe != nil {
		return pe.Reason, false
	}
	_, err := parse(raw, normalize.Envelope{ReceivedAt: time.Now()})
	if err != nil {
		var pe *normalize.ParseError
		if errors.As(err, &pe) {
			if pe.Path != "" {
				return MsgInvalidPrefix + pe.Path + ": " + pe.Reason, false
			}
			return MsgInvalidPrefix + pe.Reason, false
		}
		return MsgInvalidPrefix + err.Error(), false
	}
	return "", true
}

// Parse is a normalize.Parser for pushed bodies. The spec's refusals come
// back as *normalize.ParseError whose Reason is the spec message (and Path
// the element, for arrays), so a dead letter reads like the HTTP answer.
//
// Pushed events are not polled for a tracking, so env.TrackingID is usually
// empty; env.SCAC (the pushing key's carrier) seeds ids and carrierCode.
func Parse(raw []byte, env normalize.Envelope) ([]dcsa.Event, error) {
	if pe := precheck(raw); pe != nil {
		return nil, pe
	}
	return parse(raw, env)
}

func parse(raw []byte, env normalize.Envelope) ([]dcsa.Event, error) {
	return tnt22.ParseWithOptions(raw, env, tnt22.Options{Format: Format, SingleObject: true, Lenient: true})
}

// precheck applies the spec's rules in the spec's order and returns the
// first violation. Bodies are small (the handler caps them at 1 MiB), so
// encoding/json is fast enough here; members are matched by exact name, as
// the parser does (encoding/json's struct decoding would match
// "EVENTTYPE" too).
func precheck(raw []byte) *normalize.ParseError {
	body := bytes.Trim(raw, jsonSpace)
	if len(body) == 0 {
		return &normalize.ParseError{Format: Format, Reason: MsgNoBody}
	}
	if !json.Valid(body) {
		var v any
		detail := "invalid JSON"
		if err := json.Unmarshal(body, &v); err != nil {
			detail = err.Error()
		}
		return &normalize.ParseError{Format: Format, Reason: MsgMalformedPrefix + detail}
	}
	if body[0] != '[' {
		if msg := checkEvent(body); msg != "" {
			return &normalize.ParseError{Format: Format, Reason: msg}
		}
		return nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(body, &elems); err != nil {
		return &normalize.ParseError{Format: Format, Reason: MsgMalformedPrefix + err.Error()}
	}
	if len(elems) == 0 {
		return &normalize.ParseError{Format: Format, Reason: MsgNoBody}
	}
	for i, e := range elems {
		if msg := checkEvent(e); msg != "" {
			return &normalize.ParseError{Format: Format, Path: "[" + strconv.Itoa(i) + "]", Reason: msg}
		}
	}
	return nil
}

// jsonSpace is the whitespace JSON allows between tokens; "only whitespace"
// means only these (bytes.TrimSpace would also eat U+00A0 and U+0085, which
// the parser then rejects as invalid JSON).
const jsonSpace = " \t\r\n"

// checkEvent returns the spec message one event value fails, or "".
func checkEvent(raw []byte) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil { // not an object, or null
		return MsgNotEquipOrTransport
	}
	var eventType string
	if json.Unmarshal(obj["eventType"], &eventType) != nil ||
		(eventType != dcsa.EventTypeEquipment && eventType != dcsa.EventTypeTransport) {
		return MsgNotEquipOrTransport
	}
	ref, present := obj["equipmentReference"]
	if !present || string(ref) == "null" {
		return MsgNoEquipmentRef
	}
	var s string
	if json.Unmarshal(ref, &s) == nil && strings.TrimSpace(s) == "" {
		return MsgNoEquipmentRef
	}
	// A non-string equipmentReference is present but wrong: Parse says so
	// with its path.
	return ""
}
