// Package searoutetest checks sea routes against land, for tests: Natural
// Earth's 1:50m land (the land the journey map draws), where a lane, a
// port's approach or a simulated ship's position must not be.
package searoutetest

import (
	"encoding/json"
	"math"
	"os"
	"sort"
	"testing"

	"github.com/contrack/contrack/reference"
	"github.com/contrack/contrack/schemas/searoute"
)

// Land is Natural Earth's 1:50m land (world-atlas's TopoJSON, in
// reference/naturalearth) as the edges of its rings, even-odd: a point is
// on land when a ray from it crosses the edges an odd number of times
// (holes and lakes count out). The edges are indexed by 1° cell, so a
// point is tested against the few edges near it: each cell's centre is
// placed once by a ray east along its row, and a point inside the cell
// is on land when the centre is and the line between them crosses no
// edge, or an even number of them (and at sea otherwise).
type Land struct {
	edges  [][2]searoute.Point
	rows   [180][]int32    // edges whose latitudes reach into each 1° row
	cells  map[int][]int32 // edges whose bounding box reaches into each 1° cell
	centre map[int]bool    // whether each cell's centre is on land, once asked
}

func cellOf(p searoute.Point) (row, col int) {
	return min(max(int(math.Floor(p.Lat+90)), 0), 179), min(max(int(math.Floor(p.Lon+180)), 0), 359)
}

// LoadLand reads the land from reference/naturalearth.
func LoadLand(t testing.TB) *Land {
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
	arcs := make([][]searoute.Point, len(topo.Arcs))
	for i, a := range topo.Arcs {
		var x, y float64
		for _, d := range a {
			x, y = x+d[0], y+d[1]
			arcs[i] = append(arcs[i], searoute.Point{Lat: y*topo.Transform.Scale[1] + topo.Transform.Translate[1], Lon: x*topo.Transform.Scale[0] + topo.Transform.Translate[0]})
		}
	}
	ring := func(ids []int) []searoute.Point {
		var out []searoute.Point
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
	l := &Land{cells: map[int][]int32{}, centre: map[int]bool{}}
	edge := func(a, b searoute.Point) {
		if a == b {
			return
		}
		id := int32(len(l.edges))
		l.edges = append(l.edges, [2]searoute.Point{a, b})
		r0, c0 := cellOf(searoute.Point{Lat: min(a.Lat, b.Lat), Lon: min(a.Lon, b.Lon)})
		r1, c1 := cellOf(searoute.Point{Lat: max(a.Lat, b.Lat), Lon: max(a.Lon, b.Lon)})
		for row := r0; row <= r1; row++ {
			l.rows[row] = append(l.rows[row], id)
			for col := c0; col <= c1; col++ {
				l.cells[row*360+col] = append(l.cells[row*360+col], id)
			}
		}
	}
	add := func(r []searoute.Point) {
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
			edge(a, searoute.Point{Lat: lat, Lon: side})
			edge(searoute.Point{Lat: lat, Lon: -side}, b)
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
			edge(searoute.Point{Lat: -90, Lon: 180}, searoute.Point{Lat: -90, Lon: -180})
		}
		sort.Float64s(across)
		for i := 0; i < len(across); i += 2 {
			edge(searoute.Point{Lat: across[i], Lon: 180}, searoute.Point{Lat: across[i+1], Lon: 180})
			edge(searoute.Point{Lat: across[i], Lon: -180}, searoute.Point{Lat: across[i+1], Lon: -180})
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

// On says p is on land.
func (l *Land) On(p searoute.Point) bool {
	row, col := cellOf(p)
	c := row*360 + col
	q := searoute.Point{Lat: float64(row) - 90 + 0.5, Lon: float64(col) - 180 + 0.5}
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
func crosses(p, q, a, b searoute.Point) bool {
	side := func(o, d, x searoute.Point) bool {
		return (d.Lon-o.Lon)*(x.Lat-o.Lat)-(d.Lat-o.Lat)*(x.Lon-o.Lon) >= 0
	}
	return side(p, q, a) != side(p, q, b) && side(a, b, p) != side(a, b, q)
}

// OverLand is the first point of the great circle from a to b, every
// mile or so, that is on land, and how far along it is.
func (l *Land) OverLand(a, b searoute.Point) (searoute.Point, float64, bool) {
	d := searoute.DistanceNM(a, b)
	gc := searoute.Route{Points: []searoute.Point{a, b}, Along: []float64{0, d}}
	n := max(1, int(d))
	for i := 0; i <= n; i++ {
		p, _ := gc.At(d * float64(i) / float64(n))
		if l.On(p) {
			return p, d * float64(i) / float64(n), true
		}
	}
	return searoute.Point{}, 0, false
}

// Harbour is how far from a port's berth a route may cross land, in
// nautical miles: its first miles lie up an estuary or inside a breakwater
// the 1:50m coastline does not show; 15 nm unless the port lies further
// up a river (harbourNM).
func Harbour(code string) float64 {
	if nm, ok := harbourNM[code]; ok {
		return nm
	}
	return 15
}

// harbourNM are the ports whose berths lie further up a river than the
// default 15 nm: the miles of river before the open water.
var harbourNM = map[string]float64{
	"VNSGN": 25, // up the Saigon river, some 40 nm of it from Vung Tau
	"DEHAM": 41, // up the Elbe, some 55 nm of it from Cuxhaven
	"BEANR": 17, // up the Scheldt, some 40 nm of it from Vlissingen
	"USSEA": 22, // down Puget Sound, some 30 nm of it to Admiralty Inlet, narrower than 1:50m draws water
}

// canals are where ships sail through land as 1:50m draws it: the Suez
// and Panama canals, as boxes round them.
var canals = []struct {
	name                           string
	minLat, maxLat, minLon, maxLon float64
}{
	{"the Suez Canal", 29.8, 31.4, 32.2, 32.7},
	{"the Panama Canal", 8.8, 9.5, -80.0, -79.45},
}

// Canal names the canal p is in, if any.
func Canal(p searoute.Point) (string, bool) {
	for _, c := range canals {
		if p.Lat >= c.minLat && p.Lat <= c.maxLat && p.Lon >= c.minLon && p.Lon <= c.maxLon {
			return c.name, true
		}
	}
	return "", false
}
