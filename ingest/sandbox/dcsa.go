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
)

// notFoundEmpty lists the DCSA carriers that answer an unknown reference
// with 200 and an empty list; the others answer 404 with an error body.
// Both are real-world behaviours, and adapters must handle both.
var notFoundEmpty = map[string]bool{"HLCU": true, "EGLV": true, "HDMU": true, "ONEY": true}

// dcsaError is ERROR_DOMAIN 1.0.0's error body. TNT 1.2 types statusCode
// as a string, TNT 2.2 as an integer.
type dcsaError struct {
	HTTPMethod     string       `json:"httpMethod"`
	RequestURI     string       `json:"requestUri"`
	Errors         []dcsaSubErr `json:"errors"`
	StatusCode     any          `json:"statusCode"`
	StatusCodeText string       `json:"statusCodeText"`
	ErrorDateTime  string       `json:"errorDateTime"`
}

type dcsaSubErr struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func (s *server) writeDCSAError(w http.ResponseWriter, r *http.Request, f *failure, v12 bool) {
	var code any = f.status
	if v12 {
		code = strconv.Itoa(f.status)
	} else {
		w.Header().Set("API-Version", "2.2.0")
	}
	writeRetryAfter(w, f)
	if f.status == http.StatusUnauthorized && f.reason == "invalidToken" {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_ = json.NewEncoder(w).Encode(dcsaError{
		HTTPMethod:     r.Method,
		RequestURI:     r.URL.RequestURI(),
		Errors:         []dcsaSubErr{{Reason: f.reason, Message: f.message}},
		StatusCode:     code,
		StatusCodeText: http.StatusText(f.status),
		ErrorDateTime:  s.cfg.Clock().UTC().Format(time.RFC3339),
	})
}

func badQuery(msg string) *failure {
	return &failure{status: http.StatusBadRequest, reason: "invalidQuery", message: msg}
}

// pageCursor is the opaque TNT 2.2 cursor: the query, the journey time of
// the first page (so later pages are consistent with it), offset and limit.
type pageCursor struct {
	kind   journey.Kind
	value  string
	at     time.Time
	offset int
	limit  int
}

func (c pageCursor) encode() string {
	v := url.Values{}
	v.Set("k", string(c.kind))
	v.Set("v", c.value)
	v.Set("t", strconv.FormatInt(c.at.Unix(), 10))
	v.Set("o", strconv.Itoa(c.offset))
	v.Set("l", strconv.Itoa(c.limit))
	return base64.RawURLEncoding.EncodeToString([]byte(v.Encode()))
}

func decodeCursor(s string) (pageCursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return pageCursor{}, err
	}
	v, err := url.ParseQuery(string(raw))
	if err != nil {
		return pageCursor{}, err
	}
	t, err1 := strconv.ParseInt(v.Get("t"), 10, 64)
	o, err2 := strconv.Atoi(v.Get("o"))
	l, err3 := strconv.Atoi(v.Get("l"))
	k := journey.Kind(v.Get("k"))
	if err1 != nil || err2 != nil || err3 != nil || o < 0 || l < 1 || v.Get("v") == "" ||
		(k != journey.KindContainer && k != journey.KindBooking && k != journey.KindBill) {
		return pageCursor{}, fmt.Errorf("malformed cursor")
	}
	return pageCursor{kind: k, value: v.Get("v"), at: time.Unix(t, 0).UTC(), offset: o, limit: l}, nil
}

// queryOf reads the one identifier of a request from the named parameters
// (container, booking, bill, in that order).
func queryOf(r *http.Request, container, booking, bill string) (journey.Kind, string, *failure) {
	q := r.URL.Query()
	var kind journey.Kind
	var value string
	n := 0
	for _, p := range []struct {
		name string
		kind journey.Kind
	}{{container, journey.KindContainer}, {booking, journey.KindBooking}, {bill, journey.KindBill}} {
		if v := strings.TrimSpace(q.Get(p.name)); v != "" {
			kind, value = p.kind, v
			n++
		}
	}
	switch n {
	case 0:
		return "", "", badQuery(fmt.Sprintf("One of %s, %s or %s is required", container, booking, bill))
	case 1:
		return kind, value, nil
	}
	return "", "", badQuery(fmt.Sprintf("Only one of %s, %s or %s may be given", container, booking, bill))
}

// tnt22 serves GET /events of DCSA Track & Trace 2.2 with cursor pagination.
func (s *server) tnt22(scac string, auth authFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := auth(r); f != nil {
			s.writeDCSAError(w, r, f, false)
			return
		}
		if v := r.Header.Get("API-Version"); v != "" && v != "2" && !strings.HasPrefix(v, "2.") {
			s.writeDCSAError(w, r, badQuery("API-Version must be 2"), false)
			return
		}
		var cur pageCursor
		if c := r.URL.Query().Get("cursor"); c != "" {
			var err error
			if cur, err = decodeCursor(c); err != nil {
				s.writeDCSAError(w, r, badQuery("Invalid cursor"), false)
				return
			}
		} else {
			kind, value, f := queryOf(r, "equipmentReference", "carrierBookingReference", "transportDocumentReference")
			if f != nil {
				s.writeDCSAError(w, r, f, false)
				return
			}
			limit := s.cfg.PageSize
			if l := r.URL.Query().Get("limit"); l != "" {
				n, err := strconv.Atoi(l)
				if err != nil || n < 1 {
					s.writeDCSAError(w, r, badQuery("limit must be a positive integer"), false)
					return
				}
				limit = min(limit, n)
			}
			if SpecialOf(value) == SpecialManyPages {
				limit = 2
			}
			cur = pageCursor{kind: kind, value: value, at: s.journeyNow(), limit: limit}
		}
		if f := s.special(r, scac, cur.kind, cur.value); f != nil {
			if f == errNotFound && notFoundEmpty[scac] {
				w.Header().Set("API-Version", "2.2.0")
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Current-Page", cur.encode())
				_, _ = w.Write([]byte("[]"))
				return
			}
			s.writeDCSAError(w, r, f, false)
			return
		}
		events := renderTNT22(s.journey(scac, cur.kind, cur.value, cur.at))
		end := min(cur.offset+cur.limit, len(events))
		page := events[min(cur.offset, len(events)):end]
		w.Header().Set("API-Version", "2.2.0")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Current-Page", cur.encode())
		if end < len(events) {
			next := cur
			next.offset = end
			w.Header().Set("Next-Page", next.encode())
		}
		if cur.offset > 0 {
			prev := cur
			prev.offset = max(0, cur.offset-cur.limit)
			w.Header().Set("Prev-Page", prev.encode())
		}
		if s.cfg.StrictShapes || !Deviant(scac, cur.kind, cur.value) {
			writeJSON(w, page)
			return
		}
		body, err := deviate(scac, page)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, body)
	})
}

// tnt12 serves GET /events of DCSA Track & Trace 1.2: {"events": [...]}, no pagination.
func (s *server) tnt12(scac string, auth authFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := auth(r); f != nil {
			s.writeDCSAError(w, r, f, true)
			return
		}
		kind, value, f := queryOf(r, "equipmentReference", "bookingReference", "billOfLadingNumber")
		if f == nil {
			f = s.special(r, scac, kind, value)
		}
		if f == errNotFound && notFoundEmpty[scac] {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"events":[]}`))
			return
		}
		if f != nil {
			s.writeDCSAError(w, r, f, true)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		writeJSON(w, map[string]any{"events": renderTNT12(s.journey(scac, kind, value, s.journeyNow()))})
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write(append(b, '\n'))
}

// DCSA TNT 2.2 shapes (EVENT_DOMAIN 1.0.x as served by TNT 2.2), field order
// as in the reference sample tnt-220-response.json.
type tnt22Event struct {
	EventID                string              `json:"eventID"`
	EventCreatedDateTime   string              `json:"eventCreatedDateTime"`
	EventType              string              `json:"eventType"`
	EventClassifierCode    string              `json:"eventClassifierCode"`
	EventDateTime          string              `json:"eventDateTime"`
	TransportEventTypeCode string              `json:"transportEventTypeCode,omitempty"`
	DelayReasonCode        string              `json:"delayReasonCode,omitempty"`
	ChangeRemark           string              `json:"changeRemark,omitempty"`
	ShipmentEventTypeCode  string              `json:"shipmentEventTypeCode,omitempty"`
	DocumentID             string              `json:"documentID,omitempty"`
	DocumentTypeCode       string              `json:"documentTypeCode,omitempty"`
	EquipmentEventTypeCode string              `json:"equipmentEventTypeCode,omitempty"`
	EquipmentReference     string              `json:"equipmentReference,omitempty"`
	ISOEquipmentCode       string              `json:"ISOEquipmentCode,omitempty"`
	EmptyIndicatorCode     string              `json:"emptyIndicatorCode,omitempty"`
	EventLocation          *tnt22Location      `json:"eventLocation,omitempty"`
	TransportCall          *tnt22TransportCall `json:"transportCall,omitempty"`
	DocumentReferences     []tnt22DocRef       `json:"documentReferences,omitempty"`
	References             []tnt22Ref          `json:"references,omitempty"`
	Seals                  []tnt22Seal         `json:"seals,omitempty"`
}

type tnt22Location struct {
	LocationName             string `json:"locationName,omitempty"`
	Latitude                 string `json:"latitude,omitempty"`
	Longitude                string `json:"longitude,omitempty"`
	UNLocationCode           string `json:"UNLocationCode,omitempty"`
	FacilityCode             string `json:"facilityCode,omitempty"`
	FacilityCodeListProvider string `json:"facilityCodeListProvider,omitempty"`
}

type tnt22TransportCall struct {
	TransportCallID             string         `json:"transportCallID"`
	CarrierServiceCode          string         `json:"carrierServiceCode,omitempty"`
	ExportVoyageNumber          string         `json:"exportVoyageNumber,omitempty"`
	ImportVoyageNumber          string         `json:"importVoyageNumber,omitempty"`
	TransportCallSequenceNumber int            `json:"transportCallSequenceNumber"`
	UNLocationCode              string         `json:"UNLocationCode"`
	FacilityCode                string         `json:"facilityCode,omitempty"`
	FacilityCodeListProvider    string         `json:"facilityCodeListProvider,omitempty"`
	FacilityTypeCode            string         `json:"facilityTypeCode"`
	ModeOfTransport             string         `json:"modeOfTransport"`
	Location                    *tnt22Location `json:"location,omitempty"`
	Vessel                      *tnt22Vessel   `json:"vessel,omitempty"`
}

type tnt22Vessel struct {
	VesselIMONumber                       string `json:"vesselIMONumber"`
	VesselName                            string `json:"vesselName"`
	VesselFlag                            string `json:"vesselFlag"`
	VesselCallSignNumber                  string `json:"vesselCallSignNumber"`
	VesselOperatorCarrierCode             string `json:"vesselOperatorCarrierCode"`
	VesselOperatorCarrierCodeListProvider string `json:"vesselOperatorCarrierCodeListProvider"`
}

type tnt22DocRef struct {
	DocumentReferenceType  string `json:"documentReferenceType"`
	DocumentReferenceValue string `json:"documentReferenceValue"`
}

type tnt22Ref struct {
	ReferenceType  string `json:"referenceType"`
	ReferenceValue string `json:"referenceValue"`
}

type tnt22Seal struct {
	SealNumber string `json:"sealNumber"`
	SealSource string `json:"sealSource"`
	SealType   string `json:"sealType"`
}

const dcsaTime = "2006-01-02T15:04:05Z07:00"

func coord(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }

func portLocation(p journey.Port, facility string) *tnt22Location {
	l := &tnt22Location{LocationName: p.TerminalName, Latitude: coord(p.Lat), Longitude: coord(p.Lon), UNLocationCode: p.Code}
	if facility == journey.FacilityDepot {
		l.LocationName = p.DepotName()
	} else {
		l.FacilityCode, l.FacilityCodeListProvider = p.TerminalCode, "SMDG"
	}
	return l
}

func transportCall(j journey.Journey, e journey.Event) *tnt22TransportCall {
	leg := j.Legs[e.Leg]
	port, id, seq := leg.To, leg.ArrivalCallID, 2*e.Leg+2
	if e.Departure {
		port, id, seq = leg.From, leg.DepartureCallID, 2*e.Leg+1
	}
	fac := journey.FacilityPort
	if port.Inland {
		fac = journey.FacilityInland
	}
	tc := &tnt22TransportCall{
		TransportCallID: id, CarrierServiceCode: leg.Service,
		ExportVoyageNumber: leg.Voyage, ImportVoyageNumber: leg.Voyage,
		TransportCallSequenceNumber: seq, UNLocationCode: port.Code,
		FacilityCode: port.TerminalCode, FacilityCodeListProvider: "SMDG", FacilityTypeCode: fac,
		ModeOfTransport: leg.Mode,
		Location:        &tnt22Location{Latitude: coord(port.Lat), Longitude: coord(port.Lon), UNLocationCode: port.Code},
	}
	if v := leg.Vessel; v != nil {
		tc.Vessel = &tnt22Vessel{
			VesselIMONumber: v.IMO, VesselName: v.Name, VesselFlag: v.Flag, VesselCallSignNumber: v.CallSign,
			VesselOperatorCarrierCode: v.Operator, VesselOperatorCarrierCodeListProvider: "NMFTA",
		}
	}
	return tc
}

func renderTNT22(j journey.Journey) []tnt22Event {
	docs := []tnt22DocRef{{"BKG", j.Booking}, {"TRD", j.Bill}}
	var allEQ []tnt22Ref
	for _, c := range j.Containers {
		allEQ = append(allEQ, tnt22Ref{"EQ", c.Number})
	}
	out := make([]tnt22Event, 0, len(j.Events))
	for _, e := range j.Events {
		ev := tnt22Event{
			EventID:              e.ID,
			EventCreatedDateTime: e.Created.UTC().Format(dcsaTime),
			EventType:            e.Type,
			EventClassifierCode:  string(e.Classifier),
			EventDateTime:        e.Time.Format(dcsaTime),
		}
		switch e.Type {
		case journey.TypeShipment:
			ev.ShipmentEventTypeCode, ev.DocumentTypeCode = e.Code, e.DocumentType
			ev.DocumentID = j.Booking
			if e.DocumentType == "TRD" {
				ev.DocumentID = j.Bill
			}
			ev.References = allEQ
		case journey.TypeTransport:
			ev.TransportEventTypeCode = e.Code
			ev.DelayReasonCode, ev.ChangeRemark = e.DelayReasonCode, e.ChangeRemark
			ev.TransportCall = transportCall(j, e)
			ev.DocumentReferences = docs
			ev.References = allEQ
		case journey.TypeEquipment:
			c := j.Containers[e.Container]
			ev.EquipmentEventTypeCode = e.Code
			ev.EquipmentReference = c.Number
			ev.ISOEquipmentCode = c.ISOCode
			ev.EmptyIndicatorCode = "LADEN"
			if e.Empty {
				ev.EmptyIndicatorCode = "EMPTY"
			} else {
				ev.Seals = []tnt22Seal{{SealNumber: c.Seal, SealSource: "CAR", SealType: "BLT"}}
			}
			ev.EventLocation = portLocation(e.Port, e.Facility)
			ev.TransportCall = transportCall(j, e)
			ev.DocumentReferences = docs
			ev.References = []tnt22Ref{{"EQ", c.Number}}
		}
		out = append(out, ev)
	}
	return out
}

// tnt12Event is TNT 1.2's flat event.
type tnt12Event struct {
	EventID               string `json:"eventID"`
	EventType             string `json:"eventType"`
	EventDateTime         string `json:"eventDateTime"`
	EventClassifierCode   string `json:"eventClassifierCode"`
	EventTypeCode         string `json:"eventTypeCode"`
	EquipmentReference    string `json:"equipmentReference,omitempty"`
	TransportReference    string `json:"transportReference,omitempty"`
	TransportLegReference string `json:"transportLegReference,omitempty"`
	FacilityTypeCode      string `json:"facilityTypeCode"`
	UNLocationCode        string `json:"UNLocationCode"`
	FacilityCode          string `json:"facilityCode"`
	OtherFacility         string `json:"otherFacility,omitempty"`
	ModeOfTransportCode   string `json:"modeOfTransportCode,omitempty"`
	EmptyIndicatorCode    string `json:"emptyIndicatorCode,omitempty"`
}

// modeCode is UN/ECE Recommendation 19: 1 maritime, 2 rail, 3 road.
var modeCode = map[string]string{journey.ModeVessel: "1", journey.ModeRail: "2", journey.ModeTruck: "3"}

func renderTNT12(j journey.Journey) []tnt12Event {
	out := []tnt12Event{}
	for _, e := range j.Events {
		if e.Type == journey.TypeShipment {
			continue // TNT 1.2 shipment events carry only document codes; not simulated
		}
		ev := tnt12Event{
			EventID: e.ID, EventType: e.Type, EventDateTime: e.Time.Format(dcsaTime),
			EventClassifierCode: string(e.Classifier), EventTypeCode: e.Code,
			FacilityTypeCode: e.Facility, UNLocationCode: e.Port.Code,
			FacilityCode: e.Port.Code + e.Port.TerminalCode, ModeOfTransportCode: modeCode[e.Mode],
		}
		if e.Facility == journey.FacilityDepot {
			ev.FacilityCode, ev.OtherFacility = e.Port.Code+"DEPOT", e.Port.DepotName()
		}
		leg := j.Legs[e.Leg]
		onLeg := e.Type == journey.TypeTransport || e.Code == journey.CodeLoad || e.Code == journey.CodeDischarge
		if onLeg {
			ev.TransportReference, ev.TransportLegReference = leg.Voyage, leg.Voyage
			if leg.Vessel != nil {
				ev.TransportReference = leg.Vessel.IMO
			}
		}
		if e.Container >= 0 {
			ev.EquipmentReference = j.Containers[e.Container].Number
			ev.EmptyIndicatorCode = "LADEN"
			if e.Empty {
				ev.EmptyIndicatorCode = "EMPTY"
			}
			if onLeg {
				ev.EventType = "TRANSPORTEQUIPMENT"
			}
		}
		out = append(out, ev)
	}
	return out
}
