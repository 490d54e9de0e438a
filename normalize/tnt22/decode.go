package tnt22

import (
	"strconv"

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

// event decodes one event object into s. Errors carry the field's path.
func (l *lexer) event(s *srcEvent) error {
	ok, err := l.openObject()
	if err != nil {
		return err
	}
	if !ok {
		return fail("expected an event object, got null")
	}
	for i := 0; ; i++ {
		k, more, err := l.key(i)
		if err != nil || !more {
			return err
		}
		var dst *string
		switch k {
		case "eventID":
			dst = &s.eventID
		case "eventCreatedDateTime":
			dst = &s.eventCreatedDateTime
		case "eventType":
			dst = &s.eventType
		case "eventClassifierCode":
			dst = &s.eventClassifierCode
		case "eventDateTime":
			dst = &s.eventDateTime
		case "eventTypeCode":
			dst = &s.eventTypeCode
		case "transportEventTypeCode":
			dst = &s.transportEventTypeCode
		case "equipmentEventTypeCode":
			dst = &s.equipmentEventTypeCode
		case "equipmentReference":
			dst = &s.equipmentReference
		case "ISOEquipmentCode":
			dst = &s.isoEquipmentCode
		case "emptyIndicatorCode":
			dst = &s.emptyIndicatorCode
		case "delayReasonCode":
			dst = &s.delayReasonCode
		case "changeRemark":
			dst = &s.changeRemark
		case "vesselScheduleChangeRemark":
			dst = &s.vesselScheduleChangeRemark
		case "facilityTypeCode":
			dst = &s.facilityTypeCode
		case "transportCallID":
			dst = &s.transportCallID
		case "eventLocation":
			loc, err := l.location()
			if err != nil {
				return at("eventLocation", err)
			}
			s.eventLocation = loc
			continue
		case "transportCall":
			tc, err := l.transportCall()
			if err != nil {
				return at("transportCall", err)
			}
			s.transportCall = tc
			continue
		case "documentReferences":
			if err := l.documentReferences(&s.documentReferences); err != nil {
				return at("documentReferences", err)
			}
			continue
		case "references":
			if err := l.references(&s.references); err != nil {
				return at("references", err)
			}
			continue
		case "seals":
			if err := l.seals(&s.seals); err != nil {
				return at("seals", err)
			}
			continue
		default:
			// Unknown and shipment-only members are ignored, as the
			// contrack design says for all JSON input.
			if err := l.skip(); err != nil {
				return at(k, err)
			}
			continue
		}
		v, err := l.str()
		if err != nil {
			return at(k, err)
		}
		*dst = v
	}
}

func (l *lexer) transportCall() (*dcsa.TransportCall, error) {
	ok, err := l.openObject()
	if err != nil || !ok {
		return nil, err
	}
	tc := &dcsa.TransportCall{}
	for i := 0; ; i++ {
		k, more, err := l.key(i)
		if err != nil || !more {
			return tc, err
		}
		var dst *string
		switch k {
		case "transportCallID":
			dst = &tc.TransportCallID
		case "transportCallReference":
			dst = &tc.TransportCallReference
		case "portVisitReference":
			dst = &tc.PortVisitReference
		case "carrierServiceCode":
			dst = &tc.CarrierServiceCode
		case "carrierVoyageNumber":
			dst = &tc.CarrierVoyageNumber
		case "exportVoyageNumber":
			dst = &tc.ExportVoyageNumber
		case "carrierExportVoyageNumber":
			dst = &tc.CarrierExportVoyageNumber
		case "importVoyageNumber":
			dst = &tc.ImportVoyageNumber
		case "carrierImportVoyageNumber":
			dst = &tc.CarrierImportVoyageNumber
		case "UNLocationCode":
			dst = &tc.UNLocationCode
		case "facilityCode":
			dst = &tc.FacilityCode
		case "facilityCodeListProvider":
			dst = &tc.FacilityCodeListProvider
		case "facilityTypeCode":
			dst = &tc.FacilityTypeCode
		case "otherFacility":
			dst = &tc.OtherFacility
		case "modeOfTransport":
			dst = &tc.ModeOfTransport
		case "transportCallSequenceNumber":
			n, present, err := l.int32()
			if err != nil {
				return nil, at(k, err)
			}
			if present {
				tc.TransportCallSequenceNumber = &n
			}
			continue
		case "location":
			loc, err := l.location()
			if err != nil {
				return nil, at("location", err)
			}
			tc.Location = loc
			continue
		case "vessel":
			v, err := l.vessel()
			if err != nil {
				return nil, at("vessel", err)
			}
			tc.Vessel = v
			continue
		default:
			if err := l.skip(); err != nil {
				return nil, at(k, err)
			}
			continue
		}
		v, err := l.str()
		if err != nil {
			return nil, at(k, err)
		}
		*dst = v
	}
}

func (l *lexer) location() (*dcsa.Location, error) {
	ok, err := l.openObject()
	if err != nil || !ok {
		return nil, err
	}
	loc := &dcsa.Location{}
	for i := 0; ; i++ {
		k, more, err := l.key(i)
		if err != nil || !more {
			return loc, err
		}
		var dst *string
		switch k {
		case "locationName":
			dst = &loc.LocationName
		case "latitude":
			dst = &loc.Latitude
		case "longitude":
			dst = &loc.Longitude
		case "UNLocationCode":
			dst = &loc.UNLocationCode
		case "facilityCode":
			dst = &loc.FacilityCode
		case "facilityCodeListProvider":
			dst = &loc.FacilityCodeListProvider
		case "address":
			a, err := l.address()
			if err != nil {
				return nil, at("address", err)
			}
			loc.Address = a
			continue
		default:
			if err := l.skip(); err != nil {
				return nil, at(k, err)
			}
			continue
		}
		v, err := l.str()
		if err != nil {
			return nil, at(k, err)
		}
		*dst = v
	}
}

func (l *lexer) address() (*dcsa.Address, error) {
	ok, err := l.openObject()
	if err != nil || !ok {
		return nil, err
	}
	a := &dcsa.Address{}
	for i := 0; ; i++ {
		k, more, err := l.key(i)
		if err != nil || !more {
			return a, err
		}
		var dst *string
		switch k {
		case "name":
			dst = &a.Name
		case "street":
			dst = &a.Street
		case "streetNumber":
			dst = &a.StreetNumber
		case "floor":
			dst = &a.Floor
		case "postCode":
			dst = &a.PostCode
		case "city":
			dst = &a.City
		case "stateRegion":
			dst = &a.StateRegion
		case "country":
			dst = &a.Country
		default:
			if err := l.skip(); err != nil {
				return nil, at(k, err)
			}
			continue
		}
		v, err := l.str()
		if err != nil {
			return nil, at(k, err)
		}
		*dst = v
	}
}

func (l *lexer) vessel() (*dcsa.Vessel, error) {
	ok, err := l.openObject()
	if err != nil || !ok {
		return nil, err
	}
	v := &dcsa.Vessel{}
	for i := 0; ; i++ {
		k, more, err := l.key(i)
		if err != nil || !more {
			return v, err
		}
		var dst *string
		switch k {
		case "vesselIMONumber":
			dst = &v.VesselIMONumber
		case "vesselName":
			dst = &v.VesselName
		case "vesselFlag":
			dst = &v.VesselFlag
		case "vesselCallSignNumber":
			dst = &v.VesselCallSignNumber
		case "vesselOperatorCarrierCode":
			dst = &v.VesselOperatorCarrierCode
		case "vesselOperatorCarrierCodeListProvider":
			dst = &v.VesselOperatorCarrierCodeListProvider
		default:
			if err := l.skip(); err != nil {
				return nil, at(k, err)
			}
			continue
		}
		s, err := l.str()
		if err != nil {
			return nil, at(k, err)
		}
		*dst = s
	}
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
	for i := 0; ; i++ {
		k, more, err := l.key(i)
		if err != nil || !more {
			return err
		}
		var dst *string
		switch k {
		case name0:
			dst = a
		case name1:
			dst = b
		default:
			if err := l.skip(); err != nil {
				return at(k, err)
			}
			continue
		}
		v, err := l.str()
		if err != nil {
			return at(k, err)
		}
		*dst = v
	}
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
	for i := 0; ; i++ {
		k, more, err := l.key(i)
		if err != nil || !more {
			return s, err
		}
		var dst *string
		switch k {
		case "sealNumber":
			dst = &s.SealNumber
		case "sealSource":
			dst = &s.SealSource
		case "sealType":
			dst = &s.SealType
		default:
			if err := l.skip(); err != nil {
				return s, at(k, err)
			}
			continue
		}
		v, err := l.str()
		if err != nil {
			return s, at(k, err)
		}
		*dst = v
	}
}
