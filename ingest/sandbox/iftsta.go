package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/contrack/contrack/ingest/sandbox/journey"
)

// iftsta serves OOCL's EDI mailbox: GET /edi/mailbox/iftsta with one of
// containerNo, bookingNo or blNo answers an IFTSTA interchange
// (Content-Type application/edifact); 404 when the mailbox holds nothing
// for the reference. Errors are plain text.
func (s *server) iftsta(scac string, auth authFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := auth(r)
		var kind journey.Kind
		var value string
		if f == nil {
			kind, value, f = queryOf(r, "containerNo", "bookingNo", "blNo")
		}
		if f == nil {
			f = s.special(r, scac, kind, value)
		}
		if f != nil {
			writeRetryAfter(w, f)
			http.Error(w, f.reason+": "+f.message, f.status)
			return
		}
		w.Header().Set("Content-Type", "application/edifact")
		_, _ = w.Write(RenderIFTSTA(s.journey(scac, kind, value, s.journeyNow()), s.cfg.Clock()))
	})
}

// IFTSTA status codes per journey milestone (the X12 315 status codes that
// carriers' IFTSTA profiles commonly carry in STS).
const (
	stsEmptyOut    = "EE" // empty equipment dispatched to shipper
	stsGateIn      = "I"  // in-gate, full, at the port of loading
	stsLoaded      = "AE" // loaded on vessel
	stsDeparted    = "VD" // vessel departure
	stsArrived     = "VA" // vessel arrival
	stsUnloaded    = "UV" // unloaded from vessel
	stsRailLoaded  = "AL" // loaded on rail
	stsRailUnload  = "UR" // unloaded from rail
	stsGateOut     = "OA" // out-gate, full, for delivery
	stsEmptyReturn = "RD" // empty container returned
)

var stsNames = map[string]string{
	stsEmptyOut: "EMPTY EQUIPMENT DISPATCHED", stsGateIn: "IN-GATE", stsLoaded: "LOADED ON VESSEL",
	stsDeparted: "VESSEL DEPARTURE", stsArrived: "VESSEL ARRIVAL", stsUnloaded: "UNLOADED FROM VESSEL",
	stsRailLoaded: "LOADED ON RAIL", stsRailUnload: "UNLOADED FROM RAIL", stsGateOut: "OUT-GATE",
	stsEmptyReturn: "EMPTY CONTAINER RETURNED",
}

func stsCode(e journey.Event) string {
	switch {
	case e.Code == journey.CodeDepart:
		return stsDeparted
	case e.Code == journey.CodeArrive:
		return stsArrived
	case e.Code == journey.CodeGateOut && e.Empty:
		return stsEmptyOut
	case e.Code == journey.CodeGateOut:
		return stsGateOut
	case e.Code == journey.CodeGateIn && e.Empty:
		return stsEmptyReturn
	case e.Code == journey.CodeGateIn:
		return stsGateIn
	case e.Code == journey.CodeLoad && e.Mode == journey.ModeRail:
		return stsRailLoaded
	case e.Code == journey.CodeLoad:
		return stsLoaded
	case e.Code == journey.CodeDischarge && e.Mode == journey.ModeRail:
		return stsRailUnload
	case e.Code == journey.CodeDischarge:
		return stsUnloaded
	}
	return ""
}

// stsDTM is the DTM qualifier (2005) of a status time: 334 (status change)
// when actual; estimated 133/132 and scheduled 189/232 on the departure /
// arrival side of the leg.
func stsDTM(e journey.Event) string {
	switch {
	case e.Classifier == journey.ACT:
		return "334"
	case e.Classifier == journey.EST && e.Departure:
		return "133"
	case e.Classifier == journey.EST:
		return "132"
	case e.Departure:
		return "189"
	}
	return "232"
}

// ediTime is a local time in format 205 (CCYYMMDDHHMMZHHMM), the sign released.
func ediTime(t time.Time) string {
	return edi(t.Format("200601021504-0700"))
}

// edi escapes the EDIFACT separators with the release character.
func edi(s string) string {
	r := strings.NewReplacer("?", "??", "+", "?+", ":", "?:", "'", "?'")
	return r.Replace(s)
}

// RenderIFTSTA renders a journey as one EDIFACT D.99B IFTSTA interchange:
// one message per container, one STS group per status of that container
// (vessel departures and arrivals included), local times with their UTC
// offset (DTM format 205). The layout is
// documented in docs/sandbox.md.
func RenderIFTSTA(j journey.Journey, at time.Time) []byte {
	at = at.UTC()
	sum := sha256.Sum256([]byte(j.SCAC + "|" + j.Value + "|" + at.Format(time.RFC3339)))
	ctrl := fmt.Sprintf("%09d", binary.BigEndian.Uint64(sum[:8])%1_000_000_000)
	var b strings.Builder
	seg := func(format string, args ...any) { fmt.Fprintf(&b, format+"'\n", args...) }
	b.WriteString("UNA:+.? '\n")
	seg("UNB+UNOC:3+%s:ZZZ+CONTRACK:ZZZ+%s+%s", j.SCAC, at.Format("060102:1504"), ctrl)
	for ci, c := range j.Containers {
		n := 0
		mseg := func(format string, args ...any) { seg(format, args...); n++ }
		mseg("UNH+%d+IFTSTA:D:99B:UN", ci+1)
		mseg("BGM+23+%s+9", edi(fmt.Sprintf("%s%02d", ctrl, ci+1)))
		mseg("DTM+137:%s:203", at.Format("200601021504"))
		mseg("NAD+CA+%s:160:ZZZ", j.SCAC)
		mseg("CNI+1+%s", edi(j.Bill))
		for _, e := range j.Events {
			if e.Type == journey.TypeShipment || (e.Container != ci && e.Container >= 0) {
				continue
			}
			code := stsCode(e)
			mseg("STS+1+%s:::%s", code, stsNames[code])
			mseg("RFF+BN:%s", edi(j.Booking))
			mseg("RFF+BM:%s", edi(j.Bill))
			mseg("RFF+ZZZ:%s", containerEventID(e, c.Number))
			mseg("DTM+%s:%s:205", stsDTM(e), ediTime(e.Time))
			if e.Facility == journey.FacilityDepot {
				mseg("LOC+175+%s:139:6+DEPOT:TER:ZZZ:%s", e.Port.Code, edi(e.Port.DepotName()))
			} else {
				mseg("LOC+175+%s:139:6+%s:TER:ZZZ:%s", e.Port.Code, edi(e.Port.TerminalCode), edi(e.Port.TerminalName))
			}
			leg := j.Legs[e.Leg]
			switch {
			case e.Mode == journey.ModeVessel && leg.Vessel != nil:
				mseg("TDT+20+%s+1++%s:172:20+++%s:146:11:%s", edi(leg.Voyage), j.SCAC, leg.Vessel.IMO, edi(leg.Vessel.Name))
			case e.Mode == journey.ModeRail:
				mseg("TDT+20+%s+2", edi(leg.Voyage))
			default:
				mseg("TDT+20++3")
			}
			fe := "5"
			if e.Empty {
				fe = "4"
			}
			mseg("EQD+CN+%s+%s:102:5+++%s", c.Number, c.ISOCode, fe)
		}
		seg("UNT+%d+%d", n+1, ci+1)
	}
	seg("UNZ+%d+%s", len(j.Containers), ctrl)
	return []byte(b.String())
}

// containerEventID makes a per-container id for events shared by all
// containers (vessel departures and arrivals) in per-container formats.
func containerEventID(e journey.Event, container string) string {
	if e.Container >= 0 {
		return e.ID
	}
	return uuid.NewSHA1(uuid.MustParse(e.ID), []byte(container)).String()
}
