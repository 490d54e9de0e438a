package tnt22

import (
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/schemas/dcsa"
)

// eventTypeShipment is the TNT 2.2 event kind contrack does not emit.
const eventTypeShipment = "SHIPMENT"

// mapper turns decoded source events into 2.0.2 events for one payload.
type mapper struct {
	env     normalize.Envelope
	lenient bool // see Options.Lenient
	noIDs   bool // see Options.CheckOnly
	// repairs are the deviations of the element being mapped, paths below it.
	repairs []normalize.Repair
}

func (m *mapper) repair(kind normalize.RepairKind, path, value string) {
	m.repairs = append(m.repairs, normalize.Repair{Kind: kind, Path: path, Value: value})
}

// maxSourceEventID bounds a source event id that is not a UUID (TNT 3.0's
// eventID maxLength): longer, it is not an id but a fault.
const maxSourceEventID = 500

// zoned gives a zone-less timestamp the UTC designator in lenient mode.
func (m *mapper) zoned(ts string) string {
	if !m.lenient || len(ts) < 11 || ts[10] != 'T' {
		return ts
	}
	clock := ts[11:]
	if strings.ContainsAny(clock, "Zz+-") {
		return ts
	}
	return ts + "Z"
}

// mapEvent validates s and builds its 2.0.2 event. It returns the source's
// canonical event id ("" when it has none) for the duplicate check, and
// emit=false for SHIPMENT events, which are checked and dropped.
func (m *mapper) mapEvent(s *srcEvent) (ev dcsa.Event, sourceID string, emit bool, err error) {
	switch s.eventType {
	case dcsa.EventTypeEquipment:
		ev.EventType = dcsa.EventTypeEquipment
	case dcsa.EventTypeTransport:
		ev.EventType = dcsa.EventTypeTransport
	case eventTypeShipment:
	case "":
		return ev, "", false, at("eventType", fail("required (the element is not a DCSA event)"))
	default:
		return ev, "", false, at("eventType", fail(strconv.Quote(clip(s.eventType))+" is not EQUIPMENT, TRANSPORT or SHIPMENT"))
	}

	if s.eventID != "" {
		id, err := uuid.Parse(s.eventID)
		switch {
		case err == nil:
			sourceID = id.String()
		case len(s.eventID) > maxSourceEventID:
			return ev, "", false, at("eventID", fail(strconv.Quote(clip(s.eventID))+" is neither a UUID nor an id of at most 500 characters"))
		default:
			// Carriers send hashes and sequence numbers: the id is still
			// the source's own, and the event's id is derived from it.
			sourceID = s.eventID
			m.repair(normalize.RepairEventIDNotUUID, "eventID", s.eventID)
		}
	}
	if err := m.times(s, &ev); err != nil {
		return ev, sourceID, false, err
	}
	if s.eventType == eventTypeShipment {
		return ev, sourceID, false, nil
	}

	if err := m.common(s, &ev); err != nil {
		return ev, sourceID, false, err
	}
	if ev.EventType == dcsa.EventTypeEquipment {
		err = m.equipment(s, &ev)
	} else {
		err = m.transport(s, &ev)
	}
	if err != nil {
		return ev, sourceID, false, err
	}
	switch {
	case m.noIDs:
	case sourceID != "":
		ev.EventID = identity.EventID(m.env.SCAC, sourceID)
	default:
		ev.EventID = identity.EventIDFromFields(ev, m.env.SCAC)
	}
	return ev, sourceID, true, nil
}

// times checks and canonicalises the base event's classifier and timestamps;
// it runs for every element, SHIPMENT included, so a broken feed is noticed
// whatever kind of event carries the fault.
func (m *mapper) times(s *srcEvent, ev *dcsa.Event) error {
	var err error
	if ev.EventClassifierCode, err = code("eventClassifierCode", validate.EventClassifierCodes, s.eventClassifierCode); err != nil {
		return err
	}
	if s.eventCreatedDateTime == "" && m.lenient {
		received := m.env.ReceivedAt
		if received.IsZero() {
			received = time.Now()
		}
		s.eventCreatedDateTime = received.UTC().Format(time.RFC3339Nano)
	}
	if s.eventCreatedDateTime == "" {
		return at("eventCreatedDateTime", fail("required"))
	}
	created, ct, err := validate.Timestamp(m.zoned(s.eventCreatedDateTime))
	if err != nil {
		return at("eventCreatedDateTime", err)
	}
	if s.eventDateTime == "" {
		return at("eventDateTime", fail("required"))
	}
	happened, ht, err := validate.Timestamp(m.zoned(s.eventDateTime))
	if err != nil {
		return at("eventDateTime", err)
	}
	if te := validate.EventTimes(ct, ht, ev.EventClassifierCode, m.env.ReceivedAt); te != nil {
		return at(te.Field, fail(te.Reason))
	}
	ev.EventCreatedDateTime, ev.EventDateTime = created, happened
	return nil
}

// common maps what both emitted kinds share.
func (m *mapper) common(s *srcEvent, ev *dcsa.Event) error {
	ev.CarrierCode = m.env.SCAC
	for i, d := range s.documentReferences {
		t, err := code("documentReferenceType", validate.DocumentReferenceTypes, d.DocumentReferenceType)
		if err != nil {
			return at("documentReferences", at(index(i), err))
		}
		if d.DocumentReferenceValue == "" {
			return at("documentReferences", at(index(i), at("documentReferenceValue", fail("required"))))
		}
		s.documentReferences[i].DocumentReferenceType = t
	}
	ev.DocumentReferences = s.documentReferences
	for i, r := range s.references {
		t, err := code("referenceType", validate.ReferenceTypes, r.ReferenceType)
		if err == nil {
			err = ident("referenceValue", r.ReferenceValue, validate.MaxReferenceValue, true)
		}
		if err != nil {
			return at("references", at(index(i), err))
		}
		s.references[i].ReferenceType = t
	}
	ev.References = s.references
	if s.facilityTypeCode != "" {
		t, err := code("facilityTypeCode", validate.FacilityTypeCodes, s.facilityTypeCode)
		if err != nil {
			return err
		}
		ev.FacilityTypeCode = t
	}
	if s.transportCall != nil && s.transportCall.TransportCallID == "" {
		s.transportCall.TransportCallID = s.transportCallID // deprecated root copy
	}
	if s.equipmentReference != "" {
		if err := ident("equipmentReference", s.equipmentReference, validate.MaxEquipmentReference, false); err != nil {
			return err
		}
		ev.EquipmentReference = s.equipmentReference
	} else {
		ev.EquipmentReference = m.equipmentFromReferences(ev.References)
	}
	return nil
}

// equipmentFromReferences picks the container an event is about from its EQ
// references: the one the payload was polled for if listed (a transport
// event of a booking lists every container on it), else the first. Every
// reference stays in references, so nothing is lost.
func (m *mapper) equipmentFromReferences(refs []dcsa.Reference) string {
	first := ""
	for _, r := range refs {
		if r.ReferenceType != validate.ReferenceTypeEquipment || len(r.ReferenceValue) > validate.MaxEquipmentReference {
			continue
		}
		if m.env.TrackingID != "" && r.ReferenceValue == m.env.TrackingID {
			return r.ReferenceValue
		}
		if first == "" {
			first = r.ReferenceValue
		}
	}
	return first
}

func (m *mapper) equipment(s *srcEvent, ev *dcsa.Event) error {
	var err error
	if ev.EquipmentEventTypeCode, err = typeCode("equipmentEventTypeCode", validate.EquipmentEventTypeCodes, s.equipmentEventTypeCode, s.eventTypeCode); err != nil {
		return err
	}
	if ev.EmptyIndicatorCode, err = code("emptyIndicatorCode", validate.EmptyIndicatorCodes, s.emptyIndicatorCode); err != nil {
		return err
	}
	if err := ident("ISOEquipmentCode", s.isoEquipmentCode, validate.MaxISOEquipmentCode, false); err != nil {
		return err
	}
	ev.ISOEquipmentCode = s.isoEquipmentCode
	if ev.EventLocation, err = m.location("eventLocation", s.eventLocation); err != nil {
		return at("eventLocation", err)
	}
	if s.transportCall != nil {
		if ev.TransportCall, err = m.transportCall(s.transportCall); err != nil {
			return at("transportCall", err)
		}
	}
	seals := s.seals[:0]
	for i, sl := range s.seals {
		if sl.SealNumber == "" || sl.SealType == "" {
			// Both are required of a seal; an incomplete one is left out of
			// the event, and what it said kept in the repair.
			m.repair(normalize.RepairIncompleteSealLeftOut, "seals"+index(i), sl.SealNumber+"/"+sl.SealType)
			continue
		}
		if err := seal(&sl); err != nil {
			return at("seals", at(index(i), err))
		}
		seals = append(seals, sl)
	}
	if len(seals) > 0 {
		ev.Seals = seals
	}
	return nil
}

func seal(s *dcsa.Seal) error {
	if err := ident("sealNumber", s.SealNumber, validate.MaxSealNumber, true); err != nil {
		return err
	}
	t, err := code("sealType", validate.SealTypes, s.SealType)
	if err != nil {
		return err
	}
	s.SealType = t
	if s.SealSource != "" {
		if s.SealSource, err = code("sealSource", validate.SealSources, s.SealSource); err != nil {
			return err
		}
	}
	return nil
}

// transport maps a TRANSPORT event. Seals are not part of a 2.0.2 transport
// event and are dropped.
func (m *mapper) transport(s *srcEvent, ev *dcsa.Event) error {
	var err error
	if ev.TransportEventTypeCode, err = typeCode("transportEventTypeCode", validate.TransportEventTypeCodes, s.transportEventTypeCode, s.eventTypeCode); err != nil {
		return err
	}
	if err := ident("delayReasonCode", s.delayReasonCode, validate.MaxDelayReasonCode, false); err != nil {
		return err
	}
	ev.DelayReasonCode = s.delayReasonCode
	remark := s.changeRemark
	if remark == "" {
		remark = s.vesselScheduleChangeRemark
	}
	ev.ChangeRemark = validate.Truncate(remark, validate.MaxChangeRemark)
	if s.transportCall == nil {
		return at("transportCall", fail("required for TRANSPORT events"))
	}
	if ev.TransportCall, err = m.transportCall(s.transportCall); err != nil {
		return at("transportCall", err)
	}
	// 2.0.2 moved facilityTypeCode from the transport call to the event; a
	// transport event happens at its call, so the two are the same.
	if ev.FacilityTypeCode == "" {
		ev.FacilityTypeCode = ev.TransportCall.FacilityTypeCode
	}
	return nil
}

// transportCall validates and completes tc in place:
//   - transportCallID from the source, else derived (identity.TransportCallID);
//   - the export voyage (carrierExportVoyageNumber, else exportVoyageNumber)
//     is written to carrierVoyageNumber, exportVoyageNumber and
//     carrierExportVoyageNumber, so readers of the deprecated and current
//     2.0.2 names see it; the import voyage likewise;
//   - the deprecated flat UNLocationCode/facilityCode and location describe
//     one place: each fills the other's gaps, and a contradiction is an error.
func (m *mapper) transportCall(tc *dcsa.TransportCall) (*dcsa.TransportCall, error) {
	var err error
	if tc.ModeOfTransport == "" && m.lenient {
		tc.ModeOfTransport = "VESSEL"
	}
	if tc.ModeOfTransport, err = code("modeOfTransport", validate.ModesOfTransport, tc.ModeOfTransport); err != nil {
		return nil, err
	}
	if err := ident("transportCallID", tc.TransportCallID, validate.MaxTransportCallID, false); err != nil {
		return nil, err
	}
	// A descriptive value longer than 2.0.2 allows is left out of the
	// event, counted with the value kept (as TNT 3.0's are); the call's
	// own id is never cut nor dropped.
	for _, f := range [...]struct {
		name string
		v    *string
		max  int
	}{
		{"transportCallReference", &tc.TransportCallReference, validate.MaxTransportCallReference},
		{"portVisitReference", &tc.PortVisitReference, validate.MaxPortVisitReference},
		{"carrierServiceCode", &tc.CarrierServiceCode, validate.MaxCarrierServiceCode},
		{"carrierVoyageNumber", &tc.CarrierVoyageNumber, validate.MaxVoyageNumber},
		{"exportVoyageNumber", &tc.ExportVoyageNumber, validate.MaxVoyageNumber},
		{"carrierExportVoyageNumber", &tc.CarrierExportVoyageNumber, validate.MaxVoyageNumber},
		{"importVoyageNumber", &tc.ImportVoyageNumber, validate.MaxVoyageNumber},
		{"carrierImportVoyageNumber", &tc.CarrierImportVoyageNumber, validate.MaxVoyageNumber},
	} {
		m.fit("transportCall."+f.name, f.v, f.max)
	}
	export, err := same("carrierExportVoyageNumber", tc.CarrierExportVoyageNumber, "exportVoyageNumber", tc.ExportVoyageNumber)
	if err != nil {
		return nil, err
	}
	if export != "" {
		tc.CarrierVoyageNumber, tc.ExportVoyageNumber, tc.CarrierExportVoyageNumber = export, export, export
	}
	imp, err := same("carrierImportVoyageNumber", tc.CarrierImportVoyageNumber, "importVoyageNumber", tc.ImportVoyageNumber)
	if err != nil {
		return nil, err
	}
	tc.ImportVoyageNumber, tc.CarrierImportVoyageNumber = imp, imp
	if tc.UNLocationCode != "" && !validate.IsUNLocationCode(tc.UNLocationCode) {
		return nil, at("UNLocationCode", fail(strconv.Quote(clip(tc.UNLocationCode))+" is not a UN/LOCODE"))
	}
	if err := m.facility("transportCall.facilityCode", &tc.UNLocationCode, &tc.FacilityCode); err != nil {
		return nil, err
	}
	if tc.FacilityCodeListProvider != "" {
		if tc.FacilityCodeListProvider, err = code("facilityCodeListProvider", validate.FacilityCodeListProviders, tc.FacilityCodeListProvider); err != nil {
			return nil, err
		}
	}
	if tc.FacilityTypeCode != "" {
		if tc.FacilityTypeCode, err = code("facilityTypeCode", validate.FacilityTypeCodes, tc.FacilityTypeCode); err != nil {
			return nil, err
		}
	}
	tc.OtherFacility = validate.Truncate(tc.OtherFacility, validate.MaxOtherFacility)
	if tc.Location, err = m.location("transportCall.location", tc.Location); err != nil {
		return nil, at("location", err)
	}
	if err := mergePlace(tc); err != nil {
		return nil, err
	}
	if v := tc.Vessel; v != nil && v.VesselIMONumber == "" {
		// 2.0.2 requires the IMO number of a vessel; feeders often have
		// none. The call stays, without the vessel; its name is kept in
		// the repair.
		m.repair(normalize.RepairIncompleteVesselLeftOut, "transportCall.vessel", v.VesselName)
		tc.Vessel = nil
	}
	if tc.Vessel != nil {
		if err := m.vessel(tc.Vessel); err != nil {
			return nil, at("vessel", err)
		}
	}
	if tc.TransportCallID == "" {
		tc.TransportCallID = identity.TransportCallID(m.env.SCAC, *tc)
	}
	return tc, nil
}

// mergePlace reconciles the transport call's flat (deprecated) place fields
// with its location object. The location domain requires all ways of naming
// a location to name the same place, so a mismatch is a data error, not a
// choice to make. A location that ends up with nothing the 2.0.2 anyOf
// accepts (e.g. only a name) is dropped: it cannot be emitted validly.
func mergePlace(tc *dcsa.TransportCall) error {
	loc := tc.Location
	if loc == nil {
		if tc.UNLocationCode == "" && tc.FacilityCode == "" {
			return nil
		}
		loc = &dcsa.Location{}
	}
	for _, p := range [...]struct {
		flat, nested *string
		name         string
	}{
		{&tc.UNLocationCode, &loc.UNLocationCode, "UNLocationCode"},
		{&tc.FacilityCode, &loc.FacilityCode, "facilityCode"},
		{&tc.FacilityCodeListProvider, &loc.FacilityCodeListProvider, "facilityCodeListProvider"},
	} {
		switch {
		case *p.nested == "":
			*p.nested = *p.flat
		case *p.flat == "":
			*p.flat = *p.nested
		case *p.flat != *p.nested:
			return at("location", at(p.name, fail(strconv.Quote(*p.nested)+" contradicts transportCall."+p.name+" "+strconv.Quote(*p.flat))))
		}
	}
	if validate.LocationIdentified(loc) {
		tc.Location = loc
	} else {
		tc.Location = nil
	}
	return nil
}

func (m *mapper) vessel(v *dcsa.Vessel) error {
	if !validate.IsIMONumber(v.VesselIMONumber) {
		return at("vesselIMONumber", fail(strconv.Quote(clip(v.VesselIMONumber))+" is not a 7-digit IMO number"))
	}
	v.VesselName = validate.Truncate(v.VesselName, validate.MaxVesselName)
	for _, f := range [...]struct {
		name string
		v    *string
		max  int
	}{
		{"vesselFlag", &v.VesselFlag, validate.MaxVesselFlag},
		{"vesselCallSignNumber", &v.VesselCallSignNumber, validate.MaxVesselCallSignNumber},
		{"vesselOperatorCarrierCode", &v.VesselOperatorCarrierCode, validate.MaxVesselOperatorCarrierCode},
	} {
		m.fit("transportCall.vessel."+f.name, f.v, f.max)
	}
	if v.VesselOperatorCarrierCode == "" {
		// A provider names the list of a code: without the code it says nothing.
		v.VesselOperatorCarrierCodeListProvider = ""
	}
	if v.VesselOperatorCarrierCodeListProvider != "" {
		var err error
		if v.VesselOperatorCarrierCodeListProvider, err = code("vesselOperatorCarrierCodeListProvider", validate.CarrierCodeListProviders, v.VesselOperatorCarrierCodeListProvider); err != nil {
			return err
		}
	}
	return nil
}

// location validates and normalises a location in place. Free text is cut
// to its maxLength; codes that do not fit are errors. An empty location or
// address becomes nil so it is absent on the wire.
func (m *mapper) location(path string, l *dcsa.Location) (*dcsa.Location, error) {
	if l == nil {
		return nil, nil
	}
	l.LocationName = validate.Truncate(l.LocationName, validate.MaxLocationName)
	var err error
	if l.Latitude, err = coordinate("latitude", l.Latitude, 90, validate.MaxLatitude); err != nil {
		return nil, err
	}
	if l.Longitude, err = coordinate("longitude", l.Longitude, 180, validate.MaxLongitude); err != nil {
		return nil, err
	}
	if l.UNLocationCode != "" && !validate.IsUNLocationCode(l.UNLocationCode) {
		return nil, at("UNLocationCode", fail(strconv.Quote(clip(l.UNLocationCode))+" is not a UN/LOCODE"))
	}
	if err := m.facility(path+".facilityCode", &l.UNLocationCode, &l.FacilityCode); err != nil {
		return nil, err
	}
	if l.FacilityCodeListProvider != "" {
		if l.FacilityCodeListProvider, err = code("facilityCodeListProvider", validate.FacilityCodeListProviders, l.FacilityCodeListProvider); err != nil {
			return nil, err
		}
	}
	if a := l.Address; a != nil {
		a.Name = validate.Truncate(a.Name, validate.MaxAddressName)
		a.Street = validate.Truncate(a.Street, validate.MaxStreet)
		a.StreetNumber = validate.Truncate(a.StreetNumber, validate.MaxStreetNumber)
		a.Floor = validate.Truncate(a.Floor, validate.MaxFloor)
		a.PostCode = validate.Truncate(a.PostCode, validate.MaxPostCode)
		a.City = validate.Truncate(a.City, validate.MaxCity)
		a.StateRegion = validate.Truncate(a.StateRegion, validate.MaxStateRegion)
		a.Country = validate.Truncate(a.Country, validate.MaxCountry)
		if *a == (dcsa.Address{}) {
			l.Address = nil
		}
	}
	if *l == (dcsa.Location{}) {
		return nil, nil
	}
	return l, nil
}

// facility checks a facility code against 2.0.2's maxLength (6: the code
// without the UN/LOCODE). Carriers send the UN/LOCODE and the terminal's
// SMDG or BIC code as one ("NLRTMECTD"): a code longer than 6 whose first
// five characters are a UN/LOCODE — the place's own, when it names one —
// is split into the two, and counted. The provider stays what the source
// said: the code alone does not tell SMDG from BIC.
func (m *mapper) facility(path string, un, fc *string) error {
	if len(*fc) > validate.MaxFacilityCode && len(*fc) <= 5+validate.MaxFacilityCode {
		prefix := (*fc)[:5]
		if validate.IsUNLocationCode(prefix) && (*un == "" || *un == prefix) {
			m.repair(normalize.RepairFacilityCodeSplit, path, *fc)
			*un, *fc = prefix, (*fc)[5:]
		}
	}
	return ident("facilityCode", *fc, validate.MaxFacilityCode, false)
}

// coordinate checks a latitude or longitude string: a plain decimal within
// ±limit. One longer than the schema allows keeps its sign and integer part
// and loses trailing decimals (beyond 1e-6° ≈ 0.1 m, noise for tracking).
func coordinate(field, s string, limit float64, max int) (string, error) {
	if s == "" {
		return "", nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !plainDecimal(s) {
		return "", at(field, fail(strconv.Quote(clip(s))+" is not a decimal number"))
	}
	if v < -limit || v > limit {
		return "", at(field, fail(strconv.Quote(clip(s))+" is out of range ±"+strconv.FormatFloat(limit, 'f', -1, 64)))
	}
	if len(s) <= max {
		return s, nil
	}
	dot := strings.IndexByte(s, '.')
	if dot < 0 || dot >= max {
		return "", at(field, fail(strconv.Quote(clip(s))+" is longer than "+strconv.Itoa(max)+" characters"))
	}
	if dot == max-1 {
		return s[:dot], nil
	}
	return s[:max], nil
}

// plainDecimal reports whether s is -?digits[.digits], the only form the
// schema's example uses (ParseFloat would also take "1e3", "Inf", "0x1p4").
func plainDecimal(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	if intPart == "" || (hasDot && frac == "") {
		return false
	}
	for _, part := range [...]string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return false
			}
		}
	}
	return true
}

// code checks a required code against its 2.0.2 list and returns the list's
// copy of it.
func code(field string, e validate.Enum, v string) (string, error) {
	if v == "" {
		return "", at(field, fail("required"))
	}
	c, ok := e.Canonical(v)
	if !ok {
		return "", at(field, fail(strconv.Quote(clip(v))+" is not a DCSA 2.0.2 code (one of "+e.String()+")"))
	}
	return c, nil
}

// typeCode reads an event type code from its specific field, falling back to
// the deprecated generic eventTypeCode; both given and different is an error.
func typeCode(field string, e validate.Enum, specific, generic string) (string, error) {
	v, err := same(field, specific, "eventTypeCode", generic)
	if err != nil {
		return "", err
	}
	return code(field, e, v)
}

// same returns the value two synonymous fields carry, failing when both are
// set and differ.
func same(name, v, otherName, other string) (string, error) {
	switch {
	case v == "":
		return other, nil
	case other != "" && other != v:
		return "", at(name, fail(strconv.Quote(clip(v))+" contradicts "+otherName+" "+strconv.Quote(clip(other))))
	}
	return v, nil
}

// fit leaves out an optional value longer than max, counted at path with
// the value kept.
func (m *mapper) fit(path string, v *string, max int) {
	if len(*v) > max && validate.RuneLen(*v) > max {
		m.repair(normalize.RepairTooLongLeftOut, path, clip(*v))
		*v = ""
	}
}

// ident checks an identifier or code against its maxLength. Identifiers are
// never cut: a cut container number names another container.
func ident(field, v string, max int, required bool) error {
	if v == "" {
		if required {
			return at(field, fail("required"))
		}
		return nil
	}
	if len(v) > max && validate.RuneLen(v) > max {
		return at(field, fail(strconv.Quote(clip(v))+" is longer than "+strconv.Itoa(max)+" characters"))
	}
	return nil
}
