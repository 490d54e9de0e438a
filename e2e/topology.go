package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/contrack/contrack/cmd/contrack/roles"
)

// scaleProc is one process of the scale topology.
type scaleProc struct {
	name string // the process's name in -kill, the ledger's CPU lines, the logs
	role roles.Role
}

// scalePlan is the scale topology: every role a split deployment runs (the
// binary's role table), in the table's order but the sandbox carriers
// first (the pollers poll them). A role of several replicas runs two
// processes, role-1 and role-2; a role of one process at a time runs one,
// called by the role's name, and so does the sandbox: the processes are
// given one address for it.
func scalePlan(table []roles.Role) []scaleProc {
	var first, rest []scaleProc
	for _, r := range table {
		if !r.Deployed {
			continue
		}
		n := min(r.Replicas, 2)
		if r.Listens(roles.ListenSandbox) {
			n = 1
		}
		var procs []scaleProc
		for i := 1; i <= n; i++ {
			name := r.Name
			if n > 1 {
				name = fmt.Sprintf("%s-%d", r.Name, i)
			}
			procs = append(procs, scaleProc{name: name, role: r})
		}
		if r.Listens(roles.ListenSandbox) {
			first = append(first, procs...)
		} else {
			rest = append(rest, procs...)
		}
	}
	return append(first, rest...)
}

// killEach is the first process of every role of the plan, in its order:
// what -kill-each kills in turn.
func killEach(plan []scaleProc) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range plan {
		if !seen[p.role.Name] {
			seen[p.role.Name] = true
			out = append(out, p.name)
		}
	}
	return out
}

// binaryRoles reads the role table from the binary itself (`contrack
// roles`), so the topology is the one of the build under test.
func binaryRoles(bin string) ([]roles.Role, error) {
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, "roles")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s roles: %w: %s", bin, err, strings.TrimSpace(errOut.String()))
	}
	var rs []roles.Role
	if err := json.Unmarshal(out.Bytes(), &rs); err != nil {
		return nil, fmt.Errorf("%s roles: %w", bin, err)
	}
	return rs, nil
}

// parseKillEach reads -kill-each AT+DOWN/EVERY: the first process of every
// role SIGKILLed in turn, the first AT into the load, each restarted DOWN
// later, the next EVERY after the one before.
func parseKillEach(spec string, procs []string) ([]string, error) {
	times, every, ok := strings.Cut(spec, "/")
	if !ok {
		return nil, fmt.Errorf("%q: want AT+DOWN/EVERY", spec)
	}
	a, down, ok := strings.Cut(times, "+")
	if !ok {
		return nil, fmt.Errorf("%q: want AT+DOWN/EVERY", spec)
	}
	at, err := time.ParseDuration(a)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", spec, err)
	}
	step, err := time.ParseDuration(every)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", spec, err)
	}
	if _, err := time.ParseDuration(down); err != nil {
		return nil, fmt.Errorf("%q: %w", spec, err)
	}
	var kills []string
	for i, p := range procs {
		kills = append(kills, fmt.Sprintf("%s@%s+%s", p, at+time.Duration(i)*step, down))
	}
	return kills, nil
}
