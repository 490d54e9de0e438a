// Package dcsa holds the Go shape of DCSA EVENT_DOMAIN 2.0.2 events, the one
// standard every contrack consumer receives whatever the carrier's source
// format. Only the equipment and transport event shapes are modelled: the
// public interface emits no shipment or operations events.
//
// Field names and JSON tags follow event_domain_v2.0.2.yaml exactly
// (including the capitalised ISOEquipmentCode and UNLocationCode). Optional
// fields are pointers or omitempty so that an absent value is absent on the
// wire, never an empty string that fails the standard's patterns.
//
// Beside them, Event carries the DCSA Track & Trace 3.0 event types
// EVENT_DOMAIN 2.0.2 has no form for (SHIPMENT, IOT, REEFER: IsTNT3Only),
// with what only 3.0 has of them in Event.TNT3. Such an event is no
// EVENT_DOMAIN 2.0.2 event: only 3.0 outputs carry it (docs/tnt3.md).
package dcsa

import "encoding/json"

// Event types (eventType).
const (
	EventTypeEquipment = "EQUIPMENT"
	EventTypeTransport = "TRANSPORT"
)

// Event types of DCSA Track & Trace 3.0 that EVENT_DOMAIN 2.0.2 has no form
// for. contrack keeps them (Event.TNT3) for its 3.0 outputs only.
const (
	EventTypeShipment = "SHIPMENT"
	EventTypeIoT      = "IOT"
	EventTypeReefer   = "REEFER"
)

// TNT3OnlyTypes are the event types only 3.0 outputs carry, in 3.0's order.
var TNT3OnlyTypes = []string{EventTypeShipment, EventTypeIoT, EventTypeReefer}

// IsTNT3Only says events of eventType have no EVENT_DOMAIN 2.0.2 form:
// only 3.0 outputs (GET /v3/events, TNT_3.0.0 webhooks, the feed read
// with API-Version 3.x) carry them.
func IsTNT3Only(eventType string) bool {
	return eventType == EventTypeShipment || eventType == EventTypeIoT || eventType == EventTypeReefer
}

// TNT3 is what a SHIPMENT, IOT or REEFER event (IsTNT3Only) has beyond the
// fields it shares with 2.0.2's events (its time, classifier, location,
// equipment and document references): its 3.0 type code and details.
// IotDetails and ReeferDetails are schemas/tnt3's, as normalize/tnt3
// checked them, in compact JSON.
type TNT3 struct {
	ShipmentEventTypeCode string          `json:"shipmentEventTypeCode,omitempty"`
	IotEventTypeCode      string          `json:"iotEventTypeCode,omitempty"`
	ReeferEventTypeCode   string          `json:"reeferEventTypeCode,omitempty"`
	IotDetails            json.RawMessage `json:"iotDetails,omitempty"`
	ReeferDetails         json.RawMessage `json:"reeferDetails,omitempty"`
}

// Code is the event's 3.0 type code (shipment, IoT or reefer).
func (t *TNT3) Code() string {
	if t == nil {
		return ""
	}
	return t.ShipmentEventTypeCode + t.IotEventTypeCode + t.ReeferEventTypeCode
}

// Event classifier codes (eventClassifierCode).
const (
	ClassifierActual    = "ACT"
	ClassifierPlanned   = "PLN"
	ClassifierEstimated = "EST"
)

// Event is one DCSA 2.0.2 equipment or transport event. Which of
// EquipmentEventTypeCode and TransportEventTypeCode is set follows EventType.
type Event struct {
	EventID              string `json:"eventID,omitempty"`
	EventCreatedDateTime string `json:"eventCreatedDateTime"`
	EventType            string `json:"eventType"`
	EventClassifierCode  string `json:"eventClassifierCode"`
	EventDateTime        string `json:"eventDateTime"`

	// Equipment events.
	EquipmentEventTypeCode string    `json:"equipmentEventTypeCode,omitempty"`
	EquipmentReference     string    `json:"equipmentReference,omitempty"`
	ISOEquipmentCode       string    `json:"ISOEquipmentCode,omitempty"`
	EmptyIndicatorCode     string    `json:"emptyIndicatorCode,omitempty"`
	EventLocation          *Location `json:"eventLocation,omitempty"`

	// Transport events.
	TransportEventTypeCode string `json:"transportEventTypeCode,omitempty"`
	DelayReasonCode        string `json:"delayReasonCode,omitempty"`
	ChangeRemark           string `json:"changeRemark,omitempty"`

	// Common.
	CarrierCode        string              `json:"carrierCode,omitempty"`
	FacilityTypeCode   string              `json:"facilityTypeCode,omitempty"`
	TransportCall      *TransportCall      `json:"transportCall,omitempty"`
	DocumentReferences []DocumentReference `json:"documentReferences,omitempty"`
	References         []Reference         `json:"references,omitempty"`
	Seals              []Seal              `json:"seals,omitempty"`

	// TNT3 is set exactly for the event types IsTNT3Only names: what they
	// have beyond 2.0.2's fields. The normaliser emits such an event as a
	// 3.0-only record (schemas.TypeEventTNT3), which EVENT_DOMAIN 2.0.2
	// outputs leave out.
	TNT3 *TNT3 `json:"tnt3,omitempty"`

	// Retracted is set only in a parser's output, by formats that can
	// withdraw an event (DCSA TNT 3.0's isRetracted): the value is then no
	// event but the withdrawal of every version of the event EventID, and
	// no other field is set. Not part of EVENT_DOMAIN 2.0.2: never on the
	// wire, never in a content hash.
	Retracted bool `json:"-"`

	// Terminal is set only in a parser's output, for an equipment event of
	// the terminal's status that 2.0.2 has no code for (DCSA TNT 3.0's
	// AVPU, CUSS, CUSI, CUSR: TerminalCodes), its 3.0 code in
	// EquipmentEventTypeCode. Such an event is no EVENT_DOMAIN 2.0.2 event:
	// the normaliser emits it as a terminal record (schemas.TypeEventTerminal),
	// which journeys read for readiness and nothing delivers as an event.
	Terminal bool `json:"-"`
}

// TerminalCodes are the equipment event codes of a terminal's status that
// contrack reads (DCSA TNT 3.0), with what each says.
var TerminalCodes = map[string]string{
	"AVPU": "available for pick-up",
	"CUSS": "customs selected for scan",
	"CUSI": "customs selected for inspection",
	"CUSR": "customs released",
}

// Location is LOCATION_DOMAIN 2.0.2's location: any of a geo position,
// a UN/LOCODE, a facility or an address, all naming the same place.
type Location struct {
	LocationName             string   `json:"locationName,omitempty"`
	Latitude                 string   `json:"latitude,omitempty"`
	Longitude                string   `json:"longitude,omitempty"`
	UNLocationCode           string   `json:"UNLocationCode,omitempty"`
	FacilityCode             string   `json:"facilityCode,omitempty"`
	FacilityCodeListProvider string   `json:"facilityCodeListProvider,omitempty"`
	Address                  *Address `json:"address,omitempty"`
}

// Address is LOCATION_DOMAIN 2.0.2's address.
type Address struct {
	Name         string `json:"name,omitempty"`
	Street       string `json:"street,omitempty"`
	StreetNumber string `json:"streetNumber,omitempty"`
	Floor        string `json:"floor,omitempty"`
	PostCode     string `json:"postCode,omitempty"`
	City         string `json:"city,omitempty"`
	StateRegion  string `json:"stateRegion,omitempty"`
	Country      string `json:"country,omitempty"`
}

// TransportCall is the vessel, voyage and place context of an event.
// transportCallID and modeOfTransport are required by the standard.
type TransportCall struct {
	TransportCallID             string    `json:"transportCallID"`
	TransportCallReference      string    `json:"transportCallReference,omitempty"`
	PortVisitReference          string    `json:"portVisitReference,omitempty"`
	CarrierServiceCode          string    `json:"carrierServiceCode,omitempty"`
	CarrierVoyageNumber         string    `json:"carrierVoyageNumber,omitempty"`
	ExportVoyageNumber          string    `json:"exportVoyageNumber,omitempty"`
	CarrierExportVoyageNumber   string    `json:"carrierExportVoyageNumber,omitempty"`
	ImportVoyageNumber          string    `json:"importVoyageNumber,omitempty"`
	CarrierImportVoyageNumber   string    `json:"carrierImportVoyageNumber,omitempty"`
	TransportCallSequenceNumber *int      `json:"transportCallSequenceNumber,omitempty"`
	UNLocationCode              string    `json:"UNLocationCode,omitempty"`
	FacilityCode                string    `json:"facilityCode,omitempty"`
	FacilityCodeListProvider    string    `json:"facilityCodeListProvider,omitempty"`
	FacilityTypeCode            string    `json:"facilityTypeCode,omitempty"`
	OtherFacility               string    `json:"otherFacility,omitempty"` // deprecated in 2.0.2, still valid
	ModeOfTransport             string    `json:"modeOfTransport"`
	Location                    *Location `json:"location,omitempty"`
	Vessel                      *Vessel   `json:"vessel,omitempty"`
}

// Vessel identifies a ship; vesselIMONumber is required when a vessel is given.
type Vessel struct {
	VesselIMONumber           string `json:"vesselIMONumber"`
	VesselName                string `json:"vesselName,omitempty"`
	VesselFlag                string `json:"vesselFlag,omitempty"`
	VesselCallSignNumber      string `json:"vesselCallSignNumber,omitempty"`
	VesselOperatorCarrierCode string `json:"vesselOperatorCarrierCode,omitempty"`
	// VesselOperatorCarrierCodeListProvider is SMDG or NMFTA.
	VesselOperatorCarrierCodeListProvider string `json:"vesselOperatorCarrierCodeListProvider,omitempty"`
}

// Document reference types.
const (
	DocBooking          = "BKG"
	DocTransportDoc     = "TRD"
	DocBookingRequest   = "CBR"
	DocShippingInstruct = "SHI"
)

// DocumentReference links an event to a booking, bill of lading and the like.
type DocumentReference struct {
	DocumentReferenceType  string `json:"documentReferenceType"`
	DocumentReferenceValue string `json:"documentReferenceValue"`
}

// Reference is a shipper or carrier reference; type EQ names an equipment.
type Reference struct {
	ReferenceType  string `json:"referenceType"`
	ReferenceValue string `json:"referenceValue"`
}

// Seal is DOCUMENTATION_DOMAIN 2.0.2's seal.
type Seal struct {
	SealNumber string `json:"sealNumber"`
	SealSource string `json:"sealSource,omitempty"`
	SealType   string `json:"sealType"`
}

// Place is the UN/LOCODE where the event happened: the event location of
// an equipment event, else its transport call's location; "" if unknown.
func (e Event) Place() string {
	if l := e.EventLocation; l != nil && l.UNLocationCode != "" {
		return l.UNLocationCode
	}
	if tc := e.TransportCall; tc != nil {
		if tc.Location != nil && tc.Location.UNLocationCode != "" {
			return tc.Location.UNLocationCode
		}
		return tc.UNLocationCode
	}
	return ""
}

// Summary is what the read models index of an event: the fields of Event
// they read, under the same names. Decoding into it skips the rest (the
// references, seals, vessel, ...), which a projection would decode and
// drop for every event: the events view and the journeys decode every
// event of the events topic.
type Summary struct {
	EventCreatedDateTime   string                `json:"eventCreatedDateTime"`
	EventType              string                `json:"eventType"`
	EventClassifierCode    string                `json:"eventClassifierCode"`
	EventDateTime          string                `json:"eventDateTime"`
	EquipmentEventTypeCode string                `json:"equipmentEventTypeCode"`
	EquipmentReference     string                `json:"equipmentReference"`
	EmptyIndicatorCode     string                `json:"emptyIndicatorCode"`
	TransportEventTypeCode string                `json:"transportEventTypeCode"`
	TNT3                   *SummaryTNT3          `json:"tnt3"`
	EventLocation          *SummaryLocation      `json:"eventLocation"`
	TransportCall          *SummaryTransportCall `json:"transportCall"`
}

// SummaryTNT3 is what a Summary reads of a 3.0-only event's TNT3.
type SummaryTNT3 struct {
	ShipmentEventTypeCode string `json:"shipmentEventTypeCode"`
	IotEventTypeCode      string `json:"iotEventTypeCode"`
	ReeferEventTypeCode   string `json:"reeferEventTypeCode"`
}

// TypeCode is the event's type code: its equipment, transport, shipment,
// IoT or reefer event type code, by its type.
func (e *Summary) TypeCode() string {
	switch e.EventType {
	case EventTypeTransport:
		return e.TransportEventTypeCode
	case EventTypeEquipment:
		return e.EquipmentEventTypeCode
	}
	if t := e.TNT3; t != nil {
		return t.ShipmentEventTypeCode + t.IotEventTypeCode + t.ReeferEventTypeCode
	}
	return ""
}

// SummaryLocation is what a Summary reads of a Location.
type SummaryLocation struct {
	UNLocationCode string `json:"UNLocationCode"`
}

// SummaryTransportCall is what a Summary reads of a TransportCall.
type SummaryTransportCall struct {
	UNLocationCode  string           `json:"UNLocationCode"`
	Location        *SummaryLocation `json:"location"`
	ModeOfTransport string           `json:"modeOfTransport"`
}

// Mode is the transport call's modeOfTransport ("" without one).
func (e *Summary) Mode() string {
	if tc := e.TransportCall; tc != nil {
		return tc.ModeOfTransport
	}
	return ""
}

// Place is Event.Place.
func (e *Summary) Place() string {
	if l := e.EventLocation; l != nil && l.UNLocationCode != "" {
		return l.UNLocationCode
	}
	if tc := e.TransportCall; tc != nil {
		if tc.Location != nil && tc.Location.UNLocationCode != "" {
			return tc.Location.UNLocationCode
		}
		return tc.UNLocationCode
	}
	return ""
}
