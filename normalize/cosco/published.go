package cosco

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/schemas/cosco"
	"github.com/contrack/contrack/schemas/dcsa"
)

// labelTable maps the status labels of COSCO's published shape to DCSA, by
// lower-case label. A label not here is left out and counted
// (normalize.RepairUnknownCode, the label kept).
var labelTable = map[string]mapping{
	strings.ToLower(cosco.LabelEmptyDespatched):   {dcsa.EventTypeEquipment, "GTOT", "EMPTY", ""},
	strings.ToLower(cosco.LabelGateInFirstPOL):    {dcsa.EventTypeEquipment, "GTIN", "LADEN", ""},
	strings.ToLower(cosco.LabelLoadedFirstPOL):    {dcsa.EventTypeEquipment, "LOAD", "LADEN", cosco.ModeVessel},
	strings.ToLower(cosco.LabelDischargedTSPOD):   {dcsa.EventTypeEquipment, "DISC", "LADEN", cosco.ModeVessel},
	strings.ToLower(cosco.LabelLoadedTSPOL):       {dcsa.EventTypeEquipment, "LOAD", "LADEN", cosco.ModeVessel},
	strings.ToLower(cosco.LabelDischargedLastPOD): {dcsa.EventTypeEquipment, "DISC", "LADEN", cosco.ModeVessel},
	strings.ToLower(cosco.LabelGateOutLastPOD):    {dcsa.EventTypeEquipment, "GTOT", "LADEN", ""},
	strings.ToLower(cosco.LabelGateInFinalHub):    {dcsa.EventTypeEquipment, "GTIN", "LADEN", ""},
	strings.ToLower(cosco.LabelGateOutFinalHub):   {dcsa.EventTypeEquipment, "GTOT", "LADEN", ""},
	strings.ToLower(cosco.LabelEmptyReturned):     {dcsa.EventTypeEquipment, "GTIN", "EMPTY", ""},
}

// shipmentLabels are published statuses of the shipment, not of the
// equipment: DCSA has them as SHIPMENT events, which 2.0.2 does not carry.
var shipmentLabels = map[string]string{
	strings.ToLower(cosco.LabelCargoReceived): "RECE",
}

// transportations maps the published "transportation" to modeOfTransport;
// " " (as COSCO sends on discharges) is none.
var transportations = map[string]string{
	strings.ToLower(cosco.TransportationVessel):     cosco.ModeVessel,
	strings.ToLower(cosco.TransportationTruck):      cosco.ModeTruck,
	strings.ToLower(cosco.TransportationRail):       cosco.ModeRail,
	strings.ToLower(cosco.TransportationBargeLabel): cosco.ModeBarge,
}

// published reports whether body (comments removed) is in the published
// shape: its "code" is a JSON number, and it is 0 or data says its type
// (the documented shape's codes are strings, but a number there is read
// as its digits).
func published(body []byte) bool {
	var probe struct {
		Code json.RawMessage `json:"code"`
		Data *struct {
			Type *string `json:"type"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &probe) != nil || len(probe.Code) == 0 {
		return false
	}
	c := probe.Code[0]
	if c != '-' && (c < '0' || c > '9') {
		return false
	}
	return string(probe.Code) == "0" || (probe.Data != nil && probe.Data.Type != nil)
}

// parsePublished reads COSCO's published shape:
//
//   - code 0 is an answer; content null (type "none") is no data; any other
//     code fails as a ParseError.
//   - Events: every status of a container (containerCircleStatus and
//     containerHistorys, by container) or each container's latest status
//     (containerStatus, by bill of lading or booking), by labelTable. A
//     shipment label ("Cargo Received") is left out as not carried; an
//     unknown label is left out and counted, the label kept.
//   - Times are local wall times with no offset, and the place is free
//     text that cannot say its zone: read as UTC, each counted
//     (normalize.RepairLocalTimeAsUTC), the digits as COSCO wrote them.
//   - The place is kept as locationName, and split from the right into
//     the address's country, state, city and name ("terminal,city,state,
//     country").
//   - The vessel legs (actualShipment) become TRANSPORT DEPA and ARRI
//     events (actual, else estimated), with the voyage and service; the
//     vessel has no IMO number and is left out, its name kept
//     (normalize.RepairIncompleteVesselLeftOut).
//   - documentReferences: trackingPath's booking (billOfladingRefCode, as
//     documented) and bill of lading (trackingGroupReferenceCode).
//   - eventID: identity.EventID over container number and COSCO's uuid
//     (the leg's vessel, voyage and port for a leg event).
func parsePublished(body []byte, repairs []normalize.Repair, env normalize.Envelope) (normalize.Result, Stats, error) {
	var st Stats
	res := normalize.Result{Repairs: repairs}
	var resp cosco.PublishedResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return normalize.Result{}, st, parseErr("", "not a COSCO response: "+jsonReason(err))
	}
	res.Repairs = append(res.Repairs, normalize.MemberCase(body, publishedMembers)...)
	if code, err := resp.Code.Int64(); err != nil || code != cosco.PublishedCodeOK {
		return normalize.Result{}, st, parseErr("code", "COSCO answered "+strconv.Quote(clip(resp.Code.String()))+" ("+clip(resp.Message)+"): not tracking data")
	}
	if resp.Data == nil || resp.Data.Content == nil {
		return res, st, nil
	}
	c := resp.Data.Content
	p := publishedMapper{env: env, res: &res, st: &st}
	if tp := c.TrackingPath; tp != nil {
		p.docs = publishedDocuments(tp)
	}
	element := 0
	for i := range c.Containers {
		ctr := &c.Containers[i]
		st.Containers++
		path := "data.content.containers[" + strconv.Itoa(i) + "]"
		for j := range ctr.CircleStatus {
			p.status(&ctr.CircleStatus[j], path+".containerCircleStatus["+strconv.Itoa(j)+"]", element)
			element++
		}
		for j := range ctr.Histories {
			p.status(&ctr.Histories[j], path+".containerHistorys["+strconv.Itoa(j)+"]", element)
			element++
		}
	}
	for i := range c.ContainerStatus {
		group := &c.ContainerStatus[i]
		for j := range group.Containers {
			s := &group.Containers[j]
			st.Containers++
			label := s.Label
			if strings.TrimSpace(label) == "" {
				label = group.Label
			}
			p.status(&cosco.PublishedStatus{UUID: s.ContainerUUID, ContainerNumber: s.ContainerNumber, Status: label,
				Location: s.Location, TimeOfIssue: s.LocationDateTime, Transportation: s.Transportation},
				"data.content.containerStatus["+strconv.Itoa(i)+"].containers["+strconv.Itoa(j)+"]", element)
			element++
		}
	}
	for i := range c.ActualShipment {
		p.leg(&c.ActualShipment[i], "data.content.actualShipment["+strconv.Itoa(i)+"]", &element)
	}
	st.Events = len(res.Events)
	return res, st, nil
}

type publishedMapper struct {
	env  normalize.Envelope
	docs []dcsa.DocumentReference
	res  *normalize.Result
	st   *Stats
}

func (p *publishedMapper) refuse(path, reason string, element int) {
	pe := parseErr(path, reason)
	pe.Element = element
	p.res.Refused = append(p.res.Refused, pe)
}

func (p *publishedMapper) repair(kind normalize.RepairKind, path, value string) {
	p.res.Repairs = append(p.res.Repairs, normalize.Repair{Kind: kind, Path: path, Value: value})
}

// status is one container status.
func (p *publishedMapper) status(s *cosco.PublishedStatus, path string, element int) {
	label := strings.ToLower(strings.TrimSpace(s.Status))
	if code, ok := shipmentLabels[label]; ok {
		p.repair(normalize.RepairNotCarriedLeftOut, path+".containerNumberStatus",
			strconv.Quote(s.Status)+" is a shipment milestone (DCSA SHIPMENT "+code+"); contrack forwards EQUIPMENT and TRANSPORT events")
		return
	}
	m, ok := labelTable[label]
	if !ok {
		if p.st.Unknown == nil {
			p.st.Unknown = map[string]int{}
		}
		p.st.Unknown[s.Status]++
		p.repair(normalize.RepairUnknownCode, path+".containerNumberStatus", s.Status)
		return
	}
	id := strings.ToUpper(strings.TrimSpace(s.ContainerNumber))
	if id == "" || len(id) > validate.MaxEquipmentReference {
		p.refuse(path+".containerNumber", strconv.Quote(clip(id))+" is not a container number", element)
		return
	}
	happened, ok := p.localTime(s.TimeOfIssue, path+".timeOfIssue")
	if !ok {
		p.refuse(path+".timeOfIssue", strconv.Quote(clip(s.TimeOfIssue))+" is not "+cosco.PublishedTimeLayout, element)
		return
	}
	e := dcsa.Event{
		EventType:              m.eventType,
		EventClassifierCode:    dcsa.ClassifierActual, // statuses are what happened
		EquipmentReference:     id,
		EquipmentEventTypeCode: m.code,
		EmptyIndicatorCode:     m.empty,
		DocumentReferences:     append([]dcsa.DocumentReference(nil), p.docs...),
		EventLocation:          freeTextLocation(s.Location),
	}
	if !p.times(&e, happened, path, element) {
		return
	}
	mode := m.mode
	if t := transportations[strings.ToLower(strings.TrimSpace(s.Transportation))]; t != "" && (mode == "" || (mode == cosco.ModeVessel && t == cosco.ModeBarge)) {
		mode = t
	}
	if mode != "" {
		tc := &dcsa.TransportCall{ModeOfTransport: mode}
		tc.TransportCallID = identity.TransportCallID(p.env.SCAC, *tc)
		e.TransportCall = tc
	}
	source := strings.TrimSpace(s.UUID)
	if source == "" {
		e.EventID = identity.EventIDFromFields(e, p.env.SCAC)
	} else {
		e.EventID = identity.EventID(p.env.SCAC, id+"/"+source)
	}
	p.res.Events = append(p.res.Events, e)
}

// leg is one vessel leg: its departure and its arrival.
func (p *publishedMapper) leg(l *cosco.PublishedLeg, path string, element *int) {
	for _, call := range []struct {
		code, port, actual, estimated, actualField, estimatedField string
	}{
		{"DEPA", l.PortOfLoading, l.ActualDepartureDate, l.ExpectedDateOfDeparture, "actualDepartureDate", "expectedDateOfDeparture"},
		{"ARRI", l.PortOfDischarge, l.ActualArrivalDate, l.EstimatedDateOfArrival, "actualArrivalDate", "estimatedDateOfArrival"},
	} {
		el := *element
		*element++
		classifier, when, field := dcsa.ClassifierActual, call.actual, call.actualField
		if strings.TrimSpace(when) == "" {
			classifier, when, field = dcsa.ClassifierEstimated, call.estimated, call.estimatedField
		}
		if strings.TrimSpace(when) == "" {
			continue // a leg not yet scheduled
		}
		happened, ok := p.localTime(when, path+"."+field)
		if !ok {
			p.refuse(path+"."+field, strconv.Quote(clip(when))+" is not "+cosco.PublishedTimeLayout, el)
			continue
		}
		if len(p.docs) == 0 {
			p.refuse(path, "a vessel leg with no booking or bill of lading to say whose it is", el)
			continue
		}
		tc := &dcsa.TransportCall{ModeOfTransport: cosco.ModeVessel}
		if v := strings.TrimSpace(l.VoyageNo); len(v) <= validate.MaxVoyageNumber {
			tc.CarrierVoyageNumber = v
		}
		if s := strings.TrimSpace(l.Service); len(s) <= validate.MaxCarrierServiceCode {
			tc.CarrierServiceCode = s
		}
		// A port given by its name alone is no DCSA location: the call
		// names it as otherFacility.
		if loc := freeTextLocation(call.port); loc != nil && validate.LocationIdentified(loc) {
			tc.Location = loc
		} else {
			tc.OtherFacility = validate.Truncate(strings.TrimSpace(call.port), validate.MaxOtherFacility)
		}
		tc.TransportCallID = identity.TransportCallID(p.env.SCAC, dcsa.TransportCall{ModeOfTransport: tc.ModeOfTransport,
			CarrierVoyageNumber: tc.CarrierVoyageNumber, CarrierServiceCode: tc.CarrierServiceCode, OtherFacility: strings.TrimSpace(call.port)})
		if name := strings.TrimSpace(l.VesselName); name != "" {
			p.repair(normalize.RepairIncompleteVesselLeftOut, path+".vesselName", name)
		}
		e := dcsa.Event{
			EventType:              dcsa.EventTypeTransport,
			EventClassifierCode:    classifier,
			TransportEventTypeCode: call.code,
			TransportCall:          tc,
			DocumentReferences:     append([]dcsa.DocumentReference(nil), p.docs...),
		}
		if !p.times(&e, happened, path+"."+field, el) {
			continue
		}
		e.EventID = identity.EventID(p.env.SCAC, "leg/"+strings.TrimSpace(l.VesselName)+"/"+tc.CarrierVoyageNumber+"/"+strings.TrimSpace(call.port)+"/"+call.code)
		p.res.Events = append(p.res.Events, e)
	}
}

// localTime reads a published time as UTC and counts it.
func (p *publishedMapper) localTime(s, path string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(cosco.PublishedTimeLayout, s)
	if err != nil {
		if t, err = time.Parse(cosco.PublishedTimeLayoutSeconds, s); err != nil {
			return time.Time{}, false
		}
	}
	p.repair(normalize.RepairLocalTimeAsUTC, path, s)
	return t, true
}

// times sets eventDateTime and eventCreatedDateTime (the receipt: the
// published shape has no update time), or refuses the element.
func (p *publishedMapper) times(e *dcsa.Event, happened time.Time, path string, element int) bool {
	if p.env.ReceivedAt.IsZero() {
		p.refuse(path, "no receipt time to stand for the event's creation", element)
		return false
	}
	created := p.env.ReceivedAt.UTC().Truncate(time.Second)
	if te := validate.EventTimes(created, happened, e.EventClassifierCode, p.env.ReceivedAt); te != nil {
		p.refuse(path, te.Error(), element)
		return false
	}
	if len(p.env.SCAC) <= validate.MaxCarrierCode {
		e.CarrierCode = p.env.SCAC
	}
	e.EventDateTime = happened.Format(time.RFC3339)
	e.EventCreatedDateTime = created.Format(time.RFC3339)
	return true
}

// freeTextLocation is a published place, "terminal,city,state,country":
// the whole text as locationName, and its parts from the right as the
// address (a terminal name may itself hold commas). nil for no text.
func freeTextLocation(s string) *dcsa.Location {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	loc := &dcsa.Location{LocationName: validate.Truncate(s, validate.MaxLocationName)}
	parts := strings.Split(s, ",")
	if len(parts) < 4 {
		return loc
	}
	n := len(parts)
	a := &dcsa.Address{
		Name:        validate.Truncate(strings.TrimSpace(strings.Join(parts[:n-3], ",")), validate.MaxAddressName),
		City:        validate.Truncate(strings.TrimSpace(parts[n-3]), validate.MaxCity),
		StateRegion: validate.Truncate(strings.TrimSpace(parts[n-2]), validate.MaxStateRegion),
		Country:     validate.Truncate(strings.TrimSpace(parts[n-1]), validate.MaxCountry),
	}
	loc.Address = a
	return loc
}

// publishedDocuments are the booking and bill of lading of trackingPath.
func publishedDocuments(tp *cosco.PublishedTrackingPath) []dcsa.DocumentReference {
	var docs []dcsa.DocumentReference
	if b := strings.TrimSpace(tp.BillOfLadingRefCode); b != "" && len(b) <= validate.MaxReferenceValue {
		docs = append(docs, dcsa.DocumentReference{DocumentReferenceType: dcsa.DocBooking, DocumentReferenceValue: b})
	}
	if b := strings.TrimSpace(tp.TrackingGroupReferenceCode); b != "" && len(b) <= validate.MaxReferenceValue {
		docs = append(docs, dcsa.DocumentReference{DocumentReferenceType: dcsa.DocTransportDoc, DocumentReferenceValue: b})
	}
	return docs
}

// publishedMembers are the members of the published shape, by lower-case form.
var publishedMembers = normalize.MemberNames(cosco.PublishedResponse{})
