package auth

import (
	"sort"
	"strings"
)

// Plan is a usage plan: a request rate per key, as commercial tracking APIs
// sell them. Over the rate a key gets 429 with Retry-After.
type Plan struct {
	ID          string
	Name        string
	DisplayName string
	// RatePerSecond is the sustained request rate per key; Burst the bucket size.
	RatePerSecond float64
	Burst         int
}

// PlanNone, given as --plan, creates an account without a usage plan
// (GET /account shows usagePlan null; requests are limited as NoPlanLimits).
const PlanNone = "none"

// NoPlanLimits apply to accounts without a plan.
var NoPlanLimits = Plan{RatePerSecond: 20, Burst: 40}

var plans = map[string]Plan{
	"trial":      {ID: "plan-trial", Name: "trial", DisplayName: "Trial", RatePerSecond: 2, Burst: 5},
	"sandbox":    {ID: "plan-sandbox", Name: "sandbox", DisplayName: "Sandbox", RatePerSecond: 100, Burst: 500},
	"standard":   {ID: "plan-standard", Name: "standard", DisplayName: "Standard", RatePerSecond: 200, Burst: 1000},
	"enterprise": {ID: "plan-enterprise", Name: "enterprise", DisplayName: "Enterprise", RatePerSecond: 2000, Burst: 10000},
}

// LookupPlan returns the built-in plan of that name.
func LookupPlan(name string) (Plan, bool) {
	p, ok := plans[name]
	return p, ok
}

// DefaultPlan is the plan a new account of env gets when none is named.
func DefaultPlan(env string) string {
	if env == "sandbox" {
		return "sandbox"
	}
	return "standard"
}

// PlanNames lists the built-in plans, for error messages.
func PlanNames() string {
	var names []string
	for n := range plans {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(append(names, PlanNone), ", ")
}
