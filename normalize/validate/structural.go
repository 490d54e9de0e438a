package validate

import (
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/contrack/contrack/schemas/dcsa"
)

// Structural checks, without the schema files, that e has every field
// EVENT_DOMAIN 2.0.2 requires, that its codes are in the code lists, that its
// strings fit their maxLength and that its timestamps parse. It is the
// contract every parser's output meets; fuzz tests assert it on every event a
// parser returns. The first problem is returned as "<path>: <reason>".
//
// It is a subset of Validator (which also knows every optional field's
// constraints), kept cheap enough to run anywhere.
func Structural(e dcsa.Event) error {
	if e.EventID != "" {
		if _, err := uuid.Parse(e.EventID); err != nil || len(e.EventID) != 36 {
			return fmt.Errorf("eventID: %q is not a UUID", clip(e.EventID))
		}
	}
	if err := timestamp("eventCreatedDateTime", e.EventCreatedDateTime); err != nil {
		return err
	}
	if err := timestamp("eventDateTime", e.EventDateTime); err != nil {
		return err
	}
	if err := member("eventType", EventTypes, e.EventType); err != nil {
		return err
	}
	if err := member("eventClassifierCode", EventClassifierCodes, e.EventClassifierCode); err != nil {
		return err
	}
	if err := maxLen("equipmentReference", e.EquipmentReference, MaxEquipmentReference); err != nil {
		return err
	}
	if err := maxLen("carrierCode", e.CarrierCode, MaxCarrierCode); err != nil {
		return err
	}
	if e.FacilityTypeCode != "" {
		if err := member("facilityTypeCode", FacilityTypeCodes, e.FacilityTypeCode); err != nil {
			return err
		}
	}
	switch e.EventType {
	case dcsa.EventTypeEquipment:
		if err := member("equipmentEventTypeCode", EquipmentEventTypeCodes, e.EquipmentEventTypeCode); err != nil {
			return err
		}
		if err := member("emptyIndicatorCode", EmptyIndicatorCodes, e.EmptyIndicatorCode); err != nil {
			return err
		}
		if err := maxLen("ISOEquipmentCode", e.ISOEquipmentCode, MaxISOEquipmentCode); err != nil {
			return err
		}
		if e.EventLocation != nil {
			if err := location("eventLocation", e.EventLocation); err != nil {
				return err
			}
		}
		for i, s := range e.Seals {
			p := "seals[" + strconv.Itoa(i) + "]"
			if s.SealNumber == "" {
				return fmt.Errorf("%s.sealNumber: required", p)
			}
			if err := maxLen(p+".sealNumber", s.SealNumber, MaxSealNumber); err != nil {
				return err
			}
			if err := member(p+".sealType", SealTypes, s.SealType); err != nil {
				return err
			}
			if s.SealSource != "" {
				if err := member(p+".sealSource", SealSources, s.SealSource); err != nil {
					return err
				}
			}
		}
	case dcsa.EventTypeTransport:
		if err := member("transportEventTypeCode", TransportEventTypeCodes, e.TransportEventTypeCode); err != nil {
			return err
		}
		if e.TransportCall == nil {
			return fmt.Errorf("transportCall: required for TRANSPORT events")
		}
		if err := maxLen("delayReasonCode", e.DelayReasonCode, MaxDelayReasonCode); err != nil {
			return err
		}
		if err := maxLen("changeRemark", e.ChangeRemark, MaxChangeRemark); err != nil {
			return err
		}
	}
	if tc := e.TransportCall; tc != nil {
		if err := transportCall(tc); err != nil {
			return err
		}
	}
	for i, d := range e.DocumentReferences {
		p := "documentReferences[" + strconv.Itoa(i) + "]"
		if err := member(p+".documentReferenceType", DocumentReferenceTypes, d.DocumentReferenceType); err != nil {
			return err
		}
		if d.DocumentReferenceValue == "" {
			return fmt.Errorf("%s.documentReferenceValue: required", p)
		}
	}
	for i, r := range e.References {
		p := "references[" + strconv.Itoa(i) + "]"
		if err := member(p+".referenceType", ReferenceTypes, r.ReferenceType); err != nil {
			return err
		}
		if r.ReferenceValue == "" {
			return fmt.Errorf("%s.referenceValue: required", p)
		}
		if err := maxLen(p+".referenceValue", r.ReferenceValue, MaxReferenceValue); err != nil {
			return err
		}
	}
	return nil
}

func transportCall(tc *dcsa.TransportCall) error {
	if tc.TransportCallID == "" {
		return fmt.Errorf("transportCall.transportCallID: required")
	}
	if err := maxLen("transportCall.transportCallID", tc.TransportCallID, MaxTransportCallID); err != nil {
		return err
	}
	if err := member("transportCall.modeOfTransport", ModesOfTransport, tc.ModeOfTransport); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    string
		max  int
	}{
		{"transportCallReference", tc.TransportCallReference, MaxTransportCallReference},
		{"portVisitReference", tc.PortVisitReference, MaxPortVisitReference},
		{"carrierServiceCode", tc.CarrierServiceCode, MaxCarrierServiceCode},
		{"carrierVoyageNumber", tc.CarrierVoyageNumber, MaxVoyageNumber},
		{"exportVoyageNumber", tc.ExportVoyageNumber, MaxVoyageNumber},
		{"carrierExportVoyageNumber", tc.CarrierExportVoyageNumber, MaxVoyageNumber},
		{"importVoyageNumber", tc.ImportVoyageNumber, MaxVoyageNumber},
		{"carrierImportVoyageNumber", tc.CarrierImportVoyageNumber, MaxVoyageNumber},
		{"UNLocationCode", tc.UNLocationCode, MaxUNLocationCode},
		{"facilityCode", tc.FacilityCode, MaxFacilityCode},
		{"otherFacility", tc.OtherFacility, MaxOtherFacility},
	} {
		if err := maxLen("transportCall."+f.name, f.v, f.max); err != nil {
			return err
		}
	}
	if tc.FacilityCodeListProvider != "" {
		if err := member("transportCall.facilityCodeListProvider", FacilityCodeListProviders, tc.FacilityCodeListProvider); err != nil {
			return err
		}
	}
	if tc.FacilityTypeCode != "" {
		if err := member("transportCall.facilityTypeCode", FacilityTypeCodes, tc.FacilityTypeCode); err != nil {
			return err
		}
	}
	if n := tc.TransportCallSequenceNumber; n != nil && (*n < -1<<31 || *n > 1<<31-1) {
		return fmt.Errorf("transportCall.transportCallSequenceNumber: %d is not an int32", *n)
	}
	if l := tc.Location; l != nil {
		if err := location("transportCall.location", l); err != nil {
			return err
		}
		if !LocationIdentified(l) {
			return fmt.Errorf("transportCall.location: needs a UN/LOCODE, a facility code with its list provider, latitude and longitude, or an address")
		}
	}
	if v := tc.Vessel; v != nil {
		if v.VesselIMONumber == "" {
			return fmt.Errorf("transportCall.vessel.vesselIMONumber: required")
		}
		for _, f := range []struct {
			name string
			v    string
			max  int
		}{
			{"vesselIMONumber", v.VesselIMONumber, MaxVesselIMONumber},
			{"vesselName", v.VesselName, MaxVesselName},
			{"vesselFlag", v.VesselFlag, MaxVesselFlag},
			{"vesselCallSignNumber", v.VesselCallSignNumber, MaxVesselCallSignNumber},
			{"vesselOperatorCarrierCode", v.VesselOperatorCarrierCode, MaxVesselOperatorCarrierCode},
		} {
			if err := maxLen("transportCall.vessel."+f.name, f.v, f.max); err != nil {
				return err
			}
		}
		if v.VesselOperatorCarrierCodeListProvider != "" {
			if err := member("transportCall.vessel.vesselOperatorCarrierCodeListProvider", CarrierCodeListProviders, v.VesselOperatorCarrierCodeListProvider); err != nil {
				return err
			}
		}
	}
	return nil
}

// LocationIdentified reports whether l satisfies the anyOf a transport call's
// location must meet in 2.0.2: geo position, facility (code and provider),
// UN/LOCODE or address.
func LocationIdentified(l *dcsa.Location) bool {
	return l.UNLocationCode != "" ||
		(l.Latitude != "" && l.Longitude != "") ||
		(l.FacilityCode != "" && l.FacilityCodeListProvider != "") ||
		l.Address != nil
}

func location(p string, l *dcsa.Location) error {
	for _, f := range []struct {
		name string
		v    string
		max  int
	}{
		{"locationName", l.LocationName, MaxLocationName},
		{"latitude", l.Latitude, MaxLatitude},
		{"longitude", l.Longitude, MaxLongitude},
		{"UNLocationCode", l.UNLocationCode, MaxUNLocationCode},
		{"facilityCode", l.FacilityCode, MaxFacilityCode},
	} {
		if err := maxLen(p+"."+f.name, f.v, f.max); err != nil {
			return err
		}
	}
	if l.FacilityCodeListProvider != "" {
		if err := member(p+".facilityCodeListProvider", FacilityCodeListProviders, l.FacilityCodeListProvider); err != nil {
			return err
		}
	}
	if a := l.Address; a != nil {
		for _, f := range []struct {
			name string
			v    string
			max  int
		}{
			{"name", a.Name, MaxAddressName},
			{"street", a.Street, MaxStreet},
			{"streetNumber", a.StreetNumber, MaxStreetNumber},
			{"floor", a.Floor, MaxFloor},
			{"postCode", a.PostCode, MaxPostCode},
			{"city", a.City, MaxCity},
			{"stateRegion", a.StateRegion, MaxStateRegion},
			{"country", a.Country, MaxCountry},
		} {
			if err := maxLen(p+".address."+f.name, f.v, f.max); err != nil {
				return err
			}
		}
	}
	return nil
}

func timestamp(field, v string) error {
	if v == "" {
		return fmt.Errorf("%s: required", field)
	}
	if _, _, err := Timestamp(v); err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	return nil
}

func member(field string, e Enum, v string) error {
	if v == "" {
		return fmt.Errorf("%s: required", field)
	}
	if !e.Has(v) {
		return fmt.Errorf("%s: %q is not one of %s", field, clip(v), e)
	}
	return nil
}

func maxLen(field, v string, max int) error {
	if len(v) > max && RuneLen(v) > max {
		return fmt.Errorf("%s: %q is longer than %d characters", field, clip(v), max)
	}
	return nil
}
