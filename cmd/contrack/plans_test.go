package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/contrack/contrack/ingest"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
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
	// The poll rate per account and carrier: 10/s unless the plan says.
	if !strings.Contains(out, "POLLS/S PER CARRIER") || !strings.HasSuffix(strings.TrimSpace(out), "10") {
		t.Fatalf("default carrier rate: %s", out)
	}
	if out, err = run(plan, "update", "gold", "--carrier-rate", "50"); err != nil || !strings.HasSuffix(strings.TrimSpace(out), "50") {
		t.Fatalf("update carrier rate: %v\n%s", err, out)
	}
	if p, err := store.LookupPlan(ctx, "gold"); err != nil || p.CarrierRate != 50 {
		t.Fatalf("stored carrier rate: %v %v", p.CarrierRate, err)
	}
	if _, err := run(plan, "update", "gold", "--carrier-rate", "-1"); err == nil || !strings.Contains(err.Error(), "carrier rate -1 must be above 0") {
		t.Errorf("negative carrier rate: %v", err)
	}
	if _, err := run(plan, "create", "silver", "--rate", "5", "--burst", "10", "--carrier-rate", "0"); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--carrier-rate must be above 0") {
		t.Errorf("carrier rate 0: %v", err)
	}
	if out, err = run(plan, "create", "bronze", "--rate", "5", "--burst", "10", "--carrier-rate", "2.5"); err != nil || !strings.HasSuffix(strings.TrimSpace(out), "2.5") {
		t.Fatalf("create with carrier rate: %v\n%s", err, out)
	}
	if _, err = run(plan, "update", "gold"); err == nil || !strings.Contains(err.Error(), "nothing to update") {
		t.Errorf("empty update: %v", err)
	}
	if out, err = run(plan, "list"); err != nil || strings.Count(out, "\n") != 8 || !strings.Contains(out, "Carrier streaming") {
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
		{[]string{"acme", "live", "platinum"}, `unknown plan "platinum" (known: bronze, carrier, enterprise, gold, sandbox, standard, trial, none)`},
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

// TestAdminCarrierSigningSecrets: a live carrier key is created with a
// signing secret (printed once, above the key, which stays the last line),
// and set-signing-secret sets the timestamped-only policy, never clearing a
// live key's secret.
func TestAdminCarrierSigningSecrets(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	store := auth.NewStore(db.Pool)
	box, _ := secretbox.New("admin-test-key")
	secrets := &ingest.SigningSecretStore{Pool: db.Pool, Box: box}

	var out bytes.Buffer
	if err := adminCreateKey(ctx, store, secrets, []string{"--client", "msc", "--env", "live", "--role", "carrier", "--scac", "MSCU"}, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	key := lines[len(lines)-1]
	var secret string
	for _, l := range lines {
		if strings.HasPrefix(l, "whsec_") {
			secret = l
		}
	}
	if !auth.WellFormed(key) || secret == "" {
		t.Fatalf("create-key output:\n%s", out.String())
	}
	k, err := store.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := secrets.KeySigningSecret(k); err != nil || got != secret {
		t.Fatalf("stored secret %q %v, printed %q", got, err, secret)
	}
	// A sandbox carrier key gets none; a consumer key neither.
	out.Reset()
	if err := adminCreateKey(ctx, store, secrets, []string{"--client", "msc", "--env", "sandbox", "--role", "carrier", "--scac", "MSCU"}, &out); err != nil || strings.Contains(out.String(), "whsec_") {
		t.Fatalf("sandbox carrier key: %v\n%s", err, out.String())
	}

	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := adminSetSigningSecret(ctx, secrets, args, &out)
		return out.String(), err
	}
	if out, err := run(k.ID, "whsec_c2Vjb25kLXNlY3JldC1vZi10aGUta2V5LW9rYXk=", "--timestamped-only"); err != nil || !strings.Contains(out, "webhook-timestamp") {
		t.Fatalf("--timestamped-only: %v %s", err, out)
	}
	if k, _ = store.Authenticate(ctx, key); !k.SigningTimestampedOnly {
		t.Fatal("the key does not require the timestamped signature")
	}
	if _, err := run(k.ID, ""); !errors.Is(err, ingest.ErrLiveKeyNeedsSecret) {
		t.Fatalf("clearing a live key's secret: %v", err)
	}
	if _, err := run(k.ID); !errors.Is(err, errUsage) {
		t.Fatalf("missing secret: %v", err)
	}
	if _, err := run("--timestamped-only", k.ID, "s3cret-s3cret-s3cret"); err != nil {
		t.Fatalf("flag first: %v", err)
	}
}
