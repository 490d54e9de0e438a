package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/contrack/contrack/cmd/contrack/roles"
)

// TestScalePlanRunsEveryRole: the scale topology starts every role of the
// role table that a split deployment runs — two processes of a role of
// several replicas, one of the others and of the sandbox — under unique
// names, and -kill-each names the first process of each, in turn.
func TestScalePlanRunsEveryRole(t *testing.T) {
	plan := scalePlan(roles.Table())
	count := map[string]int{}
	names := map[string]bool{}
	for _, p := range plan {
		count[p.role.Name]++
		if names[p.name] {
			t.Errorf("process name %s twice", p.name)
		}
		names[p.name] = true
	}
	for _, r := range roles.Deployed() {
		want := r.Replicas
		if r.Name == "sandbox" {
			want = 1
		}
		if count[r.Name] != want {
			t.Errorf("%s: %d processes, want %d", r.Name, count[r.Name], want)
		}
	}
	if count["broker"] != 0 || len(count) != len(roles.Deployed()) {
		t.Errorf("processes per role %v: want the deployed roles only (the broker is started as the Kafka)", count)
	}
	if plan[0].role.Name != "sandbox" {
		t.Errorf("the sandbox starts %s, want first", plan[0].name)
	}
	for _, want := range []string{"api-1", "api-2", "feed-1", "feed-2", "vessels", "alerts", "sandbox"} {
		if !names[want] {
			t.Errorf("no process %s in %v", want, names)
		}
	}

	kills, err := parseKillEach("8s+3s/6s", killEach(plan))
	if err != nil {
		t.Fatal(err)
	}
	killed := map[string]bool{}
	for _, k := range kills {
		name, _, _ := strings.Cut(k, "@")
		if !names[name] {
			t.Errorf("-kill-each kills %s, which the plan does not start", name)
		}
		killed[plan[slices.IndexFunc(plan, func(p scaleProc) bool { return p.name == name })].role.Name] = true
	}
	for _, r := range roles.Deployed() {
		if !killed[r.Name] {
			t.Errorf("-kill-each never kills a %s process", r.Name)
		}
	}
	if kills[0] != "sandbox@8s+3s" || kills[1] != "api-1@14s+3s" || len(kills) != len(roles.Deployed()) {
		t.Errorf("-kill-each: %v", kills)
	}
	for _, bad := range []string{"8s+3s", "8s/6s", "x+3s/6s", "8s+3s/y"} {
		if _, err := parseKillEach(bad, []string{"api-1"}); err == nil {
			t.Errorf("-kill-each %q accepted", bad)
		}
	}
}
