package roles

import (
	"slices"
	"testing"
)

// TestRoleTableIsConsistent: every row is complete and says what it needs
// for what it runs; a stage belongs to one deployed role, so a split
// deployment runs it once.
func TestRoleTableIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	owner := map[string]string{}
	for _, r := range Table() {
		if r.Name == "" || r.Name == AllName || seen[r.Name] {
			t.Errorf("role %q: empty, all, or twice in the table", r.Name)
		}
		seen[r.Name] = true
		if r.Description == "" || len(r.Stages) == 0 || r.Replicas < 1 || r.Replicas > 2 {
			t.Errorf("%s: description %q, stages %v, replicas %d", r.Name, r.Description, r.Stages, r.Replicas)
		}
		if !r.Listens(r.Probe) {
			t.Errorf("%s: probed on %s, which it does not listen on (%v)", r.Name, r.Probe, r.Listeners)
		}
		// The process's connections carry the secret box: a role that
		// opens them stops on an empty key.
		if len(r.Stores) > 0 && !r.SecretKey {
			t.Errorf("%s: opens %v without the secret key", r.Name, r.Stores)
		}
		if len(r.Stores) > 0 && !r.Listens(ListenAdmin) {
			t.Errorf("%s: runs stages without the admin listener (/readyz, /metrics)", r.Name)
		}
		if r.Deployed && (!r.Tracing || !r.Collector) {
			t.Errorf("%s: deployed, tracing %v, collector %v: every deployed role gets both", r.Name, r.Tracing, r.Collector)
		}
		if r.Runs(StageAPI) != r.Listens(ListenHTTP) || r.Runs(StageSandbox) != r.Listens(ListenSandbox) || r.Runs(StageBroker) != r.Listens(ListenKafka) {
			t.Errorf("%s: stages %v and listeners %v disagree", r.Name, r.Stages, r.Listeners)
		}
		if !r.Deployed {
			continue
		}
		for _, s := range r.Stages {
			if o, ok := owner[s]; ok {
				t.Errorf("stage %s is run by both %s and %s", s, o, r.Name)
			}
			owner[s] = r.Name
		}
	}
	if len(seen) < 10 {
		t.Errorf("%d roles in the table", len(seen))
	}
}

// TestRoleAllIsTheUnion: all runs, needs and connects to what the
// deployed roles do together, and nothing else; the broker is not part of
// it.
func TestRoleAllIsTheUnion(t *testing.T) {
	all, ok := Lookup(AllName)
	if !ok {
		t.Fatal("no role all")
	}
	var stages, stores, listeners []string
	for _, r := range Deployed() {
		stages = append(stages, r.Stages...)
		stores = append(stores, r.Stores...)
		listeners = append(listeners, r.Listeners...)
		if r.SecretKey && !all.SecretKey || r.Tracing && !all.Tracing || r.Collector && !all.Collector {
			t.Errorf("all lacks a need of %s: %+v", r.Name, all)
		}
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{{"stages", all.Stages, stages}, {"stores", all.Stores, stores}, {"listeners", all.Listeners, listeners}} {
		if !sameSet(c.got, c.want) {
			t.Errorf("all's %s %v, the deployed roles' %v", c.what, c.got, c.want)
		}
	}
	if all.Runs(StageBroker) || slices.ContainsFunc(Deployed(), func(r Role) bool { return r.Name == "broker" }) {
		t.Errorf("the broker is part of the split deployment or of all")
	}
	if _, ok := Lookup("nonesuch"); ok {
		t.Error("Lookup found a role not in the table")
	}
	// The table is not shared with callers.
	r, _ := Lookup("api")
	r.Stages[0] = "changed"
	if again, _ := Lookup("api"); again.Stages[0] == "changed" {
		t.Error("Lookup hands out the table's own slices")
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}
