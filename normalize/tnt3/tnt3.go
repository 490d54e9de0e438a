// Package tnt3 normalises DCSA Track & Trace 3.0 event lists — a producer's
// GET /events response and a POST /events request have the same shape,
// {"events": [...]} — to DCSA EVENT_DOMAIN 2.0.2 events.
//
// Policy, documented in docs/tnt3.md:
//   - Each event is processed, not carried, or refused, on its own:
//     EQUIPMENT and TRANSPORT events become 2.0.2 events; SHIPMENT, IOT and
//     REEFER events become events of their own type with their 3.0 codes
//     and details (dcsa.Event.TNT3), which only 3.0 outputs carry;
//     equipment events with a 3.0-only code other than the
//     terminal's status (AVDO, CROS) and transport events of a MULTIMODAL call
//     have no 2.0.2 form and are not carried; the terminal's status (AVPU,
//     CUSS, CUSI, CUSR: dcsa.TerminalCodes) is carried as a Terminal event
//     for readiness, never as a 2.0.2 event; an event that is malformed,
//     or lacks what 2.0.2 requires, is refused.
//   - An event with isRetracted withdraws every earlier version of its
//     eventID: it comes out as a dcsa.Event with only EventID and
//     Retracted set, which the normaliser turns into a retraction record.
//   - Polled (Parse): one refused event fails the payload, as in tnt22 — the
//     dead letter keeps it for a replay. Pushed (ParsePushed): refused
//     events are skipped; the carrier was told which and why when it
//     pushed (Check, behind POST /events).
//   - Versions of one eventID in one payload are applied in payload order.
package tnt3

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/platform/jsonvalid"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/tnt3"
)

// Format is the ParseError.Format of polled payloads, FormatPushed of pushed ones.
const (
	Format       = "tnt3"
	FormatPushed = "pushed-tnt3"
)

// Messages of a refused body (Check's Verdict.Message).
const (
	MsgNoBody       = "No event body"
	MsgNotEventList = `Invalid event body: expected {"events": [...]} (DCSA Track & Trace 3.0)`
	// MsgMalformedPrefix and what follows is the JSON error.
	MsgMalformedPrefix = "Malformed JSON: "
)

// maxEventID is 3.0's eventID maxLength.
const maxEventID = 500

// Parse is a normalize.Parser for a 3.0 producer's GET /events pages: an
// event that cannot be mapped is refused on its own (Result.Refused), the
// others come out; one 2.0.2 cannot carry is left out and reported
// (normalize.RepairNotCarriedLeftOut).
func Parse(raw []byte, env normalize.Envelope) (normalize.Result, error) {
	return parse(raw, env, Format, true)
}

// ParsePushed is a normalize.Parser for 3.0 bodies pushed to POST /events:
// events refused at the push are skipped (the carrier was told, in the
// answer's feedbackElements); those 2.0.2 cannot carry are reported as in
// Parse.
func ParsePushed(raw []byte, env normalize.Envelope) (normalize.Result, error) {
	return parse(raw, env, FormatPushed, false)
}

func parse(raw []byte, env normalize.Envelope, format string, polled bool) (normalize.Result, error) {
	var res normalize.Result
	elems, msg := eventList(raw)
	if msg != "" {
		return res, &normalize.ParseError{Format: format, Reason: msg}
	}
	// encoding/json matches member names in any case: those spelt
	// otherwise are counted.
	res.Repairs = normalize.MemberCase(raw, memberNames)
	m := mapper{env: env, pushed: !polled}
	res.Events = make([]dcsa.Event, 0, len(elems))
	for i, el := range elems {
		m.repairs = m.repairs[:0]
		ev, r := m.event(el)
		path := "events[" + strconv.Itoa(i) + "]"
		if r.refused == nil {
			for _, rp := range m.repairs {
				rp.Path = path + "." + rp.Path
				res.Repairs = append(res.Repairs, rp)
			}
		}
		switch {
		case r.refused != nil && polled:
			res.Refused = append(res.Refused, &normalize.ParseError{Format: format, Element: i, Path: path + r.refused.path, Reason: r.refused.reason})
			continue
		case r.notCarried != "":
			// Pushed too: the carrier was told (a WARN feedback element),
			// and the data-quality figures count it.
			res.Repairs = append(res.Repairs, normalize.Repair{Kind: normalize.RepairNotCarriedLeftOut, Path: path, Value: r.notCarried})
			continue
		case r.refused != nil:
			continue
		}
		res.Events = append(res.Events, ev)
	}
	return res, nil
}

// Check judges a pushed 3.0 body as ParsePushed will, without ids: the
// answer POST /events gives before anything is stored. now stands in for
// the time the body is received.
func Check(raw []byte, scac string, now time.Time) tnt3.Verdict {
	elems, msg := eventList(raw)
	if msg != "" {
		return tnt3.Verdict{Message: msg}
	}
	m := mapper{env: normalize.Envelope{SCAC: scac, ReceivedAt: now}, pushed: true, noIDs: true}
	var v tnt3.Verdict
	for i, el := range elems {
		_, r := m.event(el)
		path := "$.events[" + strconv.Itoa(i) + "]"
		switch {
		case r.refused != nil:
			v.Refused++
			msg := r.refused.reason
			if p := r.refused.path; p != "" {
				msg = p[strings.LastIndexByte(p, '.')+1:] + ": " + msg
			}
			v.Feedback = append(v.Feedback, tnt3.FeedbackElement{Severity: tnt3.SeverityError, Message: msg, PropertyPath: path + r.refused.path})
		case r.notCarried != "":
			v.NotCarried++
			v.Feedback = append(v.Feedback, tnt3.FeedbackElement{Severity: tnt3.SeverityWarn,
				Message: "Accepted, not forwarded: " + r.notCarried, PropertyPath: path})
		default:
			v.Accepted++
		}
	}
	return v
}

// eventList returns the elements of the body's events array, or the
// message refusing the body.
func eventList(raw []byte) ([]json.RawMessage, string) {
	body := bytes.Trim(raw, " \t\r\n")
	if len(body) == 0 {
		return nil, MsgNoBody
	}
	if !jsonvalid.Valid(body) {
		var v any
		detail := "invalid JSON"
		if err := json.Unmarshal(body, &v); err != nil {
			detail = err.Error()
		}
		return nil, MsgMalformedPrefix + detail
	}
	var list struct {
		Events *[]json.RawMessage `json:"events"`
	}
	if body[0] != '{' || json.Unmarshal(body, &list) != nil || list.Events == nil {
		return nil, MsgNotEventList
	}
	if len(*list.Events) == 0 {
		return nil, MsgNoBody
	}
	return *list.Events, ""
}

// result is what became of one event: refused (why), not carried (why),
// or neither (mapped).
type result struct {
	refused    *problem
	notCarried string
}

// problem is why an event is refused: the path below the event ("" for
// the event itself, else ".field…") and the reason.
type problem struct{ path, reason string }

func refuse(path, reason string) result { return result{refused: &problem{path, reason}} }

func notCarried(why string) result { return result{notCarried: why} }

// memberNames are the members of a 3.0 events body, by lower-case form.
var memberNames = normalize.MemberNames(tnt3.Events{})

// stringMembers are the 3.0 string members carriers send as numbers: ids,
// numbers, references and coordinates.
var stringMembers = map[string]bool{
	"eventID": true, "vesselIMONumber": true, "carrierVoyageNumber": true, "universalVoyageReference": true,
	"carrierServiceCode": true, "universalServiceReference": true, "transportCallReference": true,
	"portVisitReference": true, "equipmentReference": true, "reference": true, "facilityCode": true,
	"latitude": true, "longitude": true, "partyCode": true,
}

// mapper maps the events of one payload.
type mapper struct {
	// repairs are the deviations of the event being mapped, paths below it.
	repairs []normalize.Repair
	env     normalize.Envelope
	pushed  bool // events must name a container or document (routing)
	noIDs   bool // leave eventID empty (Check)
}

// event decodes and maps one element.
func (m *mapper) event(raw json.RawMessage) (dcsa.Event, result) {
	var s tnt3.Event
	if len(raw) == 0 || raw[0] != '{' {
		return dcsa.Event{}, refuse("", "not a JSON object")
	}
	body := raw
	if err := json.Unmarshal(raw, &s); err != nil {
		// A number where 3.0 says string (an IMO number, an id): read as
		// its digits, each counted.
		fixed, repairs := normalize.NumbersAsStrings(raw, stringMembers)
		if repairs == nil || json.Unmarshal(fixed, &s) != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				return dcsa.Event{}, refuse("."+te.Field, "must be "+jsonType(te.Type.String()))
			}
			return dcsa.Event{}, refuse("", err.Error())
		}
		m.repairs = append(m.repairs, repairs...)
		body = fixed
	}
	m.readDraftMembers(body, &s)
	if len(s.EventID) > maxEventID {
		return dcsa.Event{}, refuse(".eventID", "longer than 500 characters")
	}
	if s.IsRetracted {
		if s.EventID == "" {
			return dcsa.Event{}, refuse(".eventID", "required to retract an event")
		}
		ev := dcsa.Event{Retracted: true}
		if !m.noIDs {
			ev.EventID = identity.EventID(m.env.SCAC, sourceID(s.EventID))
		}
		return ev, result{}
	}
	c := s.EventClassification
	if c == nil || c.EventTypeCode == "" {
		return dcsa.Event{}, refuse(".eventClassification.eventTypeCode", "required")
	}
	var ev dcsa.Event
	switch c.EventTypeCode {
	case tnt3.EventTypeEquipment:
		ev.EventType = dcsa.EventTypeEquipment
	case tnt3.EventTypeTransport:
		ev.EventType = dcsa.EventTypeTransport
	case tnt3.EventTypeShipment, tnt3.EventTypeIoT, tnt3.EventTypeReefer:
		// Carried for 3.0's outputs only (dcsa.IsTNT3Only).
		ev.EventType = c.EventTypeCode
		if r := threeOnly(&s, &ev); r.refused != nil {
			return dcsa.Event{}, r
		}
	default:
		return dcsa.Event{}, refuse(".eventClassification.eventTypeCode", strconv.Quote(clip(c.EventTypeCode))+" is not SHIPMENT, TRANSPORT, EQUIPMENT, IOT or REEFER")
	}
	var ok bool
	if ev.EventClassifierCode, ok = validate.EventClassifierCodes.Canonical(c.EventClassifierCode); !ok {
		return dcsa.Event{}, refuse(".eventClassification.eventClassifierCode", mustBe(c.EventClassifierCode, validate.EventClassifierCodes))
	}
	switch {
	case ev.TNT3 != nil:
	case ev.EventType == dcsa.EventTypeEquipment:
		if r := equipmentCode(c.EquipmentEventTypeCode, &ev); r.refused != nil || r.notCarried != "" {
			return dcsa.Event{}, r
		}
	default:
		if ev.TransportEventTypeCode, ok = validate.TransportEventTypeCodes.Canonical(c.TransportEventTypeCode); !ok {
			return dcsa.Event{}, refuse(".eventClassification.transportEventTypeCode", mustBe(c.TransportEventTypeCode, validate.TransportEventTypeCodes))
		}
	}
	if r := m.times(&s, &ev); r.refused != nil {
		return dcsa.Event{}, r
	}
	ev.CarrierCode = m.env.SCAC
	loc, r := location(s.EventLocation)
	if r.refused != nil {
		return dcsa.Event{}, r
	}
	if s.EventLocation != nil {
		ev.FacilityTypeCode = tnt3.FacilityTypeFrom3[s.EventLocation.FacilityTypeCode]
	}
	shipment(s.ShipmentDetails, &ev)
	if r := equipment(s.EquipmentDetails, &ev); r.refused != nil {
		return dcsa.Event{}, r
	}
	if ev.EventType != dcsa.EventTypeTransport {
		ev.EventLocation = loc
	}
	if r := m.transport(s.TransportDetails, loc, &ev); r.refused != nil || r.notCarried != "" {
		return dcsa.Event{}, r
	}
	if m.pushed && ev.EquipmentReference == "" && !routable(ev.DocumentReferences) {
		return dcsa.Event{}, refuse("", "names no equipmentReference, booking (BKG) or transport document (TRD): contrack cannot tell whose shipment it is")
	}
	check := ev
	if ev.Terminal {
		// Held to 2.0.2 in every other respect.
		check.EquipmentEventTypeCode = "INSP"
	}
	if ev.TNT3 != nil {
		// Held to 2.0.2 in the fields it shares with an equipment event.
		check.EventType, check.EquipmentEventTypeCode, check.TNT3 = dcsa.EventTypeEquipment, "INSP", nil
		if check.EmptyIndicatorCode == "" {
			check.EmptyIndicatorCode = "LADEN"
		}
	}
	if err := validate.Structural(check); err != nil {
		return dcsa.Event{}, refuse("", "cannot be made a valid EVENT_DOMAIN 2.0.2 event: "+err.Error())
	}
	if !m.noIDs {
		if s.EventID != "" {
			ev.EventID = identity.EventID(m.env.SCAC, sourceID(s.EventID))
		} else {
			ev.EventID = identity.EventIDFromFields(ev, m.env.SCAC)
		}
	}
	return ev, result{}
}

// sourceID is the canonical form of a 3.0 eventID for identity.EventID: a
// UUID in lower case (so a carrier moving from 2.2 to 3.0 with the same ids
// keeps contrack's ids), anything else as it is.
func sourceID(id string) string {
	if u, err := uuid.Parse(id); err == nil {
		return u.String()
	}
	return id
}

// threeOnlyEquipmentCodes are 3.0's equipment event codes 2.0.2 lacks.
// (Those of the terminal's status, dcsa.TerminalCodes, are carried.)
var threeOnlyEquipmentCodes = map[string]string{
	"AVDO": "available for drop-off", "CROS": "crossed",
}

func equipmentCode(code string, ev *dcsa.Event) result {
	if c, ok := validate.EquipmentEventTypeCodes.Canonical(code); ok {
		ev.EquipmentEventTypeCode = c
		return result{}
	}
	if _, ok := dcsa.TerminalCodes[code]; ok {
		// Carried as a terminal record (readiness), never as a 2.0.2 event.
		ev.EquipmentEventTypeCode, ev.Terminal = code, true
		return result{}
	}
	if what, ok := threeOnlyEquipmentCodes[code]; ok {
		return notCarried("equipmentEventTypeCode " + code + " (" + what + ") has no EVENT_DOMAIN 2.0.2 code")
	}
	if code == "" {
		return refuse(".eventClassification.equipmentEventTypeCode", "required")
	}
	return refuse(".eventClassification.equipmentEventTypeCode", strconv.Quote(clip(code))+" is not a DCSA 3.0 equipment event code")
}

// times sets eventDateTime and eventCreatedDateTime. 3.0 has no creation
// time: eventCreatedDateTime is eventUpdatedDateTime, or — when absent, or
// when it would make the event implausible (an actual event updated more
// than a day before it happened) — the time contrack received the event.
func (m *mapper) times(s *tnt3.Event, ev *dcsa.Event) result {
	if s.EventDateTime == "" {
		return refuse(".eventDateTime", "required")
	}
	happened, ht, err := validate.Timestamp(s.EventDateTime)
	if err != nil {
		return refuse(".eventDateTime", err.Error())
	}
	received := m.env.ReceivedAt
	if received.IsZero() {
		received = time.Now()
	}
	created, ct := received.UTC().Format(time.RFC3339Nano), received
	if s.EventUpdatedDateTime != "" {
		u, ut, err := validate.Timestamp(s.EventUpdatedDateTime)
		if err != nil {
			return refuse(".eventUpdatedDateTime", err.Error())
		}
		if validate.EventTimes(ut, ht, ev.EventClassifierCode, m.env.ReceivedAt) == nil {
			created, ct = u, ut
		}
	}
	if te := validate.EventTimes(ct, ht, ev.EventClassifierCode, m.env.ReceivedAt); te != nil {
		return refuse(".eventDateTime", te.Reason)
	}
	ev.EventDateTime, ev.EventCreatedDateTime = happened, created
	return result{}
}

// location maps 3.0's location to 2.0.2's. A malformed UN/LOCODE refuses
// the event (journeys are built on it); what 2.0.2 has no room for (a
// facility of an unknown code list, coordinates longer than it allows, PO
// boxes, address lines) is left out.
func location(l *tnt3.Location) (*dcsa.Location, result) {
	if l == nil {
		return nil, result{}
	}
	out := &dcsa.Location{LocationName: validate.Truncate(l.LocationName, validate.MaxLocationName)}
	if l.UNLocationCode != "" {
		if !validate.IsUNLocationCode(l.UNLocationCode) {
			return nil, refuse(".eventLocation.UNLocationCode", strconv.Quote(clip(l.UNLocationCode))+" is not a UN/LOCODE")
		}
		out.UNLocationCode = l.UNLocationCode
	}
	if f := l.Facility; f != nil && f.FacilityCode != "" && len(f.FacilityCode) <= validate.MaxFacilityCode {
		if p, ok := validate.FacilityCodeListProviders.Canonical(f.FacilityCodeListProvider); ok {
			out.FacilityCode, out.FacilityCodeListProvider = f.FacilityCode, p
		}
	}
	if g := l.GeoCoordinate; g != nil && g.Latitude != "" && g.Longitude != "" &&
		len(g.Latitude) <= validate.MaxLatitude && len(g.Longitude) <= validate.MaxLongitude &&
		coordinate(g.Latitude, 90) && coordinate(g.Longitude, 180) {
		out.Latitude, out.Longitude = g.Latitude, g.Longitude
	}
	if a := l.Address; a != nil {
		addr := dcsa.Address{Street: validate.Truncate(a.Street, validate.MaxStreet), StreetNumber: validate.Truncate(a.StreetNumber, validate.MaxStreetNumber),
			Floor: validate.Truncate(a.Floor, validate.MaxFloor), PostCode: validate.Truncate(a.PostCode, validate.MaxPostCode),
			City: validate.Truncate(a.City, validate.MaxCity), StateRegion: validate.Truncate(a.StateRegion, validate.MaxStateRegion),
			Country: validate.Truncate(a.CountryCode, validate.MaxCountry)}
		if addr != (dcsa.Address{}) {
			out.Address = &addr
		}
	}
	if *out == (dcsa.Location{}) {
		return nil, result{}
	}
	return out, result{}
}

// coordinate says s is a plain decimal within ±limit.
func coordinate(s string, limit float64) bool {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < -limit || v > limit {
		return false
	}
	t := strings.TrimPrefix(s, "-")
	intPart, frac, hasDot := strings.Cut(t, ".")
	if intPart == "" || (hasDot && frac == "") {
		return false
	}
	return strings.Trim(intPart+frac, "0123456789") == ""
}

// shipment maps document and shipment references. A replacement's old and
// new documents are both listed, so the subscribers of either get the event.
func shipment(sd *tnt3.ShipmentDetails, ev *dcsa.Event) {
	if sd == nil {
		return
	}
	seen := map[dcsa.DocumentReference]bool{}
	addDoc := func(d tnt3.DocumentReference) {
		t, ok := validate.DocumentReferenceTypes.Canonical(d.TypeCode)
		if !ok || d.Reference == "" || len(d.Reference) > validate.MaxReferenceValue {
			return
		}
		r := dcsa.DocumentReference{DocumentReferenceType: t, DocumentReferenceValue: d.Reference}
		if !seen[r] {
			seen[r] = true
			ev.DocumentReferences = append(ev.DocumentReferences, r)
		}
	}
	if sd.DocumentReference != nil {
		addDoc(*sd.DocumentReference)
	}
	for _, d := range sd.AdditionalDocumentReferences {
		addDoc(d)
	}
	for _, rep := range sd.DocumentReferenceReplacements {
		for _, d := range rep.OldReferences {
			addDoc(d)
		}
		for _, d := range rep.NewReferences {
			addDoc(d)
		}
	}
	for _, r := range sd.ShipmentReferences {
		t, ok := validate.ReferenceTypes.Canonical(r.TypeCode)
		if !ok || r.Reference == "" || len(r.Reference) > validate.MaxReferenceValue {
			continue
		}
		ev.References = append(ev.References, dcsa.Reference{ReferenceType: t, ReferenceValue: r.Reference})
	}
}

// equipment maps equipment details, on events of either kind (a 2.0.2
// transport event may name its container too). A container named only by
// an EQ reference is the event's equipmentReference.
func equipment(ed *tnt3.EquipmentDetails, ev *dcsa.Event) result {
	if ed != nil {
		ev.EquipmentReference = ed.EquipmentReference
		if len(ed.ISOEquipmentCode) <= validate.MaxISOEquipmentCode {
			ev.ISOEquipmentCode = ed.ISOEquipmentCode
		}
		// An IoT or reefer event is about its container too; only an
		// equipment event must say whether it is empty.
		containerEvent := ev.EventType == dcsa.EventTypeIoT || ev.EventType == dcsa.EventTypeReefer
		if ev.EventType == dcsa.EventTypeEquipment || containerEvent {
			var ok bool
			if ev.EmptyIndicatorCode, ok = validate.EmptyIndicatorCodes.Canonical(ed.EmptyIndicatorCode); !ok && !(containerEvent && ed.EmptyIndicatorCode == "") {
				return refuse(".equipmentDetails.emptyIndicatorCode", mustBe(ed.EmptyIndicatorCode, validate.EmptyIndicatorCodes)+" (EVENT_DOMAIN 2.0.2 requires it)")
			}
			for _, s := range ed.Seals {
				t, ok := validate.SealTypes.Canonical(s.Type)
				if !ok || s.Number == "" || len(s.Number) > validate.MaxSealNumber {
					continue // 2.0.2 needs a seal's number and type
				}
				src, _ := validate.SealSources.Canonical(s.Source)
				ev.Seals = append(ev.Seals, dcsa.Seal{SealNumber: s.Number, SealSource: src, SealType: t})
			}
		} else {
			ev.ISOEquipmentCode = ""
		}
	}
	if ev.EquipmentReference == "" {
		for _, r := range ev.References {
			if r.ReferenceType == validate.ReferenceTypeEquipment && len(r.ReferenceValue) <= validate.MaxEquipmentReference {
				ev.EquipmentReference = r.ReferenceValue
				break
			}
		}
	}
	if ev.EventType == dcsa.EventTypeEquipment && ev.EmptyIndicatorCode == "" {
		return refuse(".equipmentDetails.emptyIndicatorCode", "required (EVENT_DOMAIN 2.0.2 requires it)")
	}
	return result{}
}

// transport maps transport details and the transport call. A transport
// event without a call gets one at its location (2.0.2 requires it); a
// call without a mode is a VESSEL call; a MULTIMODAL call has no 2.0.2
// mode: a transport event of one is not carried, an equipment event loses
// the call.
func (m *mapper) transport(td *tnt3.TransportDetails, loc *dcsa.Location, ev *dcsa.Event) result {
	var call *tnt3.TransportCall
	if td != nil {
		if len(td.DelayReasonCodes) > 0 && len(td.DelayReasonCodes[0]) <= validate.MaxDelayReasonCode {
			ev.DelayReasonCode = td.DelayReasonCodes[0]
		}
		ev.ChangeRemark = validate.Truncate(td.ChangeRemark, validate.MaxChangeRemark)
		call = td.TransportCall
	}
	if ev.EventType != dcsa.EventTypeTransport {
		ev.DelayReasonCode, ev.ChangeRemark = "", ""
	}
	if call == nil {
		if ev.EventType != dcsa.EventTypeTransport {
			return result{}
		}
		call = &tnt3.TransportCall{}
	}
	tc := &dcsa.TransportCall{ModeOfTransport: "VESSEL"}
	if call.ModeOfTransport != "" {
		mode, ok := validate.ModesOfTransport.Canonical(call.ModeOfTransport)
		switch {
		case ok:
			tc.ModeOfTransport = mode
		case call.ModeOfTransport == "MULTIMODAL" && ev.EventType == dcsa.EventTypeTransport:
			return notCarried("a MULTIMODAL transport call has no EVENT_DOMAIN 2.0.2 modeOfTransport")
		case call.ModeOfTransport == "MULTIMODAL":
			return result{}
		default:
			return refuse(".transportDetails.transportCall.modeOfTransport", strconv.Quote(clip(call.ModeOfTransport))+" is not VESSEL, RAIL, TRUCK, BARGE or MULTIMODAL")
		}
	}
	// A value longer than 2.0.2 allows is left out of the event, counted
	// with the value kept.
	const at = "transportDetails.transportCall."
	fit := func(member, v string, max int) string {
		if len(v) > max && validate.RuneLen(v) > max {
			m.repairs = append(m.repairs, normalize.Repair{Kind: normalize.RepairTooLongLeftOut, Path: at + member, Value: clip(v)})
			return ""
		}
		return v
	}
	tc.TransportCallReference = fit("transportCallReference", call.TransportCallReference, validate.MaxTransportCallReference)
	if n := call.TransportCallSequenceNumber; n != nil {
		seq := *n
		tc.TransportCallSequenceNumber = &seq
	}
	tc.PortVisitReference = fit("portVisitReference", call.PortVisitReference, validate.MaxPortVisitReference)
	if s := call.ServiceCodeOrReference; s != nil {
		tc.CarrierServiceCode = fit("serviceCodeOrReference.carrierServiceCode", s.CarrierServiceCode, validate.MaxCarrierServiceCode)
	}
	if v := call.ExportVoyageNumberOrReference; v != nil {
		if n := fit("exportVoyageNumberOrReference.carrierVoyageNumber", v.CarrierVoyageNumber, validate.MaxVoyageNumber); n != "" {
			tc.CarrierVoyageNumber, tc.ExportVoyageNumber, tc.CarrierExportVoyageNumber = n, n, n
		}
	}
	if v := call.ImportVoyageNumberOrReference; v != nil {
		if n := fit("importVoyageNumberOrReference.carrierVoyageNumber", v.CarrierVoyageNumber, validate.MaxVoyageNumber); n != "" {
			tc.ImportVoyageNumber, tc.CarrierImportVoyageNumber = n, n
		}
	}
	if v := call.VesselTransport; v != nil && validate.IsIMONumber(v.VesselIMONumber) {
		vs := &dcsa.Vessel{VesselIMONumber: v.VesselIMONumber, VesselName: validate.Truncate(v.VesselName, validate.MaxVesselName),
			VesselFlag: fit("vesselTransport.vesselFlag", v.VesselFlag, validate.MaxVesselFlag), VesselCallSignNumber: fit("vesselTransport.vesselCallSign", v.VesselCallSign, validate.MaxVesselCallSignNumber)}
		if p, ok := validate.CarrierCodeListProviders.Canonical(v.OperatorCarrierCodeListProvider); ok && v.OperatorCarrierCode != "" {
			vs.VesselOperatorCarrierCode = fit("vesselTransport.operatorCarrierCode", v.OperatorCarrierCode, validate.MaxVesselOperatorCarrierCode)
			if vs.VesselOperatorCarrierCode != "" {
				vs.VesselOperatorCarrierCodeListProvider = p
			}
		}
		tc.Vessel = vs
	}
	// A transport event happens at its call: the event's location is the call's.
	if ev.EventType == dcsa.EventTypeTransport && loc != nil {
		tc.UNLocationCode, tc.FacilityCode, tc.FacilityCodeListProvider = loc.UNLocationCode, loc.FacilityCode, loc.FacilityCodeListProvider
		if validate.LocationIdentified(loc) {
			l := *loc
			tc.Location = &l
		}
		tc.FacilityTypeCode = ev.FacilityTypeCode
	}
	tc.TransportCallID = identity.TransportCallID(m.env.SCAC, *tc)
	ev.TransportCall = tc
	return result{}
}

// routable says refs name a booking or a transport document.
func routable(refs []dcsa.DocumentReference) bool {
	for _, d := range refs {
		if d.DocumentReferenceType == dcsa.DocBooking || d.DocumentReferenceType == dcsa.DocTransportDoc {
			return true
		}
	}
	return false
}

func mustBe(v string, e validate.Enum) string {
	if v == "" {
		return "required"
	}
	return strconv.Quote(clip(v)) + " is not one of " + e.String()
}

// jsonType names a Go type as the JSON type a field must have.
func jsonType(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "a boolean"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "float"):
		return "a number"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	}
	return "an object"
}

func clip(s string) string {
	if len(s) > 64 {
		return validate.Truncate(s, 60) + "…"
	}
	return s
}
