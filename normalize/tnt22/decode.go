package tnt22

import (
	"strconv"
	"strings"

	"github.com/contrack/contrack/normalize"

	"github.com/contrack/contrack/schemas/dcsa"
)

// index is the path segment of array element i.
func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

// srcEvent is one element of a TNT 2.2 events array as the carrier sent it:
// the TNT 2.2 fields (EVENT_DOMAIN 1.0.4) plus the 2.0.2 ones, so the same
// decoder reads events pushed in the 2.0.2 shape. Sub-objects whose shape is
// the same in both are decoded straight into the dcsa types and normalised
// in place by the mapper. Fields of SHIPMENT events other than the base
// ones are not read.
type srcEvent struct {
	eventID              string
	eventCreatedDateTime string
	eventType            string
	eventClassifierCode  string
	eventDateTime        string

	eventTypeCode          string // deprecated generic code
	transportEventTypeCode string
	equipmentEventTypeCode string

	equipmentReference         string
	isoEquipmentCode           string
	emptyIndicatorCode         string
	delayReasonCode            string
	changeRemark               string
	vesselScheduleChangeRemark string // deprecated changeRemark
	facilityTypeCode           string // 2.0.2 root facility type
	transportCallID            string // deprecated root copy of transportCall.transportCallID

	eventLocation      *dcsa.Location
	transportCall      *dcsa.TransportCall
	documentReferences []dcsa.DocumentReference
	references         []dcsa.Reference
	seals              []dcsa.Seal
}

// members reads the members of an object just opened. member says where a
// member goes: a string destination, or a decoder for a member of another
// kind; neither skips it (unknown members are ignored, as the contrack design
// says for all JSON input). Errors carry the member's name in their path.
//
// A name the standard spells in another letter case ("unLocationCode",
// "eventId") is read as the standard's and counted (RepairMemberCase); a
// number where a string is expected is read as its digits and counted
// (RepairNumberAsString).
func (l *lexer) members(member func(k string) (dst *string, decode func() error)) error {
	for i := 0; ; i++ {
		k, more, err := l.key(i)
		if err != nil || !more {
			return err
		}
		name := k
		dst, decode := member(k)
		if dst == nil && decode == nil {
			if std, ok := memberNames[strings.ToLower(k)]; ok && std != k {
				if dst, decode = member(std); dst != nil || decode != nil {
					l.repair(normalize.RepairMemberCase, k, "")
					name = std
				}
			}
		}
		switch {
		case dst != nil && numericIDs[name]:
			v, number, err := l.strOrNumber()
			if err != nil {
				return at(k, err)
			}
			if number {
				l.repair(normalize.RepairNumberAsString, k, v)
			}
			*dst = v
		case dst != nil:
			v, err := l.str()
			if err != nil {
				return at(k, err)
			}
			*dst = v
		case decode != nil:
			l.path = append(l.path, k)
			err := decode()
			l.path = l.path[:len(l.path)-1]
			if err != nil {
				return at(k, err)
			}
		default:
			if err := l.skip(); err != nil {
				return at(k, err)
			}
		}
	}
}

// memberNames maps the lower-case form of every member name the decoder
// reads to the standard's spelling.
var memberNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range strings.Fields(`
		eventID eventCreatedDateTime eventType eventClassifierCode eventDateTime eventTypeCode
		transportEventTypeCode equipmentEventTypeCode equipmentReference ISOEquipmentCode
		emptyIndicatorCode delayReasonCode changeRemark vesselScheduleChangeRemark facilityTypeCode
		transportCallID eventLocation transportCall documentReferences references seals
		transportCallReference portVisitReference carrierServiceCode carrierVoyageNumber
		exportVoyageNumber carrierExportVoyageNumber importVoyageNumber carrierImportVoyageNumber
		UNLocationCode facilityCode facilityCodeListProvider otherFacility modeOfTransport
		transportCallSequenceNumber location vessel
		locationName latitude longitude address
		name street streetNumber floor postCode city stateRegion country
		vesselIMONumber vesselName vesselFlag vesselCallSignNumber vesselOperatorCarrierCode
		vesselOperatorCarrierCodeListProvider
		documentReferenceType documentReferenceValue referenceType referenceValue
		sealNumber sealSource sealType events`) {
		m[strings.ToLower(n)] = n
	}
	return m
}()

// numericIDs are the string members carriers send as JSON numbers: ids,
// numbers and coordinates, whose digits are the value. Timestamps and codes
// are not among them: a number there is not the value in another notation.
var numericIDs = map[string]bool{
	"eventID": true, "transportCallID": true, "vesselIMONumber": true, "carrierVoyageNumber": true,
	"exportVoyageNumber": true, "carrierExportVoyageNumber": true, "importVoyageNumber": true,
	"carrierImportVoyageNumber": true, "equipmentReference": true, "referenceValue": true,
	"documentReferenceValue": true, "sealNumber": true, "facilityCode": true, "carrierServiceCode": true,
	"transportCallReference": true, "portVisitReference": true, "vesselCallSignNumber": true,
	"latitude": true, "longitude": true,
}

// event decodes one event object into s. Errors carry the field's path.
func (l *lexer) event(s *srcEvent) error {
	ok, err := l.openObject()
	if err != nil {
		return err
	}
	if !ok {
		return fail("expected an event object, got null")
	}
	return l.members(func(k string) (*string, func() error) {
		switch k {
		case "eventID":
			return &s.eventID, nil
		case "eventCreatedDateTime":
			return &s.eventCreatedDateTime, nil
		case "eventType":
			return &s.eventType, nil
		case "eventClassifierCode":
			return &s.eventClassifierCode, nil
		case "eventDateTime":
			return &s.eventDateTime, nil
		case "eventTypeCode":
			return &s.eventTypeCode, nil
		case "transportEventTypeCode":
			return &s.transportEventTypeCode, nil
		case "equipmentEventTypeCode":
			return &s.equipmentEventTypeCode, nil
		case "equipmentReference":
			return &s.equipmentReference, nil
		case "ISOEquipmentCode":
			return &s.isoEquipmentCode, nil
		case "emptyIndicatorCode":
			return &s.emptyIndicatorCode, nil
		case "delayReasonCode":
			return &s.delayReasonCode, nil
		case "changeRemark":
			return &s.changeRemark, nil
		case "vesselScheduleChangeRemark":
			return &s.vesselScheduleChangeRemark, nil
		case "facilityTypeCode":
			return &s.facilityTypeCode, nil
		case "transportCallID":
			return &s.transportCallID, nil
		case "eventLocation":
			return nil, func() (err error) { s.eventLocation, err = l.location(); return err }
		case "transportCall":
			return nil, func() (err error) { s.transportCall, err = l.transportCall(); return err }
		case "documentReferences":
			return nil, func() error { return l.documentReferences(&s.documentReferences) }
		case "references":
			return nil, func() error { return l.references(&s.references) }
		case "seals":
			return nil, func() error { return l.seals(&s.seals) }
		}
		return nil, nil // shipment-only and unknown members
	})
}

func (l *lexer) transportCall() (*dcsa.TransportCall, error) {
	ok, err := l.openObject()
	if err != nil || !ok {
		return nil, err
	}
	tc := &dcsa.TransportCall{}
	return tc, l.members(func(k string) (*string, func() error) {
		switch k {
		case "transportCallID":
			return &tc.TransportCallID, nil
		case "transportCallReference":
			return &tc.TransportCallReference, nil
		case "portVisitReference":
			return &tc.PortVisitReference, nil
		case "carrierServiceCode":
			return &tc.CarrierServiceCode, nil
		case "carrierVoyageNumber":
			return &tc.CarrierVoyageNumber, nil
		case "exportVoyageNumber":
			return &tc.ExportVoyageNumber, nil
		case "carrierExportVoyageNumber":
			return &tc.CarrierExportVoyageNumber, nil
		case "importVoyageNumber":
			return &tc.ImportVoyageNumber, nil
		case "carrierImportVoyageNumber":
			return &tc.CarrierImportVoyageNumber, nil
		case "UNLocationCode":
			return &tc.UNLocationCode, nil
		case "facilityCode":
			return &tc.FacilityCode, nil
		case "facilityCodeListProvider":
			return &tc.FacilityCodeListProvider, nil
		case "facilityTypeCode":
			return &tc.FacilityTypeCode, nil
		case "otherFacility":
			return &tc.OtherFacility, nil
		case "modeOfTransport":
			return &tc.ModeOfTransport, nil
		case "transportCallSequenceNumber":
			return nil, func() error {
				n, present, err := l.int32()
				if present {
					tc.TransportCallSequenceNumber = &n
				}
				return err
			}
		case "location":
			return nil, func() (err error) { tc.Location, err = l.location(); return err }
		case "vessel":
			return nil, func() (err error) { tc.Vessel, err = l.vessel(); return err }
		}
		return nil, nil
	})
}

func (l *lexer) location() (*dcsa.Location, error) {
	ok, err := l.openObject()
	if err != nil || !ok {
		return nil, err
	}
	loc := &dcsa.Location{}
	return loc, l.members(func(k string) (*string, func() error) {
		switch k {
		case "locationName":
			return &loc.LocationName, nil
		case "latitude":
			return &loc.Latitude, nil
		case "longitude":
			return &loc.Longitude, nil
		case "UNLocationCode":
			return &loc.UNLocationCode, nil
		case "facilityCode":
			return &loc.FacilityCode, nil
		case "facilityCodeListProvider":
			return &loc.FacilityCodeListProvider, nil
		case "address":
			return nil, func() (err error) { loc.Address, err = l.address(); return err }
		}
		return nil, nil
	})
}

func (l *lexer) address() (*dcsa.Address, error) {
	ok, err := l.openObject()
	if err != nil || !ok {
		return nil, err
	}
	a := &dcsa.Address{}
	return a, l.members(func(k string) (*string, func() error) {
		switch k {
		case "name":
			return &a.Name, nil
		case "street":
			return &a.Street, nil
		case "streetNumber":
			return &a.StreetNumber, nil
		case "floor":
			return &a.Floor, nil
		case "postCode":
			return &a.PostCode, nil
		case "city":
			return &a.City, nil
		case "stateRegion":
			return &a.StateRegion, nil
		case "country":
			return &a.Country, nil
		}
		return nil, nil
	})
}

func (l *lexer) vessel() (*dcsa.Vessel, error) {
	ok, err := l.openObject()
	if err != nil || !ok {
		return nil, err
	}
	v := &dcsa.Vessel{}
	return v, l.members(func(k string) (*string, func() error) {
		switch k {
		case "vesselIMONumber":
			return &v.VesselIMONumber, nil
		case "vesselName":
			return &v.VesselName, nil
		case "vesselFlag":
			return &v.VesselFlag, nil
		case "vesselCallSignNumber":
			return &v.VesselCallSignNumber, nil
		case "vesselOperatorCarrierCode":
			return &v.VesselOperatorCarrierCode, nil
		case "vesselOperatorCarrierCodeListProvider":
			return &v.VesselOperatorCarrierCodeListProvider, nil
		}
		return nil, nil
	})
}

// pairs decodes an array of objects with two string members (document
// references, references), calling add with each element's two values.
func (l *lexer) pairs(name0, name1 string, add func(a, b string)) error {
	ok, err := l.openArray()
	if err != nil || !ok {
		return err
	}
	for i := 0; ; i++ {
		more, err := l.elem(i)
		if err != nil || !more {
			return err
		}
		var a, b string
		if err := l.pair(name0, name1, &a, &b); err != nil {
			return at(index(i), err)
		}
		add(a, b)
	}
}

func (l *lexer) pair(name0, name1 string, a, b *string) error {
	ok, err := l.openObject()
	if err != nil {
		return err
	}
	if !ok {
		return fail("expected object, got null")
	}
	return l.members(func(k string) (*string, func() error) {
		switch k {
		case name0:
			return a, nil
		case name1:
			return b, nil
		}
		return nil, nil
	})
}

func (l *lexer) documentReferences(dst *[]dcsa.DocumentReference) error {
	return l.pairs("documentReferenceType", "documentReferenceValue", func(t, v string) {
		*dst = append(*dst, dcsa.DocumentReference{DocumentReferenceType: t, DocumentReferenceValue: v})
	})
}

func (l *lexer) references(dst *[]dcsa.Reference) error {
	return l.pairs("referenceType", "referenceValue", func(t, v string) {
		*dst = append(*dst, dcsa.Reference{ReferenceType: t, ReferenceValue: v})
	})
}

func (l *lexer) seals(dst *[]dcsa.Seal) error {
	ok, err := l.openArray()
	if err != nil || !ok {
		return err
	}
	for i := 0; ; i++ {
		more, err := l.elem(i)
		if err != nil || !more {
			return err
		}
		s, err := l.seal()
		if err != nil {
			return at(index(i), err)
		}
		*dst = append(*dst, s)
	}
}

func (l *lexer) seal() (dcsa.Seal, error) {
	var s dcsa.Seal
	ok, err := l.openObject()
	if err != nil {
		return s, err
	}
	if !ok {
		return s, fail("expected object, got null")
	}
	err = l.members(func(k string) (*string, func() error) {
		switch k {
		case "sealNumber":
			return &s.SealNumber, nil
		case "sealSource":
			return &s.SealSource, nil
		case "sealType":
			return &s.SealType, nil
		}
		return nil, nil
	})
	return s, err
}
