package readiness

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func rate(v float64) *float64 { return &v }

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestCompute(t *testing.T) {
	rule := FreeTimeRule{Port: "USLAX", ScacCode: "*", DemurrageDays: 4, DetentionDays: 4, DemurrageRate: rate(150), DetentionRate: rate(100), Currency: "USD"}
	weekdays := rule
	weekdays.ExcludeWeekends = true
	// Discharged on Friday 20 November, 10:00 at the port.
	disc := Facts{UNLocationCode: "USLAX", DischargedDateTime: "2026-11-20T10:00:00-08:00"}
	with := func(f Facts, edit func(*Facts)) Facts {
		f.Holds = slices.Clone(f.Holds)
		edit(&f)
		return f
	}
	for _, c := range []struct {
		name        string
		facts       Facts
		rule        FreeTimeRule
		now         string
		lfd         string
		demurrage   int
		detention   int
		cost        float64
		attention   []string
		available   bool
		daysToLFD   *int
		detentionLF string
	}{
		{name: "calendar days: Saturday and Sunday are free days", facts: disc, rule: rule, now: "2026-11-22T12:00:00-08:00",
			lfd: "2026-11-24", attention: []string{AttentionLFDSoon}, daysToLFD: ptr(2)},
		{name: "three days before the last free day: nothing yet", facts: disc, rule: rule, now: "2026-11-21T12:00:00-08:00",
			lfd: "2026-11-24", attention: []string{}, daysToLFD: ptr(3)},
		{name: "weekends excluded: the last free day moves past them", facts: disc, rule: weekdays, now: "2026-11-22T12:00:00-08:00",
			lfd: "2026-11-26", attention: []string{}, daysToLFD: ptr(4)},
		{name: "two days past the last free day, still in the terminal", facts: disc, rule: rule, now: "2026-11-26T15:00:00-08:00",
			lfd: "2026-11-24", demurrage: 2, cost: 300, attention: []string{AttentionDemurrage}, daysToLFD: ptr(-2)},
		{name: "days after the last free day are calendar days, weekends excluded or not", facts: disc, rule: weekdays, now: "2026-11-30T09:00:00-08:00",
			lfd: "2026-11-26", demurrage: 4, cost: 600, attention: []string{AttentionDemurrage}, daysToLFD: ptr(-4)},
		{name: "picked up on the last free day: nothing owed",
			facts: with(disc, func(f *Facts) { f.PickedUpDateTime = "2026-11-24T23:30:00-08:00" }), rule: rule, now: "2026-11-26T09:00:00-08:00",
			lfd: "2026-11-24", attention: []string{}, detentionLF: "2026-11-28"},
		{name: "picked up the day after: one day",
			facts: with(disc, func(f *Facts) { f.PickedUpDateTime = "2026-11-25T00:10:00-08:00" }), rule: rule, now: "2026-11-25T09:00:00-08:00",
			lfd: "2026-11-24", demurrage: 1, cost: 150, attention: []string{}, detentionLF: "2026-11-29"},
		{name: "a customs hold released after the last free day does not stop the clock",
			facts: with(disc, func(f *Facts) {
				f.Holds = []Hold{{HoldType: HoldCustoms, HoldCode: "CUSI", PlacedDateTime: "2026-11-20T12:00:00-08:00", ReleasedDateTime: "2026-11-26T08:00:00-08:00"}}
				f.AvailableDateTime = "2026-11-26T10:00:00-08:00"
				f.PickedUpDateTime = "2026-11-27T09:00:00-08:00"
			}), rule: rule, now: "2026-11-27T12:00:00-08:00", lfd: "2026-11-24", demurrage: 3, cost: 450, attention: []string{}, detentionLF: "2026-12-01"},
		{name: "on hold past the last free day: both",
			facts: with(disc, func(f *Facts) {
				f.Holds = []Hold{{HoldType: HoldCustoms, HoldCode: "CUSS", PlacedDateTime: "2026-11-20T12:00:00-08:00"}}
				f.AvailableDateTime = "2026-11-20T14:00:00-08:00"
			}), rule: rule, now: "2026-11-25T12:00:00-08:00", lfd: "2026-11-24", demurrage: 1, cost: 150,
			attention: []string{AttentionHold, AttentionDemurrage}, daysToLFD: ptr(-1)},
		{name: "available, no hold", facts: with(disc, func(f *Facts) { f.AvailableDateTime = "2026-11-20T14:00:00-08:00" }),
			rule: rule, now: "2026-11-20T15:00:00-08:00", lfd: "2026-11-24", available: true, attention: []string{}, daysToLFD: ptr(4)},
		{name: "detention until the empty return",
			facts: with(disc, func(f *Facts) {
				f.PickedUpDateTime = "2026-11-23T08:00:00-08:00"
				f.EmptyReturnedDateTime = "2026-11-30T16:00:00-08:00"
			}), rule: rule, now: "2026-12-05T12:00:00-08:00", lfd: "2026-11-24", detention: 3, cost: 300, attention: []string{}, detentionLF: "2026-11-27"},
		{name: "detention running", facts: with(disc, func(f *Facts) { f.PickedUpDateTime = "2026-11-23T08:00:00-08:00" }),
			rule: rule, now: "2026-11-29T12:00:00-08:00", lfd: "2026-11-24", detention: 2, cost: 200, attention: []string{AttentionDetention}, detentionLF: "2026-11-27"},
		{name: "days are the port's: 23:30 local is still that day, whatever UTC says",
			facts: Facts{UNLocationCode: "USLAX", DischargedDateTime: "2026-11-20T23:30:00-08:00"}, rule: rule, now: "2026-11-25T07:30:00Z",
			lfd: "2026-11-24", attention: []string{AttentionLFDSoon}, daysToLFD: ptr(0)},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Compute(c.facts, []FreeTimeRule{c.rule}, "ZIMU", at(c.now), DefaultWarningDays)
			if v.LastFreeDay != c.lfd || v.DemurrageDays != c.demurrage || v.DetentionDays != c.detention {
				t.Errorf("last free day %s, demurrage %d, detention %d; want %s, %d, %d", v.LastFreeDay, v.DemurrageDays, v.DetentionDays, c.lfd, c.demurrage, c.detention)
			}
			if v.EstimatedCost == nil || v.EstimatedCost.Total != c.cost || v.EstimatedCost.Currency != "USD" {
				t.Errorf("cost %+v, want %v USD", v.EstimatedCost, c.cost)
			}
			if !slices.Equal(v.Attention, c.attention) {
				t.Errorf("attention %v, want %v", v.Attention, c.attention)
			}
			if v.AvailableForPickup != c.available {
				t.Errorf("available for pick-up %v", v.AvailableForPickup)
			}
			if (v.DaysToLastFreeDay == nil) != (c.daysToLFD == nil) || v.DaysToLastFreeDay != nil && *v.DaysToLastFreeDay != *c.daysToLFD {
				t.Errorf("days to the last free day %v, want %v", deref(v.DaysToLastFreeDay), deref(c.daysToLFD))
			}
			if v.DetentionLastFreeDay != c.detentionLF {
				t.Errorf("detention last free day %q, want %q", v.DetentionLastFreeDay, c.detentionLF)
			}
		})
	}
	// No rule: the facts, no last free day, nothing charged.
	v := Compute(disc, nil, "ZIMU", at("2026-12-20T00:00:00Z"), 2)
	if v.LastFreeDay != "" || v.DemurrageDays != 0 || v.EstimatedCost != nil || v.FreeTimeRule != nil || v.DischargedDateTime == "" {
		t.Errorf("without a rule: %+v", v)
	}
	// No rates: days, no cost.
	v = Compute(disc, []FreeTimeRule{{Port: "*", ScacCode: "*", DemurrageDays: 1}}, "ZIMU", at("2026-11-25T00:00:00-08:00"), 2)
	if v.DemurrageDays != 4 || v.EstimatedCost != nil { // the 22nd to the 25th
		t.Errorf("without rates: %d days, cost %+v", v.DemurrageDays, v.EstimatedCost)
	}
}

func ptr(n int) *int { return &n }

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestMatchMostSpecific(t *testing.T) {
	rules := []FreeTimeRule{
		{Port: "*", ScacCode: "*", DemurrageDays: 1},
		{Port: "*", ScacCode: "ZIMU", DemurrageDays: 2},
		{Port: "USLAX", ScacCode: "*", DemurrageDays: 3},
		{Port: "USLAX", ScacCode: "ZIMU", DemurrageDays: 4},
	}
	for _, c := range []struct {
		port, scac string
		days       int
	}{{"USLAX", "ZIMU", 4}, {"uslax", "MAEU", 3}, {"NLRTM", "ZIMU", 2}, {"NLRTM", "MAEU", 1}} {
		if r := Match(rules, c.port, c.scac); r == nil || r.DemurrageDays != c.days {
			t.Errorf("%s %s: %+v, want the rule of %d days", c.port, c.scac, r, c.days)
		}
	}
	if r := Match(rules[2:3], "NLRTM", "ZIMU"); r != nil {
		t.Errorf("no rule applies: %+v", r)
	}
}

func TestCheck(t *testing.T) {
	out, problems := Check([]FreeTimeRule{{Port: " uslax", ScacCode: "zimu", DemurrageDays: 4, DemurrageRate: rate(150), Currency: "usd"}, {Port: "*", ScacCode: "*"}})
	if len(problems) > 0 || out[0].Port != "USLAX" || out[0].ScacCode != "ZIMU" || out[0].Currency != "USD" {
		t.Fatalf("%+v %v", out, problems)
	}
	_, problems = Check([]FreeTimeRule{
		{Port: "LAX", ScacCode: "Z1", DemurrageDays: -1, DetentionDays: 400, DemurrageRate: rate(-5)},
		{Port: "USLAX", ScacCode: "*", DetentionRate: rate(10), Currency: "dollars"},
		{Port: "uslax", ScacCode: "*"},
	})
	want := []string{
		"rules[0].port must be a UN/LOCODE (5 characters, e.g. USLAX) or *",
		"rules[0].scacCode must be a SCAC (2 to 4 letters) or *",
		"rules[0].demurrageDays must be 0 to 365",
		"rules[0].detentionDays must be 0 to 365",
		"rules[0].demurrageRate must be 0 to 10000000",
		"rules[0].currency must be an ISO 4217 code (e.g. USD) when a rate is given",
		"rules[1].currency must be an ISO 4217 code (e.g. USD) when a rate is given",
		"rules[2] repeats rules[1]'s port and scacCode",
	}
	if !slices.Equal(problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}
