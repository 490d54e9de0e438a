package auth_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
)

func TestSeededPlansAndCarrierDefault(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	store := auth.NewStore(db.Pool)
	plans, err := store.Plans(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]auth.Plan{
		"carrier":    {ID: "plan-carrier", Name: "carrier", DisplayName: "Carrier streaming", RatePerSecond: 2000, Burst: 10000, LongPolls: 5, OpenSubscriptions: 1000, CarrierRate: 10},
		"enterprise": {ID: "plan-enterprise", Name: "enterprise", DisplayName: "Enterprise", RatePerSecond: 2000, Burst: 10000, LongPolls: 100, OpenSubscriptions: 2_000_000, CarrierRate: 10},
		"sandbox":    {ID: "plan-sandbox", Name: "sandbox", DisplayName: "Sandbox", RatePerSecond: 100, Burst: 500, LongPolls: 20, OpenSubscriptions: 10_000, CarrierRate: 10},
		"standard":   {ID: "plan-standard", Name: "standard", DisplayName: "Standard", RatePerSecond: 200, Burst: 1000, LongPolls: 20, OpenSubscriptions: 100_000, CarrierRate: 10},
		"trial":      {ID: "plan-trial", Name: "trial", DisplayName: "Trial", RatePerSecond: 2, Burst: 5, LongPolls: 2, OpenSubscriptions: 100, CarrierRate: 10},
	}
	if len(plans) != len(want) {
		t.Fatalf("plans %+v", plans)
	}
	for _, p := range plans {
		if want[p.Name] != p {
			t.Errorf("plan %+v, want %+v", p, want[p.Name])
		}
	}
	for _, c := range []struct {
		p    auth.CreateKeyParams
		want string
	}{
		{auth.CreateKeyParams{ClientSlug: "maersk", Env: "live", Role: auth.RoleCarrier, SCAC: "MAEU"}, "carrier"},
		{auth.CreateKeyParams{ClientSlug: "msc", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "MSCU"}, "carrier"},
		{auth.CreateKeyParams{ClientSlug: "cma", Env: "live", Role: auth.RoleCarrier, SCAC: "CMDU", Plan: "trial"}, "trial"},
		{auth.CreateKeyParams{ClientSlug: "acme", Env: "live"}, "standard"},
		{auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"}, "sandbox"},
		// A carrier key added to an existing account keeps the account's plan.
		{auth.CreateKeyParams{ClientSlug: "acme", Env: "live", Role: auth.RoleCarrier, SCAC: "ACME"}, "standard"},
	} {
		key, _, err := store.CreateKey(ctx, c.p)
		if err != nil {
			t.Fatal(err)
		}
		k, err := store.Authenticate(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if k.Account.Plan != c.want || k.Account.UsagePlan == nil || *k.Account.UsagePlan != want[c.want] {
			t.Errorf("%+v: plan %q %+v, want %q", c.p, k.Account.Plan, k.Account.UsagePlan, c.want)
		}
	}
}

func TestPlanCreateUpdateSetPlanRejectBadInput(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	store := auth.NewStore(db.Pool)
	for _, p := range []auth.Plan{
		{Name: "none", RatePerSecond: 1, Burst: 1},
		{Name: "Gold", RatePerSecond: 1, Burst: 1},
		{Name: "gold", RatePerSecond: 0, Burst: 1},
		{Name: "gold", RatePerSecond: -1, Burst: 1},
		{Name: "gold", RatePerSecond: 1, Burst: 0},
		{Name: "gold", RatePerSecond: 1, Burst: 1, DailyQuota: -5},
		{Name: "standard", RatePerSecond: 1, Burst: 1}, // exists
	} {
		if _, err := store.CreatePlan(ctx, p); err == nil {
			t.Errorf("CreatePlan(%+v) succeeded", p)
		}
	}
	gold, err := store.CreatePlan(ctx, auth.Plan{Name: "gold", RatePerSecond: 500, Burst: 2000, DailyQuota: 1_000_000})
	if err != nil || gold.ID != "plan-gold" || gold.DisplayName != "gold" {
		t.Fatalf("create gold: %+v %v", gold, err)
	}
	zero := 0
	if _, err := store.UpdatePlan(ctx, "gold", auth.PlanUpdate{Burst: &zero}); err == nil {
		t.Error("update to burst 0 succeeded")
	}
	if _, err := store.UpdatePlan(ctx, "gold", auth.PlanUpdate{}); err == nil {
		t.Error("empty update succeeded")
	}
	if _, err := store.UpdatePlan(ctx, "platinum", auth.PlanUpdate{Burst: &zero}); !errors.Is(err, auth.ErrUnknownPlan) ||
		!strings.Contains(err.Error(), "gold") {
		t.Errorf("update unknown plan: %v", err)
	}
	noQuota := int64(0)
	name := "Gold"
	if p, err := store.UpdatePlan(ctx, "gold", auth.PlanUpdate{DailyQuota: &noQuota, DisplayName: &name}); err != nil ||
		p.DailyQuota != 0 || p.DisplayName != "Gold" || p.Burst != 2000 {
		t.Errorf("update gold: %+v %v", p, err)
	}
	if _, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "live"}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.SetPlan(ctx, "acme", "live", "platinum"); !errors.Is(err, auth.ErrUnknownPlan) {
		t.Errorf("set unknown plan: %v", err)
	}
	if _, err := store.SetPlan(ctx, "globex", "live", "gold"); err == nil || !strings.Contains(err.Error(), "no account globex (live)") {
		t.Errorf("set plan of unknown account: %v", err)
	}
	if a, err := store.SetPlan(ctx, "acme", "live", "gold"); err != nil || a.Plan != "gold" {
		t.Errorf("set plan: %+v %v", a, err)
	}
	if a, err := store.SetPlan(ctx, "acme", "live", auth.PlanNone); err != nil || a.Plan != "" {
		t.Errorf("set plan none: %+v %v", a, err)
	}
}

// Migration 0022 keeps every account's plan, and one the code never knew
// (limited and shown as no plan) becomes no plan.
func TestMigrationKeepsAccountsPlans(t *testing.T) {
	ctx := context.Background()
	conn, migrate := testenv.MigratedBefore(t, testenv.Postgres(t), 22)
	if _, err := conn.Exec(ctx, `INSERT INTO accounts (id, client_slug, env, display_name, plan) VALUES
		(gen_random_uuid(), 'a', 'live', 'a', 'trial'), (gen_random_uuid(), 'b', 'live', 'b', 'standard'),
		(gen_random_uuid(), 'c', 'sandbox', 'c', 'sandbox'), (gen_random_uuid(), 'd', 'live', 'd', 'enterprise'),
		(gen_random_uuid(), 'e', 'live', 'e', NULL), (gen_random_uuid(), 'f', 'live', 'f', 'gold')`); err != nil {
		t.Fatal(err)
	}
	migrate()
	rows, _ := conn.Query(ctx, `SELECT client_slug || '=' || COALESCE(plan, '-') FROM accounts ORDER BY client_slug`)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(got, " "); g != "a=trial b=standard c=sandbox d=enterprise e=- f=-" {
		t.Fatalf("after 0022: %s", g)
	}
}
