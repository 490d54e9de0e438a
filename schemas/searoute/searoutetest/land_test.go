package searoutetest

import (
	"math/rand/v2"
	"testing"

	"github.com/contrack/contrack/schemas/searoute"
)

// The checker finds what it must: Peloponnese, Crete and the middle of
// Spain are land; the Ionian Sea and the Alboran Sea are not.
func TestLandCheckerKnowsLand(t *testing.T) {
	l := LoadLand(t)
	for _, c := range []struct {
		name string
		p    searoute.Point
		land bool
	}{
		{"Peloponnese (Tripoli)", searoute.Point{Lat: 37.51, Lon: 22.37}, true},
		{"Crete (Heraklion's hinterland)", searoute.Point{Lat: 35.2, Lon: 25.0}, true},
		{"Madrid", searoute.Point{Lat: 40.42, Lon: -3.70}, true},
		{"the Ionian Sea", searoute.Point{Lat: 37.5, Lon: 19.0}, false},
		{"the Alboran Sea", searoute.Point{Lat: 36.0, Lon: -3.0}, false},
		{"Viti Levu (Fiji)", searoute.Point{Lat: -17.8, Lon: 178.0}, true},
		{"Taveuni (Fiji), east of the antimeridian", searoute.Point{Lat: -16.85, Lon: -179.95}, true},
		{"the Indian Ocean at Fiji's latitude", searoute.Point{Lat: -16.52, Lon: 100.9}, false},
		{"Chukotka", searoute.Point{Lat: 66.0, Lon: -175.0}, true},
		{"Antarctica", searoute.Point{Lat: -80, Lon: 0}, true},
		{"the Ross Sea", searoute.Point{Lat: -75, Lon: -175}, false},
	} {
		if got := l.On(c.p); got != c.land {
			t.Errorf("%s %v: on land %v, want %v", c.name, c.p, got, c.land)
		}
	}
}

// The index answers as a ray cast over every edge of the land would, on
// points spread over the world and thick among the islands of the Aegean
// and of South East Asia, where coasts are dense.
func TestLandIndexMatchesRayCast(t *testing.T) {
	l := LoadLand(t)
	rayCast := func(p searoute.Point) bool {
		in := false
		for _, e := range l.edges {
			a, b := e[0], e[1]
			if (a.Lat > p.Lat) != (b.Lat > p.Lat) && p.Lon < (b.Lon-a.Lon)*(p.Lat-a.Lat)/(b.Lat-a.Lat)+a.Lon {
				in = !in
			}
		}
		return in
	}
	rnd := rand.New(rand.NewPCG(48, 4))
	onLand := 0
	for i := range 1500 {
		var p searoute.Point
		switch i % 3 {
		case 0: // anywhere
			p = searoute.Point{Lat: rnd.Float64()*180 - 90, Lon: rnd.Float64()*360 - 180}
		case 1: // the Aegean
			p = searoute.Point{Lat: 35 + rnd.Float64()*6, Lon: 22 + rnd.Float64()*6}
		default: // South East Asia
			p = searoute.Point{Lat: -10 + rnd.Float64()*20, Lon: 95 + rnd.Float64()*30}
		}
		got, want := l.On(p), rayCast(p)
		if got != want {
			t.Errorf("%v: the index says on land %v, the ray cast %v", p, got, want)
		}
		if want {
			onLand++
		}
	}
	if onLand < 300 || onLand > 1200 {
		t.Errorf("%d of 1500 points on land: the sample does not test both", onLand)
	}
}
