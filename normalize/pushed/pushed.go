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
	"github.com/contrack/contrack/platform/jsonvalid"
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
// ok=true when Parse will accept every event of the body, else the message
// to answer with:
//
//   - zero bytes or only whitespace: MsgNoBody; an empty array likewise;
//   - not JSON: "Malformed JSON: <detail>";
//   - then per event, in order, the first failure of: eventType is
//     EQUIPMENT or TRANSPORT (else MsgNotEquipOrTransport — also for a
//     non-object, `null` or `{}`); equipmentReference present and non-blank
//     (else MsgNoEquipmentRef; an EQ reference does not stand in for it).
//     In an array the message names the element: "[3].equipmentReference
//     is required", "[3]: No equipment or transport event provided";
//   - then anything Parse refuses: "Invalid event: <path>: <reason>".
//
// An array inside {"events": [...]} (a TNT 2.x notification so wrapped) is
// read as the array, its elements named "events[3]".
func Check(raw []byte) (msg string, ok bool) {
	if pe := precheck(raw); pe != nil {
		return Message(pe), false
	}
	res, err := tnt22.ParseWithOptions(raw, normalize.Envelope{ReceivedAt: time.Now()}, options(true))
	if err == nil {
		err = res.Err()
	}
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

// Message is the answer to a refusal of the interface's rules (precheck's):
// the interface's exact message for a single event, the element named
// before it in an array.
func Message(pe *normalize.ParseError) string {
	switch {
	case pe.Path == "":
		return pe.Reason
	case pe.Reason == MsgNoEquipmentRef:
		return pe.Path + "." + pe.Reason
	}
	return pe.Path + ": " + pe.Reason
}

// Parse is a normalize.Parser for pushed bodies. An empty body or array and
// one that is not JSON cannot be read at all (the error); an event the
// interface's rules refuse is refused on its own, its Reason the spec
// message and its Path the element ("[1]"), and the others come out, so a
// dead letter reads like the HTTP answer.
//
// Pushed events are not polled for a tracking, so env.TrackingID is usually
// empty; env.SCAC (the pushing key's carrier) seeds ids and carrierCode.
func Parse(raw []byte, env normalize.Envelope) (normalize.Result, error) {
	body, pe := validBody(raw)
	if pe != nil {
		return normalize.Result{}, pe
	}
	arr, prefix := eventsArray(body)
	switch {
	case arr == nil && body[0] != '{':
		// A scalar or null: no event at all.
		return normalize.Result{}, &normalize.ParseError{Format: Format, Reason: MsgNotEquipOrTransport}
	case arr != nil && skipSpace(arr, 1) < len(arr) && arr[skipSpace(arr, 1)] == ']':
		return normalize.Result{}, &normalize.ParseError{Format: Format, Path: prefix, Reason: MsgNoBody}
	}
	opt := options(false)
	opt.Admit = checkEvent
	return tnt22.ParseWithOptions(raw, env, opt)
}

// options are the decoder's options for pushed bodies; verdictOnly (Check)
// maps and checks every event as usual but derives no ids and keeps no
// events (tnt22.Options.CheckOnly, VerdictOnly).
func options(verdictOnly bool) tnt22.Options {
	return tnt22.Options{Format: Format, SingleObject: true, Lenient: true, CheckOnly: verdictOnly, VerdictOnly: verdictOnly}
}

// precheck applies the spec's rules in the spec's order and returns the
// first violation. It validates the body with encoding/json, then walks
// the validated bytes itself to find each event's eventType and
// equipmentReference members (exact names, after unescaping; the last of
// duplicates wins), as decoding into a map would, without building one:
// the walk costs a fraction of a decode. precheck_test.go holds the
// decoding version and a fuzz test that the two always agree.
func precheck(raw []byte) *normalize.ParseError {
	body, pe := validBody(raw)
	if pe != nil {
		return pe
	}
	arr, prefix := eventsArray(body)
	if arr == nil {
		if msg := checkEvent(body); msg != "" {
			return &normalize.ParseError{Format: Format, Reason: msg}
		}
		return nil
	}
	i := skipSpace(arr, 1)
	if arr[i] == ']' {
		return &normalize.ParseError{Format: Format, Path: prefix, Reason: MsgNoBody}
	}
	for n := 0; ; n++ {
		end := skipValue(arr, i)
		if msg := checkEvent(arr[i:end]); msg != "" {
			return &normalize.ParseError{Format: Format, Path: prefix + "[" + strconv.Itoa(n) + "]", Element: n, Reason: msg}
		}
		i = skipSpace(arr, end)
		if arr[i] == ']' {
			return nil
		}
		i = skipSpace(arr, i+1) // the comma
	}
}

// eventsArray is the body's array of events and the path of its elements'
// prefix: the body itself ("") or, for {"events": [...]} — an object with
// an events array and no eventType of its own, names in any letter case as
// the decoder reads them — its events member ("events"). nil: the body is
// one event (or not an event at all).
func eventsArray(body []byte) ([]byte, string) {
	switch body[0] {
	case '[':
		return body, ""
	case '{':
	default:
		return nil, ""
	}
	var events []byte
	i := skipSpace(body, 1)
	for body[i] != '}' {
		keyEnd := skipString(body, i)
		key := strings.ToLower(unquote(body[i:keyEnd]))
		i = skipSpace(body, skipSpace(body, keyEnd)+1) // past the colon
		end := skipValue(body, i)
		switch key {
		case "eventtype":
			return nil, ""
		case "events":
			events = nil
			if body[i] == '[' {
				events = body[i:end]
			}
		}
		i = skipSpace(body, end)
		if body[i] == ',' {
			i = skipSpace(body, i+1)
		}
	}
	if events == nil {
		return nil, ""
	}
	return events, "events"
}

// validBody is raw without surrounding whitespace, or the refusal of an
// empty body or one that is not JSON: the spec's first two rules.
func validBody(raw []byte) ([]byte, *normalize.ParseError) {
	body := bytes.Trim(raw, jsonSpace)
	if len(body) == 0 {
		return nil, &normalize.ParseError{Format: Format, Reason: MsgNoBody}
	}
	if !jsonvalid.Valid(body) {
		var v any
		detail := "invalid JSON"
		if err := json.Unmarshal(body, &v); err != nil {
			detail = err.Error()
		}
		return nil, &normalize.ParseError{Format: Format, Reason: MsgMalformedPrefix + detail}
	}
	return body, nil
}

// jsonSpace is the whitespace JSON allows between tokens; "only whitespace"
// means only these (bytes.TrimSpace would also eat U+00A0 and U+0085, which
// the parser then rejects as invalid JSON).
const jsonSpace = " \t\r\n"

// checkEvent returns the spec message one event value (valid JSON, no
// surrounding space) fails, or "".
func checkEvent(v []byte) string {
	if v[0] != '{' { // not an object, or null
		return MsgNotEquipOrTransport
	}
	var eventType, ref []byte // the members' raw values, nil when absent
	i := skipSpace(v, 1)
	for v[i] != '}' {
		keyEnd := skipString(v, i)
		key := v[i:keyEnd]
		i = skipSpace(v, skipSpace(v, keyEnd)+1) // past the colon
		end := skipValue(v, i)
		switch unquote(key) {
		case "eventType":
			eventType = v[i:end]
		case "equipmentReference":
			ref = v[i:end]
		}
		i = skipSpace(v, end)
		if v[i] == ',' {
			i = skipSpace(v, i+1)
		}
	}
	if eventType == nil || eventType[0] != '"' && string(eventType) != "null" {
		return MsgNotEquipOrTransport // absent, or not a string
	}
	if et := unquote(eventType); et != dcsa.EventTypeEquipment && et != dcsa.EventTypeTransport {
		return MsgNotEquipOrTransport
	}
	if ref == nil || string(ref) == "null" {
		return MsgNoEquipmentRef
	}
	if ref[0] == '"' && strings.TrimSpace(unquote(ref)) == "" {
		return MsgNoEquipmentRef
	}
	// A non-string equipmentReference is present but wrong: Parse says so
	// with its path.
	return ""
}

// unquote is the value of a valid JSON string token ("" for null).
func unquote(tok []byte) string {
	if tok[0] != '"' {
		return ""
	}
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1])
	}
	var s string
	_ = json.Unmarshal(tok, &s) // a valid string token: cannot fail
	return s
}

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index just past the string token starting at i.
func skipString(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// skipValue returns the index just past the valid JSON value starting at i.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(b) && !strings.ContainsRune(",]} \t\r\n", rune(b[i])) {
		i++ // a number, true, false or null
	}
	return i
}
