package vessels

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"time"

	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/searoute"
)

// Voyage is one simulated sea passage: a ship (IMO number, on one voyage
// number) leaving one port at Departs and reaching the next at Arrives,
// both as the sandbox journey has them.
type Voyage struct {
	IMO, Voyage string
	Departs     time.Time
	Arrives     time.Time
	From, To    searoute.Point
	Route       searoute.Route
	// Sea is how long the ship is under way: the rest of the passage it
	// waits at anchor off the port of arrival for its berth, as ships do
	// when they arrive before their window (congestion, schedule buffer).
	Sea time.Duration
	// Service speed plan: the mean speed under way, varied by two slow
	// swells of the voyage (weather, current, slow steaming).
	k1, k2     int
	a1, a2     float64
	phi1, phi2 float64
}

// Berth is how long before departure and after arrival a ship reports
// itself moored at the berth.
const Berth = 12 * time.Hour

// pilotage is the last stretch of a passage: from the anchorage into the
// berth at harbour speed.
const (
	pilotageNM   = 8.0
	pilotageTime = 100 * time.Minute
)

// NewVoyage plans the passage as a ship's master does, to arrive on time:
// from the seed, a wait at anchor off the port of arrival (none to 18
// hours, at most a sixth of the passage: berth windows, congestion), and
// the speed that covers the route in the rest, varied by the swells; at
// least 12 knots (a ship that early waits longer at anchor). A passage too
// short for any ship is sailed as fast as it takes: the journey's times
// win (TestSandboxPassageSpeeds).
func NewVoyage(imo, voyage string, from, to searoute.Point, fromCode, toCode string, departs, arrives time.Time) (Voyage, bool) {
	r, ok := searoute.Between(fromCode, &from, toCode, &to)
	if !ok || !arrives.After(departs) {
		return Voyage{}, false
	}
	seed := sha256.Sum256([]byte(imo + "|" + voyage + "|" + departs.UTC().Format(time.RFC3339)))
	u := func(i int) float64 { return float64(binary.BigEndian.Uint16(seed[2*i:])) / 65535 }
	v := Voyage{IMO: imo, Voyage: voyage, Departs: departs.UTC(), Arrives: arrives.UTC(), From: from, To: to, Route: r,
		k1: 1 + int(u(1)*3), k2: 5 + int(u(2)*6), a1: 0.06 + 0.06*u(3), a2: 0.03 + 0.03*u(4),
		phi1: 2 * math.Pi * u(5), phi2: 2 * math.Pi * u(6)}
	window := v.Arrives.Sub(v.Departs)
	wait := time.Duration(u(0) * float64(min(18*time.Hour, window/6)))
	sea := window - pilotageTime - wait
	if slowest := time.Duration(math.Max(0, r.Length()-pilotageNM) / 12 * float64(time.Hour)); sea > slowest {
		sea = slowest
	}
	v.Sea = max(sea, window/2)
	return v, true
}

// progress is the share of the distance to the anchorage sailed after a
// share x of the time under way: x plus the swells' integral, which is 0
// at both ends (whole cycles), so the speed varies and the ship still
// arrives on time.
func (v Voyage) progress(x float64) (share, speedFactor float64) {
	w1, w2 := 2*math.Pi*float64(v.k1), 2*math.Pi*float64(v.k2)
	share = x + v.a1/w1*(math.Cos(v.phi1)-math.Cos(w1*x+v.phi1)) + v.a2/w2*(math.Cos(v.phi2)-math.Cos(w2*x+v.phi2))
	speedFactor = 1 + v.a1*math.Sin(w1*x+v.phi1) + v.a2*math.Sin(w2*x+v.phi2)
	return share, speedFactor
}

// Reports says whether the ship reports positions for this voyage at t:
// from Berth before departure to Berth after arrival.
func (v Voyage) Reports(t time.Time) bool {
	return !t.Before(v.Departs.Add(-Berth)) && !t.After(v.Arrives.Add(Berth))
}

// At is the ship's report at t (within Reports): moored at the berth
// before departure and after arrival, under way along the route between,
// at anchor off the port when early, then in at harbour speed.
func (v Voyage) At(env string, t time.Time) schemas.VesselPosition {
	p := schemas.VesselPosition{Env: env, IMO: v.IMO, Voyage: v.Voyage, At: t.UTC().Truncate(time.Second), Source: "sandbox"}
	set := func(pt searoute.Point, speed, course float64, status int) {
		p.Lat, p.Lon = round(pt.Lat, 5), round(pt.Lon, 5)
		p.SpeedKnots, p.Course, p.NavStatus = round(speed, 1), math.Mod(round(course, 1), 360), status
	}
	length := v.Route.Length()
	anchorage := math.Max(0, length-pilotageNM)
	since := t.Sub(v.Departs)
	switch {
	case since < 0:
		set(v.From, 0, 0, schemas.NavMoored)
	case !t.Before(v.Arrives):
		set(v.To, 0, 0, schemas.NavMoored)
	case since < v.Sea:
		x := float64(since) / float64(v.Sea)
		share, f := v.progress(x)
		pt, course := v.Route.At(share * anchorage)
		mean := anchorage / v.Sea.Hours()
		set(pt, mean*f, course, schemas.NavUnderWayEngine)
	case t.Before(v.Arrives.Add(-pilotageTime)):
		pt, course := v.Route.At(anchorage)
		set(pt, 0.1, course, schemas.NavAtAnchor)
	default:
		left := float64(v.Arrives.Sub(t)) / float64(pilotageTime)
		pt, course := v.Route.At(length - left*(length-anchorage))
		set(pt, (length-anchorage)/pilotageTime.Hours(), course, schemas.NavUnderWayEngine)
	}
	return p
}

func round(v float64, places int) float64 {
	f := math.Pow(10, float64(places))
	return math.Round(v*f) / f
}
