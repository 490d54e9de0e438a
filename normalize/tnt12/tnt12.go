// Package tnt12 normalises DCSA Track & Trace 1.2 GET /events responses
// (TNT_v1.2.0.yaml) to DCSA EVENT_DOMAIN 2.0.2 events.
//
// TNT 1.2 is flatter than 2.x: one generic eventTypeCode, the place as flat
// UNLocationCode/facilityCode/facilityTypeCode, the vessel as
// transportReference and the voyage as transportLegReference, no
// eventCreatedDateTime, and a fourth kind, TRANSPORTEQUIPMENT (a container
// loaded on or discharged from a vessel), which becomes a 2.0.2 equipment
// event with a transport call. The field mapping, and the policy shared with
// tnt22 (SHIPMENT events checked and dropped; a bad element refused on its
// own, naming its path, the others read), are in docs/normalize.md.
package tnt12

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/schemas/dcsa"
)

// Format is the ParseError.Format of this parser.
const Format = "tnt12"

// TNT 1.2 event kinds.
const (
	typeShipment           = "SHIPMENT"
	typeTransportEquipment = "TRANSPORTEQUIPMENT"
)

// ErrNoReceivedAt is returned (not as a ParseError: the payload is not at
// fault) when Envelope.ReceivedAt is zero, since TNT 1.2 events have no
// eventCreatedDateTime and ReceivedAt stands in for it.
var ErrNoReceivedAt = errors.New("tnt12: Envelope.ReceivedAt is required: TNT 1.2 events have no eventCreatedDateTime")

// srcEvent is one TNT 1.2 event. Fields the spec types as string but shows
// as numbers in its own examples (eventID: 1, modeOfTransportCode: 1,
// transportReference: 9648714) accept both.
type srcEvent struct {
	EventID             flexString `json:"eventID"`
	EventType           string     `json:"eventType"`
	EventDateTime       string     `json:"eventDateTime"`
	EventClassifierCode string     `json:"eventClassifierCode"`
	EventTypeCode       string     `json:"eventTypeCode"`
	// EventCreatedDateTime is not in TNT 1.2; some implementations add it
	// from 2.x, and it is used when present.
	EventCreatedDateTime  string     `json:"eventCreatedDateTime"`
	TransportReference    flexString `json:"transportReference"`
	TransportLegReference flexString `json:"transportLegReference"`
	FacilityTypeCode      string     `json:"facilityTypeCode"`
	UNLocationCode        string     `json:"UNLocationCode"`
	FacilityCode          string     `json:"facilityCode"`
	OtherFacility         string     `json:"otherFacility"`
	ModeOfTransportCode   flexString `json:"modeOfTransportCode"`
	EquipmentReference    string     `json:"equipmentReference"`
	EmptyIndicatorCode    string     `json:"emptyIndicatorCode"`
}

// memberNames are the members a TNT 1.2 response has, by lower-case form.
var memberNames = func() map[string]string {
	m := normalize.MemberNames(srcEvent{})
	m["events"] = "events"
	return m
}()

// flexString is a string member that may also arrive as a JSON number (kept
// as its literal text) or null (absent).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	case string(b) == "null":
	case len(b) > 0 && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9')):
		*f = flexString(b)
	default:
		return errors.New("expected string or number")
	}
	return nil
}

// Parse is a normalize.Parser for TNT 1.2 GET /events responses: the spec's
// {"events": [...]} object, or a bare array (some 1.2 servers send one).
//
// Envelope use: SCAC seeds every id and is emitted as carrierCode;
// ReceivedAt becomes eventCreatedDateTime (required, see ErrNoReceivedAt).
func Parse(raw []byte, env normalize.Envelope) (normalize.Result, error) {
	var res normalize.Result
	if env.ReceivedAt.IsZero() {
		return res, ErrNoReceivedAt
	}
	src, prefix, bad, err := decode(raw)
	if err != nil {
		return res, err
	}
	// encoding/json matched member names in any case: those spelt
	// otherwise are counted.
	res.Repairs = normalize.MemberCase(raw, memberNames)
	m := mapper{env: env, created: env.ReceivedAt.UTC().Truncate(time.Second).Format(time.RFC3339)}
	res.Events = make([]dcsa.Event, 0, len(src))
	seen := make(map[string]int, len(src))
	for i := range src {
		if pe := bad[i]; pe != nil {
			res.Refused = append(res.Refused, pe)
			continue
		}
		ev, id, emit, err := m.event(&src[i])
		if err != nil {
			res.Refused = append(res.Refused, elemErr(i, prefix+"["+strconv.Itoa(i)+"]."+err.path, err.reason))
			continue
		}
		if id != "" {
			if first, dup := seen[id]; dup {
				res.Refused = append(res.Refused, elemErr(i, prefix+"["+strconv.Itoa(i)+"].eventID", fmt.Sprintf("%s repeats the eventType and eventID of element [%d]", quote(id), first)))
				continue
			}
			seen[id] = i
		}
		if !emit {
			res.Repairs = append(res.Repairs, normalize.Repair{Kind: normalize.RepairNotCarriedLeftOut, Path: prefix + "[" + strconv.Itoa(i) + "]",
				Value: "SHIPMENT events have no EVENT_DOMAIN 2.0.2 form; contrack forwards EQUIPMENT and TRANSPORT events"})
			continue
		}
		res.Events = append(res.Events, ev)
	}
	return res, nil
}

func elemErr(i int, path, reason string) *normalize.ParseError {
	pe := perr(path, reason)
	pe.Element = i
	return pe
}

func perr(path, reason string) *normalize.ParseError {
	return &normalize.ParseError{Format: Format, Path: path, Reason: reason}
}

// decode reads the events and returns the path prefix of the events array
// ("events" or "" for a bare array), and the refusal of each element that
// cannot be decoded (by index; its srcEvent is zero). The fast path decodes
// the whole payload at once; only when that fails is it decoded element by
// element, to keep the others and say which element is at fault
// (encoding/json's errors name the field, not the index).
func decode(raw []byte) (events []srcEvent, prefix string, bad map[int]*normalize.ParseError, err error) {
	body := bytes.TrimSpace(raw)
	if len(body) == 0 {
		return nil, "", nil, perr("", "empty payload: expected {\"events\": [...]}")
	}
	switch body[0] {
	case '[':
		err = json.Unmarshal(body, &events)
	case '{':
		prefix = "events"
		var resp struct {
			Events *[]srcEvent `json:"events"`
		}
		if err = json.Unmarshal(body, &resp); err == nil {
			if resp.Events == nil {
				return nil, "", nil, perr("events", "required (the payload is not a TNT 1.2 events response)")
			}
			events = *resp.Events
		}
	default:
		return nil, "", nil, perr("", "expected {\"events\": [...]}, got "+jsonKind(body[0]))
	}
	if err != nil {
		return locate(body, err)
	}
	return events, prefix, nil, nil
}

// locate decodes the events one by one after the whole payload failed to
// decode: the elements that decode are kept, each other one refused with
// its index.
func locate(body []byte, whole error) ([]srcEvent, string, map[int]*normalize.ParseError, error) {
	var elems []json.RawMessage
	prefix := ""
	if body[0] == '[' {
		if json.Unmarshal(body, &elems) != nil {
			return nil, "", nil, perr("", "invalid JSON: "+whole.Error())
		}
	} else {
		var resp struct {
			Events json.RawMessage `json:"events"`
		}
		if json.Unmarshal(body, &resp) != nil {
			return nil, "", nil, perr("", "invalid JSON: "+whole.Error())
		}
		prefix = "events"
		if json.Unmarshal(resp.Events, &elems) != nil {
			return nil, "", nil, perr(prefix, "expected an array of events")
		}
	}
	events := make([]srcEvent, len(elems))
	bad := map[int]*normalize.ParseError{}
	for i, e := range elems {
		if err := json.Unmarshal(e, &events[i]); err != nil {
			events[i] = srcEvent{}
			path := prefix + "[" + strconv.Itoa(i) + "]"
			var te *json.UnmarshalTypeError
			switch {
			case errors.As(err, &te) && te.Field != "":
				bad[i] = elemErr(i, path+"."+te.Field, "expected "+goTypeName(te.Type.Kind().String())+", got "+te.Value)
			case errors.As(err, &te):
				bad[i] = elemErr(i, path, "expected an event object, got "+te.Value)
			default:
				bad[i] = elemErr(i, path, err.Error())
			}
		}
	}
	if len(bad) == 0 {
		return nil, "", nil, perr("", whole.Error())
	}
	return events, prefix, bad, nil
}

func goTypeName(k string) string {
	if k == "struct" {
		return "object"
	}
	return k
}

func jsonKind(c byte) string {
	switch c {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if c == '-' || (c >= '0' && c <= '9') {
		return "number"
	}
	return "invalid JSON"
}

// fieldErr is an error at a field path inside one element.
type fieldErr struct{ path, reason string }

func ferr(path, reason string) *fieldErr { return &fieldErr{path, reason} }

type mapper struct {
	env     normalize.Envelope
	created string // eventCreatedDateTime stand-in: ReceivedAt, RFC 3339 UTC
}

// event maps one element. sourceID is "<eventType>/<eventID>": TNT 1.2 ids
// are per kind (an equipment event and a transport event may both be "1").
func (m *mapper) event(s *srcEvent) (ev dcsa.Event, sourceID string, emit bool, fe *fieldErr) {
	kind := s.EventType
	switch kind {
	case dcsa.EventTypeTransport:
		ev.EventType = dcsa.EventTypeTransport
	case dcsa.EventTypeEquipment, typeTransportEquipment:
		ev.EventType = dcsa.EventTypeEquipment
	case typeShipment:
	case "":
		return ev, "", false, ferr("eventType", "required (the element is not a DCSA event)")
	default:
		return ev, "", false, ferr("eventType", quote(kind)+" is not EQUIPMENT, TRANSPORT, TRANSPORTEQUIPMENT or SHIPMENT")
	}
	if id := strings.TrimSpace(string(s.EventID)); id != "" {
		sourceID = kind + "/" + id
	}
	if fe := m.times(s, &ev); fe != nil {
		return ev, sourceID, false, fe
	}
	if kind == typeShipment {
		return ev, sourceID, false, nil
	}
	ev.CarrierCode = m.env.SCAC

	if s.UNLocationCode == "" {
		return ev, sourceID, false, ferr("UNLocationCode", "required")
	}
	if !validate.IsUNLocationCode(s.UNLocationCode) {
		return ev, sourceID, false, ferr("UNLocationCode", quote(s.UNLocationCode)+" is not a UN/LOCODE")
	}
	facility, provider, fe := splitFacility(s.FacilityCode, s.UNLocationCode)
	if fe != nil {
		return ev, sourceID, false, fe
	}
	if s.FacilityTypeCode != "" {
		if ev.FacilityTypeCode, fe = code("facilityTypeCode", validate.FacilityTypeCodes, s.FacilityTypeCode); fe != nil {
			return ev, sourceID, false, fe
		}
	}
	place := func() *dcsa.Location {
		return &dcsa.Location{UNLocationCode: s.UNLocationCode, FacilityCode: facility, FacilityCodeListProvider: provider}
	}

	if kind == dcsa.EventTypeTransport || kind == typeTransportEquipment {
		tc, fe := m.transportCall(s, place())
		if fe != nil {
			return ev, sourceID, false, fe
		}
		tc.UNLocationCode, tc.FacilityCode, tc.FacilityCodeListProvider = s.UNLocationCode, facility, provider
		tc.FacilityTypeCode = ev.FacilityTypeCode
		tc.TransportCallID = identity.TransportCallID(m.env.SCAC, *tc)
		ev.TransportCall = tc
	}
	if kind == dcsa.EventTypeTransport {
		if ev.TransportEventTypeCode, fe = code("eventTypeCode", validate.TransportEventTypeCodes, s.EventTypeCode); fe != nil {
			return ev, sourceID, false, fe
		}
	} else {
		if ev.EquipmentEventTypeCode, fe = code("eventTypeCode", validate.EquipmentEventTypeCodes, s.EventTypeCode); fe != nil {
			return ev, sourceID, false, fe
		}
		// The spec's own example is "Empty": accept any case.
		if ev.EmptyIndicatorCode, fe = code("emptyIndicatorCode", validate.EmptyIndicatorCodes, strings.ToUpper(s.EmptyIndicatorCode)); fe != nil {
			return ev, sourceID, false, fe
		}
		if validate.RuneLen(s.EquipmentReference) > validate.MaxEquipmentReference {
			return ev, sourceID, false, ferr("equipmentReference", quote(s.EquipmentReference)+" is longer than 15 characters")
		}
		ev.EquipmentReference = s.EquipmentReference
		loc := place()
		loc.LocationName = validate.Truncate(s.OtherFacility, validate.MaxLocationName)
		ev.EventLocation = loc
	}
	if sourceID != "" {
		ev.EventID = identity.EventID(m.env.SCAC, sourceID)
	} else {
		ev.EventID = identity.EventIDFromFields(ev, m.env.SCAC)
	}
	return ev, sourceID, true, nil
}

func (m *mapper) times(s *srcEvent, ev *dcsa.Event) *fieldErr {
	var fe *fieldErr
	if ev.EventClassifierCode, fe = code("eventClassifierCode", validate.EventClassifierCodes, s.EventClassifierCode); fe != nil {
		return fe
	}
	if s.EventDateTime == "" {
		return ferr("eventDateTime", "required")
	}
	happened, ht, err := validate.Timestamp(s.EventDateTime)
	if err != nil {
		return ferr("eventDateTime", err.Error())
	}
	created, ct := m.created, m.env.ReceivedAt.Truncate(time.Second)
	if s.EventCreatedDateTime != "" {
		if created, ct, err = validate.Timestamp(s.EventCreatedDateTime); err != nil {
			return ferr("eventCreatedDateTime", err.Error())
		}
	}
	if te := validate.EventTimes(ct, ht, ev.EventClassifierCode, m.env.ReceivedAt); te != nil {
		return ferr(te.Field, te.Reason)
	}
	ev.EventCreatedDateTime, ev.EventDateTime = created, happened
	return nil
}

// transportCall builds the call of a TRANSPORT or TRANSPORTEQUIPMENT event.
func (m *mapper) transportCall(s *srcEvent, loc *dcsa.Location) (*dcsa.TransportCall, *fieldErr) {
	ref := strings.TrimSpace(string(s.TransportReference))
	mode, fe := modeOfTransport(string(s.ModeOfTransportCode), ref)
	if fe != nil {
		return nil, fe
	}
	tc := &dcsa.TransportCall{ModeOfTransport: mode, Location: loc}
	if leg := strings.TrimSpace(string(s.TransportLegReference)); leg != "" {
		if len(leg) > validate.MaxVoyageNumber {
			return nil, ferr("transportLegReference", quote(leg)+" is longer than 50 characters")
		}
		tc.CarrierVoyageNumber = leg
	}
	if mode == "VESSEL" {
		// For vessels the transport reference is the IMO number (spec).
		if !validate.IsIMONumber(ref) {
			return nil, ferr("transportReference", quote(ref)+" is not a 7-digit IMO number, which a VESSEL transport reference must be")
		}
		tc.Vessel = &dcsa.Vessel{VesselIMONumber: ref}
	}
	tc.OtherFacility = validate.Truncate(s.OtherFacility, validate.MaxOtherFacility)
	return tc, nil
}

// modeOfTransport maps modeOfTransportCode, a UN/ECE Recommendation 19 code
// in TNT 1.2 ("1" maritime, "2" rail, "3" road, "8" inland water); 2.x names
// are accepted too. When absent, a seven-digit transport reference (an IMO
// number) means a vessel; anything else cannot be guessed.
func modeOfTransport(code, ref string) (string, *fieldErr) {
	switch strings.ToUpper(strings.TrimSpace(code)) {
	case "1", "VESSEL":
		return "VESSEL", nil
	case "2", "RAIL":
		return "RAIL", nil
	case "3", "TRUCK":
		return "TRUCK", nil
	case "8", "BARGE":
		return "BARGE", nil
	case "":
		if validate.IsIMONumber(ref) {
			return "VESSEL", nil
		}
		return "", ferr("modeOfTransportCode", "required when transportReference is not an IMO number")
	}
	return "", ferr("modeOfTransportCode", quote(code)+" is not a known mode (1 maritime, 2 rail, 3 road, 8 inland water)")
}

// splitFacility maps a TNT 1.2 facility code to 2.0.2's. 1.2 writes the
// UN/LOCODE and the SMDG terminal code together ("AEAUHADT" = AEAUH + ADT);
// 2.0.2's facilityCode excludes the UN/LOCODE (at most 6 characters) and
// names its code list, so the prefix is removed and the provider is SMDG. A
// code without the prefix that fits is kept without a provider (its list is
// unknown); a longer one is an error.
func splitFacility(fc, un string) (code, provider string, fe *fieldErr) {
	fc = strings.TrimSpace(fc)
	switch {
	case fc == "":
		return "", "", nil
	case len(fc) > len(un) && strings.HasPrefix(fc, un):
		code = fc[len(un):]
		if len(code) > validate.MaxFacilityCode {
			return "", "", ferr("facilityCode", quote(fc)+": the terminal code after the UN/LOCODE is longer than 6 characters")
		}
		return code, "SMDG", nil
	case len(fc) <= validate.MaxFacilityCode:
		return fc, "", nil
	}
	return "", "", ferr("facilityCode", quote(fc)+" is neither the UN/LOCODE followed by a terminal code nor a code of at most 6 characters")
}

// code checks a required code against its 2.0.2 list and returns the list's
// copy of it.
func code(field string, e validate.Enum, v string) (string, *fieldErr) {
	if v == "" {
		return "", ferr(field, "required")
	}
	c, ok := e.Canonical(v)
	if !ok {
		return "", ferr(field, quote(v)+" is not a DCSA 2.0.2 code (one of "+e.String()+")")
	}
	return c, nil
}

// quote quotes a source value for a message, clipped so a huge value cannot
// blow up a log line.
func quote(s string) string {
	if len(s) > 64 {
		s = strings.ToValidUTF8(s[:60], "") + "…"
	}
	return strconv.Quote(s)
}
