package tnt3

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/contrack/contrack/schemas/dcsa"
)

// UpdatedTime is how eventUpdatedDateTime is written: RFC 3339 in UTC with
// milliseconds, as every time contrack shows.
const UpdatedTime = "2006-01-02T15:04:05.000Z07:00"

// Carrier is the originating party of the events of carrier scac: its SCAC
// code, from the code list NMFTA keeps, as a carrier (EDIFACT 3035 "CA").
func Carrier(scac string) *EventRouting {
	if scac == "" {
		return nil
	}
	return &EventRouting{OriginatingParty: &Party{PartyCode: scac, CodeListProvider: "NMFTA", CodeListName: "SCAC", PartyFunction: "CA"}}
}

// Retraction is the 3.0 event that withdraws event eventID, carried by
// carrier scac, at updated.
func Retraction(eventID, scac string, updated time.Time) Event {
	return Event{EventRouting: Carrier(scac), EventID: eventID, IsRetracted: true,
		EventUpdatedDateTime: updated.UTC().Format(UpdatedTime)}
}

// FromDCSAJSON is FromDCSA of a marshalled 2.0.2 event.
func FromDCSAJSON(raw []byte, scac string, updated time.Time) (Event, error) {
	var e dcsa.Event
	if err := json.Unmarshal(raw, &e); err != nil {
		return Event{}, fmt.Errorf("tnt3: decode 2.0.2 event: %w", err)
	}
	return FromDCSA(e, scac, updated), nil
}

// FromDCSA maps a 2.0.2 equipment or transport event to 3.0: the same
// event, under 3.0's names; a SHIPMENT, IOT or REEFER event (dcsa.TNT3)
// gets its 3.0 type code and details back. updated is when contrack emitted this version
// (eventUpdatedDateTime); scac the carrier, its originating party when the
// event names none (carrierCode).
//
// Everything 2.0.2 holds has a place in 3.0 except what docs/tnt3.md
// lists (transportCallID, a location's address name and a country name
// that is not a two-letter code, the COYA facility type); values longer
// than 3.0 allows are cut (free text) or left out (codes).
func FromDCSA(e dcsa.Event, scac string, updated time.Time) Event {
	if e.CarrierCode != "" {
		scac = e.CarrierCode
	}
	out := Event{
		EventRouting:         Carrier(scac),
		EventID:              e.EventID,
		EventDateTime:        e.EventDateTime,
		EventUpdatedDateTime: updated.UTC().Format(UpdatedTime),
		EventClassification: &EventClassification{
			EventTypeCode:       e.EventType,
			EventClassifierCode: e.EventClassifierCode,
		},
	}
	switch e.EventType {
	case dcsa.EventTypeEquipment:
		out.EventClassification.EquipmentEventTypeCode = e.EquipmentEventTypeCode
	case dcsa.EventTypeTransport:
		out.EventClassification.TransportEventTypeCode = e.TransportEventTypeCode
	}
	if t := e.TNT3; t != nil {
		out.EventClassification.ShipmentEventTypeCode = t.ShipmentEventTypeCode
		out.EventClassification.IotEventTypeCode = t.IotEventTypeCode
		out.EventClassification.ReeferEventTypeCode = t.ReeferEventTypeCode
		// Written by normalize/tnt3 from these very types.
		if len(t.IotDetails) > 0 {
			var d IotDetails
			if json.Unmarshal(t.IotDetails, &d) == nil {
				out.IotDetails = &d
			}
		}
		if len(t.ReeferDetails) > 0 {
			var d ReeferDetails
			if json.Unmarshal(t.ReeferDetails, &d) == nil {
				out.ReeferDetails = &d
			}
		}
	}

	// Where it happened: an equipment event's location, else its transport
	// call's (a transport event's place is its call).
	loc := locationFromDCSA(e.EventLocation)
	if tc := e.TransportCall; tc != nil && loc == nil {
		loc = locationFromDCSA(tc.Location)
		if tc.UNLocationCode != "" || tc.FacilityCode != "" {
			if loc == nil {
				loc = &Location{}
			}
			if loc.UNLocationCode == "" {
				loc.UNLocationCode = tc.UNLocationCode
			}
			if loc.Facility == nil && tc.FacilityCode != "" {
				loc.Facility = &Facility{FacilityCode: tc.FacilityCode, FacilityCodeListProvider: tc.FacilityCodeListProvider}
			}
		}
	}
	facilityType := e.FacilityTypeCode
	if facilityType == "" && e.TransportCall != nil {
		facilityType = e.TransportCall.FacilityTypeCode
	}
	if ft := facilityTypeTo3[facilityType]; ft != "" {
		if loc == nil {
			loc = &Location{}
		}
		loc.FacilityTypeCode = ft
	}
	out.EventLocation = loc

	if sd := shipmentFromDCSA(e); sd != nil {
		out.ShipmentDetails = sd
	}
	if td := transportFromDCSA(e); td != nil {
		out.TransportDetails = td
	}
	if ed := equipmentFromDCSA(e); ed != nil {
		out.EquipmentDetails = ed
	}
	return out
}

// facilityTypeTo3 maps 2.0.2's facilityTypeCodeTRN to 3.0's facility
// types; COYA (container yard) has no 3.0 code and is left out.
var facilityTypeTo3 = map[string]string{
	"BOCR": "BORD", "CLOC": "CLOC", "COFS": "COFS", "OFFD": "OFFD", "DEPO": "DEPO",
	"INTE": "INTE", "POTE": "POTE", "RAMP": "RAMP",
}

// FacilityTypeFrom3 maps 3.0's facility types to 2.0.2's; WAYP (waypoint)
// has no 2.0.2 code ("").
var FacilityTypeFrom3 = map[string]string{
	"BORD": "BOCR", "CLOC": "CLOC", "COFS": "COFS", "OFFD": "OFFD", "DEPO": "DEPO",
	"INTE": "INTE", "POTE": "POTE", "RAMP": "RAMP",
}

// 3.0's lengths where 2.0.2 allows more.
const (
	maxEquipmentReference = 11
	maxStreet             = 70
	maxPostCode           = 10
	maxCity               = 35
)

func locationFromDCSA(l *dcsa.Location) *Location {
	if l == nil {
		return nil
	}
	out := &Location{LocationName: l.LocationName, UNLocationCode: l.UNLocationCode}
	if l.FacilityCode != "" {
		out.Facility = &Facility{FacilityCode: l.FacilityCode, FacilityCodeListProvider: l.FacilityCodeListProvider}
	}
	if l.Latitude != "" || l.Longitude != "" {
		out.GeoCoordinate = &GeoCoordinate{Latitude: l.Latitude, Longitude: l.Longitude}
	}
	if a := l.Address; a != nil {
		addr := &Address{Street: truncate(a.Street, maxStreet), StreetNumber: a.StreetNumber, Floor: a.Floor,
			City: truncate(a.City, maxCity), StateRegion: a.StateRegion}
		if len(a.PostCode) <= maxPostCode {
			addr.PostCode = a.PostCode
		}
		if isCountryCode(a.Country) {
			addr.CountryCode = a.Country
		}
		if addr.Street != "" || addr.StreetNumber != "" || addr.Floor != "" || addr.PostCode != "" || addr.City != "" ||
			addr.StateRegion != "" || addr.CountryCode != "" {
			out.Address = addr
		}
	}
	if *out == (Location{}) {
		return nil
	}
	return out
}

func isCountryCode(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}

// shipmentFromDCSA: the first document reference is the event's
// documentReference, the rest additionalDocumentReferences; references are
// shipmentReferences. An equipmentReference too long for 3.0's
// equipmentDetails is kept as an EQ shipment reference.
func shipmentFromDCSA(e dcsa.Event) *ShipmentDetails {
	sd := &ShipmentDetails{}
	for i, d := range e.DocumentReferences {
		ref := DocumentReference{TypeCode: d.DocumentReferenceType, Reference: d.DocumentReferenceValue}
		if i == 0 {
			sd.DocumentReference = &ref
			continue
		}
		sd.AdditionalDocumentReferences = append(sd.AdditionalDocumentReferences, ref)
	}
	for _, r := range e.References {
		sd.ShipmentReferences = append(sd.ShipmentReferences, ShipmentReference{TypeCode: r.ReferenceType, Reference: r.ReferenceValue})
	}
	if len(e.EquipmentReference) > maxEquipmentReference && !hasReference(e.References, "EQ", e.EquipmentReference) {
		sd.ShipmentReferences = append(sd.ShipmentReferences, ShipmentReference{TypeCode: "EQ", Reference: e.EquipmentReference})
	}
	if sd.DocumentReference == nil && len(sd.ShipmentReferences) == 0 {
		return nil
	}
	return sd
}

func hasReference(refs []dcsa.Reference, typ, value string) bool {
	for _, r := range refs {
		if r.ReferenceType == typ && r.ReferenceValue == value {
			return true
		}
	}
	return false
}

func transportFromDCSA(e dcsa.Event) *TransportDetails {
	td := &TransportDetails{ChangeRemark: e.ChangeRemark}
	if e.DelayReasonCode != "" {
		td.DelayReasonCodes = []string{e.DelayReasonCode}
	}
	if tc := e.TransportCall; tc != nil {
		call := &TransportCall{
			TransportCallReference:      tc.TransportCallReference,
			TransportCallSequenceNumber: tc.TransportCallSequenceNumber,
			ModeOfTransport:             tc.ModeOfTransport,
			PortVisitReference:          tc.PortVisitReference,
		}
		if tc.CarrierServiceCode != "" {
			call.ServiceCodeOrReference = &ServiceCodeOrReference{CarrierServiceCode: tc.CarrierServiceCode}
		}
		if v := firstOf(tc.CarrierExportVoyageNumber, tc.ExportVoyageNumber, tc.CarrierVoyageNumber); v != "" {
			call.ExportVoyageNumberOrReference = &VoyageNumberOrReference{CarrierVoyageNumber: v}
		}
		if v := firstOf(tc.CarrierImportVoyageNumber, tc.ImportVoyageNumber); v != "" {
			call.ImportVoyageNumberOrReference = &VoyageNumberOrReference{CarrierVoyageNumber: v}
		}
		if v := tc.Vessel; v != nil {
			call.VesselTransport = &VesselTransport{VesselIMONumber: v.VesselIMONumber, VesselName: v.VesselName,
				VesselFlag: v.VesselFlag, VesselCallSign: v.VesselCallSignNumber, OperatorCarrierCode: v.VesselOperatorCarrierCode,
				OperatorCarrierCodeListProvider: v.VesselOperatorCarrierCodeListProvider}
		}
		td.TransportCall = call
	}
	if td.TransportCall == nil && td.ChangeRemark == "" && td.DelayReasonCodes == nil {
		return nil
	}
	return td
}

func equipmentFromDCSA(e dcsa.Event) *EquipmentDetails {
	ed := &EquipmentDetails{ISOEquipmentCode: e.ISOEquipmentCode, EmptyIndicatorCode: e.EmptyIndicatorCode}
	if len(e.EquipmentReference) <= maxEquipmentReference {
		ed.EquipmentReference = e.EquipmentReference
	}
	for _, s := range e.Seals {
		ed.Seals = append(ed.Seals, Seal{Number: s.SealNumber, Source: s.SealSource, Type: s.SealType})
	}
	if ed.EquipmentReference == "" && ed.ISOEquipmentCode == "" && ed.EmptyIndicatorCode == "" && ed.Seals == nil {
		return nil
	}
	return ed
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// truncate cuts free text to max characters without splitting one.
func truncate(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}
