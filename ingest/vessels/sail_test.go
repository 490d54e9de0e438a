package vessels

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/searoute"
)

// TestVoyageKeepsTheJourneysTimes: a ship is moored at the port of loading
// until the journey's departure, sails the sea route at a container ship's
// speed, and is moored at the port of discharge from the journey's
// arrival; every report is valid and consecutive reports agree with the
// speed reported.
func TestVoyageKeepsTheJourneysTimes(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	checked := 0
	for _, num := range []string{"MSKU1234565", "HLXU1234566", "CMAU1234567", "TGHU0000055", "MSCU1234568", "OOLU1234563"} {
		for _, scac := range []string{"MAEU", "HLCU", "COSU"} {
			j, ok := sandbox.Shipment(scac, journey.KindContainer, num, now)
			if !ok {
				continue
			}
			for _, leg := range j.Legs {
				if leg.Mode != journey.ModeVessel {
					continue
				}
				from := searoute.Point{Lat: leg.From.Lat, Lon: leg.From.Lon}
				to := searoute.Point{Lat: leg.To.Lat, Lon: leg.To.Lon}
				v, ok := NewVoyage(leg.Vessel.IMO, leg.Voyage, from, to, leg.From.Code, leg.To.Code, leg.Departs, leg.Arrives)
				if !ok {
					t.Fatalf("%s %s: no voyage %s-%s", scac, num, leg.From.Code, leg.To.Code)
				}
				checkVoyage(t, v, from, to)
				checked++
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d voyages checked", checked)
	}
}

func checkVoyage(t *testing.T, v Voyage, from, to searoute.Point) {
	t.Helper()
	name := v.IMO + "/" + v.Voyage
	before := v.At(schemas.EnvSandbox, v.Departs.Add(-time.Hour))
	if before.NavStatus != schemas.NavMoored || searoute.DistanceNM(searoute.Point{Lat: before.Lat, Lon: before.Lon}, from) > 0.1 {
		t.Errorf("%s: before departure %+v, want moored at %v", name, before, from)
	}
	after := v.At(schemas.EnvSandbox, v.Arrives)
	if after.NavStatus != schemas.NavMoored || searoute.DistanceNM(searoute.Point{Lat: after.Lat, Lon: after.Lon}, to) > 0.1 {
		t.Errorf("%s: at arrival %+v, want moored at %v", name, after, to)
	}
	var prev schemas.VesselPosition
	underWay := 0
	for at := v.Departs; at.Before(v.Arrives); at = at.Add(10 * time.Minute) {
		p := v.At(schemas.EnvSandbox, at)
		if err := p.Validate(); err != nil {
			t.Fatalf("%s at %s: %v", name, at, err)
		}
		if p.NavStatus == schemas.NavUnderWayEngine && at.Sub(v.Departs) < v.Sea {
			underWay++
			if mean := (v.Route.Length() - pilotageNM) / v.Sea.Hours(); p.SpeedKnots < 0.8*mean || p.SpeedKnots > 1.2*mean {
				t.Fatalf("%s at %s: %.1f knots, the passage's mean %.1f", name, at, p.SpeedKnots, mean)
			}
			if !prev.At.IsZero() && prev.NavStatus == schemas.NavUnderWayEngine {
				moved := searoute.DistanceNM(searoute.Point{Lat: prev.Lat, Lon: prev.Lon}, searoute.Point{Lat: p.Lat, Lon: p.Lon})
				want := (prev.SpeedKnots + p.SpeedKnots) / 2 / 6
				if moved > want*1.2+0.5 { // less at a turn of the route
					t.Fatalf("%s at %s: moved %.2f nm in 10 min at %.1f-%.1f knots", name, at, moved, prev.SpeedKnots, p.SpeedKnots)
				}
			}
		}
		prev = p
	}
	if underWay == 0 {
		t.Errorf("%s: never under way", name)
	}
}

// TestPlanSharesShipsAndDropsConflicts: the three containers of a booking
// share their ships; a tracking without a journey (a failing test number)
// sails nothing; max bounds the ships.
func TestPlanSharesShipsAndDropsConflicts(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	far := now.Add(365 * 24 * time.Hour)
	booking, _ := sandbox.Shipment("MAEU", journey.KindBooking, "PAGUMAEU1", now)
	from := booking.Booked
	vs, conflicts, over := Plan([]Tracked{{"MAEU", "booking", "PAGUMAEU1"}, {"MAEU", "booking", "PAGUMAEU1"}, {"MAEU", "container", "NOFU0000001"}}, from, far, 100)
	legs := 0
	for _, l := range booking.Legs {
		if l.Mode == journey.ModeVessel {
			legs++
		}
	}
	if len(vs) != legs || conflicts != 0 || over != 0 {
		t.Fatalf("%d voyages (%d conflicts, %d over), want the booking's %d vessel legs", len(vs), conflicts, over, legs)
	}
	if vs, _, over := Plan([]Tracked{{"MAEU", "booking", "PAGUMAEU1"}}, from, far, 1); len(vs) != 1 || over != legs-1 {
		t.Errorf("max 1: %d voyages, %d over", len(vs), over)
	}
}

// TestSandboxPassageSpeeds prints the mean speed under way of 3,000
// sandbox containers' passages: the sandbox schedules passages by great
// circle distance, so most come out at a container ship's 12-20 knots
// (slow steaming to service speed),
// but where the sea route is far longer than the great circle (the Baltic
// to Asia, whose great circle crosses Russia) keeping the journey's times
// takes more (docs/vessels.md has the figures).
func TestSandboxPassageSpeeds(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	var speeds []float64
	for i := 0; i < 3000; i++ {
		num := journey.CompleteContainer(fmt.Sprintf("MSKU%06d", i))
		j, _ := sandbox.Shipment("MAEU", journey.KindContainer, num, now)
		for _, l := range j.Legs {
			if l.Mode != journey.ModeVessel {
				continue
			}
			v, ok := NewVoyage(l.Vessel.IMO, l.Voyage, searoute.Point{Lat: l.From.Lat, Lon: l.From.Lon}, searoute.Point{Lat: l.To.Lat, Lon: l.To.Lon},
				l.From.Code, l.To.Code, l.Departs, l.Arrives)
			if !ok {
				t.Fatalf("no voyage %s-%s", l.From.Code, l.To.Code)
			}
			speeds = append(speeds, (v.Route.Length()-pilotageNM)/v.Sea.Hours())
		}
	}
	sort.Float64s(speeds)
	n := len(speeds)
	q := func(f float64) float64 { return speeds[min(n-1, int(f*float64(n)))] }
	over21 := sort.SearchFloat64s(speeds, 21)
	t.Logf("%d passages: mean speed under way p10 %.1f, median %.1f, p90 %.1f, p99 %.1f, max %.1f knots; %.1f%% above 21 knots",
		n, q(0.1), q(0.5), q(0.9), q(0.99), speeds[n-1], 100*float64(n-over21)/float64(n))
	if m := q(0.5); m < 12 || m > 20 {
		t.Errorf("median %.1f knots, not a container ship's", m)
	}
	if float64(n-over21) > 0.2*float64(n) {
		t.Errorf("%d of %d passages above 21 knots", n-over21, n)
	}
}
