// Package voyage derives where a journey's container is at sea: the legs
// its transport events describe, the vessel carrying it (and, while it is
// at sea, the vessel's latest reported position), the route of the legs as
// GeoJSON (sailed and planned parts), and contrack's own predicted arrival
// at the next port and at the port of discharge, from the sea distance
// left and the vessel's recent speed, beside the carrier's estimates.
//
// It is pure: the journey read side (queryapi) gives it a journey's
// vesselEvents and the vessel's latest reports; the shapes it returns are
// the API's (docs/api.md, "Vessel, route and predicted arrival").
package voyage

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/contrack/contrack/schemas/searoute"
)

// Leg is one vessel passage of a journey, as its transport events
// (departure and arrival) tell it.
type Leg struct {
	IMO, Name, Voyage string
	From, To          Port
	// Departure and Arrival are the carrier's times: actual once the
	// event is actual (Departed, Arrived), else its latest estimate or plan;
	// zero when the carrier sent none.
	Departure, Arrival time.Time
	Departed, Arrived  bool
}

// Port is a port call: its UN/LOCODE and position (the event's, else the
// port table's; nil when neither knows it).
type Port struct {
	Code string
	Name string
	At   *searoute.Point
}

// event is what Legs reads of a transport event.
type event struct {
	EventClassifierCode    string `json:"eventClassifierCode"`
	EventDateTime          string `json:"eventDateTime"`
	TransportEventTypeCode string `json:"transportEventTypeCode"`
	TransportCall          struct {
		CarrierVoyageNumber string `json:"carrierVoyageNumber"`
		UNLocationCode      string `json:"UNLocationCode"`
		ModeOfTransport     string `json:"modeOfTransport"`
		Vessel              *struct {
			IMO  string `json:"vesselIMONumber"`
			Name string `json:"vesselName"`
		} `json:"vessel"`
		Location *struct {
			LocationName   string `json:"locationName"`
			Latitude       string `json:"latitude"`
			Longitude      string `json:"longitude"`
			UNLocationCode string `json:"UNLocationCode"`
		} `json:"location"`
	} `json:"transportCall"`
}

// Legs reads a journey's vessel passages from its transport events (the
// vesselEvents of a result): one leg per vessel and voyage with a
// departure and an arrival, in departure order. Events without a vessel
// (rail, truck) or with another mode are left out.
func Legs(vesselEvents []json.RawMessage) []Leg {
	type key struct{ imo, voyage string }
	var order []key
	legs := map[key]*Leg{}
	seenDep := map[key]bool{}
	seenArr := map[key]bool{}
	for _, raw := range vesselEvents {
		var ev event
		if json.Unmarshal(raw, &ev) != nil {
			continue
		}
		tc := ev.TransportCall
		if tc.Vessel == nil || tc.Vessel.IMO == "" || (tc.ModeOfTransport != "" && tc.ModeOfTransport != "VESSEL") {
			continue
		}
		k := key{tc.Vessel.IMO, tc.CarrierVoyageNumber}
		l, ok := legs[k]
		if !ok {
			l = &Leg{IMO: tc.Vessel.IMO, Name: tc.Vessel.Name, Voyage: tc.CarrierVoyageNumber}
			legs[k] = l
			order = append(order, k)
		}
		at, err := time.Parse(time.RFC3339Nano, ev.EventDateTime)
		if err != nil {
			continue
		}
		actual := ev.EventClassifierCode == "ACT"
		port := portOf(tc.UNLocationCode, tc.Location)
		switch ev.TransportEventTypeCode {
		case "DEPA":
			// The actual event wins over estimates; among estimates, the last.
			if !l.Departed || actual {
				l.From, l.Departure, l.Departed = port, at.UTC(), actual || l.Departed
				seenDep[k] = true
			}
		case "ARRI":
			if !l.Arrived || actual {
				l.To, l.Arrival, l.Arrived = port, at.UTC(), actual || l.Arrived
				seenArr[k] = true
			}
		}
	}
	var out []Leg
	for _, k := range order {
		if seenDep[k] && seenArr[k] {
			out = append(out, *legs[k])
		}
	}
	slices.SortStableFunc(out, func(a, b Leg) int { return a.Departure.Compare(b.Departure) })
	return out
}

func portOf(code string, loc *struct {
	LocationName   string `json:"locationName"`
	Latitude       string `json:"latitude"`
	Longitude      string `json:"longitude"`
	UNLocationCode string `json:"UNLocationCode"`
}) Port {
	p := Port{Code: code}
	if loc != nil {
		if p.Code == "" {
			p.Code = loc.UNLocationCode
		}
		lat, err1 := strconv.ParseFloat(loc.Latitude, 64)
		lon, err2 := strconv.ParseFloat(loc.Longitude, 64)
		if err1 == nil && err2 == nil && math.Abs(lat) <= 90 && math.Abs(lon) <= 180 {
			p.At = &searoute.Point{Lat: lat, Lon: lon}
		}
	}
	if known, ok := searoute.LookupPort(p.Code); ok {
		p.Name = known.Name
		if p.At == nil {
			p.At = &searoute.Point{Lat: known.Lat, Lon: known.Lon}
		}
	}
	return p
}

// Current returns the leg the container is on or will be on next: the one
// departed and not arrived (atSea), else the first not departed, else the
// last; -1 without legs.
func Current(legs []Leg) (i int, atSea bool) {
	for i, l := range legs {
		if l.Departed && !l.Arrived {
			return i, true
		}
	}
	for i, l := range legs {
		if !l.Departed {
			return i, false
		}
	}
	return len(legs) - 1, false
}

// route is a leg's sea route; ok false when an end has no position.
func (l Leg) route() (searoute.Route, bool) {
	if l.From.At == nil || l.To.At == nil {
		return searoute.Route{}, false
	}
	return searoute.Between(l.From.Code, l.From.At, l.To.Code, l.To.At)
}
