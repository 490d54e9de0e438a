package searoute

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"testing"

	"github.com/contrack/contrack/reference"
)

// land is Natural Earth's 1:50m land (world-atlas's TopoJSON, in
// reference/naturalearth) as the edges of its rings, even-odd: a point is
// on land when a ray from it crosses the edges an odd number of times
// (holes and lakes count out). The edges are indexed by 1° cell, so a
// point is tested against the few edges near it: each cell's centre is
// placed once by a ray east along its row, and a point inside the cell
// is on land when the centre is and the line between them crosses no
// edge, or an even number of them (and at sea otherwise).
type land struct {
	edges  [][2]Point
	rows   [180][]int32    // edges whose latitudes reach into each 1° row
	cells  map[int][]int32 // edges whose bounding box reaches into each 1° cell
	centre map[int]bool    // whether each cell's centre is on land, once asked
}

func cellOf(p Point) (row, col int) {
	return min(max(int(math.Floor(p.Lat+90)), 0), 179), min(max(int(math.Floor(p.Lon+180)), 0), 359)
}

func loadLand(t *testing.T) *land {
	t.Helper()
	raw, err := os.ReadFile(reference.Path("naturalearth", "land-50m.json"))
	if err != nil {
		t.Fatal(err)
	}
	var topo struct {
		Transform struct{ Scale, Translate [2]float64 }
		Objects   struct {
			Land struct {
				Geometries []struct {
					Type string
					Arcs json.RawMessage
				}
			}
		}
		Arcs [][][2]float64
	}
	if err := json.Unmarshal(raw, &topo); err != nil {
		t.Fatal(err)
	}
	// Arcs are quantized and delta-encoded: positions are the running sums.
	arcs := make([][]Point, len(topo.Arcs))
	for i, a := range topo.Arcs {
		var x, y float64
		for _, d := range a {
			x, y = x+d[0], y+d[1]
			arcs[i] = append(arcs[i], Point{Lat: y*topo.Transform.Scale[1] + topo.Transform.Translate[1], Lon: x*topo.Transform.Scale[0] + topo.Transform.Translate[0]})
		}
	}
	ring := func(ids []int) []Point {
		var out []Point
		for _, id := range ids {
			a := arcs[max(id, ^id)]
			if id < 0 { // ~id: the arc reversed
				for i := len(a) - 1; i >= 0; i-- {
					out = append(out, a[i])
				}
				continue
			}
			out = append(out, a...)
		}
		return out
	}
	l := &land{cells: map[int][]int32{}, centre: map[int]bool{}}
	edge := func(a, b Point) {
		if a == b {
			return
		}
		id := int32(len(l.edges))
		l.edges = append(l.edges, [2]Point{a, b})
		r0, c0 := cellOf(Point{min(a.Lat, b.Lat), min(a.Lon, b.Lon)})
		r1, c1 := cellOf(Point{max(a.Lat, b.Lat), max(a.Lon, b.Lon)})
		for row := r0; row <= r1; row++ {
			l.rows[row] = append(l.rows[row], id)
			for col := c0; col <= c1; col++ {
				l.cells[row*360+col] = append(l.cells[row*360+col], id)
			}
		}
	}
	add := func(r []Point) {
		// A ring that crosses the antimeridian (Fiji's, Chukotka's) is cut
		// there into a piece each side, each closed along ±180° between the
		// latitudes where the ring crosses; otherwise its edge across would
		// span the whole world and take the band of latitude for land.
		var across []float64
		for j, k := 0, len(r)-1; j < len(r); k, j = j, j+1 {
			a, b := r[k], r[j]
			if math.Abs(b.Lon-a.Lon) <= 180 {
				edge(a, b)
				continue
			}
			side := math.Copysign(180, a.Lon)
			bLon := b.Lon + 2*side // b on a's side of the antimeridian
			lat := a.Lat           // a already on the antimeridian
			if a.Lon != side {
				lat += (b.Lat - a.Lat) * (side - a.Lon) / (bLon - a.Lon)
			}
			edge(a, Point{lat, side})
			edge(Point{lat, -side}, b)
			across = append(across, lat)
		}
		if len(across)%2 != 0 {
			// Antarctica: its ring goes round the pole, so it is closed
			// down the antimeridian to the pole and along it.
			south := 90.0
			for _, p := range r {
				south = min(south, p.Lat)
			}
			if len(across) != 1 || south > -60 {
				t.Fatalf("a land ring reaching %.1f° crosses the antimeridian %d times", south, len(across))
			}
			across = append(across, -90)
			edge(Point{-90, 180}, Point{-90, -180})
		}
		sort.Float64s(across)
		for i := 0; i < len(across); i += 2 {
			edge(Point{across[i], 180}, Point{across[i+1], 180})
			edge(Point{across[i], -180}, Point{across[i+1], -180})
		}
	}
	rings := 0
	for _, g := range topo.Objects.Land.Geometries {
		var polys [][][]int
		switch g.Type {
		case "Polygon":
			var p [][]int
			if err := json.Unmarshal(g.Arcs, &p); err != nil {
				t.Fatal(err)
			}
			polys = [][][]int{p}
		case "MultiPolygon":
			if err := json.Unmarshal(g.Arcs, &polys); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("land geometry %q", g.Type)
		}
		for _, p := range polys {
			for _, r := range p {
				add(ring(r))
				rings++
			}
		}
	}
	if rings < 100 {
		t.Fatalf("%d land rings read, want Natural Earth's hundreds", rings)
	}
	return l
}

// on says p is on land.
func (l *land) on(p Point) bool {
	row, col := cellOf(p)
	c := row*360 + col
	q := Point{float64(row) - 90 + 0.5, float64(col) - 180 + 0.5}
	in, known := l.centre[c]
	if !known {
		// A ray east from the centre: the edges that straddle its latitude
		// and cross it east of the centre.
		for _, id := range l.rows[row] {
			a, b := l.edges[id][0], l.edges[id][1]
			if (a.Lat > q.Lat) != (b.Lat > q.Lat) && q.Lon < (b.Lon-a.Lon)*(q.Lat-a.Lat)/(b.Lat-a.Lat)+a.Lon {
				in = !in
			}
		}
		l.centre[c] = in
	}
	for _, id := range l.cells[c] {
		if crosses(p, q, l.edges[id][0], l.edges[id][1]) {
			in = !in
		}
	}
	return in
}

// crosses says the segments pq and ab cross (in the plane of latitude and
// longitude, as the rings are drawn); an end exactly on the other segment
// counts as just to its left, so a line through a vertex crosses once.
func crosses(p, q, a, b Point) bool {
	side := func(o, d, x Point) bool {
		return (d.Lon-o.Lon)*(x.Lat-o.Lat)-(d.Lat-o.Lat)*(x.Lon-o.Lon) >= 0
	}
	return side(p, q, a) != side(p, q, b) && side(a, b, p) != side(a, b, q)
}

// overLand is the first point of the great circle from a to b, every
// mile or so, that is on land, and how far along it is.
func (l *land) overLand(a, b Point) (Point, float64, bool) {
	d := DistanceNM(a, b)
	n := max(1, int(d))
	for i := 0; i <= n; i++ {
		p := interpolate(a, b, float64(i)/float64(n))
		if l.on(p) {
			return p, d * float64(i) / float64(n), true
		}
	}
	return Point{}, 0, false
}

// The checker finds what it must: Peloponnese, Crete and the middle of
// Spain are land; the Ionian Sea and the Alboran Sea are not.
func TestLandCheckerKnowsLand(t *testing.T) {
	l := loadLand(t)
	for _, c := range []struct {
		name string
		p    Point
		land bool
	}{
		{"Peloponnese (Tripoli)", Point{37.51, 22.37}, true},
		{"Crete (Heraklion's hinterland)", Point{35.2, 25.0}, true},
		{"Madrid", Point{40.42, -3.70}, true},
		{"the Ionian Sea", Point{37.5, 19.0}, false},
		{"the Alboran Sea", Point{36.0, -3.0}, false},
		{"Viti Levu (Fiji)", Point{-17.8, 178.0}, true},
		{"Taveuni (Fiji), east of the antimeridian", Point{-16.85, -179.95}, true},
		{"the Indian Ocean at Fiji's latitude", Point{-16.52, 100.9}, false},
		{"Chukotka", Point{66.0, -175.0}, true},
		{"Antarctica", Point{-80, 0}, true},
		{"the Ross Sea", Point{-75, -175}, false},
	} {
		if got := l.on(c.p); got != c.land {
			t.Errorf("%s %v: on land %v, want %v", c.name, c.p, got, c.land)
		}
	}
}

// The index answers as a ray cast over every edge of the land would, on
// points spread over the world and thick among the islands of the Aegean
// and of South East Asia, where coasts are dense.
func TestLandIndexMatchesRayCast(t *testing.T) {
	l := loadLand(t)
	rayCast := func(p Point) bool {
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
		var p Point
		switch i % 3 {
		case 0: // anywhere
			p = Point{rnd.Float64()*180 - 90, rnd.Float64()*360 - 180}
		case 1: // the Aegean
			p = Point{35 + rnd.Float64()*6, 22 + rnd.Float64()*6}
		default: // South East Asia
			p = Point{-10 + rnd.Float64()*20, 95 + rnd.Float64()*30}
		}
		got, want := l.on(p), rayCast(p)
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
	l := loadLand(t)
	for _, w := range waypoints {
		if l.on(Point{w.lat, w.lon}) {
			t.Errorf("waypoint %s (%.2f, %.2f) is on land", w.name, w.lat, w.lon)
		}
	}
	for _, e := range edges {
		if canals[e] {
			continue
		}
		a, b := wp(waypointIndex[e[0]]), wp(waypointIndex[e[1]])
		if p, at, over := l.overLand(a, b); over {
			t.Errorf("edge %s–%s crosses land at (%.2f, %.2f), %.0f nm from %s", e[0], e[1], p.Lat, p.Lon, at, e[0])
		}
	}
}

// A port's approaches leave its harbour for the open sea without
// crossing land beyond the harbour itself (the berth's first miles are up
// an estuary or inside a breakwater the coastline does not show).
func TestPortApproachesStayAtSea(t *testing.T) {
	l := loadLand(t)
	for _, p := range ports {
		for _, name := range p.Approaches {
			berth, w := Point{p.Lat, p.Lon}, wp(waypointIndex[name])
			d := DistanceNM(berth, w)
			harbour := harbourNM[p.Code]
			if harbour == 0 {
				harbour = 15
			}
			if d <= harbour {
				continue
			}
			from := interpolate(berth, w, harbour/d)
			if q, at, over := l.overLand(from, w); over {
				t.Errorf("%s (%s) to %s crosses land at (%.2f, %.2f), %.0f nm out", p.Code, p.Name, name, q.Lat, q.Lon, at+harbour)
			}
		}
	}
}

// harbourNM are the ports whose berths lie further up a river than the
// default 15 nm: the miles of river before the open water.
var harbourNM = map[string]float64{
	"VNSGN": 25, // up the Saigon river, some 40 nm of it from Vung Tau
	"DEHAM": 41, // up the Elbe, some 55 nm of it from Cuxhaven
	"BEANR": 17, // up the Scheldt, some 40 nm of it from Vlissingen
	"USSEA": 22, // down Puget Sound, some 30 nm of it to Admiralty Inlet, narrower than 1:50m draws water
}
