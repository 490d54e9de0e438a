package journey

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

type query struct {
	scac  string
	kind  Kind
	value string
}

// queries is a spread of numbers over every carrier and kind.
func queries() []query {
	var out []query
	for i, scac := range []string{"MAEU", "HLCU", "CMDU", "EGLV", "MSCU", "HDMU", "ONEY", "OOLU", "COSU"} {
		for j := 0; j < 12; j++ {
			out = append(out,
				query{scac, KindContainer, CompleteContainer(fmt.Sprintf("TGHU%06d", 1000*i+j))},
				query{scac, KindBooking, fmt.Sprintf("BK%07d", 7919*i+j)},
				query{scac, KindBill, fmt.Sprintf("%s%09d", scac, 104729*i+j)})
		}
	}
	return out
}

func TestCheckDigits(t *testing.T) {
	for _, tc := range []struct {
		number string
		valid  bool
	}{
		{"CSQU3054383", true}, {"MSKU9070323", true}, {"APZU4812090", true},
		{"CSQU3054384", false}, {"CSQX3054383", false}, {"CSQU305438", false}, {"csqu3054383", false},
	} {
		if got := ValidContainer(tc.number); got != tc.valid {
			t.Errorf("ValidContainer(%s) = %v", tc.number, got)
		}
	}
	for _, tc := range []struct {
		imo   string
		valid bool
	}{{"9321483", true}, {"9811000", true}, {"9074729", true}, {"9321484", false}, {"932148", false}} {
		if got := ValidIMO(tc.imo); got != tc.valid {
			t.Errorf("ValidIMO(%s) = %v", tc.imo, got)
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, q := range queries()[:30] {
		a := Generate(q.scac, q.kind, q.value, now)
		b := Generate(q.scac, q.kind, " "+q.value+" ", now)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%v: two generations differ", q)
		}
	}
	a := Generate("MAEU", KindBooking, "BK1", now)
	b := Generate("MAEU", KindBooking, "BK2", now)
	if reflect.DeepEqual(a.Legs, b.Legs) && reflect.DeepEqual(a.Containers, b.Containers) {
		t.Fatal("different numbers gave the same journey")
	}
}

func TestInvariants(t *testing.T) {
	for _, q := range queries() {
		j := Generate(q.scac, q.kind, q.value, now)
		name := fmt.Sprintf("%s %s %s", q.scac, q.kind, q.value)
		if len(j.Containers) < 1 || len(j.Containers) > 3 || (q.kind == KindContainer && (len(j.Containers) != 1 || j.Containers[0].Number != q.value)) {
			t.Fatalf("%s: containers %+v", name, j.Containers)
		}
		for _, c := range j.Containers {
			if !ValidContainer(c.Number) {
				t.Errorf("%s: container %s has a bad check digit", name, c.Number)
			}
		}
		for _, l := range j.Legs {
			if l.Mode == ModeVessel && (l.Vessel == nil || !ValidIMO(l.Vessel.IMO)) {
				t.Errorf("%s: vessel %+v has a bad IMO", name, l.Vessel)
			}
			if l.From.Code == l.To.Code {
				t.Errorf("%s: leg from %s to itself", name, l.From.Code)
			}
		}
		ids := map[string]bool{}
		for i, e := range j.Events {
			if ids[e.ID] {
				t.Errorf("%s: duplicate event id %s", name, e.ID)
			}
			ids[e.ID] = true
			if i > 0 && e.Time.Before(j.Events[i-1].Time) {
				t.Errorf("%s: events out of order at %d", name, i)
			}
			switch e.Classifier {
			case ACT:
				if e.Time.After(now) {
					t.Errorf("%s: ACT %s in the future: %s", name, e.Code, e.Time)
				}
			case EST, PLN:
				if !e.Time.After(now) {
					t.Errorf("%s: %s %s not in the future: %s", name, e.Classifier, e.Code, e.Time)
				}
			default:
				t.Errorf("%s: classifier %q", name, e.Classifier)
			}
			if e.Created.After(now) {
				t.Errorf("%s: %s created in the future", name, e.Code)
			}
			if e.Time.Location() != e.Port.Location() {
				t.Errorf("%s: %s time not in the port's zone", name, e.Code)
			}
		}
	}
}

// TestContainerMilestoneOrder checks every container goes through the
// journey in the physical order, whatever is actual or estimated.
func TestContainerMilestoneOrder(t *testing.T) {
	for _, q := range queries() {
		j := Generate(q.scac, q.kind, q.value, now)
		for ci := range j.Containers {
			var got string
			for _, e := range j.Events {
				if e.Container != ci {
					continue
				}
				switch {
				case e.Code == CodeGateOut && e.Empty:
					got += "P"
				case e.Code == CodeGateIn && !e.Empty:
					got += "I"
				case e.Code == CodeLoad && e.Mode == ModeVessel:
					got += "L"
				case e.Code == CodeDischarge && e.Mode == ModeVessel:
					got += "D"
				case e.Code == CodeLoad:
					got += "r"
				case e.Code == CodeDischarge:
					got += "u"
				case e.Code == CodeGateOut:
					got += "O"
				case e.Code == CodeGateIn:
					got += "R"
				}
			}
			vessel := 0
			for _, l := range j.Legs {
				if l.Mode == ModeVessel {
					vessel++
				}
			}
			want := "PI"
			for i := 0; i < vessel; i++ {
				want += "LD"
			}
			if len(j.Legs) > vessel {
				want += "ru"
			}
			want += "OR"
			if got != want {
				t.Errorf("%s %s container %d: milestones %s, want %s", q.scac, q.value, ci, got, want)
			}
		}
	}
}

func TestRevealedOverTime(t *testing.T) {
	var sawMove, sawStable int
	for _, q := range queries() {
		before := Generate(q.scac, q.kind, q.value, now)
		later := Generate(q.scac, q.kind, q.value, now.Add(36*time.Hour))
		if later.Cycle != before.Cycle {
			continue
		}
		acts := func(j Journey) int {
			n := 0
			for _, e := range j.Events {
				if e.Classifier == ACT {
					n++
				}
			}
			return n
		}
		if acts(later) < acts(before) {
			t.Errorf("%v: fewer actual events later", q)
		}
		old := map[string]Event{}
		for _, e := range before.Events {
			old[e.ID] = e
		}
		for _, e := range later.Events {
			o, ok := old[e.ID]
			if !ok {
				continue
			}
			if e.Classifier == ACT {
				if !o.Time.Equal(e.Time) {
					t.Errorf("%v: actual %s moved", q, e.Code)
				}
				sawStable++
			}
			if e.Classifier == EST && !o.Time.Equal(e.Time) {
				sawMove++
			}
		}
	}
	if sawMove == 0 {
		t.Error("no estimate moved over 36 hours")
	}
	if sawStable == 0 {
		t.Error("no actual event kept its id")
	}
}

func TestEstimatesConvergeOnActual(t *testing.T) {
	var q query
	var target Event
	for _, cand := range queries() {
		for _, e := range Generate(cand.scac, cand.kind, cand.value, now).Events {
			if e.Classifier == EST && e.Type == TypeTransport {
				q, target = cand, e
				break
			}
		}
		if target.ID != "" {
			break
		}
	}
	if target.ID == "" {
		t.Fatal("no journey has an estimated transport event")
	}
	// Step forward until it becomes actual: every estimate must be within
	// the designed error (15% of the time still to go) of the actual time.
	type sample struct{ at, est time.Time }
	var samples []sample
	for at := now; ; at = at.Add(12 * time.Hour) {
		k := Generate(q.scac, q.kind, q.value, at)
		var est, act *Event
		for i, e := range k.Events {
			if e.Code == target.Code && e.Port.Code == target.Port.Code && e.Leg == target.Leg {
				switch e.Classifier {
				case EST:
					est = &k.Events[i]
				case ACT:
					act = &k.Events[i]
				}
			}
		}
		if act != nil {
			if len(samples) < 2 {
				t.Fatalf("only %d estimates before the actual", len(samples))
			}
			for _, s := range samples {
				errAbs := s.est.Sub(act.Time).Abs()
				if bound := time.Duration(0.15*float64(act.Time.Sub(s.at))) + 2*time.Minute; errAbs > bound {
					t.Errorf("estimate at %s off by %s, bound %s", s.at, errAbs, bound)
				}
			}
			return
		}
		if est == nil || est.ID != target.ID {
			t.Fatalf("estimate lost its id at %s", at)
		}
		if at.Sub(now) > 120*24*time.Hour {
			t.Fatal("never became actual")
		}
		samples = append(samples, sample{at, est.Time})
	}
}

func TestForcedOptions(t *testing.T) {
	j := GenerateWith("HLCU", KindBooking, "PAGU12345", now, Options{Containers: 3, MinTransshipments: 2})
	vessel := 0
	for _, l := range j.Legs {
		if l.Mode == ModeVessel {
			vessel++
		}
	}
	if len(j.Containers) != 3 || vessel != 3 {
		t.Fatalf("containers %d vessel legs %d, want 3 and 3", len(j.Containers), vessel)
	}
}

func TestCyclesRepeat(t *testing.T) {
	j := Generate("COSU", KindContainer, "CSNU1234565", now)
	k := j
	for at := now; k.Cycle == j.Cycle; at = at.Add(24 * time.Hour) {
		k = Generate("COSU", KindContainer, "CSNU1234565", at)
	}
	if k.Legs[0].From.Code != j.Legs[0].From.Code || k.Legs[0].Voyage == j.Legs[0].Voyage || k.Events[0].ID == j.Events[0].ID {
		t.Fatal("a new cycle should keep the route but change voyages and event ids")
	}
}

func TestPorts(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Ports() {
		if len(p.Code) != 5 || seen[p.Code] || p.Location() == nil || p.TerminalCode == "" {
			t.Errorf("bad port %+v", p)
		}
		seen[p.Code] = true
	}
	if len(seen) < 30 {
		t.Errorf("only %d ports", len(seen))
	}
	if p, ok := LookupPort("NLRTM"); !ok || p.Name != "Rotterdam" {
		t.Errorf("LookupPort(NLRTM) = %+v %v", p, ok)
	}
}
