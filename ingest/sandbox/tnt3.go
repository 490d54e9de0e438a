package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas/tnt3"
)

// tnt3Error answers a DCSA Track & Trace 3.0 request with GetEventsError.
func (s *server) tnt3Error(w http.ResponseWriter, f *failure) {
	w.Header().Set(tnt3.HeaderAPIVersion, tnt3.Version)
	writeRetryAfter(w, f)
	if f.status == http.StatusUnauthorized && f.reason == "invalidToken" {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_ = json.NewEncoder(w).Encode(map[string]any{"feedbackElements": []tnt3.FeedbackElement{{Severity: tnt3.SeverityError, Message: f.message}}})
}

// tnt3Query is a TNT 3.0 GET /events request: the shipment (booking or
// transport document, else container), an optional container within it,
// event types and an eventUpdatedDateTime range.
type tnt3Query struct {
	kind      journey.Kind
	value     string
	equipment string // a container within a booking or transport document
	types     map[string]bool
	min, max  time.Time
}

// parseTNT3Query reads the filters every 3.0 producer must support.
func parseTNT3Query(q url.Values) (tnt3Query, *failure) {
	var tq tnt3Query
	booking, doc := strings.TrimSpace(q.Get("carrierBookingReference")), strings.TrimSpace(q.Get("transportDocumentReference"))
	equipment := strings.TrimSpace(q.Get("equipmentReference"))
	switch {
	case booking != "" && doc != "":
		return tq, badQuery("Only one of carrierBookingReference or transportDocumentReference may be given")
	case booking != "":
		tq.kind, tq.value, tq.equipment = journey.KindBooking, booking, equipment
	case doc != "":
		tq.kind, tq.value, tq.equipment = journey.KindBill, doc, equipment
	case equipment != "":
		tq.kind, tq.value = journey.KindContainer, equipment
	default:
		return tq, badQuery("One of carrierBookingReference, transportDocumentReference or equipmentReference is required")
	}
	if v := q.Get("eventTypes"); v != "" {
		tq.types = map[string]bool{}
		for _, t := range strings.Split(v, ",") {
			tq.types[strings.TrimSpace(t)] = true
		}
	}
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"eventUpdatedDateTimeMin", &tq.min}, {"eventUpdatedDateTimeMax", &tq.max}} {
		if v := q.Get(p.name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return tq, badQuery(p.name + " must be an RFC 3339 date-time")
			}
			*p.dst = t
		}
	}
	return tq, nil
}

// tnt3Cursor is the opaque 3.0 cursor: the journey time of the first page
// (so later pages are consistent with it) and the offset. The consumer
// sends it back with the original query parameters, as 3.0 requires.
type tnt3Cursor struct {
	at     time.Time
	offset int
}

func (c tnt3Cursor) encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.at.Unix(), 10) + "." + strconv.Itoa(c.offset)))
}

func decodeTNT3Cursor(s string) (tnt3Cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return tnt3Cursor{}, err
	}
	at, off, ok := strings.Cut(string(raw), ".")
	t, err1 := strconv.ParseInt(at, 10, 64)
	o, err2 := strconv.Atoi(off)
	if !ok || err1 != nil || err2 != nil || o < 0 {
		return tnt3Cursor{}, fmt.Errorf("malformed cursor")
	}
	return tnt3Cursor{at: time.Unix(t, 0).UTC(), offset: o}, nil
}

// tnt3 serves GET /events of DCSA Track & Trace 3.0: the filters, limit and
// cursor paging with Next-Page-Cursor, API-Version 3.0.0 on every answer.
// A reference it does not know is 200 with no events, as 3.0 requires.
func (s *server) tnt3(scac string, auth authFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := auth(r); f != nil {
			s.tnt3Error(w, f)
			return
		}
		if v := r.Header.Get(tnt3.HeaderAPIVersion); v != "" && !tnt3.IsVersion3(v) {
			s.tnt3Error(w, badQuery("API-Version must be 3.x.x"))
			return
		}
		q, f := parseTNT3Query(r.URL.Query())
		if f != nil {
			s.tnt3Error(w, f)
			return
		}
		limit := s.cfg.PageSize
		if l := r.URL.Query().Get("limit"); l != "" {
			n, err := strconv.Atoi(l)
			if err != nil || n < 1 {
				s.tnt3Error(w, badQuery("limit must be a positive integer"))
				return
			}
			limit = min(limit, n)
		}
		if SpecialOf(q.value) == SpecialManyPages {
			limit = 2
		}
		cur := tnt3Cursor{at: s.journeyNow()}
		if c := r.URL.Query().Get("cursor"); c != "" {
			var err error
			if cur, err = decodeTNT3Cursor(c); err != nil {
				s.tnt3Error(w, badQuery("Invalid cursor"))
				return
			}
		}
		var events []tnt3.Event
		switch f := s.special(r, scac, q.kind, q.value); {
		case f == errNotFound:
			events = []tnt3.Event{}
		case f != nil:
			s.tnt3Error(w, f)
			return
		default:
			j := s.journey(scac, q.kind, q.value, cur.at)
			events = filterTNT3(renderTNT3(j, SpecialOf(q.value)), q)
		}
		end := min(cur.offset+limit, len(events))
		page := events[min(cur.offset, len(events)):end]
		w.Header().Set(tnt3.HeaderAPIVersion, tnt3.Version)
		w.Header().Set("Content-Type", "application/json")
		if end < len(events) {
			w.Header().Set(tnt3.HeaderNextPageCursor, tnt3Cursor{at: cur.at, offset: end}.encode())
		}
		writeJSON(w, tnt3.Events{Events: page})
	})
}

// filterTNT3 keeps the events q asks for. A retraction is kept whatever its
// type (it carries none) when its time is in range.
func filterTNT3(evs []tnt3.Event, q tnt3Query) []tnt3.Event {
	out := make([]tnt3.Event, 0, len(evs))
	for _, e := range evs {
		if q.equipment != "" && e.EquipmentDetails != nil && !strings.EqualFold(e.EquipmentDetails.EquipmentReference, q.equipment) {
			continue
		}
		if q.types != nil && e.EventClassification != nil && !q.types[e.EventClassification.EventTypeCode] {
			continue
		}
		if !q.min.IsZero() || !q.max.IsZero() {
			u, _ := time.Parse(time.RFC3339Nano, e.EventUpdatedDateTime)
			if (!q.min.IsZero() && u.Before(q.min)) || (!q.max.IsZero() && u.After(q.max)) {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// Wrong reports of RTRU numbers (renderTNT3): an actual discharge at a port
// the container never called, reported an hour after the first vessel
// departure and retracted six hours (journey time) after that.
const (
	wrongReportAfter = time.Hour
	retractAfter     = 6 * time.Hour
)

// WrongReport says, for a journey of a Retracted test number, which event
// was reported in error and when: reported at, retracted at. ok is false
// when the journey has no vessel departure yet at any time.
func WrongReport(j journey.Journey) (id string, reported, retracted time.Time, ok bool) {
	for _, e := range j.Events {
		if e.Type == journey.TypeTransport && e.Code == journey.CodeDepart {
			if e.Classifier != journey.ACT {
				return "", time.Time{}, time.Time{}, false
			}
			reported = e.Time.Add(wrongReportAfter).UTC()
			return "wrong-report-" + e.ID, reported, reported.Add(retractAfter), true
		}
	}
	return "", time.Time{}, time.Time{}, false
}

// renderTNT3 renders a journey as 3.0 events: shipment, transport and
// equipment events as 2.2 has them, plus what 3.0 added — an IoT "door
// closed" at each container's gate-in and, for reefers, a REEFER
// measurement when loaded, and the terminal's status at the port of
// discharge (terminalEvents: a Hold test number's customs hold first). A
// Retracted test number gets its wrong report, or its retraction once due.
func renderTNT3(j journey.Journey, special Special) []tnt3.Event {
	withWrongReport := special == SpecialRetracted
	routing := tnt3.Carrier(j.SCAC)
	docs := &tnt3.ShipmentDetails{
		DocumentReference:            &tnt3.DocumentReference{TypeCode: "BKG", Reference: j.Booking},
		AdditionalDocumentReferences: []tnt3.DocumentReference{{TypeCode: "TRD", Reference: j.Bill}},
	}
	out := make([]tnt3.Event, 0, len(j.Events)+2*len(j.Containers)+1)
	for _, e := range j.Events {
		ev := tnt3.Event{
			EventRouting:         routing,
			EventID:              e.ID,
			EventDateTime:        e.Time.Format(dcsaTime),
			EventUpdatedDateTime: e.Created.UTC().Format(dcsaTime),
			EventClassification:  &tnt3.EventClassification{EventTypeCode: e.Type, EventClassifierCode: string(e.Classifier)},
			ShipmentDetails:      docs,
		}
		switch e.Type {
		case journey.TypeShipment:
			ev.EventClassification.ShipmentEventTypeCode = e.Code
			ev.ShipmentDetails = &tnt3.ShipmentDetails{DocumentReference: &tnt3.DocumentReference{TypeCode: e.DocumentType, Reference: j.Booking}}
			if e.DocumentType == "TRD" {
				ev.ShipmentDetails.DocumentReference.Reference = j.Bill
			}
		case journey.TypeTransport:
			ev.EventClassification.TransportEventTypeCode = e.Code
			ev.EventLocation = tnt3Location(e.Port, portFacility(e.Port))
			ev.TransportDetails = tnt3Transport(j, e)
			if e.DelayReasonCode != "" {
				ev.TransportDetails.DelayReasonCodes = []string{e.DelayReasonCode}
				ev.TransportDetails.ChangeRemark = e.ChangeRemark
			}
		case journey.TypeEquipment:
			c := j.Containers[e.Container]
			ev.EventClassification.EquipmentEventTypeCode = e.Code
			ev.EventLocation = tnt3Location(e.Port, e.Facility)
			ev.TransportDetails = tnt3Transport(j, e)
			ev.EquipmentDetails = &tnt3.EquipmentDetails{EquipmentReference: c.Number, ISOEquipmentCode: c.ISOCode, EmptyIndicatorCode: "LADEN"}
			if e.Empty {
				ev.EquipmentDetails.EmptyIndicatorCode = "EMPTY"
			} else {
				ev.EquipmentDetails.Seals = []tnt3.Seal{{Number: c.Seal, Source: "CAR", Type: "BLT"}}
			}
		}
		out = append(out, ev)
		if e.Type == journey.TypeEquipment && e.Classifier == journey.ACT && !e.Empty {
			out = append(out, tnt3Extras(j, e, routing)...)
		}
	}
	out = append(out, terminalEvents(j, special == SpecialHold, routing)...)
	if withWrongReport {
		if id, reported, retracted, ok := WrongReport(j); ok && !j.Now.Before(reported) {
			if j.Now.Before(retracted) {
				out = append(out, wrongReport(j, id, reported, routing))
			} else {
				out = append(out, tnt3.Event{EventRouting: routing, EventID: id, IsRetracted: true, EventUpdatedDateTime: retracted.Format(dcsaTime)})
			}
		}
	}
	return out
}

// tnt3Extras are the 3.0-only events of a container's actual laden
// milestone: door closed at gate-in, a temperature reading of a reefer when
// loaded.
func tnt3Extras(j journey.Journey, e journey.Event, routing *tnt3.EventRouting) []tnt3.Event {
	c := j.Containers[e.Container]
	base := func(suffix, typ string) tnt3.Event {
		return tnt3.Event{EventRouting: routing, EventID: e.ID + "-" + suffix, EventDateTime: e.Time.Format(dcsaTime),
			EventUpdatedDateTime: e.Created.UTC().Format(dcsaTime), EventLocation: tnt3Location(e.Port, e.Facility),
			EventClassification: &tnt3.EventClassification{EventTypeCode: typ, EventClassifierCode: "ACT"},
			EquipmentDetails:    &tnt3.EquipmentDetails{EquipmentReference: c.Number, ISOEquipmentCode: c.ISOCode}}
	}
	switch {
	case e.Code == journey.CodeGateIn:
		ev := base("iot", tnt3.EventTypeIoT)
		ev.EventClassification.IotEventTypeCode = "DETC"
		ev.IotDetails = &tnt3.IotDetails{IotEventCode: "DRC"}
		return []tnt3.Event{ev}
	case e.Code == journey.CodeLoad && strings.Contains(c.ISOCode, "R"):
		ev := base("reefer", tnt3.EventTypeReefer)
		ev.EventClassification.ReeferEventTypeCode = "MEAS"
		setpoint, ambient := -18.0, 21.5
		ev.ReeferDetails = &tnt3.ReeferDetails{TemperatureUnit: "CEL", InternalSetpointTemperature: &setpoint, AmbientMeasuredTemperature: &ambient}
		return []tnt3.Event{ev}
	}
	return nil
}

// wrongReport is the Retracted test number's wrong event: the first
// container discharged at a port the journey never calls.
func wrongReport(j journey.Journey, id string, at time.Time, routing *tnt3.EventRouting) tnt3.Event {
	wrong := journey.Ports()[0]
	for _, p := range journey.Ports() {
		if !calls(j, p.Code) && !p.Inland {
			wrong = p
			break
		}
	}
	c := j.Containers[0]
	return tnt3.Event{EventRouting: routing, EventID: id, EventDateTime: at.In(wrong.Location()).Format(dcsaTime),
		EventUpdatedDateTime: at.Format(dcsaTime), EventLocation: tnt3Location(wrong, journey.FacilityPort),
		EventClassification: &tnt3.EventClassification{EventTypeCode: tnt3.EventTypeEquipment, EventClassifierCode: "ACT", EquipmentEventTypeCode: journey.CodeDischarge},
		ShipmentDetails:     &tnt3.ShipmentDetails{DocumentReference: &tnt3.DocumentReference{TypeCode: "BKG", Reference: j.Booking}},
		EquipmentDetails:    &tnt3.EquipmentDetails{EquipmentReference: c.Number, ISOEquipmentCode: c.ISOCode, EmptyIndicatorCode: "LADEN"}}
}

func calls(j journey.Journey, code string) bool {
	for _, l := range j.Legs {
		if l.From.Code == code || l.To.Code == code {
			return true
		}
	}
	return false
}

func portFacility(p journey.Port) string {
	if p.Inland {
		return journey.FacilityInland
	}
	return journey.FacilityPort
}

func tnt3Location(p journey.Port, facility string) *tnt3.Location {
	l := &tnt3.Location{LocationName: p.TerminalName, FacilityTypeCode: facility, UNLocationCode: p.Code,
		GeoCoordinate: &tnt3.GeoCoordinate{Latitude: coord(p.Lat), Longitude: coord(p.Lon)}}
	if facility == journey.FacilityDepot {
		l.LocationName = p.DepotName()
	} else {
		l.Facility = &tnt3.Facility{FacilityCode: p.TerminalCode, FacilityCodeListProvider: "SMDG"}
	}
	return l
}

func tnt3Transport(j journey.Journey, e journey.Event) *tnt3.TransportDetails {
	leg := j.Legs[e.Leg]
	ref, seq := leg.ArrivalCallID, 2*e.Leg+2
	if e.Departure {
		ref, seq = leg.DepartureCallID, 2*e.Leg+1
	}
	tc := &tnt3.TransportCall{TransportCallReference: ref, TransportCallSequenceNumber: &seq, ModeOfTransport: leg.Mode,
		ExportVoyageNumberOrReference: &tnt3.VoyageNumberOrReference{CarrierVoyageNumber: leg.Voyage},
		ImportVoyageNumberOrReference: &tnt3.VoyageNumberOrReference{CarrierVoyageNumber: leg.Voyage}}
	if leg.Service != "" {
		tc.ServiceCodeOrReference = &tnt3.ServiceCodeOrReference{CarrierServiceCode: leg.Service}
	}
	if v := leg.Vessel; v != nil {
		tc.VesselTransport = &tnt3.VesselTransport{VesselIMONumber: v.IMO, VesselName: v.Name, VesselFlag: v.Flag,
			VesselCallSign: v.CallSign, OperatorCarrierCode: v.Operator, OperatorCarrierCodeListProvider: "NMFTA"}
	}
	return &tnt3.TransportDetails{TransportCall: tc}
}
