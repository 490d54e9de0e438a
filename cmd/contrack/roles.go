package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/contrack/contrack/cmd/contrack/roles"
)

// usageText is `contrack help`: all and every row of the role table with
// its description, then the tools.
func usageText() string {
	var b strings.Builder
	b.WriteString(usageHead)
	for _, r := range append([]roles.Role{roles.All()}, roles.Table()...) {
		fmt.Fprintf(&b, "  contrack %-20s%s\n", r.Name, r.Description)
	}
	b.WriteString(usageTools)
	return b.String()
}

// printRoles writes `contrack roles`: all, then the table, as JSON — the
// contract the deployment's tools read the roles from.
func printRoles(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(append([]roles.Role{roles.All()}, roles.Table()...))
}

// roleConfig is cfg with what the role table says the role needs before
// it starts: a role that seals, opens or signs secrets gets, without
// CONTRACK_SECRET_KEY, the key generated once into the data directory.
func roleConfig(cfg Config, r roles.Role) (Config, error) {
	if r.SecretKey {
		if err := cfg.ensureSecretKey(); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// runRole runs a role of the table until ctx ends: all, the API with its
// background stages, the sandbox carriers, the broker, or pipeline stages
// over the stores.
func runRole(ctx context.Context, cfg Config, log *slog.Logger, r roles.Role) error {
	switch {
	case r.Name == roles.AllName:
		return runAll(ctx, cfg, log)
	case r.Runs(roles.StageAPI):
		return runAPI(ctx, cfg, log)
	case r.Runs(roles.StageSandbox):
		return runSandbox(ctx, cfg, log)
	case r.Runs(roles.StageBroker):
		return runBroker(ctx, cfg, log)
	default:
		return runStage(ctx, cfg, log, r.Name)
	}
}

// runStage runs the pipeline stages of the role called role
// (`contrack <role>`) over freshly opened connections: the first that
// fails stops the others.
func runStage(ctx context.Context, cfg Config, log *slog.Logger, role string) error {
	r, ok := roles.Lookup(role)
	if !ok {
		return fmt.Errorf("no role %q", role)
	}
	return withInfra(ctx, cfg, log, role, func(ctx context.Context, in *infra) error {
		stages := roleStages(r, pipeline(cfg, log, in))
		if len(stages) != len(r.Stages) {
			return fmt.Errorf("no stage %q", role)
		}
		g, gctx := errgroup.WithContext(ctx)
		for _, st := range stages {
			g.Go(func() error { return st.run(gctx) })
		}
		return g.Wait()
	})
}

// roleStages are the stages of the pipeline the role runs, in the
// pipeline's order.
func roleStages(r roles.Role, pipeline []namedStage) []namedStage {
	var out []namedStage
	for _, st := range pipeline {
		if r.Runs(st.name) {
			out = append(out, st)
		}
	}
	return out
}
