// Package cosco is the Go shape of COSCO Shipping's proprietary JSON cargo
// tracking response (contrack source format carriers.FormatCOSCO, SCAC COSU),
// modelled on COSCO's public cargo tracking API. The COSU adapter fetches it
// unchanged; the normaliser parses it into DCSA 2.0.2 events.
//
// One response answers one query (a container number, a booking number or a
// bill of lading number) and lists every container of that shipment, each
// with its own events, oldest first:
//
//	{
//	  "code": "200",
//	  "message": "success",
//	  "data": {
//	    "content": {
//	      "trackingType": "BOOKING",
//	      "trackingNo": "6301234567",
//	      "bookingNo": "6301234567",
//	      "blNo": "COSU6301234567",
//	      "pol": {"unlocode": "CNSHA", "name": "Shanghai"},
//	      "pod": {"unlocode": "NLRTM", "name": "Rotterdam"},
//	      "containers": [{
//	        "containerNo": "CSNU1234565",
//	        "containerType": "40HQ",
//	        "isoCode": "45G1",
//	        "events": [{
//	          "eventId": "c0a9...",
//	          "eventCode": "LOD",
//	          "eventName": "Loaded on vessel",
//	          "eventTime": "2026-03-01 14:20:00",
//	          "timeZone": "+08:00",
//	          "eventStatus": "A",
//	          "isActual": true,
//	          "emptyFull": "F",
//	          "location": {"unlocode": "CNSHA", "name": "Shanghai", "countryCode": "CN",
//	                       "latitude": "31.2304", "longitude": "121.4737"},
//	          "terminalCode": "WGQ5", "terminalName": "Waigaoqiao Phase V",
//	          "transportMode": "VESSEL",
//	          "vesselName": "COSCO SHIPPING ARIES", "vesselImo": "9783502",
//	          "voyageNo": "042W", "serviceCode": "AEU3"
//	        }]
//	      }]
//	    }
//	  }
//	}
//
// Outcomes: "code" repeats the HTTP status as a string. "200" with at least
// one container event is data; "404" (HTTP 404, "data": null) means COSCO
// knows nothing of the number; "401" is a rejected key or signature; "500"
// and "503" are COSCO failures. A "200" whose containers carry no events is
// also no data. Parsers must ignore unknown fields: COSCO adds fields without
// notice.
//
// Times: EventTime is the local wall time at the event's location in layout
// EventTimeLayout, and TimeZone its UTC offset ("+08:00", "-05:00"); use
// Event.Time to combine them.
package cosco

import (
	"errors"
	"fmt"
	"time"
)

// Response codes (Response.Code).
const (
	CodeOK           = "200"
	CodeUnauthorized = "401"
	CodeNotFound     = "404"
	CodeServerError  = "500"
	CodeUnavailable  = "503"
)

// Tracking types (Content.TrackingType): which kind of number was queried.
const (
	TrackingContainer = "CONTAINER"
	TrackingBooking   = "BOOKING"
	TrackingBill      = "BL"
)

// Event codes (Event.EventCode). The DCSA 2.0.2 equivalent is given for each;
// equipment events carry emptyIndicatorCode from Event.EmptyFull.
//
//	EPU  Empty container picked up by the shipper (gate out empty at the
//	     origin depot)                        → EQUIPMENT GTOT, EMPTY
//	GTI  Full container gated in at the port of loading terminal
//	                                          → EQUIPMENT GTIN, LADEN
//	LOD  Loaded on vessel (also at a transshipment port)
//	                                          → EQUIPMENT LOAD, LADEN
//	VDL  Vessel departed from the port         → TRANSPORT DEPA
//	VAD  Vessel arrived at the port            → TRANSPORT ARRI
//	DIS  Discharged from vessel (also at a transshipment port)
//	                                          → EQUIPMENT DISC, LADEN
//	GTO  Full container gated out of the port of discharge terminal
//	     for delivery to the consignee         → EQUIPMENT GTOT, LADEN
//	ERT  Empty container returned to the depot → EQUIPMENT GTIN, EMPTY
//	RLD  Loaded on rail (inland leg, TransportMode "RAIL")
//	                                          → EQUIPMENT LOAD, LADEN, mode RAIL
//	RUL  Unloaded from rail                    → EQUIPMENT DISC, LADEN, mode RAIL
const (
	EventEmptyPickup = "EPU"
	EventGateIn      = "GTI"
	EventLoad        = "LOD"
	EventDeparture   = "VDL"
	EventArrival     = "VAD"
	EventDischarge   = "DIS"
	EventGateOut     = "GTO"
	EventEmptyReturn = "ERT"
	EventRailLoad    = "RLD"
	EventRailUnload  = "RUL"
)

// EventNames are the English names COSCO sends in Event.EventName for each code.
var EventNames = map[string]string{
	EventEmptyPickup: "Empty container picked up",
	EventGateIn:      "Gate in full at terminal",
	EventLoad:        "Loaded on vessel",
	EventDeparture:   "Vessel departed",
	EventArrival:     "Vessel arrived",
	EventDischarge:   "Discharged from vessel",
	EventGateOut:     "Gate out full for delivery",
	EventEmptyReturn: "Empty container returned",
	EventRailLoad:    "Loaded on rail",
	EventRailUnload:  "Unloaded from rail",
}

// Event statuses (Event.EventStatus): actual, estimated or planned, the DCSA
// ACT, EST and PLN classifiers.
const (
	StatusActual    = "A"
	StatusEstimated = "E"
	StatusPlanned   = "P"
)

// Transport modes (Event.TransportMode), as DCSA modeOfTransport.
const (
	ModeVessel = "VESSEL"
	ModeRail   = "RAIL"
	ModeTruck  = "TRUCK"
	ModeBarge  = "BARGE"
)

// Empty/full indicators (Event.EmptyFull): DCSA EMPTY and LADEN.
const (
	Empty = "E"
	Full  = "F"
)

// EventTimeLayout is the layout of Event.EventTime (local time, no offset).
const EventTimeLayout = "2006-01-02 15:04:05"

// Response is the whole body of a COSCO cargo tracking answer, for success and
// for errors alike.
type Response struct {
	// Code is the outcome as a string: see the Code constants.
	Code string `json:"code"`
	// Message is "success" or a human-readable error.
	Message string `json:"message"`
	// Data is null on every error and on "404".
	Data *Data `json:"data"`
}

// Data wraps the tracking content.
type Data struct {
	Content Content `json:"content"`
}

// Content is the shipment answering one query.
type Content struct {
	// TrackingType is the kind of number queried: CONTAINER, BOOKING or BL.
	TrackingType string `json:"trackingType"`
	// TrackingNo is the number queried, as sent.
	TrackingNo string `json:"trackingNo"`
	// BookingNo is COSCO's booking number (carrier booking reference), when known.
	BookingNo string `json:"bookingNo,omitempty"`
	// BlNo is the bill of lading number (transport document reference), when known.
	BlNo string `json:"blNo,omitempty"`
	// Pol and Pod are the ports of loading and discharge of the shipment.
	Pol *Location `json:"pol,omitempty"`
	Pod *Location `json:"pod,omitempty"`
	// Containers lists every container of the shipment; a container query
	// lists exactly that container.
	Containers []Container `json:"containers"`
}

// Container is one piece of equipment and its events.
type Container struct {
	// ContainerNo is the ISO 6346 container number, e.g. "CSNU1234565".
	ContainerNo string `json:"containerNo"`
	// ContainerType is COSCO's size/type label: "20GP", "40GP", "40HQ", "45HQ", "20RF", "40RH".
	ContainerType string `json:"containerType"`
	// IsoCode is the ISO 6346 size-type code (DCSA ISOEquipmentCode), e.g. "45G1".
	IsoCode string `json:"isoCode,omitempty"`
	// Events are the container's events, oldest first (actual then
	// estimated/planned, in order of EventTime).
	Events []Event `json:"events"`
}

// Event is one milestone of a container.
type Event struct {
	// EventID is COSCO's stable identifier of the event: the same milestone
	// keeps its id across polls, even when an estimate's time moves.
	EventID string `json:"eventId"`
	// EventCode is one of the Event codes (EPU, GTI, LOD, VDL, VAD, DIS, GTO,
	// ERT, RLD, RUL). Unknown codes must be tolerated (skipped or dead-lettered).
	EventCode string `json:"eventCode"`
	// EventName is the English description; informational only.
	EventName string `json:"eventName"`
	// EventTime is the local time at Location, layout EventTimeLayout.
	EventTime string `json:"eventTime"`
	// TimeZone is the UTC offset of EventTime, "+08:00" style.
	TimeZone string `json:"timeZone"`
	// EventStatus is A (actual), E (estimated) or P (planned).
	EventStatus string `json:"eventStatus"`
	// IsActual is true exactly when EventStatus is "A".
	IsActual bool `json:"isActual"`
	// EmptyFull is E (empty) or F (full/laden); empty for VDL and VAD.
	EmptyFull string `json:"emptyFull,omitempty"`
	// Location is where the event happens.
	Location Location `json:"location"`
	// TerminalCode (SMDG terminal code) and TerminalName name the facility, when known.
	TerminalCode string `json:"terminalCode,omitempty"`
	TerminalName string `json:"terminalName,omitempty"`
	// TransportMode is VESSEL, RAIL, TRUCK or BARGE: the mode of the leg the event belongs to.
	TransportMode string `json:"transportMode,omitempty"`
	// VesselName, VesselImo (7 digits), VoyageNo and ServiceCode are set on
	// vessel events (LOD, VDL, VAD, DIS).
	VesselName  string `json:"vesselName,omitempty"`
	VesselImo   string `json:"vesselImo,omitempty"`
	VoyageNo    string `json:"voyageNo,omitempty"`
	ServiceCode string `json:"serviceCode,omitempty"`
	// UpdateTime is when COSCO last changed this event, UTC, layout EventTimeLayout.
	UpdateTime string `json:"updateTime,omitempty"`
}

// Location is a place: a UN/LOCODE and its name, sometimes a position.
type Location struct {
	Unlocode    string `json:"unlocode"`
	Name        string `json:"name"`
	CountryCode string `json:"countryCode,omitempty"`
	// Latitude and Longitude are decimal degrees as strings, when known.
	Latitude  string `json:"latitude,omitempty"`
	Longitude string `json:"longitude,omitempty"`
}

// ErrBadTime is returned by Event.Time for a malformed EventTime or TimeZone.
var ErrBadTime = errors.New("cosco: malformed event time")

// Time returns the event's instant, combining EventTime and TimeZone.
func (e Event) Time() (time.Time, error) {
	t, err := time.Parse(EventTimeLayout+"Z07:00", e.EventTime+e.TimeZone)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %q %q", ErrBadTime, e.EventTime, e.TimeZone)
	}
	return t, nil
}
