package searoute

// The lane graph, for the tests outside the package that check it against
// land (lanes_test.go).

// NamedPoint is a waypoint: its name and where it is.
type NamedPoint struct {
	Name string
	At   Point
}

// Waypoints are the lane graph's waypoints, in the table's order.
func Waypoints() []NamedPoint {
	out := make([]NamedPoint, len(waypoints))
	for i, w := range waypoints {
		out[i] = NamedPoint{w.name, wp(i)}
	}
	return out
}

// Edges are the lane graph's edges, by waypoint name.
func Edges() [][2]string { return edges }

// WaypointAt is the position of the waypoint of that name.
func WaypointAt(name string) Point { return wp(waypointIndex[name]) }

// Ports is the port table.
func Ports() []Port { return ports }
