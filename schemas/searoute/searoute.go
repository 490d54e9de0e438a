// Package searoute plans plausible sea routes between ports: a shortest
// path over a small graph of sea lanes (graph.go), sailed as great circles,
// and the geometry around it — distance along the route, where a vessel is
// on it, what is sailed and what is ahead. The vessel position simulator
// sails its ships along these routes and the journey read side draws them
// and measures the distance left from them, so both agree.
//
// Distances are in nautical miles; positions are degrees (WGS 84).
package searoute

import (
	"container/heap"
	"fmt"
	"math"
	"sort"
	"sync"
)

// Point is a position in degrees.
type Point struct{ Lat, Lon float64 }

const (
	earthRadiusNM = 3440.065
	rad           = math.Pi / 180
	// step is the longest great-circle piece of a route (nautical miles):
	// routes are drawn and measured along their vertices.
	step = 60.0
)

// DistanceNM is the great-circle distance between a and b.
func DistanceNM(a, b Point) float64 {
	dLat := (b.Lat - a.Lat) * rad
	dLon := (b.Lon - a.Lon) * rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthRadiusNM * math.Asin(math.Min(1, math.Sqrt(h)))
}

// Bearing is the initial great-circle course from a to b, degrees from
// true north in [0, 360).
func Bearing(a, b Point) float64 {
	φ1, φ2 := a.Lat*rad, b.Lat*rad
	dλ := (b.Lon - a.Lon) * rad
	y := math.Sin(dλ) * math.Cos(φ2)
	x := math.Cos(φ1)*math.Sin(φ2) - math.Sin(φ1)*math.Cos(φ2)*math.Cos(dλ)
	return math.Mod(math.Atan2(y, x)/rad+360, 360)
}

// interpolate is the point at fraction f of the great circle from a to b.
func interpolate(a, b Point, f float64) Point {
	d := DistanceNM(a, b) / earthRadiusNM
	if d < 1e-9 {
		return a
	}
	sa, sb := math.Sin((1-f)*d)/math.Sin(d), math.Sin(f*d)/math.Sin(d)
	φ1, λ1, φ2, λ2 := a.Lat*rad, a.Lon*rad, b.Lat*rad, b.Lon*rad
	x := sa*math.Cos(φ1)*math.Cos(λ1) + sb*math.Cos(φ2)*math.Cos(λ2)
	y := sa*math.Cos(φ1)*math.Sin(λ1) + sb*math.Cos(φ2)*math.Sin(λ2)
	z := sa*math.Sin(φ1) + sb*math.Sin(φ2)
	return Point{Lat: math.Atan2(z, math.Hypot(x, y)) / rad, Lon: math.Atan2(y, x) / rad}
}

// Route is a path at sea: vertices at most step apart and the distance
// sailed at each.
type Route struct {
	Points []Point
	// Along[i] is the distance from Points[0] to Points[i].
	Along []float64
}

// Length is the route's distance.
func (r Route) Length() float64 {
	if len(r.Along) == 0 {
		return 0
	}
	return r.Along[len(r.Along)-1]
}

// At returns the point d along the route (clamped to its ends) and the
// course there.
func (r Route) At(d float64) (Point, float64) {
	n := len(r.Points)
	switch {
	case n == 0:
		return Point{}, 0
	case n == 1:
		return r.Points[0], 0
	}
	d = math.Max(0, math.Min(d, r.Length()))
	i := min(max(sort.SearchFloat64s(r.Along, d), 1), n-1)
	a, b := r.Points[i-1], r.Points[i]
	seg := r.Along[i] - r.Along[i-1]
	f := 0.0
	if seg > 0 {
		f = (d - r.Along[i-1]) / seg
	}
	return interpolate(a, b, f), Bearing(a, b)
}

// Locate returns how far along the route the point nearest p is and how
// far p is from it: the nearest vertex, refined on the pieces either side
// of it (a piece is at most step long, so that is within a mile or so).
func (r Route) Locate(p Point) (along, off float64) {
	switch len(r.Points) {
	case 0:
		return 0, math.Inf(1)
	case 1:
		return 0, DistanceNM(r.Points[0], p)
	}
	best, bestD := 0, math.Inf(1)
	for i, q := range r.Points {
		if d := DistanceNM(q, p); d < bestD {
			best, bestD = i, d
		}
	}
	along, off = r.Along[best], bestD
	for _, i := range []int{best - 1, best} {
		if i < 0 || i+1 >= len(r.Points) {
			continue
		}
		a, b := r.Points[i], r.Points[i+1]
		// Ternary search on the piece: distance to p is unimodal along a
		// great-circle piece this short.
		lo, hi := 0.0, 1.0
		for range 16 {
			m1, m2 := lo+(hi-lo)/3, hi-(hi-lo)/3
			if DistanceNM(interpolate(a, b, m1), p) < DistanceNM(interpolate(a, b, m2), p) {
				hi = m2
			} else {
				lo = m1
			}
		}
		f := (lo + hi) / 2
		if d := DistanceNM(interpolate(a, b, f), p); d < off {
			off, along = d, r.Along[i]+f*(r.Along[i+1]-r.Along[i])
		}
	}
	return along, off
}

// Split cuts the route d along: what is sailed (to the cut) and what is
// ahead (from it), each with the cut point.
func (r Route) Split(d float64) (sailed, ahead []Point) {
	if len(r.Points) == 0 {
		return nil, nil
	}
	cut, _ := r.At(d)
	for i, p := range r.Points {
		if r.Along[i] < d {
			sailed = append(sailed, p)
		} else {
			ahead = append(ahead, p)
		}
	}
	sailed = append(sailed, cut)
	ahead = append([]Point{cut}, ahead...)
	return sailed, ahead
}

// newRoute densifies the polyline pts into a Route.
func newRoute(pts []Point) Route {
	var r Route
	for i, p := range pts {
		if i == 0 {
			r.Points, r.Along = append(r.Points, p), append(r.Along, 0)
			continue
		}
		a := pts[i-1]
		d := DistanceNM(a, p)
		n := max(1, int(math.Ceil(d/step)))
		base := r.Along[len(r.Along)-1]
		for k := 1; k <= n; k++ {
			f := float64(k) / float64(n)
			r.Points = append(r.Points, interpolate(a, p, f))
			r.Along = append(r.Along, base+d*f)
		}
	}
	return r
}

// Between is the sea route from one port to another: each given by its
// UN/LOCODE (its approaches in the lane graph, and its position when
// known to the table) and its position (which wins where given: a
// carrier's own coordinates). ok is false when neither the code nor a
// position places an end.
func Between(fromCode string, from *Point, toCode string, to *Point) (Route, bool) {
	a, aok := endOf(fromCode, from)
	b, bok := endOf(toCode, to)
	if !aok || !bok {
		return Route{}, false
	}
	key := fmt.Sprintf("%s|%.3f|%.3f|%s|%.3f|%.3f", fromCode, a.p.Lat, a.p.Lon, toCode, b.p.Lat, b.p.Lon)
	cache.mu.Lock()
	r, hit := cache.routes[key]
	cache.mu.Unlock()
	if hit {
		return r, true
	}
	r = newRoute(shortest(a, b))
	cache.mu.Lock()
	if len(cache.routes) >= maxCached {
		clear(cache.routes) // bounded: positions of unknown ports vary
	}
	cache.routes[key] = r
	cache.mu.Unlock()
	return r, true
}

// maxCached bounds the routes kept (ports known to the table make a few
// thousand pairs).
const maxCached = 20000

var cache = struct {
	mu     sync.Mutex
	routes map[string]Route
}{routes: map[string]Route{}}

// end is one end of a route: where, and which waypoints it joins.
type end struct {
	p     Point
	joins []int
}

func endOf(code string, at *Point) (end, bool) {
	port, known := LookupPort(code)
	var e end
	switch {
	case at != nil:
		e.p = *at
	case known:
		e.p = Point{port.Lat, port.Lon}
	default:
		return end{}, false
	}
	if known && !port.Inland && len(port.Approaches) > 0 {
		for _, name := range port.Approaches {
			e.joins = append(e.joins, waypointIndex[name])
		}
		return e, true
	}
	// Unknown or inland: the two nearest waypoints.
	best := [2]int{-1, -1}
	for i, w := range waypoints {
		d := DistanceNM(e.p, Point{w.lat, w.lon})
		switch {
		case best[0] < 0 || d < DistanceNM(e.p, wp(best[0])):
			best[1], best[0] = best[0], i
		case best[1] < 0 || d < DistanceNM(e.p, wp(best[1])):
			best[1] = i
		}
	}
	e.joins = []int{best[0], best[1]}
	return e, true
}

func wp(i int) Point { return Point{waypoints[i].lat, waypoints[i].lon} }

var waypointIndex = func() map[string]int {
	m := make(map[string]int, len(waypoints))
	for i, w := range waypoints {
		m[w.name] = i
	}
	return m
}()

var adjacency = func() [][]int {
	adj := make([][]int, len(waypoints))
	for _, e := range edges {
		a, aok := waypointIndex[e[0]]
		b, bok := waypointIndex[e[1]]
		if !aok || !bok {
			panic("searoute: edge to an unknown waypoint: " + e[0] + " " + e[1])
		}
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	return adj
}()

// shortest is the polyline of the shortest way from a to b through the
// lane graph: a, waypoints, b (straight when they share a waypoint's
// approach and are close, e.g. two terminals of one port).
func shortest(a, b end) []Point {
	n := len(waypoints)
	src, dst := n, n+1
	dist := make([]float64, n+2)
	prev := make([]int, n+2)
	for i := range dist {
		dist[i], prev[i] = math.Inf(1), -1
	}
	point := func(i int) Point {
		switch i {
		case src:
			return a.p
		case dst:
			return b.p
		}
		return wp(i)
	}
	isDst := make(map[int]bool, len(b.joins))
	for _, j := range b.joins {
		isDst[j] = true
	}
	dist[src] = 0
	q := &pq{{src, 0}}
	for q.Len() > 0 {
		it := heap.Pop(q).(pqItem)
		if it.d > dist[it.node] || it.node == dst {
			continue
		}
		var next []int
		switch {
		case it.node == src:
			next = a.joins
		default:
			next = adjacency[it.node]
			if isDst[it.node] {
				next = append(next[:len(next):len(next)], dst)
			}
		}
		for _, m := range next {
			if d := it.d + DistanceNM(point(it.node), point(m)); d < dist[m] {
				dist[m], prev[m] = d, it.node
				heap.Push(q, pqItem{m, d})
			}
		}
	}
	if prev[dst] < 0 { // disconnected (cannot happen with the table): sail straight
		return []Point{a.p, b.p}
	}
	var rev []Point
	for i := dst; i >= 0; i = prev[i] {
		rev = append(rev, point(i))
	}
	out := make([]Point, len(rev))
	for i, p := range rev {
		out[len(rev)-1-i] = p
	}
	return out
}

type pqItem struct {
	node int
	d    float64
}

type pq []pqItem

func (q pq) Len() int           { return len(q) }
func (q pq) Less(i, j int) bool { return q[i].d < q[j].d }
func (q pq) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *pq) Push(x any)        { *q = append(*q, x.(pqItem)) }
func (q *pq) Pop() any          { old := *q; it := old[len(old)-1]; *q = old[:len(old)-1]; return it }

// LineParts returns pts as GeoJSON coordinate lists ([longitude,
// latitude]), cut where they cross the antimeridian so no piece wraps
// round the world on a flat map.
func LineParts(pts []Point) [][][2]float64 {
	var parts [][][2]float64
	var cur [][2]float64
	for i, p := range pts {
		if i > 0 && math.Abs(p.Lon-pts[i-1].Lon) > 180 {
			// Cross at ±180, at the latitude interpolated there.
			a := pts[i-1]
			bl := p.Lon
			if a.Lon > 0 {
				bl += 360
			} else {
				bl -= 360
			}
			edge := 180.0
			if a.Lon < 0 {
				edge = -180
			}
			f := (edge - a.Lon) / (bl - a.Lon)
			lat := a.Lat + f*(p.Lat-a.Lat)
			cur = append(cur, [2]float64{round(edge), round(lat)})
			if len(cur) > 1 {
				parts = append(parts, cur)
			}
			cur = [][2]float64{{round(-edge), round(lat)}}
		}
		cur = append(cur, [2]float64{round(p.Lon), round(p.Lat)})
	}
	if len(cur) > 1 {
		parts = append(parts, cur)
	}
	return parts
}

// round keeps four decimals (about 10 m): enough for a map, short in JSON.
func round(v float64) float64 { return math.Round(v*1e4) / 1e4 }
