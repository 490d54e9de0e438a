package commandapi_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/contrack/contrack/commandapi/lifecycle"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
)

// TestOpenSubscriptionsArePerPlan: an account's plan bounds its open
// subscriptions. Beyond it a subscribe is 429 with the plan's limit in the
// message and nothing is stored; another account is unaffected; closing a
// subscription (DELETE, or the lifecycle at expiry) frees its place; and
// concurrent subscribes never overshoot.
func TestOpenSubscriptionsArePerPlan(t *testing.T) {
	api, db := newAPI(t)
	ctx := context.Background()
	if _, err := api.Store.CreatePlan(ctx, auth.Plan{Name: "tiny", RatePerSecond: 1000, Burst: 1000, OpenSubscriptions: 3}); err != nil {
		t.Fatal(err)
	}
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox", Plan: "tiny"})
	other := api.Key(auth.CreateKeyParams{ClientSlug: "other", Env: "sandbox", Plan: "tiny"})
	subscribe := func(key, ref string) testenv.Response {
		return api.Do("POST", "/subscription/equipment", key, sub(ref, "containerNumber", container))
	}
	for i := range 3 {
		if r := subscribe(key, fmt.Sprint("r", i)); r.Status != 200 {
			t.Fatalf("subscription %d within the limit: %d %s", i, r.Status, r.Raw)
		}
	}
	const msg = "Subscription limit reached for this plan: 3 open subscriptions; close some (DELETE /subscription/{subscription_id}) or change plans"
	r := subscribe(key, "r3")
	if r.Status != 429 || r.Message() != msg || r.JSON["dateOfRequest"] == nil {
		t.Fatalf("over the limit: %d %s", r.Status, r.Raw)
	}
	if r := api.Do("GET", "/subscription/r3", key, nil); r.Status != 404 {
		t.Fatalf("the refused subscription was stored: %d %s", r.Status, r.Raw)
	}
	if r := subscribe(other, "r0"); r.Status != 200 {
		t.Fatalf("another account on the same plan: %d %s", r.Status, r.Raw)
	}
	// DELETE frees a place; a second DELETE of it frees nothing more.
	if r := api.Do("DELETE", "/subscription/r0", key, nil); r.Status != 200 {
		t.Fatal(r.Status)
	}
	api.Do("DELETE", "/subscription/r0", key, nil)
	if r := subscribe(key, "r4"); r.Status != 200 {
		t.Fatalf("after a DELETE: %d %s", r.Status, r.Raw)
	}
	if r := subscribe(key, "r5"); r.Status != 429 {
		t.Fatalf("the place was counted twice: %d %s", r.Status, r.Raw)
	}
	// The lifecycle closing one at its expiry frees a place too.
	if _, err := db.Pool.Exec(ctx, `UPDATE subscriptions SET expires_at = now() - interval '1 minute' WHERE reference = 'r1'`); err != nil {
		t.Fatal(err)
	}
	if n, err := lifecycle.Sweep(ctx, lifecycle.Config{}, lifecycle.Deps{Pool: db.Pool, Log: testenv.Log(t)}); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	if r := subscribe(key, "r6"); r.Status != 200 {
		t.Fatalf("after expiry: %d %s", r.Status, r.Raw)
	}

	// Concurrent subscribes of a fresh account: exactly the limit succeed.
	burst := api.Key(auth.CreateKeyParams{ClientSlug: "burst", Env: "sandbox", Plan: "tiny"})
	var wg sync.WaitGroup
	codes := make(chan int, 12)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- subscribe(burst, fmt.Sprint("b", i)).Status
		}()
	}
	wg.Wait()
	close(codes)
	got := map[int]int{}
	for c := range codes {
		got[c]++
	}
	if got[200] != 3 || got[429] != 9 {
		t.Fatalf("12 concurrent subscribes with a limit of 3: %v", got)
	}
	var open int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM subscriptions s JOIN accounts a ON a.id = s.account_id
		WHERE a.client_slug = 'burst' AND s.status = 'OPEN'`).Scan(&open); err != nil || open != 3 {
		t.Fatalf("open subscriptions stored: %d %v", open, err)
	}
}
