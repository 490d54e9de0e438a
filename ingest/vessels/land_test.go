package vessels

import (
	"fmt"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/searoute"
	"github.com/contrack/contrack/schemas/searoute/searoutetest"
)

// TestShipsStayAtSea: every position the simulator reports for a ship,
// moored, under way or at anchor, is at sea on Natural Earth's 1:50m land
// (the land the journey map draws), but for the harbour miles off each
// berth and in the Suez and Panama canals: Valencia to Piraeus round the Peloponnese, and the passages of
// the sandbox's journeys.
func TestShipsStayAtSea(t *testing.T) {
	l := searoutetest.LoadLand(t)
	at := func(code string) searoute.Point {
		p, ok := searoute.LookupPort(code)
		if !ok {
			t.Fatalf("no port %s", code)
		}
		return searoute.Point{Lat: p.Lat, Lon: p.Lon}
	}
	departs := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	type passage struct {
		v        Voyage
		from, to string
	}
	var voyages []passage
	v, ok := NewVoyage("9000001", "VP01", at("ESVLC"), at("GRPIR"), "ESVLC", "GRPIR", departs, departs.Add(4*24*time.Hour))
	if !ok {
		t.Fatal("no voyage Valencia-Piraeus")
	}
	voyages = append(voyages, passage{v, "ESVLC", "GRPIR"})
	seen := map[string]bool{}
	for i := range 600 {
		num := journey.CompleteContainer(fmt.Sprintf("MSKU%06d", i))
		j, _ := sandbox.Shipment("MAEU", journey.KindContainer, num, departs)
		for _, leg := range j.Legs {
			key := fmt.Sprintf("%s %.4f %.4f %s %.4f %.4f", leg.From.Code, leg.From.Lat, leg.From.Lon, leg.To.Code, leg.To.Lat, leg.To.Lon)
			if leg.Mode != journey.ModeVessel || seen[key] {
				continue
			}
			seen[key] = true
			v, ok := NewVoyage(leg.Vessel.IMO, leg.Voyage, searoute.Point{Lat: leg.From.Lat, Lon: leg.From.Lon}, searoute.Point{Lat: leg.To.Lat, Lon: leg.To.Lon},
				leg.From.Code, leg.To.Code, leg.Departs, leg.Arrives)
			if !ok {
				t.Fatalf("no voyage %s", key)
			}
			voyages = append(voyages, passage{v, leg.From.Code, leg.To.Code})
		}
	}
	if len(voyages) < 30 {
		t.Fatalf("%d passages checked, want the sandbox's many", len(voyages))
	}
	positions := 0
	for _, pv := range voyages {
		v, fromCode, toCode := pv.v, pv.from, pv.to
		for k := 0; k <= 400; k++ {
			t0 := v.Departs.Add(time.Duration(k) * v.Arrives.Sub(v.Departs) / 400)
			p := v.At(schemas.EnvSandbox, t0)
			pt := searoute.Point{Lat: p.Lat, Lon: p.Lon}
			if searoute.DistanceNM(pt, v.From) <= searoutetest.Harbour(fromCode) || searoute.DistanceNM(pt, v.To) <= searoutetest.Harbour(toCode) {
				continue
			}
			if _, canal := searoutetest.Canal(pt); canal {
				continue
			}
			positions++
			if l.On(pt) {
				t.Errorf("%s/%s %s-%s at %s: (%.3f, %.3f) is on land", v.IMO, v.Voyage, fromCode, toCode, t0.Format(time.RFC3339), p.Lat, p.Lon)
				break
			}
		}
	}
	t.Logf("%d passages, %d positions checked", len(voyages), positions)
	if positions < 10000 {
		t.Fatalf("%d positions at sea checked", positions)
	}
}
