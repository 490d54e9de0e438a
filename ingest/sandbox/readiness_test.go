package sandbox

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas/tnt3"
	"github.com/contrack/contrack/schemas/tnt3/tnt3test"
)

// codesAt are the terminal codes (AVPU, CUSI, CUSR) the 3.0 carrier
// reports for number at journey time at, each page held to the document.
func codesAt(t *testing.T, number string, at time.Time) []string {
	t.Helper()
	h := NewHandler(Config{Clock: func() time.Time { return at }, PageSize: 1000})
	q := "equipmentReference=" + number
	rec := do(t, h, "GET", "/zimu/events?"+q, zimuToken(t, h), "")
	tnt3test.Must(t, tnt3test.GetEventsResponse(q, rec.Code, rec.Header(), rec.Body.Bytes()))
	var page tnt3.Events
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range page.Events {
		if c := e.EventClassification; c != nil && slices.Contains([]string{"AVPU", "CUSI", "CUSR"}, c.EquipmentEventTypeCode) {
			out = append(out, c.EquipmentEventTypeCode)
		}
	}
	return out
}

// dischargedBy finds a journey time when number's container is discharged
// at its port of discharge, and its terminal times.
func dischargedBy(t *testing.T, number string, hold bool) TerminalTimes {
	t.Helper()
	for at := wallNow; at.Sub(wallNow) < 200*24*time.Hour; at = at.Add(30 * time.Minute) {
		j := journey.Generate("ZIMU", journey.KindContainer, number, at)
		if tt, ok := Terminal(j, 0, hold); ok {
			if again, _ := Terminal(journey.Generate("ZIMU", journey.KindContainer, number, at.Add(36*time.Hour)), 0, hold); again != tt {
				t.Fatalf("the times moved: %+v, then %+v", tt, again)
			}
			return tt
		}
	}
	t.Fatalf("%s: no discharge within 200 days", number)
	return TerminalTimes{}
}

// A Hold number's container is held by customs after its discharge,
// released, then available for pick-up; any other number's is available
// two hours after the discharge. Nothing shows before it happened.
func TestTNT3TerminalStatus(t *testing.T) {
	const hold = "HLDU0000002"
	tt := dischargedBy(t, hold, true)
	if !(tt.Held.Before(tt.Released) && tt.Released.Before(tt.Available)) {
		t.Fatalf("times out of order: %+v", tt)
	}
	for _, c := range []struct {
		at   time.Time
		want []string
	}{
		{tt.Held.Add(-time.Minute), nil},
		{tt.Held.Add(time.Minute), []string{"CUSI"}},
		{tt.Released.Add(time.Minute), []string{"CUSI", "CUSR"}},
		{tt.Available.Add(time.Minute), []string{"CUSI", "CUSR", "AVPU"}},
	} {
		got := codesAt(t, hold, c.at)
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("at %s: %v, want %v", c.at, got, c.want)
		}
	}
	const plain = "MSKU9070323"
	pt := dischargedBy(t, plain, false)
	if got := codesAt(t, plain, pt.Available.Add(-time.Minute)); len(got) != 0 {
		t.Errorf("before availability: %v", got)
	}
	if got := codesAt(t, plain, pt.Available.Add(time.Minute)); !slices.Equal(got, []string{"AVPU"}) {
		t.Errorf("after availability: %v", got)
	}
}

// A Rolled number shows another vessel and voyage on its first leg until
// 72 hours before the departure, then the one it sails on — in every
// carrier's format, as the journey's legs are what they render.
func TestRolled(t *testing.T) {
	const number = "RLDU0000002"
	var at time.Time
	var from journey.Vessel
	var voyage string
	for now := wallNow; ; now = now.Add(24 * time.Hour) {
		j := journey.Generate("MAEU", journey.KindContainer, number, now)
		if a, f, v := Rolled(j); a.After(now) {
			at, from, voyage = a, f, v
			break
		}
		if now.Sub(wallNow) > 200*24*time.Hour {
			t.Fatal("no departure ahead within 200 days")
		}
	}
	before, _ := Shipment("MAEU", journey.KindContainer, number, at.Add(-time.Hour))
	after, _ := Shipment("MAEU", journey.KindContainer, number, at.Add(time.Hour))
	if v := before.Legs[0].Vessel; v == nil || v.IMO != from.IMO || before.Legs[0].Voyage != voyage {
		t.Errorf("before the roll: %+v %s, want %+v %s", v, before.Legs[0].Voyage, from, voyage)
	}
	if v := after.Legs[0].Vessel; v == nil || v.IMO == from.IMO || after.Legs[0].Voyage == voyage {
		t.Errorf("after the roll: %+v %s", v, after.Legs[0].Voyage)
	}
	plain := journey.Generate("MAEU", journey.KindContainer, number, at.Add(-time.Hour))
	if plain.Legs[0].Vessel.IMO != after.Legs[0].Vessel.IMO {
		t.Error("the vessel sailed on is the journey's own")
	}
}
