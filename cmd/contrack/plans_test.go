package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
)

func TestAdminPlanCommands(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	store := auth.NewStore(db.Pool)
	run := func(cmd func(context.Context, *auth.Store, []string, *bytes.Buffer) error, args ...string) (string, error) {
		var out bytes.Buffer
		err := cmd(ctx, store, args, &out)
		return out.String(), err
	}
	plan := func(ctx context.Context, s *auth.Store, a []string, out *bytes.Buffer) error {
		return adminPlan(ctx, s, a, out)
	}
	setPlan := func(ctx context.Context, s *auth.Store, a []string, out *bytes.Buffer) error {
		return adminSetPlan(ctx, s, a, out)
	}

	// Usage mistakes are errUsage, each saying what is wrong.
	for _, c := range []struct {
		args []string
		says string
	}{
		{nil, "plan create NAME"},
		{[]string{"delete", "gold"}, `unknown plan command "delete"`},
		{[]string{"create", "--rate", "5", "--burst", "10"}, "needs the plan's NAME first"},
		{[]string{"create", "gold", "--rate", "5"}, "needs --rate and --burst"},
		{[]string{"create", "gold", "--rate", "five", "--burst", "10"}, "invalid value"},
		{[]string{"create", "gold", "--rate", "5", "--burst", "10", "extra"}, `unexpected "extra"`},
		{[]string{"list", "all"}, "takes no arguments"},
	} {
		_, err := run(plan, c.args...)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("plan %v: %v, want usage error saying %q", c.args, err, c.says)
		}
	}
	// Bad values are refused by the store with the reason.
	if _, err := run(plan, "create", "gold", "--rate", "0", "--burst", "10"); err == nil || !strings.Contains(err.Error(), "rate 0 must be above 0") {
		t.Errorf("rate 0: %v", err)
	}
	out, err := run(plan, "create", "gold", "--rate", "500", "--burst", "2000", "--daily-quota", "123456", "--display-name", "Gold")
	if err != nil || !strings.Contains(out, "gold  ") || !strings.Contains(out, "123456") || !strings.Contains(out, "  20  ") || !strings.Contains(out, "100000") {
		t.Fatalf("create (long-polls and open subscriptions default to 20 and 100000): %v\n%s", err, out)
	}
	if out, err = run(plan, "update", "gold", "--daily-quota", "0", "--long-polls", "7", "--open-subscriptions", "4242"); err != nil ||
		strings.Contains(out, "123456") || !strings.Contains(out, "  7  ") || !strings.Contains(out, "4242") {
		t.Fatalf("update: %v\n%s", err, out)
	}
	if _, err := run(plan, "update", "gold", "--long-polls", "0"); err == nil || !strings.Contains(err.Error(), "long-polls 0 must be 1 to 10000") {
		t.Errorf("long-polls 0: %v", err)
	}
	if _, err = run(plan, "update", "gold"); err == nil || !strings.Contains(err.Error(), "nothing to update") {
		t.Errorf("empty update: %v", err)
	}
	if out, err = run(plan, "list"); err != nil || strings.Count(out, "\n") != 7 || !strings.Contains(out, "Carrier streaming") {
		t.Fatalf("list: %v\n%s", err, out)
	}

	if _, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "live"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"acme", "live"}, "set-plan CLIENT live|sandbox PLAN"},
		{[]string{"acme", "prod", "gold"}, `env must be live or sandbox, not "prod"`},
		{[]string{"acme", "live", "platinum"}, `unknown plan "platinum" (known: carrier, enterprise, gold, sandbox, standard, trial, none)`},
	} {
		if _, err := run(setPlan, c.args...); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("set-plan %v: %v, want usage error saying %q", c.args, err, c.says)
		}
	}
	if _, err := run(setPlan, "globex", "live", "gold"); err == nil || !strings.Contains(err.Error(), "no account globex (live)") {
		t.Errorf("unknown account: %v", err)
	}
	if out, err := run(setPlan, "acme", "live", "gold"); err != nil || !strings.Contains(out, "now on plan gold") {
		t.Errorf("set-plan: %v %s", err, out)
	}
}
