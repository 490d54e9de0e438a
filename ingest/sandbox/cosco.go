package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas/cosco"
)

// cosco serves COSCO's cargo tracking: GET /tracking/v1/cargoTracking with
// trackingType (CONTAINER, BOOKING or BL) and trackingNo, HMAC-signed.
// Every answer, errors included, is a cosco.Response whose code repeats the
// HTTP status.
func (s *server) cosco(scac string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		f := s.coscoAuth(r, body)
		var kind journey.Kind
		q := r.URL.Query()
		value := strings.TrimSpace(q.Get("trackingNo"))
		if f == nil {
			switch strings.ToUpper(q.Get("trackingType")) {
			case cosco.TrackingContainer:
				kind = journey.KindContainer
			case cosco.TrackingBooking:
				kind = journey.KindBooking
			case cosco.TrackingBill:
				kind = journey.KindBill
			default:
				f = badQuery("trackingType must be CONTAINER, BOOKING or BL")
			}
			if f == nil && value == "" {
				f = badQuery("trackingNo is required")
			}
		}
		if f == nil {
			f = s.special(r, scac, kind, value)
		}
		w.Header().Set("Content-Type", "application/json")
		if f != nil {
			writeRetryAfter(w, f)
			w.WriteHeader(f.status)
			_ = json.NewEncoder(w).Encode(cosco.Response{Code: httpCode(f.status), Message: f.message})
			return
		}
		j := s.journey(scac, kind, value, s.journeyNow())
		if !s.cfg.StrictShapes && coscoPublished(scac, kind, value) {
			writeJSON(w, RenderCOSCOPublished(j))
			return
		}
		writeJSON(w, RenderCOSCO(j))
	})
}

func httpCode(status int) string { return strconv.Itoa(status) }

// COSCO event codes per journey milestone.
func coscoCode(e journey.Event) string {
	switch {
	case e.Code == journey.CodeDepart:
		return cosco.EventDeparture
	case e.Code == journey.CodeArrive:
		return cosco.EventArrival
	case e.Code == journey.CodeGateOut && e.Empty:
		return cosco.EventEmptyPickup
	case e.Code == journey.CodeGateOut:
		return cosco.EventGateOut
	case e.Code == journey.CodeGateIn && e.Empty:
		return cosco.EventEmptyReturn
	case e.Code == journey.CodeGateIn:
		return cosco.EventGateIn
	case e.Code == journey.CodeLoad && e.Mode == journey.ModeRail:
		return cosco.EventRailLoad
	case e.Code == journey.CodeLoad:
		return cosco.EventLoad
	case e.Code == journey.CodeDischarge && e.Mode == journey.ModeRail:
		return cosco.EventRailUnload
	case e.Code == journey.CodeDischarge:
		return cosco.EventDischarge
	}
	return ""
}

var coscoStatus = map[journey.Classifier]string{journey.ACT: cosco.StatusActual, journey.EST: cosco.StatusEstimated, journey.PLN: cosco.StatusPlanned}

var coscoTracking = map[journey.Kind]string{journey.KindContainer: cosco.TrackingContainer, journey.KindBooking: cosco.TrackingBooking, journey.KindBill: cosco.TrackingBill}

func coscoLocation(p journey.Port) *cosco.Location {
	return &cosco.Location{Unlocode: p.Code, Name: p.Name, CountryCode: p.Country, Latitude: coord(p.Lat), Longitude: coord(p.Lon)}
}

// RenderCOSCO renders a journey as COSCO's cargo tracking response.
func RenderCOSCO(j journey.Journey) cosco.Response {
	content := cosco.Content{
		TrackingType: coscoTracking[j.Kind], TrackingNo: j.Value,
		BookingNo: j.Booking, BlNo: j.Bill,
		Pol: coscoLocation(j.POL()), Pod: coscoLocation(j.POD()),
	}
	for ci, c := range j.Containers {
		cc := cosco.Container{ContainerNo: c.Number, ContainerType: c.SizeType, IsoCode: c.ISOCode, Events: []cosco.Event{}}
		for _, e := range j.Events {
			if e.Type == journey.TypeShipment || (e.Container != ci && e.Container >= 0) {
				continue
			}
			code := coscoCode(e)
			ev := cosco.Event{
				EventID: containerEventID(e, c.Number), EventCode: code, EventName: cosco.EventNames[code],
				EventTime: e.Time.Format(cosco.EventTimeLayout), TimeZone: e.Time.Format("-07:00"),
				EventStatus: coscoStatus[e.Classifier], IsActual: e.Classifier == journey.ACT,
				Location: *coscoLocation(e.Port), TransportMode: e.Mode,
				UpdateTime: e.Created.UTC().Format(cosco.EventTimeLayout),
			}
			if e.Container >= 0 {
				ev.EmptyFull = cosco.Full
				if e.Empty {
					ev.EmptyFull = cosco.Empty
				}
			}
			if e.Facility != journey.FacilityDepot {
				ev.TerminalCode, ev.TerminalName = e.Port.TerminalCode, e.Port.TerminalName
			} else {
				ev.TerminalName = e.Port.DepotName()
			}
			if leg := j.Legs[e.Leg]; e.Mode == journey.ModeVessel && leg.Vessel != nil {
				ev.VesselName, ev.VesselImo, ev.VoyageNo, ev.ServiceCode = leg.Vessel.Name, leg.Vessel.IMO, leg.Voyage, leg.Service
			}
			cc.Events = append(cc.Events, ev)
		}
		content.Containers = append(content.Containers, cc)
	}
	return cosco.Response{Code: cosco.CodeOK, Message: "success", Data: &cosco.Data{Content: content}}
}
