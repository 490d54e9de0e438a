package voyage

import (
	"math"
	"time"

	"github.com/contrack/contrack/schemas/searoute"
)

// Vessel is a journey result's vessel: the one carrying the container, or
// the next to (between legs, before loading), or the last (after
// discharge); Position while it is at sea with the container on board.
type Vessel struct {
	Name     string    `json:"name"`
	IMO      string    `json:"imo"`
	Position *Position `json:"position,omitempty"`
}

// Position is a vessel's latest reported position.
type Position struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	// At is when the vessel reported it (RFC 3339, UTC, milliseconds).
	At string `json:"at"`
	// SpeedKnots is the speed over ground; Course the course over ground
	// in degrees from true north.
	SpeedKnots float64 `json:"speedKnots"`
	Course     float64 `json:"course"`
}

// Route is the journey's sea route as a GeoJSON Feature: a MultiLineString
// of every leg's route (pieces cut at the antimeridian), each piece
// described by Properties.Parts at the same index.
type Route struct {
	Type       string          `json:"type"` // "Feature"
	Geometry   Geometry        `json:"geometry"`
	Properties RouteProperties `json:"properties"`
}

// Geometry is a GeoJSON MultiLineString: [longitude, latitude] pairs.
type Geometry struct {
	Type        string         `json:"type"` // "MultiLineString"
	Coordinates [][][2]float64 `json:"coordinates"`
}

// RouteProperties describe the route's pieces and its ports.
type RouteProperties struct {
	// Parts[i] says which leg coordinates[i] belongs to and whether it is
	// sailed or planned.
	Parts []RoutePart `json:"parts"`
	// Ports are the legs' port calls in order: POL, transshipments, POD.
	Ports []RoutePort `json:"ports"`
	// SailedNM and RemainingNM split the route's length (nautical miles)
	// at the vessel's latest position (or at the last port reached).
	SailedNM    float64 `json:"sailedNM"`
	RemainingNM float64 `json:"remainingNM"`
}

// RoutePart describes one LineString of the route.
type RoutePart struct {
	Leg   int    `json:"leg"`   // index of the leg, from 0
	State string `json:"state"` // SAILED or PLANNED
}

// Route part states.
const (
	Sailed  = "SAILED"
	Planned = "PLANNED"
)

// RoutePort is one port call of the route.
type RoutePort struct {
	UNLocationCode string     `json:"UNLocationCode"`
	Name           string     `json:"name,omitempty"`
	Coordinates    [2]float64 `json:"coordinates"` // [longitude, latitude]
	Role           string     `json:"role"`        // POL, TRANSSHIPMENT or POD
}

// Prediction is contrack's own estimate of the arrival at the next port
// and at the port of discharge, beside the carrier's.
type Prediction struct {
	// BasedOn is the time of the position it starts from; SpeedKnots the
	// vessel's recent speed it sails the rest at.
	BasedOn    string   `json:"basedOn"`
	SpeedKnots float64  `json:"speedKnots"`
	NextPort   *PortETA `json:"nextPort"`
	POD        *PortETA `json:"POD"`
}

// PortETA is the predicted arrival at one port.
type PortETA struct {
	UNLocationCode    string  `json:"UNLocationCode"`
	RemainingNM       float64 `json:"remainingNM"`
	PredictedDateTime string  `json:"predictedDateTime"`
	// CarrierDateTime is the carrier's latest estimate of the arrival, and
	// DifferenceHours the predicted time minus it (positive: contrack
	// expects the vessel later than the carrier says); both absent when the
	// carrier gave none.
	CarrierDateTime string   `json:"carrierDateTime,omitempty"`
	DifferenceHours *float64 `json:"differenceHours,omitempty"`
}

// Fix is one reported position of a vessel.
type Fix struct {
	At                 time.Time
	Lat, Lon           float64
	SpeedKnots, Course float64
	NavStatus          int
}

// View is what a journey result shows of its voyage.
type View struct {
	Vessel     *Vessel
	Route      *Route
	Prediction *Prediction
}

// navAtAnchor is AIS's navigational status "at anchor"; anchorageNM how
// far off its port of arrival an anchored ship is waiting for its berth.
const (
	navAtAnchor = 1
	anchorageNM = 30
)

// recentSpeedWindow is how far back the reports under way are averaged
// for the vessel's recent speed.
const recentSpeedWindow = 6 * time.Hour

// Build derives the view of a journey's legs given the current leg's
// vessel reports (newest first; none known: no position, no prediction).
// A report from before the leg's departure is not the leg's position.
func Build(legs []Leg, fixes []Fix) View {
	cur, atSea := Current(legs)
	if cur < 0 {
		return View{}
	}
	l := legs[cur]
	v := View{Vessel: &Vessel{Name: l.Name, IMO: l.IMO}}
	var latest *Fix
	if atSea && len(fixes) > 0 && !fixes[0].At.Before(l.Departure.Add(-time.Hour)) {
		f := fixes[0]
		latest = &f
		v.Vessel.Position = &Position{Latitude: f.Lat, Longitude: f.Lon, At: f.At.UTC().Format("2006-01-02T15:04:05.000Z"),
			SpeedKnots: f.SpeedKnots, Course: f.Course}
	}
	routes := make([]searoute.Route, len(legs))
	ok := make([]bool, len(legs))
	for i := range legs {
		routes[i], ok[i] = legs[i].route()
	}
	along := -1.0 // on the current leg, the latest position's distance along its route
	if latest != nil && ok[cur] {
		along, _ = routes[cur].Locate(searoute.Point{Lat: latest.Lat, Lon: latest.Lon})
	}
	v.Route = buildRoute(legs, routes, ok, cur, atSea, along)
	if latest != nil && ok[cur] {
		v.Prediction = predict(legs, routes, ok, cur, along, *latest, fixes)
	}
	return v
}

func buildRoute(legs []Leg, routes []searoute.Route, ok []bool, cur int, atSea bool, along float64) *Route {
	r := &Route{Type: "Feature", Geometry: Geometry{Type: "MultiLineString", Coordinates: [][][2]float64{}},
		Properties: RouteProperties{Parts: []RoutePart{}, Ports: []RoutePort{}}}
	add := func(leg int, state string, pts []searoute.Point) {
		for _, part := range searoute.LineParts(pts) {
			r.Geometry.Coordinates = append(r.Geometry.Coordinates, part)
			r.Properties.Parts = append(r.Properties.Parts, RoutePart{Leg: leg, State: state})
		}
	}
	var sailed, remaining float64
	for i, l := range legs {
		if !ok[i] {
			continue
		}
		rt := routes[i]
		switch {
		case l.Arrived:
			add(i, Sailed, rt.Points)
			sailed += rt.Length()
		case i == cur && atSea && along >= 0:
			s, p := rt.Split(along)
			add(i, Sailed, s)
			add(i, Planned, p)
			sailed += along
			remaining += rt.Length() - along
		default:
			add(i, Planned, rt.Points)
			remaining += rt.Length()
		}
	}
	r.Properties.SailedNM, r.Properties.RemainingNM = math.Round(sailed), math.Round(remaining)
	addPort := func(p Port, role string) {
		if p.At == nil {
			return
		}
		if n := len(r.Properties.Ports); n > 0 && r.Properties.Ports[n-1].UNLocationCode == p.Code {
			return
		}
		r.Properties.Ports = append(r.Properties.Ports, RoutePort{UNLocationCode: p.Code, Name: p.Name,
			Coordinates: [2]float64{round(p.At.Lon, 4), round(p.At.Lat, 4)}, Role: role})
	}
	for i, l := range legs {
		role := "TRANSSHIPMENT"
		if i == 0 {
			role = "POL"
		}
		addPort(l.From, role)
		if i == len(legs)-1 {
			addPort(l.To, "POD")
		}
	}
	return r
}

// predict sails the rest at the vessel's recent speed: to the next port
// along the current leg's route, then each later leg at the same speed
// after the carrier's planned time in port between them (a day where the
// carrier gave none).
func predict(legs []Leg, routes []searoute.Route, ok []bool, cur int, along float64, latest Fix, fixes []Fix) *Prediction {
	l := legs[cur]
	speed := RecentSpeed(fixes, l.Departure, along)
	if speed <= 0 {
		return nil
	}
	left := math.Max(0, routes[cur].Length()-along)
	next := latest.At.Add(hours(left / speed))
	// At anchor off the port the ship waits for its berth, whose time only
	// the carrier and the terminal know: not before the carrier's estimate.
	if latest.NavStatus == navAtAnchor && left <= anchorageNM && l.Arrival.After(next) {
		next = l.Arrival
	}
	p := &Prediction{BasedOn: latest.At.UTC().Format("2006-01-02T15:04:05.000Z"), SpeedKnots: round(speed, 1),
		NextPort: portETA(l.To.Code, left, next, l.Arrival)}
	at, dist := next, left
	for i := cur + 1; i < len(legs); i++ {
		if !ok[i] {
			return p // a later leg cannot be placed: no POD prediction
		}
		dwell := 24 * time.Hour
		if !legs[i].Departure.IsZero() && !legs[i-1].Arrival.IsZero() && legs[i].Departure.After(legs[i-1].Arrival) {
			dwell = legs[i].Departure.Sub(legs[i-1].Arrival)
		}
		n := routes[i].Length()
		at = at.Add(dwell + hours(n/speed))
		dist += n
	}
	last := legs[len(legs)-1]
	p.POD = portETA(last.To.Code, dist, at, last.Arrival)
	return p
}

// RecentSpeed is the vessel's speed to sail the rest at: the mean speed
// over ground of its reports under way within six hours of the latest;
// while it reports none (at anchor, drifting), the mean speed of the
// passage so far (distance along the route over time since departure);
// never below 5 knots (a ship at anchor off its port of arrival still
// arrives). 0 when nothing is known.
func RecentSpeed(fixes []Fix, departed time.Time, along float64) float64 {
	if len(fixes) == 0 {
		return 0
	}
	var sum float64
	n := 0
	for _, f := range fixes {
		if fixes[0].At.Sub(f.At) > recentSpeedWindow {
			break
		}
		if f.NavStatus == 0 && f.SpeedKnots > 0 {
			sum += f.SpeedKnots
			n++
		}
	}
	if n > 0 {
		return math.Max(5, sum/float64(n))
	}
	if h := fixes[0].At.Sub(departed).Hours(); h > 1 && along > 0 {
		return math.Max(5, along/h)
	}
	return 5
}

func portETA(code string, remaining float64, predicted, carrier time.Time) *PortETA {
	e := &PortETA{UNLocationCode: code, RemainingNM: math.Round(remaining), PredictedDateTime: predicted.UTC().Truncate(time.Minute).Format("2006-01-02T15:04:05.000Z")}
	if !carrier.IsZero() {
		e.CarrierDateTime = carrier.UTC().Format("2006-01-02T15:04:05.000Z")
		d := round(predicted.Sub(carrier).Hours(), 1)
		e.DifferenceHours = &d
	}
	return e
}

func hours(h float64) time.Duration { return time.Duration(h * float64(time.Hour)) }

func round(v float64, places int) float64 {
	f := math.Pow(10, float64(places))
	return math.Round(v*f) / f
}
