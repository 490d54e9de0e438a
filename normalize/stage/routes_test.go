package stage

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
)

func routeChange(tracking, container string, open bool, offset int64) change {
	ch := schemas.SubscriptionChanged{AccountID: "acct", Env: "sandbox", TrackingID: tracking, SCAC: "maeu",
		IdentifierKind: "container", Identifier: container, TrackingOpen: open}
	return change{key: indexKey(ch.Env, ch.SCAC, ch.IdentifierKind, ch.Identifier), ch: ch, partition: 0, offset: offset}
}

func lookupIDs(t *testing.T, ix *routingIndex, container string) string {
	t.Helper()
	rs, err := ix.lookup(context.Background(), "sandbox", "MAEU", "container", container)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.TrackingID)
	}
	return fmt.Sprint(ids)
}

// The routes are in Postgres, read through a cache that holds at most its
// bound of keys and forgets a key when its follower applies a change of
// it; a second normaliser still catching up (applying older records)
// never writes an older state over a newer one.
func TestRoutesLiveInPostgresBehindABoundedCache(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	ix := newRoutingIndex(db.Pool, 10, testNow(), 0)
	if got := lookupIDs(t, ix, "CSQU3054383"); got != "[]" {
		t.Fatalf("before any subscription: %s", got)
	}
	// Cached as none: a subscription applied drops the key, the next
	// look-up reads it.
	if err := ix.apply(ctx, []change{routeChange("trk-a", "CSQU3054383", true, 1), routeChange("trk-b", "CSQU3054383", true, 2)}); err != nil {
		t.Fatal(err)
	}
	if got := lookupIDs(t, ix, "CSQU3054383"); got != "[trk-a trk-b]" {
		t.Fatalf("after two subscriptions: %s", got)
	}
	// Within one poll the last change of a tracking counts.
	if err := ix.apply(ctx, []change{routeChange("trk-a", "CSQU3054383", false, 3), routeChange("trk-b", "CSQU3054383", false, 4),
		routeChange("trk-b", "CSQU3054383", true, 5)}); err != nil {
		t.Fatal(err)
	}
	if got := lookupIDs(t, ix, "CSQU3054383"); got != "[trk-b]" {
		t.Fatalf("after a close and a reopen: %s", got)
	}
	// Another normaliser replaying the topic from its start writes the
	// older records: no row goes back.
	other := newRoutingIndex(db.Pool, 10, testNow(), 0)
	if err := other.apply(ctx, []change{routeChange("trk-a", "CSQU3054383", true, 1), routeChange("trk-b", "CSQU3054383", false, 4)}); err != nil {
		t.Fatal(err)
	}
	if got := lookupIDs(t, other, "CSQU3054383"); got != "[trk-b]" {
		t.Fatalf("after an older replay: %s", got)
	}
	// The cache holds at most its bound, whatever is looked up.
	for i := range 50 {
		lookupIDs(t, ix, fmt.Sprintf("MSKU%07d", i))
	}
	if n := ix.cached(); n > 10 {
		t.Fatalf("%d keys cached, bound 10", n)
	}
	// A look-up that began before a change of its key answers but is not
	// cached: the next one reads the store again.
	ix.mu.Lock()
	ticket := ix.seq
	ix.mu.Unlock()
	if err := ix.apply(ctx, []change{routeChange("trk-c", "TGHU0000011", true, 6)}); err != nil {
		t.Fatal(err)
	}
	ix.mu.Lock()
	raced := ticket < ix.invalid[indexKey("sandbox", "MAEU", "container", "TGHU0000011")]
	ix.mu.Unlock()
	if !raced {
		t.Fatal("the change did not mark its key")
	}
}

func testNow() time.Time { return time.Now() }
