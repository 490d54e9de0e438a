package searoute_test

import (
	"testing"

	"github.com/contrack/contrack/schemas/searoute"
	"github.com/contrack/contrack/schemas/searoute/searoutetest"
)

// canals are the edges that cross land by design: a ship sails them
// through the canal, which a 1:50m coastline does not show as water.
var canals = map[[2]string]bool{
	{"SUEZ_SOUTH", "SUEZ_NORTH"}:          true,
	{"PANAMA_ATLANTIC", "PANAMA_PACIFIC"}: true,
}

// Every waypoint of the lane graph, and every edge sailed as its great
// circle, is at sea: no route between any two ports crosses land (a
// vessel the simulator sails along it would be inland).
func TestLanesStayAtSea(t *testing.T) {
	l := searoutetest.LoadLand(t)
	for _, w := range searoute.Waypoints() {
		if l.On(w.At) {
			t.Errorf("waypoint %s (%.2f, %.2f) is on land", w.Name, w.At.Lat, w.At.Lon)
		}
	}
	for _, e := range searoute.Edges() {
		if canals[e] {
			continue
		}
		a, b := searoute.WaypointAt(e[0]), searoute.WaypointAt(e[1])
		if p, at, over := l.OverLand(a, b); over {
			t.Errorf("edge %s–%s crosses land at (%.2f, %.2f), %.0f nm from %s", e[0], e[1], p.Lat, p.Lon, at, e[0])
		}
	}
}

// A port's approaches leave its harbour for the open sea without
// crossing land beyond the harbour itself (the berth's first miles are up
// an estuary or inside a breakwater the coastline does not show).
func TestPortApproachesStayAtSea(t *testing.T) {
	l := searoutetest.LoadLand(t)
	for _, p := range searoute.Ports() {
		for _, name := range p.Approaches {
			berth, w := searoute.Point{Lat: p.Lat, Lon: p.Lon}, searoute.WaypointAt(name)
			d := searoute.DistanceNM(berth, w)
			harbour := searoutetest.Harbour(p.Code)
			if d <= harbour {
				continue
			}
			from, _ := searoute.Route{Points: []searoute.Point{berth, w}, Along: []float64{0, d}}.At(harbour)
			if q, at, over := l.OverLand(from, w); over {
				t.Errorf("%s (%s) to %s crosses land at (%.2f, %.2f), %.0f nm out", p.Code, p.Name, name, q.Lat, q.Lon, at+harbour)
			}
		}
	}
}
