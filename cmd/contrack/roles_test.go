package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/contrack/contrack/cmd/contrack/roles"
	"github.com/contrack/contrack/platform/tracing"
)

// TestRoleStagesAreWired: every stage a role of the table names is one the
// binary runs (a pipeline entry, the API, the sandbox carriers or the
// broker), every pipeline entry is run by some deployed role, and so all —
// the deployed roles' union — runs every stage of the pipeline.
func TestRoleStagesAreWired(t *testing.T) {
	var wired []string
	for _, st := range pipeline(Config{}, slog.Default(), &infra{}) {
		wired = append(wired, st.name)
	}
	runnable := append(slices.Clone(wired), roles.StageAPI, roles.StageSandbox, roles.StageBroker)
	for _, r := range roles.Table() {
		for _, s := range r.Stages {
			if !slices.Contains(runnable, s) {
				t.Errorf("role %s: stage %q is wired nowhere in cmd/contrack", r.Name, s)
			}
		}
		if len(roleStages(r, pipeline(Config{}, slog.Default(), &infra{}))) == 0 &&
			!r.Runs(roles.StageAPI) && !r.Runs(roles.StageSandbox) && !r.Runs(roles.StageBroker) {
			t.Errorf("role %s runs nothing", r.Name)
		}
	}
	all := roles.All()
	var split []string
	for _, r := range roles.Deployed() {
		split = append(split, r.Stages...)
	}
	for _, s := range append(wired, roles.StageAPI, roles.StageSandbox) {
		if !all.Runs(s) {
			t.Errorf("contrack all does not run %s", s)
		}
		if !slices.Contains(split, s) {
			t.Errorf("no deployed role runs %s: a split deployment would lack it", s)
		}
	}
}

// TestRoleUsageAndRolesCommand: `contrack help` has one line per role of
// the table with its description, `contrack roles` prints the table, and a
// name that is neither a role nor a tool is refused.
func TestRoleUsageAndRolesCommand(t *testing.T) {
	lines := strings.Split(usage, "\n")
	for _, r := range append([]roles.Role{roles.All()}, roles.Table()...) {
		if !slices.ContainsFunc(lines, func(l string) bool {
			f := strings.Fields(l)
			return len(f) > 2 && f[0] == "contrack" && f[1] == r.Name && strings.HasSuffix(l, " "+r.Description)
		}) {
			t.Errorf("contrack help has no line for %s (%q)", r.Name, r.Description)
		}
	}
	var out bytes.Buffer
	if err := printRoles(&out); err != nil {
		t.Fatal(err)
	}
	var printed []roles.Role
	if err := json.Unmarshal(out.Bytes(), &printed); err != nil {
		t.Fatalf("contrack roles: %v\n%s", err, out.String())
	}
	want := append([]roles.Role{roles.All()}, roles.Table()...)
	if len(printed) != len(want) {
		t.Fatalf("contrack roles printed %d roles, the table has %d", len(printed), len(want))
	}
	for i := range want {
		if printed[i].Name != want[i].Name || !slices.Equal(printed[i].Stages, want[i].Stages) ||
			printed[i].SecretKey != want[i].SecretKey || printed[i].Replicas != want[i].Replicas || printed[i].Deployed != want[i].Deployed {
			t.Errorf("contrack roles: %+v, the table %+v", printed[i], want[i])
		}
	}
	if err := run([]string{"nonesuch"}); err == nil || !strings.Contains(err.Error(), `unknown command "nonesuch"`) {
		t.Errorf("run nonesuch: %v", err)
	}
}

// TestRoleCLIGivesEachRoleItsNeeds runs `contrack <role>` for every role
// that opens the stores, without CONTRACK_SECRET_KEY and with a Postgres
// that refuses connections: each gets the key generated into its data
// directory and Go's collector settings before it starts, so it stops on
// Postgres, not on an empty key.
func TestRoleCLIGivesEachRoleItsNeeds(t *testing.T) {
	for _, r := range append([]roles.Role{roles.All()}, roles.Table()...) {
		if !r.Uses(roles.Postgres) {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("CONTRACK_DATA_DIR", dir)
			t.Setenv("CONTRACK_SECRET_KEY", "")
			t.Setenv("CONTRACK_PG_URL", "postgres://contrack@127.0.0.1:1/contrack?sslmode=disable&connect_timeout=2")
			t.Setenv("KAFKA_BROKERS", "127.0.0.1:1") // all: no embedded broker
			t.Setenv("CONTRACK_ADMIN_ADDR", "off")
			t.Setenv("CONTRACK_LOG_LEVEL", "error")
			t.Setenv("GOGC", "")
			defer debug.SetGCPercent(debug.SetGCPercent(77))
			err := run([]string{r.Name})
			if err == nil || !strings.Contains(err.Error(), "postgres") {
				t.Fatalf("contrack %s: %v, want it to stop on the unreachable Postgres", r.Name, err)
			}
			if _, err := os.Stat(filepath.Join(dir, secretKeyFile)); err != nil {
				t.Errorf("contrack %s: no generated secret key: %v", r.Name, err)
			}
			if gc := debug.SetGCPercent(77); r.Collector && gc != 200 {
				t.Errorf("contrack %s: GOGC %d, want contrack's 200", r.Name, gc)
			}
		})
	}
}

// TestRoleTracing: every role the table traces installs the OTLP exporter
// under its own service name; the others install none.
func TestRoleTracing(t *testing.T) {
	defer func() { _, _, _ = tracing.Setup(context.Background(), tracing.Config{}) }() // back to the no-op
	for _, r := range append([]roles.Role{roles.All()}, roles.Table()...) {
		var logs bytes.Buffer
		log := slog.New(slog.NewJSONHandler(&logs, nil))
		cfg := Config{Tracing: tracing.Config{Endpoint: "http://127.0.0.1:1"}}
		flush, err := setupTracing(context.Background(), cfg, r, log)
		if err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		flush()
		on := strings.Contains(logs.String(), `"msg":"tracing to OTLP","service":"contrack-`+r.Name+`"`)
		if on != r.Tracing {
			t.Errorf("%s: tracing on %v, the table says %v (log %s)", r.Name, on, r.Tracing, logs.String())
		}
	}
}
