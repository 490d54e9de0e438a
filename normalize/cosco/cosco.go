// Package cosco normalises COSCO Shipping's cargo tracking JSON
// (schemas/cosco, source format carriers.FormatCOSCO) into DCSA 2.0.2
// equipment and transport events: one event per container event.
//
// Event codes map as schemas/cosco documents them (eventTable is the one
// table). COSCO's published shape (schemas/cosco PublishedResponse: code 0,
// status labels, local times, free-text places) is read too, by
// parsePublished; "//" comments in either are removed and counted
// (normalize.RepairCommentsRemoved). Decisions where the documented shape
// leaves room:
//
//   - Outcomes: "200" is data (no events if its containers have none, or
//     data is null); "404" is no data, not an error. "401", "500", "503" and
//     any other code are not tracking data and fail as a ParseError, so the
//     record is dead-lettered where someone sees it.
//   - An event code COSCO adds later is left out and counted in
//     Stats.Unknown and as a repair (normalize.RepairUnknownCode, the code
//     kept); it does not fail the response. An event that cannot be read
//     is refused on its own (Result.Refused), the others come out.
//   - A number where COSCO documents a string (vesselImo, eventId, code,
//     coordinates...) is read as its digits and counted
//     (normalize.RepairNumberAsString).
//   - eventClassifierCode comes from eventStatus (A, E, P); isActual is only
//     read when eventStatus is missing. eventDateTime is eventTime in
//     timeZone: both are required, as a time without its zone cannot be placed.
//   - emptyIndicatorCode comes from emptyFull (E, F), else the code's
//     default (EPU and ERT empty, the others laden).
//   - eventCreatedDateTime is updateTime (UTC), else Envelope.ReceivedAt.
//   - eventID is identity.EventID over container number and COSCO's eventId:
//     the id is stable across polls (an estimate that moves keeps it), and
//     the container number keeps two containers apart should COSCO share one
//     id for a vessel event of both. Without eventId, identity.EventIDFromFields.
//   - Place: location (UN/LOCODE, name, position) plus the SMDG terminalCode;
//     locationName is the terminal's name when given. Transport events carry
//     it in transportCall.location, equipment events in eventLocation.
//   - transportCall: for the codes that imply a mode (vessel: LOD, DIS, VDL,
//     VAD — BARGE when transportMode says so; rail: RLD, RUL) and for any
//     event that names a vessel or voyage. Vessel only with a 7-digit IMO
//     number, which DCSA 2.0.2 requires of a vessel.
//   - documentReferences: bookingNo (BKG) and blNo (TRD), else the queried
//     number when the query was of that kind.
//   - Pol and pod are not used: they are the shipment's ends, not where an
//     event happened.
package cosco

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/schemas/cosco"
	"github.com/contrack/contrack/schemas/dcsa"
)

// Format names this source format in ParseErrors.
const Format = "cosco"

var _ normalize.Parser = Parse

// mapping is what one COSCO event code becomes.
type mapping struct {
	eventType string // dcsa.EventTypeEquipment or dcsa.EventTypeTransport
	code      string // equipmentEventTypeCode or transportEventTypeCode
	empty     string // emptyIndicatorCode when emptyFull is missing
	mode      string // modeOfTransport the code implies, "" for none
}

// eventTable maps COSCO event codes to DCSA, as schemas/cosco documents them.
var eventTable = map[string]mapping{
	cosco.EventEmptyPickup: {dcsa.EventTypeEquipment, "GTOT", "EMPTY", ""},
	cosco.EventGateIn:      {dcsa.EventTypeEquipment, "GTIN", "LADEN", ""},
	cosco.EventLoad:        {dcsa.EventTypeEquipment, "LOAD", "LADEN", cosco.ModeVessel},
	cosco.EventDeparture:   {dcsa.EventTypeTransport, "DEPA", "", cosco.ModeVessel},
	cosco.EventArrival:     {dcsa.EventTypeTransport, "ARRI", "", cosco.ModeVessel},
	cosco.EventDischarge:   {dcsa.EventTypeEquipment, "DISC", "LADEN", cosco.ModeVessel},
	cosco.EventGateOut:     {dcsa.EventTypeEquipment, "GTOT", "LADEN", ""},
	cosco.EventEmptyReturn: {dcsa.EventTypeEquipment, "GTIN", "EMPTY", ""},
	cosco.EventRailLoad:    {dcsa.EventTypeEquipment, "LOAD", "LADEN", cosco.ModeRail},
	cosco.EventRailUnload:  {dcsa.EventTypeEquipment, "DISC", "LADEN", cosco.ModeRail},
}

// Stats counts what Parse did and what it left out, for logs and alerts.
type Stats struct {
	Containers int
	Events     int // events emitted
	// Unknown counts container events per eventCode the table does not know.
	Unknown map[string]int
}

// Parse is the normalize.Parser for COSCO JSON; ParseStats also counts.
// A refused element's Element is the index of the event among all the
// response's container events (a container's first event for a fault of
// the container itself).
func Parse(raw []byte, env normalize.Envelope) (normalize.Result, error) {
	res, _, err := ParseStats(raw, env)
	return res, err
}

// ParseStats parses one COSCO response. On error it returns no events.
func ParseStats(raw []byte, env normalize.Envelope) (normalize.Result, Stats, error) {
	var st Stats
	var res normalize.Result
	// COSCO's documentation prints its answers with "//" comments: read
	// without them, counted.
	if body, n := cosco.StripComments(raw); n > 0 {
		raw = body
		res.Repairs = append(res.Repairs, normalize.Repair{Kind: normalize.RepairCommentsRemoved, Value: strconv.Itoa(n)})
	}
	if published(raw) {
		return parsePublished(raw, res.Repairs, env)
	}
	var resp cosco.Response
	if err := json.Unmarshal(raw, &resp); err != nil {
		// A number where COSCO documents a string (an IMO number, an id):
		// read as its digits, each counted.
		fixed, repairs := normalize.NumbersAsStrings(raw, stringMembers)
		if repairs == nil || json.Unmarshal(fixed, &resp) != nil {
			return res, st, parseErr("", "not a COSCO response: "+jsonReason(err))
		}
		res.Repairs = append(res.Repairs, repairs...)
	}
	// encoding/json matched member names in any case: those spelt
	// otherwise are counted.
	res.Repairs = append(res.Repairs, normalize.MemberCase(raw, memberNames)...)
	switch resp.Code {
	case cosco.CodeOK:
	case cosco.CodeNotFound:
		return res, st, nil
	case "":
		return res, st, parseErr("code", "missing: not a COSCO response")
	default:
		return res, st, parseErr("code", "COSCO answered "+strconv.Quote(clip(resp.Code))+" ("+clip(resp.Message)+"): not tracking data")
	}
	if resp.Data == nil {
		return res, st, nil
	}
	c := &resp.Data.Content
	docs := documents(c)
	n := 0
	for i := range c.Containers {
		n += len(c.Containers[i].Events)
	}
	events := make([]dcsa.Event, 0, n)
	element := 0 // the flat index of the next container event
	for i := range c.Containers {
		ctr := &c.Containers[i]
		path := "data.content.containers[" + strconv.Itoa(i) + "]"
		st.Containers++
		first := element
		element += len(ctr.Events)
		id := strings.ToUpper(strings.TrimSpace(ctr.ContainerNo))
		if len(id) > validate.MaxEquipmentReference {
			pe := parseErr(path+".containerNo", strconv.Quote(clip(id))+" is longer than 15 characters")
			pe.Element = first
			res.Refused = append(res.Refused, pe)
			continue
		}
		iso := strings.ToUpper(strings.TrimSpace(ctr.IsoCode))
		if len(iso) != validate.MaxISOEquipmentCode || !alnum(iso) {
			iso = ""
		}
		for j := range ctr.Events {
			ev := &ctr.Events[j]
			m, ok := eventTable[ev.EventCode]
			if !ok {
				if st.Unknown == nil {
					st.Unknown = map[string]int{}
				}
				st.Unknown[ev.EventCode]++
				res.Repairs = append(res.Repairs, normalize.Repair{Kind: normalize.RepairUnknownCode,
					Path: path + ".events[" + strconv.Itoa(j) + "].eventCode", Value: ev.EventCode})
				continue
			}
			e, err := event(ev, m, id, iso, docs, env, path+".events["+strconv.Itoa(j)+"]")
			if err != nil {
				var pe *normalize.ParseError
				if errors.As(err, &pe) {
					pe.Element = first + j
					res.Refused = append(res.Refused, pe)
					continue
				}
				return normalize.Result{}, st, err
			}
			events = append(events, e)
		}
	}
	st.Events = len(events)
	res.Events = events
	return res, st, nil
}

func event(ev *cosco.Event, m mapping, container, iso string, docs []dcsa.DocumentReference, env normalize.Envelope, path string) (dcsa.Event, error) {
	e := dcsa.Event{
		EventType:          m.eventType,
		EquipmentReference: container,
		DocumentReferences: slices.Clone(docs), // every event owns its parts
	}
	if len(env.SCAC) <= validate.MaxCarrierCode {
		e.CarrierCode = env.SCAC
	}
	switch ev.EventStatus {
	case cosco.StatusActual:
		e.EventClassifierCode = dcsa.ClassifierActual
	case cosco.StatusEstimated:
		e.EventClassifierCode = dcsa.ClassifierEstimated
	case cosco.StatusPlanned:
		e.EventClassifierCode = dcsa.ClassifierPlanned
	case "":
		e.EventClassifierCode = dcsa.ClassifierEstimated
		if ev.IsActual {
			e.EventClassifierCode = dcsa.ClassifierActual
		}
	default:
		return e, parseErr(path+".eventStatus", strconv.Quote(clip(ev.EventStatus))+" is not A, E or P")
	}
	happened, err := eventTime(ev)
	if err != nil {
		return e, parseErr(path+".eventTime", strconv.Quote(clip(ev.EventTime))+" with timeZone "+strconv.Quote(clip(ev.TimeZone))+" is not "+cosco.EventTimeLayout+" ±HH:MM")
	}
	created := env.ReceivedAt.UTC().Truncate(time.Second)
	if ev.UpdateTime != "" {
		var ok bool
		if created, ok = localTime(ev.UpdateTime, time.UTC); !ok {
			if created, err = time.Parse(cosco.EventTimeLayout, ev.UpdateTime); err != nil {
				return e, parseErr(path+".updateTime", strconv.Quote(clip(ev.UpdateTime))+" is not "+cosco.EventTimeLayout)
			}
		}
	} else if env.ReceivedAt.IsZero() {
		return e, parseErr(path+".updateTime", "missing, and no receipt time to use instead")
	}
	if te := validate.EventTimes(created, happened, e.EventClassifierCode, env.ReceivedAt); te != nil {
		field := ".eventTime"
		if te.Field == "eventCreatedDateTime" {
			field = ".updateTime"
		}
		return e, parseErr(path+field, te.Error())
	}
	e.EventDateTime = happened.Format(time.RFC3339)
	e.EventCreatedDateTime = created.Format(time.RFC3339)

	loc := location(ev)
	if mode := transportMode(ev, m); mode != "" {
		e.TransportCall = transportCall(ev, mode, loc, env.SCAC)
	}
	if m.eventType == dcsa.EventTypeEquipment {
		e.EquipmentEventTypeCode = m.code
		e.ISOEquipmentCode = iso
		e.EventLocation = loc
		switch ev.EmptyFull {
		case cosco.Empty:
			e.EmptyIndicatorCode = "EMPTY"
		case cosco.Full:
			e.EmptyIndicatorCode = "LADEN"
		default:
			e.EmptyIndicatorCode = m.empty
		}
	} else {
		e.TransportEventTypeCode = m.code
		if e.TransportCall == nil { // cannot happen: transport codes imply a mode
			return e, parseErr(path, "transport event without a transport call")
		}
	}
	if ev.EventID != "" {
		e.EventID = identity.EventID(env.SCAC, container+"/"+canonicalID(ev.EventID))
	} else {
		e.EventID = identity.EventIDFromFields(e, env.SCAC)
	}
	return e, nil
}

// eventTime is ev.Time, with a fast path for well-formed values: time.Parse
// is a tenth of the cost of a whole event. Anything the fast path does not
// take goes to ev.Time, so the two cannot disagree on what is valid.
func eventTime(ev *cosco.Event) (time.Time, error) {
	if off, ok := offset(ev.TimeZone); ok {
		if t, ok := localTime(ev.EventTime, normalize.FixedZone(off)); ok {
			return t, nil
		}
	}
	return ev.Time()
}

// localTime parses cosco.EventTimeLayout ("2006-01-02 15:04:05") in loc.
func localTime(s string, loc *time.Location) (time.Time, bool) {
	if len(s) != 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	y, ok1 := normalize.Digits(s[0:4])
	mo, ok2 := normalize.Digits(s[5:7])
	d, ok3 := normalize.Digits(s[8:10])
	h, ok4 := normalize.Digits(s[11:13])
	mi, ok5 := normalize.Digits(s[14:16])
	sec, ok6 := normalize.Digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, 0, loc)
	if t.Day() != d { // 31 April rolls over
		return time.Time{}, false
	}
	return t, true
}

// offset parses "+08:00" style UTC offsets.
func offset(s string) (int, bool) {
	if len(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
		return 0, false
	}
	h, ok1 := normalize.Digits(s[1:3])
	m, ok2 := normalize.Digits(s[4:6])
	if !ok1 || !ok2 || h > 14 || m > 59 {
		return 0, false
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, true
}

// transportMode is the mode of the event's transport call, "" for none. The
// code's mode wins over transportMode unless transportMode refines it (a
// vessel event on a barge).
func transportMode(ev *cosco.Event, m mapping) string {
	tm := ev.TransportMode
	if !validate.ModesOfTransport.Has(tm) {
		tm = ""
	}
	switch {
	case m.mode == cosco.ModeVessel && tm == cosco.ModeBarge:
		return cosco.ModeBarge
	case m.mode != "":
		return m.mode
	case ev.VesselImo != "" || ev.VoyageNo != "":
		if tm == "" {
			return cosco.ModeVessel
		}
		return tm
	}
	return ""
}

// location is where the event happened, nil when COSCO gives nothing usable.
func location(ev *cosco.Event) *dcsa.Location {
	l := ev.Location
	loc := &dcsa.Location{LocationName: strings.TrimSpace(l.Name)}
	if n := strings.TrimSpace(ev.TerminalName); n != "" {
		loc.LocationName = n
	}
	loc.LocationName = validate.Truncate(loc.LocationName, validate.MaxLocationName)
	if u := strings.ToUpper(strings.TrimSpace(l.Unlocode)); validate.IsUNLocationCode(u) {
		loc.UNLocationCode = u
		if t := strings.TrimSpace(ev.TerminalCode); t != "" && len(t) <= validate.MaxFacilityCode {
			loc.FacilityCode, loc.FacilityCodeListProvider = t, "SMDG"
		}
	}
	if lat, lon := strings.TrimSpace(l.Latitude), strings.TrimSpace(l.Longitude); coordinate(lat, 90, validate.MaxLatitude) && coordinate(lon, 180, validate.MaxLongitude) {
		loc.Latitude, loc.Longitude = lat, lon
	}
	if *loc == (dcsa.Location{}) {
		return nil
	}
	return loc
}

// coordinate accepts decimal degrees within ±limit that fit DCSA's maxLength.
func coordinate(s string, limit float64, maxLen int) bool {
	if s == "" || len(s) > maxLen {
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f >= -limit && f <= limit
}

// transportCall builds the call the event happened at. Its id is
// identity.TransportCallID over mode, voyage, vessel and UN/LOCODE, so every
// event of one call shares it.
func transportCall(ev *cosco.Event, mode string, loc *dcsa.Location, scac string) *dcsa.TransportCall {
	tc := &dcsa.TransportCall{ModeOfTransport: mode}
	if v := strings.TrimSpace(ev.VoyageNo); len(v) <= validate.MaxVoyageNumber {
		tc.CarrierVoyageNumber = v
	}
	if s := strings.TrimSpace(ev.ServiceCode); len(s) <= validate.MaxCarrierServiceCode {
		tc.CarrierServiceCode = s
	}
	if imo := strings.TrimSpace(ev.VesselImo); validate.IsIMONumber(imo) && (mode == cosco.ModeVessel || mode == cosco.ModeBarge) {
		tc.Vessel = &dcsa.Vessel{VesselIMONumber: imo, VesselName: validate.Truncate(strings.TrimSpace(ev.VesselName), validate.MaxVesselName)}
	}
	if loc != nil && loc.UNLocationCode != "" {
		tc.UNLocationCode = loc.UNLocationCode
	}
	key := *tc
	tc.TransportCallID = identity.TransportCallID(scac, key)
	if loc != nil && validate.LocationIdentified(loc) {
		l := *loc
		tc.Location = &l
	}
	return tc
}

// documents are the shipment's booking and bill of lading numbers.
func documents(c *cosco.Content) []dcsa.DocumentReference {
	bkg, bl := strings.TrimSpace(c.BookingNo), strings.TrimSpace(c.BlNo)
	if bkg == "" && c.TrackingType == cosco.TrackingBooking {
		bkg = strings.TrimSpace(c.TrackingNo)
	}
	if bl == "" && c.TrackingType == cosco.TrackingBill {
		bl = strings.TrimSpace(c.TrackingNo)
	}
	var docs []dcsa.DocumentReference
	if bkg != "" {
		docs = append(docs, dcsa.DocumentReference{DocumentReferenceType: dcsa.DocBooking, DocumentReferenceValue: bkg})
	}
	if bl != "" {
		docs = append(docs, dcsa.DocumentReference{DocumentReferenceType: dcsa.DocTransportDoc, DocumentReferenceValue: bl})
	}
	return docs
}

// canonicalID lower-cases COSCO's event id when it is hex (a UUID or hash),
// the form identity.EventID expects; other ids are kept as sent.
func canonicalID(id string) string {
	id = strings.TrimSpace(id)
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F') && c != '-' {
			return id
		}
	}
	return strings.ToLower(id)
}

func alnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// jsonReason says what is wrong with the JSON without quoting the payload.
// memberNames are the members of a COSCO response, by lower-case form.
var memberNames = normalize.MemberNames(cosco.Response{})

// stringMembers are the members of a COSCO response typed string that
// carry numbers' digits: codes, ids, numbers and coordinates.
var stringMembers = map[string]bool{
	"code": true, "trackingNo": true, "bookingNo": true, "blNo": true, "containerNo": true, "eventId": true,
	"vesselImo": true, "voyageNo": true, "serviceCode": true, "latitude": true, "longitude": true, "terminalCode": true,
}

func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "invalid JSON at byte " + strconv.FormatInt(se.Offset, 10)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Field + ": " + te.Value + " where " + te.Type.String() + " was expected"
	}
	return err.Error()
}

func parseErr(path, reason string) *normalize.ParseError {
	return &normalize.ParseError{Format: Format, Path: path, Reason: reason}
}

// clip shortens untrusted text quoted in error messages.
func clip(s string) string {
	if len(s) > 40 {
		return validate.Truncate(s, 40) + "…"
	}
	return s
}
