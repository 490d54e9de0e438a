package iftsta

import "github.com/contrack/contrack/schemas/dcsa"

// DCSA codes used by the table.
const (
	eqLoad = "LOAD"
	eqDisc = "DISC"
	eqGTIN = "GTIN"
	eqGTOT = "GTOT"
	eqDrop = "DROP"
	eqStuf = "STUF"
	eqStrp = "STRP"
	trArri = "ARRI"
	trDepa = "DEPA"

	empty = "EMPTY"
	laden = "LADEN"

	modeVessel = "VESSEL"
	modeRail   = "RAIL"
	modeTruck  = "TRUCK"
	modeBarge  = "BARGE"
)

// side is the end of a transport leg a status happens at. It picks the TDT
// group's place and date when the status group has none of its own.
type side uint8

const (
	sideNone      side = iota
	sideDeparture      // port/place of loading: LOC 9 or 5, DTM 186/133/189
	sideArrival        // port/place of discharge: LOC 11, 12 or 8, DTM 178/132/232
	sideDelivery       // place of delivery: LOC 7
)

// mapping is what one STS status code becomes.
type mapping struct {
	// name is what the code means in the source code list.
	name string
	// eventType is dcsa.EventTypeEquipment or dcsa.EventTypeTransport; empty
	// for a code deliberately not mapped, in which case skip says why.
	eventType string
	// code is the equipmentEventTypeCode or transportEventTypeCode.
	code string
	// empty is the emptyIndicatorCode when the EQD does not say (8169).
	empty string
	// mode is the modeOfTransport the status implies: VESSEL (a TDT with mode
	// 8 makes it BARGE) or RAIL; "" means only a TDT of the status gives one.
	mode string
	side side
	skip string
}

// statusTable is the one place that decides what an STS status code (C555
// 4405) becomes. Ocean carriers reuse the ANSI X12 315 shipment status codes
// (element 157) in IFTSTA, and send UN/EDIFACT's own, UNECE Recommendation
// 24's numeric codes; both are keys. docs/iftsta.md shows this table with the
// reasoning; TestStatusTableDocumented keeps both in step.
//
// Codes in no row are counted in Stats.Unknown and reported as repairs
// (normalize.RepairUnknownCode, with the code), unless Rec. 24 names them
// (rec24): those, and rows with skip, are counted in Stats.Skipped and
// reported as normalize.RepairNotCarriedLeftOut, with why. None fails the
// interchange.
var statusTable = map[string]mapping{
	// Export side.
	"EE": {name: "empty equipment dispatched to shipper", eventType: dcsa.EventTypeEquipment, code: eqGTOT, empty: empty},
	"I":  {name: "in-gate (full, at the terminal of loading)", eventType: dcsa.EventTypeEquipment, code: eqGTIN, empty: laden, side: sideDeparture},
	"AE": {name: "loaded on vessel", eventType: dcsa.EventTypeEquipment, code: eqLoad, empty: laden, mode: modeVessel, side: sideDeparture},
	"VD": {name: "vessel departure", eventType: dcsa.EventTypeTransport, code: trDepa, mode: modeVessel, side: sideDeparture},
	// Import side.
	"VA": {name: "vessel arrival", eventType: dcsa.EventTypeTransport, code: trArri, mode: modeVessel, side: sideArrival},
	"UV": {name: "unloaded from vessel", eventType: dcsa.EventTypeEquipment, code: eqDisc, empty: laden, mode: modeVessel, side: sideArrival},
	"OA": {name: "out-gate (full, from the terminal of discharge)", eventType: dcsa.EventTypeEquipment, code: eqGTOT, empty: laden, side: sideArrival},
	"D":  {name: "delivered to consignee", eventType: dcsa.EventTypeEquipment, code: eqDrop, empty: laden, side: sideDelivery},
	"RD": {name: "empty container returned", eventType: dcsa.EventTypeEquipment, code: eqGTIN, empty: empty},
	// Rail legs.
	"AL": {name: "loaded on rail", eventType: dcsa.EventTypeEquipment, code: eqLoad, empty: laden, mode: modeRail, side: sideDeparture},
	"RL": {name: "rail departure from origin ramp", eventType: dcsa.EventTypeTransport, code: trDepa, mode: modeRail, side: sideDeparture},
	"AR": {name: "rail arrival at destination ramp", eventType: dcsa.EventTypeTransport, code: trArri, mode: modeRail, side: sideArrival},
	"A":  {name: "arrived at destination ramp", eventType: dcsa.EventTypeTransport, code: trArri, mode: modeRail, side: sideArrival},
	"UR": {name: "unloaded from rail", eventType: dcsa.EventTypeEquipment, code: eqDisc, empty: laden, mode: modeRail, side: sideArrival},
	"P":  {name: "departed (from origin ramp)", eventType: dcsa.EventTypeTransport, code: trDepa, mode: modeRail, side: sideDeparture},
	// Truck legs.
	"AM": {name: "loaded on truck", eventType: dcsa.EventTypeEquipment, code: eqLoad, empty: laden, mode: modeTruck, side: sideDeparture},
	// Barge and feeder legs.
	"AO": {name: "loaded on barge", eventType: dcsa.EventTypeEquipment, code: eqLoad, empty: laden, mode: modeBarge, side: sideDeparture},
	"AP": {name: "loaded on feeder vessel", eventType: dcsa.EventTypeEquipment, code: eqLoad, empty: laden, mode: modeVessel, side: sideDeparture},

	// UN/EDIFACT 4405 codes of UNECE Recommendation 24 (Trade and Transport
	// Status Codes, reference/unece), which carriers send under agency 6
	// (UN/ECE) or with none: those that are a container movement. The mode
	// comes from a TDT of the status. Other Rec. 24 codes are left out as
	// not carried (rec24).
	"1":   {name: "Arrival, completed", eventType: dcsa.EventTypeTransport, code: trArri, side: sideArrival},
	"24":  {name: "Departure, completed", eventType: dcsa.EventTypeTransport, code: trDepa, side: sideDeparture},
	"127": {name: "Departed, completed on a means of transport", eventType: dcsa.EventTypeTransport, code: trDepa, side: sideDeparture},
	"48":  {name: "Loading, completed onto a means of transport", eventType: dcsa.EventTypeEquipment, code: eqLoad, empty: laden, side: sideDeparture},
	"79":  {name: "Reloaded onto a means of transport", eventType: dcsa.EventTypeEquipment, code: eqLoad, empty: laden, side: sideDeparture},
	"29":  {name: "Unloaded", eventType: dcsa.EventTypeEquipment, code: eqDisc, empty: laden, side: sideArrival},
	"21":  {name: "Delivery, completed", eventType: dcsa.EventTypeEquipment, code: eqDrop, empty: laden, side: sideDelivery},
	"93":  {name: "Stuffed", eventType: dcsa.EventTypeEquipment, code: eqStuf, empty: laden},
	"94":  {name: "Stuffed and sealed", eventType: dcsa.EventTypeEquipment, code: eqStuf, empty: laden},
	"28":  {name: "Stripped", eventType: dcsa.EventTypeEquipment, code: eqStrp, empty: empty},

	// Statuses of documents and permissions, not of a container's movement:
	// DCSA has them as shipment events, which contrack does not emit.
	"CT": {name: "customs release", skip: "customs status is a DCSA shipment event, not an equipment or transport event"},
	"CR": {name: "carrier release", skip: "carrier (freight) release is a DCSA shipment event"},
	"IB": {name: "in-bond movement authorised", skip: "customs status is a DCSA shipment event"},
	"AV": {name: "available for delivery", skip: "availability is no DCSA 2.0.2 equipment event; the container has not moved"},
	"NF": {name: "free time to expire", skip: "a demurrage deadline, not an event"},
	"C":  {name: "estimated time of departure delay", skip: "a delay notice: the departure itself comes as VD with an estimated date"},
	"E":  {name: "estimated time of arrival delay", skip: "a delay notice: the arrival itself comes as VA with an estimated date"},
	"AA": {name: "pick-up appointment", skip: "an appointment is no DCSA 2.0.2 event"},
	"AD": {name: "delivery appointment", skip: "an appointment is no DCSA 2.0.2 event"},
	"CU": {name: "carrier and customs release", skip: "releases are DCSA shipment events"},
	"AG": {name: "estimated delivery", skip: "an estimate notice: the delivery itself comes as D with an estimated date"},
	"K":  {name: "at customs", skip: "customs status is a DCSA shipment event"},
	"FT": {name: "free time expired", skip: "a demurrage deadline, not an event"},
	"CS": {name: "container sealed", skip: "a seal is no DCSA 2.0.2 event; seals come with the container's events"},
	"OB": {name: "original bill of lading received", skip: "a document status is a DCSA shipment event"},
	"BR": {name: "bill of lading released", skip: "a document status is a DCSA shipment event"},
	"BF": {name: "booking confirmed", skip: "a booking status is a DCSA shipment event"},
}

// eventQualifiers are the LOC qualifiers (3227) carriers use for the place
// where the status happened, in order of preference: 175 activity location,
// then 165 and 176, which IFTSTA guides also use for it.
var eventQualifiers = []string{"175", "165", "176"}

// sideQualifiers are, per side, the LOC qualifiers that name that end of a
// leg: 9 place/port of loading, 5 place of departure, 11 place/port of
// discharge, 12 port of discharge, 8 place of destination, 7 place of
// delivery.
var sideQualifiers = [...][]string{
	sideNone:      nil,
	sideDeparture: {"9", "5"},
	sideArrival:   {"11", "12", "8"},
	sideDelivery:  {"7"},
}

// modeFromTDT maps TDT C220 8067 (UN/ECE Recommendation 19) to DCSA
// modeOfTransport; "" for modes DCSA has no value for (air, post, pipeline).
func modeFromTDT(code string) string {
	switch code {
	case "1":
		return modeVessel
	case "2":
		return modeRail
	case "3":
		return modeTruck
	case "8":
		return modeBarge
	}
	return ""
}

// modeFits says whether a TDT of mode tdtMode can carry a status that implies
// want: a vessel status may ride a barge.
func modeFits(want, tdtMode string) bool {
	if want == "" || tdtMode == "" {
		return true
	}
	if want == modeVessel {
		return tdtMode == modeVessel || tdtMode == modeBarge
	}
	return want == tdtMode
}
