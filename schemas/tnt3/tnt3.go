// Package tnt3 is the Go shape of DCSA Track & Trace 3.0.0
// (reference/dcsa/TNT_v3.0.0.yaml): the events carriers push to POST /events
// and serve from GET /events in 3.0, and the events contrack emits to
// subscribers who ask for 3.0 (webhooks, the feed, GET /v3/events).
//
// Field names and JSON tags follow the YAML exactly. Every field is optional
// in 3.0, so every field is omitempty or a pointer: an absent value is
// absent on the wire.
//
// contrack's pipeline carries EVENT_DOMAIN 2.0.2 events, and 3.0's
// SHIPMENT, IOT and REEFER events beside them (dcsa.Event.TNT3); FromDCSA
// maps one to 3.0 for output. The way in (3.0 to 2.0.2) is the normaliser's parser,
// normalize/tnt3. What 2.0.2 cannot carry either way is tabled in
// docs/tnt3.md.
package tnt3

import "strings"

// Version is the full version of the standard, the API-Version header
// contrack sends with every 3.0 message.
const Version = "3.0.0"

// HTTP headers of the standard.
const (
	HeaderAPIVersion     = "API-Version"
	HeaderNextPageCursor = "Next-Page-Cursor"
)

// IsVersion3 says an API-Version header value asks for major version 3:
// "3", "3.0", "3.0.0", "3.1.0-Beta-1" and the like.
func IsVersion3(v string) bool {
	v = strings.TrimSpace(v)
	return v == "3" || strings.HasPrefix(v, "3.")
}

// Event types (eventClassification.eventTypeCode).
const (
	EventTypeShipment  = "SHIPMENT"
	EventTypeTransport = "TRANSPORT"
	EventTypeEquipment = "EQUIPMENT"
	EventTypeIoT       = "IOT"
	EventTypeReefer    = "REEFER"
)

// Event is one Track & Trace 3.0 event.
type Event struct {
	EventRouting         *EventRouting        `json:"eventRouting,omitempty"`
	EventID              string               `json:"eventID,omitempty"`
	IsRetracted          bool                 `json:"isRetracted,omitempty"`
	EventDateTime        string               `json:"eventDateTime,omitempty"`
	EventUpdatedDateTime string               `json:"eventUpdatedDateTime,omitempty"`
	EventLocation        *Location            `json:"eventLocation,omitempty"`
	EventClassification  *EventClassification `json:"eventClassification,omitempty"`
	ShipmentDetails      *ShipmentDetails     `json:"shipmentDetails,omitempty"`
	TransportDetails     *TransportDetails    `json:"transportDetails,omitempty"`
	EquipmentDetails     *EquipmentDetails    `json:"equipmentDetails,omitempty"`
	IotDetails           *IotDetails          `json:"iotDetails,omitempty"`
	ReeferDetails        *ReeferDetails       `json:"reeferDetails,omitempty"`
}

// EventRouting is the route of an event from its originating party.
type EventRouting struct {
	OriginatingParty  *Party  `json:"originatingParty,omitempty"`
	ForwardingParties []Party `json:"forwardingParties,omitempty"`
	DestinationParty  *Party  `json:"destinationParty,omitempty"`
}

// Party identifies a shipping party by a code of a code list.
type Party struct {
	PartyCode        string `json:"partyCode,omitempty"`
	CodeListProvider string `json:"codeListProvider,omitempty"`
	CodeListName     string `json:"codeListName,omitempty"`
	PartyFunction    string `json:"partyFunction,omitempty"`
}

// EventClassification is an event's type, subtype and classifier.
type EventClassification struct {
	EventTypeCode          string `json:"eventTypeCode,omitempty"`
	EventClassifierCode    string `json:"eventClassifierCode,omitempty"`
	ShipmentEventTypeCode  string `json:"shipmentEventTypeCode,omitempty"`
	TransportEventTypeCode string `json:"transportEventTypeCode,omitempty"`
	EquipmentEventTypeCode string `json:"equipmentEventTypeCode,omitempty"`
	IotEventTypeCode       string `json:"iotEventTypeCode,omitempty"`
	ReeferEventTypeCode    string `json:"reeferEventTypeCode,omitempty"`
}

// Location is any of a name, UN/LOCODE, facility, address and position,
// all naming one place.
type Location struct {
	LocationName     string         `json:"locationName,omitempty"`
	FacilityTypeCode string         `json:"facilityTypeCode,omitempty"`
	Address          *Address       `json:"address,omitempty"`
	UNLocationCode   string         `json:"UNLocationCode,omitempty"`
	Facility         *Facility      `json:"facility,omitempty"`
	GeoCoordinate    *GeoCoordinate `json:"geoCoordinate,omitempty"`
}

// Address is 3.0's address.
type Address struct {
	Street       string   `json:"street,omitempty"`
	StreetNumber string   `json:"streetNumber,omitempty"`
	Floor        string   `json:"floor,omitempty"`
	PostCode     string   `json:"postCode,omitempty"`
	POBox        string   `json:"POBox,omitempty"`
	City         string   `json:"city,omitempty"`
	StateRegion  string   `json:"stateRegion,omitempty"`
	CountryCode  string   `json:"countryCode,omitempty"`
	AddressLines []string `json:"addressLines,omitempty"`
}

// Facility is a facility code of a code list provider (SMDG, BIC).
type Facility struct {
	FacilityName             string `json:"facilityName,omitempty"`
	FacilityCode             string `json:"facilityCode,omitempty"`
	FacilityCodeListProvider string `json:"facilityCodeListProvider,omitempty"`
}

// GeoCoordinate is a position in decimal degrees.
type GeoCoordinate struct {
	Latitude  string `json:"latitude,omitempty"`
	Longitude string `json:"longitude,omitempty"`
}

// DocumentReference is a referenced document (BKG, TRD, ...).
type DocumentReference struct {
	TypeCode  string `json:"typeCode,omitempty"`
	Reference string `json:"reference,omitempty"`
}

// DocumentReferenceReplacement says documents were replaced by others (a
// booking split or combined, a transport document voided and reissued).
type DocumentReferenceReplacement struct {
	OldReferences []DocumentReference `json:"oldReferences,omitempty"`
	NewReferences []DocumentReference `json:"newReferences,omitempty"`
}

// ShipmentReference is a shipper's or carrier's reference (FF, SI, EQ, ...).
type ShipmentReference struct {
	TypeCode  string `json:"typeCode,omitempty"`
	Reference string `json:"reference,omitempty"`
}

// ShipmentReferenceReplacement says shipment references were replaced.
type ShipmentReferenceReplacement struct {
	OldReferences []ShipmentReference `json:"oldReferences,omitempty"`
	NewReferences []ShipmentReference `json:"newReferences,omitempty"`
}

// ShipmentDetails are an event's shipment-specific details.
type ShipmentDetails struct {
	DocumentReference             *DocumentReference             `json:"documentReference,omitempty"`
	AdditionalDocumentReferences  []DocumentReference            `json:"additionalDocumentReferences,omitempty"`
	DocumentReferenceReplacements []DocumentReferenceReplacement `json:"documentReferenceReplacements,omitempty"`
	ShipmentReferences            []ShipmentReference            `json:"shipmentReferences,omitempty"`
	ShipmentReferenceReplacements []ShipmentReferenceReplacement `json:"shipmentReferenceReplacements,omitempty"`
	ShipmentLocationType          string                         `json:"shipmentLocationType,omitempty"`
	Reason                        string                         `json:"reason,omitempty"`
	PriceCalculationDate          string                         `json:"priceCalculationDate,omitempty"`
}

// TransportDetails are an event's transport-specific details.
type TransportDetails struct {
	DelayReasonCodes []string       `json:"delayReasonCodes,omitempty"`
	ChangeRemark     string         `json:"changeRemark,omitempty"`
	TransportCall    *TransportCall `json:"transportCall,omitempty"`
}

// TransportCall is a call of a vessel, train, truck or barge.
type TransportCall struct {
	TransportCallReference        string                   `json:"transportCallReference,omitempty"`
	TransportCallSequenceNumber   *int                     `json:"transportCallSequenceNumber,omitempty"`
	ModeOfTransport               string                   `json:"modeOfTransport,omitempty"`
	PortVisitReference            string                   `json:"portVisitReference,omitempty"`
	ServiceCodeOrReference        *ServiceCodeOrReference  `json:"serviceCodeOrReference,omitempty"`
	ExportVoyageNumberOrReference *VoyageNumberOrReference `json:"exportVoyageNumberOrReference,omitempty"`
	ImportVoyageNumberOrReference *VoyageNumberOrReference `json:"importVoyageNumberOrReference,omitempty"`
	VesselTransport               *VesselTransport         `json:"vesselTransport,omitempty"`
	RailTransport                 *RailTransport           `json:"railTransport,omitempty"`
	TruckTransport                *TruckTransport          `json:"truckTransport,omitempty"`
}

// ServiceCodeOrReference is a carrier service code and/or a universal
// service reference.
type ServiceCodeOrReference struct {
	CarrierServiceCode        string `json:"carrierServiceCode,omitempty"`
	UniversalServiceReference string `json:"universalServiceReference,omitempty"`
}

// VoyageNumberOrReference is a carrier voyage number and/or a universal
// voyage reference.
type VoyageNumberOrReference struct {
	CarrierVoyageNumber      string `json:"carrierVoyageNumber,omitempty"`
	UniversalVoyageReference string `json:"universalVoyageReference,omitempty"`
}

// VesselTransport identifies a vessel or barge.
type VesselTransport struct {
	VesselIMONumber                 string `json:"vesselIMONumber,omitempty"`
	VesselName                      string `json:"vesselName,omitempty"`
	VesselFlag                      string `json:"vesselFlag,omitempty"`
	VesselCallSign                  string `json:"vesselCallSign,omitempty"`
	OperatorCarrierCode             string `json:"operatorCarrierCode,omitempty"`
	OperatorCarrierCodeListProvider string `json:"operatorCarrierCodeListProvider,omitempty"`
}

// RailTransport is a rail car and service.
type RailTransport struct {
	RailCarReference     string `json:"railCarReference,omitempty"`
	RailServiceReference string `json:"railServiceReference,omitempty"`
	DepartureID          string `json:"departureID,omitempty"`
}

// TruckTransport is a truck's tractor and trailer.
type TruckTransport struct {
	TractorDetails *VehicleDetails `json:"tractorDetails,omitempty"`
	TrailerDetails *VehicleDetails `json:"trailerDetails,omitempty"`
}

// VehicleDetails are a licence plate and chassis number.
type VehicleDetails struct {
	LicensePlate                string `json:"licensePlate,omitempty"`
	VehicleIdentificationNumber string `json:"vehicleIdentificationNumber,omitempty"`
}

// EquipmentDetails are an event's equipment-specific details.
type EquipmentDetails struct {
	EquipmentReference string `json:"equipmentReference,omitempty"`
	ISOEquipmentCode   string `json:"ISOEquipmentCode,omitempty"`
	EmptyIndicatorCode string `json:"emptyIndicatorCode,omitempty"`
	MovementType       string `json:"movementType,omitempty"`
	Seals              []Seal `json:"seals,omitempty"`
}

// Seal is a seal on the equipment.
type Seal struct {
	Number    string `json:"number,omitempty"`
	Source    string `json:"source,omitempty"`
	Type      string `json:"type,omitempty"`
	Placement string `json:"placement,omitempty"`
}

// IotDetails are an IoT event's details (DRC, DRO, LOC).
type IotDetails struct {
	IotEventCode string `json:"iotEventCode,omitempty"`
}

// ReeferDetails are a reefer event's readings and settings, temperatures
// in TemperatureUnit (CEL, FAH).
type ReeferDetails struct {
	TemperatureUnit              string                        `json:"temperatureUnit,omitempty"`
	InternalSetpointTemperature  *float64                      `json:"internalSetpointTemperature,omitempty"`
	TemperatureProbeMeasurements []TemperatureProbeMeasurement `json:"temperatureProbeMeasurements,omitempty"`
	AmbientMeasuredTemperature   *float64                      `json:"ambientMeasuredTemperature,omitempty"`
	SetpointParameters           *ReeferParameters             `json:"setpointParameters,omitempty"`
	MeasuredParameters           *ReeferParameters             `json:"measuredParameters,omitempty"`
}

// TemperatureProbeMeasurement is one probe's reading.
type TemperatureProbeMeasurement struct {
	MeasuredTemperatureValue *float64 `json:"measuredTemperatureValue,omitempty"`
	USDAProbeNumber          *int     `json:"USDAProbeNumber,omitempty"`
	COAProbeUDMKey           string   `json:"COAProbeUDMKey,omitempty"`
	ProbeLabel               string   `json:"probeLabel,omitempty"`
}

// ReeferParameters are a reefer's settings or readings other than
// temperatures.
type ReeferParameters struct {
	O2Percentage                   *float64 `json:"o2Percentage,omitempty"`
	CO2Percentage                  *float64 `json:"co2Percentage,omitempty"`
	HumidityPercentage             *float64 `json:"humidityPercentage,omitempty"`
	AirExchangeValue               *float64 `json:"airExchangeValue,omitempty"`
	AirExchangeUnit                string   `json:"airExchangeUnit,omitempty"`
	IsVentilationOpen              *bool    `json:"isVentilationOpen,omitempty"`
	IsDrainholesOpen               *bool    `json:"isDrainholesOpen,omitempty"`
	IsBulbMode                     *bool    `json:"isBulbMode,omitempty"`
	IsColdTreatmentRequired        *bool    `json:"isColdTreatmentRequired,omitempty"`
	IsControlledAtmosphereRequired *bool    `json:"isControlledAtmosphereRequired,omitempty"`
}

// Feedback severities.
const (
	SeverityError = "ERROR"
	SeverityWarn  = "WARN"
	SeverityInfo  = "INFO"
)

// FeedbackElement is one piece of feedback on a request: POST /events
// answers one per event it did not process as sent, GET /events errors
// at least one ERROR.
type FeedbackElement struct {
	Severity     string `json:"severity"`
	Message      string `json:"message"`
	PropertyPath string `json:"propertyPath,omitempty"`
}

// Events is a list of events: the body of POST /events
// (PostEventsRequest) and of GET /events (GetEventsResponse).
type Events struct {
	Events []Event `json:"events"`
}

// Verdict is what POST /events answers a 3.0 body before anything is
// stored: the body refused whole (Message), or each event accepted, not
// carried or refused, with feedback for the last two.
type Verdict struct {
	// Message refuses the whole body (empty, not JSON, no events array).
	Message string
	// Feedback has one element per event not processed as sent: ERROR for
	// a refused event, WARN for one accepted but not forwarded.
	Feedback []FeedbackElement
	// Accepted events are forwarded (or withdraw earlier ones; SHIPMENT,
	// IOT and REEFER events to 3.0 outputs only); NotCarried events are
	// accepted but no format carries them (AVDO, CROS, a MULTIMODAL
	// transport event); Refused events are not processed.
	Accepted, NotCarried, Refused int
}
