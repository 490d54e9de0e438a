package delivery

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
)

// A delivery leased by a process that then dies is claimable by another as
// soon as the dead one's heartbeat is InstanceTimeout old — seconds, not the
// minute of its lease — while a live process's leases stay its own, and a
// lease with no owner (taken before instances existed) waits for expiry.
func TestLeasesOfADeadInstanceAreClaimedWithinSeconds(t *testing.T) {
	base, _, _ := storeWithSubscription(t)
	ctx := context.Background()
	_, trks := hookedAccounts(t, base, []string{"a.example", "b.example", "c.example"}, 1)
	cfg := base.cfg
	cfg.Lease, cfg.InstanceTimeout = time.Minute, 3*time.Second
	dead := &store{pool: base.pool, cfg: cfg, instance: uuid.New()}
	live := &store{pool: base.pool, cfg: cfg, instance: uuid.New()}
	ownerless := &store{pool: base.pool, cfg: cfg}
	t0 := time.Now()
	for _, st := range []*store{dead, live} {
		if err := st.heartbeat(ctx, t0, t0); err != nil {
			t.Fatal(err)
		}
	}
	// Each process leases one delivery at birth.
	for i, st := range []*store{dead, live, ownerless} {
		g := leaseGrant{Max: 1, PerAccount: 1, Token: uuid.New(), Until: t0.Add(cfg.Lease)}
		leased, _, err := st.enqueue(ctx, []queued{event(trks[i][0], "ev")}, g, t0)
		if err != nil || len(leased) != 1 {
			t.Fatalf("process %d leased %d: %v", i, len(leased), err)
		}
	}
	claimer := &store{pool: base.pool, cfg: cfg, instance: uuid.New()}
	claimAt := func(at time.Time) int {
		if err := claimer.heartbeat(ctx, t0, at); err != nil { // the claimer is alive
			t.Fatal(err)
		}
		cs, err := claimer.claim(ctx, 10, claimLimits{Default: 8}, at)
		if err != nil {
			t.Fatal(err)
		}
		return len(cs)
	}
	// Within InstanceTimeout of the last heartbeats nobody's lease is free.
	if n := claimAt(t0.Add(2 * time.Second)); n != 0 {
		t.Fatalf("claimed %d while every owner was alive", n)
	}
	// The live process keeps beating; the dead one stopped at t0.
	if err := live.heartbeat(ctx, t0, t0.Add(3*time.Second)); err != nil {
		t.Fatal(err)
	}
	if n := claimAt(t0.Add(4 * time.Second)); n != 1 {
		t.Fatalf("4 s after the dead process's last heartbeat: claimed %d, want its 1 delivery", n)
	}
	var owner uuid.UUID
	if err := base.pool.QueryRow(ctx, `SELECT lease_owner FROM deliveries WHERE account_id = (
		SELECT account_id FROM trackings WHERE id = $1)`, trks[0][0]).Scan(&owner); err != nil || owner != claimer.instance {
		t.Fatalf("taken-over lease owner %s (%v), want the claimer %s", owner, err, claimer.instance)
	}
	// The owner-less lease waits for its expiry; then it is free too.
	if n := claimAt(t0.Add(30 * time.Second)); n != 1 {
		// 30 s on, the live process's heartbeat (t0+3 s) is stale as well.
		t.Fatalf("30 s on: claimed %d, want the silent live process's 1", n)
	}
	if n := claimAt(t0.Add(cfg.Lease + time.Second)); n != 1 {
		t.Fatalf("after the lease: claimed %d, want the owner-less one", n)
	}
	// A retired instance's row is gone.
	if err := live.retire(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := base.pool.QueryRow(ctx, `SELECT count(*) FROM delivery_instances WHERE id = $1`, live.instance).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatal("retired instance still listed")
	}
}
