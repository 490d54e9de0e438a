// Package readiness says whether a container can leave the terminal at its
// port of discharge, and until when for free: the facts the carrier's
// events give (discharge, holds and their release, availability for
// pick-up, the full gate-out and the empty return), and, with the
// account's free-time rules and the clock, the last free day, the
// demurrage and detention days accrued and their estimated cost.
//
// The projector derives Facts from a journey's events (projector/journey);
// the API and the alerts stage Compute a Readiness from them. The rules, in
// docs/alerts.md:
//   - Free time runs in whole days in the port's local time (the offset the
//     discharge event carries): the first free day is the day after the
//     discharge. With ExcludeWeekends, Saturdays and Sundays are not free
//     days (the last free day moves past them); the days charged after it
//     are calendar days.
//   - Demurrage: every day after the last free day until the full gate-out
//     (the pick-up), the day of the pick-up included, or until today. A box
//     picked up on its last free day owes nothing.
//   - Detention: the same from the pick-up, DetentionDays free days, until
//     the empty return (or today).
//   - Holds do not stop the clock: a customs hold is the cargo owner's, and
//     a hold released after the last free day leaves the days since
//     charged (the Readiness shows both).
package readiness

import (
	"fmt"
	"strings"
	"time"
)

// Hold kinds.
const (
	HoldCustoms = "CUSTOMS"
)

// Facts are what a container's events say of it at its port of discharge.
// Times are the events' eventDateTime as the carrier sent them (local time
// with its offset).
type Facts struct {
	UNLocationCode string `json:"UNLocationCode"`
	// DischargedDateTime is the actual discharge at the port of discharge.
	DischargedDateTime string `json:"dischargedDateTime,omitempty"`
	DischargeEventID   string `json:"dischargeEventID,omitempty"`
	// AvailableDateTime is when the carrier reported the box available for
	// pick-up (DCSA TNT 3.0 AVPU).
	AvailableDateTime string `json:"availableDateTime,omitempty"`
	AvailableEventID  string `json:"availableEventID,omitempty"`
	// PickedUpDateTime is the actual full gate-out after the discharge;
	// EmptyReturnedDateTime the actual empty gate-in after it.
	PickedUpDateTime      string `json:"pickedUpDateTime,omitempty"`
	EmptyReturnedDateTime string `json:"emptyReturnedDateTime,omitempty"`
	Holds                 []Hold `json:"holds,omitempty"`
}

// Hold is one hold on the container.
type Hold struct {
	HoldType         string `json:"holdType"`
	HoldCode         string `json:"holdCode"`
	PlacedDateTime   string `json:"placedDateTime"`
	ReleasedDateTime string `json:"releasedDateTime,omitempty"`
	// PlacedEventID and ReleasedEventID are the carrier's events (for the
	// alerts' ids); not served.
	PlacedEventID   string `json:"placedEventID,omitempty"`
	ReleasedEventID string `json:"releasedEventID,omitempty"`
}

// Empty says f knows nothing beyond the port.
func (f Facts) Empty() bool {
	return f.DischargedDateTime == "" && f.AvailableDateTime == "" && f.PickedUpDateTime == "" && len(f.Holds) == 0
}

// FreeTimeRule is an account's free time at a port for a carrier ("*": any).
type FreeTimeRule struct {
	Port          string   `json:"port"`
	ScacCode      string   `json:"scacCode"`
	DemurrageDays int      `json:"demurrageDays"`
	DetentionDays int      `json:"detentionDays"`
	DemurrageRate *float64 `json:"demurrageRate,omitempty"`
	DetentionRate *float64 `json:"detentionRate,omitempty"`
	Currency      string   `json:"currency,omitempty"`
	// ExcludeWeekends: Saturdays and Sundays are not free days.
	ExcludeWeekends bool `json:"excludeWeekends,omitempty"`
}

// Any is the wildcard of FreeTimeRule.Port and FreeTimeRule.ScacCode.
const Any = "*"

// Limits of the rules an account keeps.
const (
	MaxRules = 500
	MaxDays  = 365
)

// Match returns the most specific rule for a port and carrier: the port's
// and the carrier's, else the port's for any carrier, else the carrier's
// at any port, else the one for any port and carrier; nil when none.
func Match(rules []FreeTimeRule, port, scac string) *FreeTimeRule {
	var best *FreeTimeRule
	bestScore := -1
	for i := range rules {
		r := &rules[i]
		portOK := r.Port == Any || strings.EqualFold(r.Port, port)
		scacOK := r.ScacCode == Any || strings.EqualFold(r.ScacCode, scac)
		if !portOK || !scacOK {
			continue
		}
		score := 0
		if r.Port != Any {
			score += 2
		}
		if r.ScacCode != Any {
			score++
		}
		if score > bestScore {
			best, bestScore = r, score
		}
	}
	return best
}

// Check returns rules in their stored form (port and SCAC upper case,
// currency upper case) and every problem found, each naming its rule.
func Check(rules []FreeTimeRule) ([]FreeTimeRule, []string) {
	var problems []string
	if len(rules) > MaxRules {
		return nil, []string{fmt.Sprintf("at most %d rules", MaxRules)}
	}
	seen := map[string]int{}
	out := make([]FreeTimeRule, len(rules))
	for i, r := range rules {
		at := fmt.Sprintf("rules[%d]", i)
		r.Port, r.ScacCode = strings.ToUpper(strings.TrimSpace(r.Port)), strings.ToUpper(strings.TrimSpace(r.ScacCode))
		r.Currency = strings.ToUpper(strings.TrimSpace(r.Currency))
		if r.Port != Any && !isLocode(r.Port) {
			problems = append(problems, at+".port must be a UN/LOCODE (5 characters, e.g. USLAX) or *")
		}
		if r.ScacCode != Any && !isSCAC(r.ScacCode) {
			problems = append(problems, at+".scacCode must be a SCAC (2 to 4 letters) or *")
		}
		if r.DemurrageDays < 0 || r.DemurrageDays > MaxDays {
			problems = append(problems, fmt.Sprintf("%s.demurrageDays must be 0 to %d", at, MaxDays))
		}
		if r.DetentionDays < 0 || r.DetentionDays > MaxDays {
			problems = append(problems, fmt.Sprintf("%s.detentionDays must be 0 to %d", at, MaxDays))
		}
		for name, rate := range map[string]*float64{"demurrageRate": r.DemurrageRate, "detentionRate": r.DetentionRate} {
			if rate != nil && (*rate < 0 || *rate > 1e7) {
				problems = append(problems, fmt.Sprintf("%s.%s must be 0 to 10000000", at, name))
			}
		}
		if (r.DemurrageRate != nil || r.DetentionRate != nil) && !isCurrency(r.Currency) {
			problems = append(problems, at+".currency must be an ISO 4217 code (e.g. USD) when a rate is given")
		} else if r.Currency != "" && !isCurrency(r.Currency) {
			problems = append(problems, at+".currency must be an ISO 4217 code (e.g. USD)")
		}
		key := r.Port + "/" + r.ScacCode
		if j, dup := seen[key]; dup {
			problems = append(problems, fmt.Sprintf("%s repeats rules[%d]'s port and scacCode", at, j))
		} else {
			seen[key] = i
		}
		out[i] = r
	}
	return out, problems
}

func isLocode(s string) bool {
	if len(s) != 5 {
		return false
	}
	for i := 0; i < 5; i++ {
		c := s[i]
		letter := c >= 'A' && c <= 'Z'
		if i < 2 && !letter || i >= 2 && !letter && !(c >= '2' && c <= '9') {
			return false
		}
	}
	return true
}

func isSCAC(s string) bool {
	if len(s) < 2 || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

func isCurrency(s string) bool { return len(s) == 3 && isSCAC(s) }

// Readiness is a container's readiness as served (the journey's readiness).
type Readiness struct {
	UNLocationCode        string          `json:"UNLocationCode"`
	DischargedDateTime    string          `json:"dischargedDateTime,omitempty"`
	AvailableForPickup    bool            `json:"availableForPickup"`
	AvailableDateTime     string          `json:"availableDateTime,omitempty"`
	PickedUpDateTime      string          `json:"pickedUpDateTime,omitempty"`
	EmptyReturnedDateTime string          `json:"emptyReturnedDateTime,omitempty"`
	OnHold                bool            `json:"onHold"`
	Holds                 []ReadinessHold `json:"holds"`
	// LastFreeDay (a date at the port) once discharged under a rule;
	// DetentionLastFreeDay once picked up.
	LastFreeDay          string `json:"lastFreeDay,omitempty"`
	DetentionLastFreeDay string `json:"detentionLastFreeDay,omitempty"`
	// DaysToLastFreeDay: whole days from today (at the port) to the last
	// free day while the box is in the terminal (0 on it, negative after).
	DaysToLastFreeDay *int           `json:"daysToLastFreeDay,omitempty"`
	DemurrageDays     int            `json:"demurrageDays"`
	DetentionDays     int            `json:"detentionDays"`
	EstimatedCost     *EstimatedCost `json:"estimatedCost,omitempty"`
	FreeTimeRule      *FreeTimeRule  `json:"freeTimeRule,omitempty"`
	Attention         []string       `json:"attention"`
	AsOf              string         `json:"asOf"`
}

// ReadinessHold is a hold as served.
type ReadinessHold struct {
	HoldType         string `json:"holdType"`
	HoldCode         string `json:"holdCode"`
	PlacedDateTime   string `json:"placedDateTime"`
	ReleasedDateTime string `json:"releasedDateTime,omitempty"`
}

// EstimatedCost is the estimated demurrage and detention cost under the rule's rates.
type EstimatedCost struct {
	Demurrage float64 `json:"demurrage"`
	Detention float64 `json:"detention"`
	Total     float64 `json:"total"`
	Currency  string  `json:"currency"`
}

// Reasons a container needs attention (Readiness.Attention).
const (
	AttentionHold      = "HOLD"
	AttentionLFDSoon   = "LFD_SOON"
	AttentionDemurrage = "DEMURRAGE"
	AttentionDetention = "DETENTION"
)

// DefaultWarningDays is how many days before the last free day a box
// needs attention (LFD_APPROACHING) unless the account says.
const DefaultWarningDays = 2

// Compute is f as served at now under the most specific of rules for the
// carrier scac; warnDays before the last free day it needs attention.
func Compute(f Facts, rules []FreeTimeRule, scac string, now time.Time, warnDays int) Readiness {
	v := Readiness{UNLocationCode: f.UNLocationCode, DischargedDateTime: f.DischargedDateTime, AvailableDateTime: f.AvailableDateTime,
		PickedUpDateTime: f.PickedUpDateTime, EmptyReturnedDateTime: f.EmptyReturnedDateTime, Holds: []ReadinessHold{},
		Attention: []string{}}
	for _, h := range f.Holds {
		v.Holds = append(v.Holds, ReadinessHold{h.HoldType, h.HoldCode, h.PlacedDateTime, h.ReleasedDateTime})
		if h.ReleasedDateTime == "" {
			v.OnHold = true
		}
	}
	pickedUp := f.PickedUpDateTime != ""
	v.AvailableForPickup = f.AvailableDateTime != "" && !v.OnHold && !pickedUp
	if v.OnHold && !pickedUp {
		v.Attention = append(v.Attention, AttentionHold)
	}
	disc, ok := parse(f.DischargedDateTime)
	if !ok {
		return v
	}
	r := Match(rules, f.UNLocationCode, scac)
	if r == nil {
		return v
	}
	rule := *r
	v.FreeTimeRule, v.AsOf = &rule, now.UTC().Format(time.RFC3339)
	loc := disc.Location() // the port's offset, as the carrier sent it
	today := dayOf(now.In(loc))
	lfd := lastFreeDay(dayOf(disc), rule.DemurrageDays, rule.ExcludeWeekends)
	v.LastFreeDay = lfd.Format(time.DateOnly)
	end := today
	if t, ok := parse(f.PickedUpDateTime); ok {
		end = dayOf(t.In(loc))
	} else {
		left := daysBetween(today, lfd)
		v.DaysToLastFreeDay = &left
		switch {
		case left < 0:
			v.Attention = append(v.Attention, AttentionDemurrage)
		case left <= warnDays:
			v.Attention = append(v.Attention, AttentionLFDSoon)
		}
	}
	v.DemurrageDays = max(0, daysBetween(lfd, end))
	if t, ok := parse(f.PickedUpDateTime); ok {
		pick := dayOf(t.In(loc))
		dlfd := lastFreeDay(pick, rule.DetentionDays, rule.ExcludeWeekends)
		v.DetentionLastFreeDay = dlfd.Format(time.DateOnly)
		end := today
		if t, ok := parse(f.EmptyReturnedDateTime); ok {
			end = dayOf(t.In(loc))
		} else if today.After(dlfd) {
			v.Attention = append(v.Attention, AttentionDetention)
		}
		v.DetentionDays = max(0, daysBetween(dlfd, end))
	}
	if rule.DemurrageRate != nil || rule.DetentionRate != nil {
		c := EstimatedCost{Currency: rule.Currency}
		if rule.DemurrageRate != nil {
			c.Demurrage = float64(v.DemurrageDays) * *rule.DemurrageRate
		}
		if rule.DetentionRate != nil {
			c.Detention = float64(v.DetentionDays) * *rule.DetentionRate
		}
		c.Total = c.Demurrage + c.Detention
		v.EstimatedCost = &c
	}
	return v
}

// LastFreeDay is the last free day of f under rule (zero when f has no
// discharge): what the alerts stage watches.
func LastFreeDay(f Facts, rule FreeTimeRule) (time.Time, bool) {
	disc, ok := parse(f.DischargedDateTime)
	if !ok {
		return time.Time{}, false
	}
	return lastFreeDay(dayOf(disc), rule.DemurrageDays, rule.ExcludeWeekends), true
}

// lastFreeDay counts n free days after start (midnight of a day).
func lastFreeDay(start time.Time, n int, excludeWeekends bool) time.Time {
	d := start
	for counted := 0; counted < n; {
		d = d.AddDate(0, 0, 1)
		if excludeWeekends && (d.Weekday() == time.Saturday || d.Weekday() == time.Sunday) {
			continue
		}
		counted++
	}
	return d
}

// dayOf is midnight of t's day in t's location.
func dayOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// daysBetween counts the days from a to b (midnights of one location).
func daysBetween(a, b time.Time) int {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	ua := time.Date(ay, am, ad, 0, 0, 0, 0, time.UTC)
	ub := time.Date(by, bm, bd, 0, 0, 0, 0, time.UTC)
	return int(ub.Sub(ua).Hours() / 24)
}

func parse(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// FreeTime is PUT /account/free-time's body and GET /account/free-time's
// answer.
type FreeTime struct {
	Rules []FreeTimeRule `json:"rules"`
}

// AlertSettings are an account's (PUT /account/alert-settings) or a
// subscription's (PUT /subscription/{id}/alert-settings) alert settings;
// null: the default (for a subscription: the account's).
type AlertSettings struct {
	// ETAChangeThresholdHours: an ETA_CHANGED alert needs a move of at
	// least this many hours (default 6).
	ETAChangeThresholdHours *float64 `json:"etaChangeThresholdHours"`
	// LFDWarningDays: LFD_APPROACHING is raised this many days before the
	// last free day (default 2). Account only.
	LFDWarningDays *int `json:"lfdWarningDays,omitempty"`
}

// AccountAlertSettings is GET /account/alert-settings' answer (and, with its
// message, PUT's): the settings in force, lfdWarningDays always given (the
// default, DefaultWarningDays, until the account sets its own);
// etaChangeThresholdHours null for the default.
type AccountAlertSettings struct {
	ETAChangeThresholdHours *float64 `json:"etaChangeThresholdHours"`
	LFDWarningDays          int      `json:"lfdWarningDays"`
}

// AccountSettings are an account's stored alert settings as served: the
// ETA threshold in hours from its stored minutes, the warning days or the
// default.
func AccountSettings(thresholdMinutes *int32, warningDays *int) AccountAlertSettings {
	s := AccountAlertSettings{ETAChangeThresholdHours: ThresholdHours(thresholdMinutes), LFDWarningDays: DefaultWarningDays}
	if warningDays != nil {
		s.LFDWarningDays = *warningDays
	}
	return s
}

// ThresholdHours is a stored ETA threshold (minutes) in hours; nil stays nil
// (the default).
func ThresholdHours(minutes *int32) *float64 {
	if minutes == nil {
		return nil
	}
	h := float64(*minutes) / 60
	return &h
}

// DefaultETAThresholdHours is the ETA move an ETA_CHANGED alert needs
// unless the subscription or the account says.
const DefaultETAThresholdHours = 6
