package searoute

import (
	"math"
	"testing"
)

// TestDistancesNearPublished: routes come within 10% of published
// port-to-port distances (nautical miles, as distance tables give them).
func TestDistancesNearPublished(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		nm       float64
		via      string // a waypoint the route must pass
	}{
		{"CNSHA", "NLRTM", 10525, "SUEZ_NORTH"},
		{"SGSIN", "NLRTM", 8288, "GIBRALTAR"},
		{"CNSHA", "USLAX", 5708, ""},
		{"NLRTM", "USNYC", 3456, "DOVER_STRAIT"},
		{"HKHKG", "SGSIN", 1440, ""},
		{"SGSIN", "LKCMB", 1570, "MALACCA_NORTH"},
		{"CNSHA", "USNYC", 10580, "PANAMA_PACIFIC"},
		{"KRPUS", "USLGB", 5180, ""},
		{"CNSHA", "SGSIN", 2200, "SOUTH_CHINA_SEA"},
		{"DEHAM", "PLGDN", 740, "SKAGEN"},   // round Skagen, not through the Kiel Canal,
		{"ESVLC", "GRPIR", 1250, "MATAPAN"}, // round the Peloponnese, not across it
	} {
		r, ok := Between(tc.from, nil, tc.to, nil)
		if !ok {
			t.Fatalf("%s-%s: no route", tc.from, tc.to)
		}
		if d := r.Length(); math.Abs(d-tc.nm)/tc.nm > 0.10 {
			t.Errorf("%s-%s: %.0f nm, published %.0f", tc.from, tc.to, d, tc.nm)
		}
		if tc.via != "" {
			w := wp(waypointIndex[tc.via])
			if _, off := r.Locate(w); off > 30 {
				t.Errorf("%s-%s does not pass %s (%.0f nm off)", tc.from, tc.to, tc.via, off)
			}
		}
		for i := 1; i < len(r.Points); i++ {
			if s := r.Along[i] - r.Along[i-1]; s > step+1e-6 {
				t.Fatalf("%s-%s: a piece of %.0f nm", tc.from, tc.to, s)
			}
		}
	}
}

func TestAtAndLocateAgree(t *testing.T) {
	r, _ := Between("CNSHA", nil, "NLRTM", nil)
	for _, d := range []float64{0, 100, 2500.5, 7000, r.Length()} {
		p, course := r.At(d)
		along, off := r.Locate(p)
		if math.Abs(along-d) > 1 || off > 1 {
			t.Errorf("At(%.1f) = %v, Locate says %.1f (%.2f off)", d, p, along, off)
		}
		if course < 0 || course >= 360 {
			t.Errorf("course %v", course)
		}
	}
	sailed, ahead := r.Split(3000)
	if sailed[len(sailed)-1] != ahead[0] {
		t.Error("the parts do not meet at the cut")
	}
}

func TestUnknownPortsJoinNearestLanes(t *testing.T) {
	p := Point{Lat: 10.3, Lon: 123.9} // Cebu, not in the table
	r, ok := Between("PHCEB", &p, "SGSIN", nil)
	if !ok || r.Length() < 1000 || r.Length() > 2500 {
		t.Fatalf("Cebu-Singapore: %v %.0f nm", ok, r.Length())
	}
	if _, ok := Between("XXXXX", nil, "SGSIN", nil); ok {
		t.Error("an unknown code without a position has a route")
	}
}

func TestLinePartsCutAtAntimeridian(t *testing.T) {
	r, _ := Between("JPTYO", nil, "USSEA", nil)
	parts := LineParts(r.Points)
	if len(parts) != 2 {
		t.Fatalf("Tokyo-Seattle in %d parts, want 2 (cut at 180°)", len(parts))
	}
	for _, part := range parts {
		for i := 1; i < len(part); i++ {
			if math.Abs(part[i][0]-part[i-1][0]) > 180 {
				t.Fatal("a part still wraps round")
			}
		}
	}
}
