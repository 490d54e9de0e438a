package commandapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/contrack/contrack/commandapi/lifecycle"
	"github.com/contrack/contrack/commandapi/subscription"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
)

// outboxChanges returns the subscription changes written to the outbox, in order.
func outboxChanges(t *testing.T, db testenv.PGDatabase) []schemas.SubscriptionChanged {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT payload::text FROM outbox ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []schemas.SubscriptionChanged
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		var ch schemas.SubscriptionChanged
		if err := json.Unmarshal([]byte(p), &ch); err != nil {
			t.Fatal(err)
		}
		out = append(out, ch)
	}
	return out
}

func closedAs(t *testing.T, db testenv.PGDatabase, ref string) (status, reason string) {
	t.Helper()
	var r *string
	if err := db.Pool.QueryRow(context.Background(), `SELECT status, closed_reason FROM subscriptions WHERE reference = $1`, ref).Scan(&status, &r); err != nil {
		t.Fatal(err)
	}
	if r != nil {
		reason = *r
	}
	return
}

// Expiry closes exactly as DELETE: CLOSED, one less open subscription on
// the tracking, and an outbox change whose trackingOpen turns false only
// with the tracking's last open subscription. Journey end closes only
// subscriptions created before the end was seen; idleness only polled
// trackings; DELETE records its reason too.
func TestLifecycleClosesLikeDelete(t *testing.T) {
	api, db := newAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	ctx := context.Background()
	subscribe := func(ref, c string) {
		if r := api.Do(http.MethodPost, "/subscription/equipment", key, sub(ref, "containerNumber", c)); r.Status != 200 {
			t.Fatalf("%s: %d %s", ref, r.Status, r.Raw)
		}
	}
	subscribe("first", container)
	subscribe("second", container) // shares the tracking
	subscribe("ended", "MSKU9070323")
	subscribe("idle", "TGHU1234567")
	subscribe("fresh", container) // a third on the shared tracking
	subscribe("deleted", "MSCU1234566")
	exec := func(sql string, args ...any) {
		if _, err := db.Pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	exec(`UPDATE subscriptions SET expires_at = $1 WHERE reference IN ('first', 'second')`, now.Add(-time.Second))
	exec(`UPDATE trackings SET journey_ended_at = now() WHERE identifier = 'MSKU9070323'`)
	exec(`UPDATE trackings SET events_changed_at = $1 WHERE identifier = 'TGHU1234567'`, now.Add(-31*24*time.Hour))
	exec(`UPDATE subscriptions SET created_at = $1 WHERE reference = 'idle'`, now.Add(-40*24*time.Hour))
	// A tracking never polled (events_changed_at NULL) is not idle, however old.
	exec(`UPDATE subscriptions SET created_at = $1 WHERE reference = 'deleted'`, now.Add(-40*24*time.Hour))
	if r := api.Do(http.MethodDelete, "/subscription/deleted", key, nil); r.Status != 200 {
		t.Fatalf("delete: %d", r.Status)
	}
	before := len(outboxChanges(t, db))

	n, err := lifecycle.Sweep(ctx, lifecycle.Config{}, lifecycle.Deps{Pool: db.Pool, Log: testenv.Log(t)})
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Fatalf("closed %d subscriptions, want 4 (first, second, ended, idle)", n)
	}
	want := map[string][2]string{
		"first": {"CLOSED", subscription.ClosedExpired}, "second": {"CLOSED", subscription.ClosedExpired},
		"ended": {"CLOSED", subscription.ClosedJourneyEnded}, "idle": {"CLOSED", subscription.ClosedIdle},
		"fresh": {"OPEN", ""}, "deleted": {"CLOSED", subscription.ClosedDeleted},
	}
	for ref, w := range want {
		if st, reason := closedAs(t, db, ref); st != w[0] || reason != w[1] {
			t.Errorf("%s: %s %q, want %s %q", ref, st, reason, w[0], w[1])
		}
	}
	// 'fresh' keeps the shared tracking open: both expiry changes say so.
	changes := outboxChanges(t, db)[before:]
	open := map[string]int{}
	for _, ch := range changes {
		if ch.Status != "CLOSED" {
			t.Errorf("change %+v", ch)
		}
		if ch.Identifier == container && ch.TrackingOpen {
			open[ch.Identifier]++
		}
		if ch.Identifier != container && ch.TrackingOpen {
			t.Errorf("%s: trackingOpen still true after its only subscription closed", ch.Identifier)
		}
	}
	if len(changes) != 4 || open[container] != 2 {
		t.Fatalf("%d changes, %d keeping %s open: %+v", len(changes), open[container], container, changes)
	}
	var count int
	if err := db.Pool.QueryRow(ctx, `SELECT open_subscriptions FROM trackings WHERE identifier = $1`, container).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != 1 {
		t.Fatalf("shared tracking counts %d open subscriptions, want 1", count)
	}
	// A subscription made after the end was seen stays open until the poller sees it again.
	subscribe("after-end", "MSKU9070323")
	if n, _ := lifecycle.Sweep(ctx, lifecycle.Config{}, lifecycle.Deps{Pool: db.Pool, Log: testenv.Log(t)}); n != 0 {
		t.Fatalf("second sweep closed %d", n)
	}
	exec(`UPDATE trackings SET journey_ended_at = now() WHERE identifier = 'MSKU9070323'`)
	if n, _ := lifecycle.Sweep(ctx, lifecycle.Config{}, lifecycle.Deps{Pool: db.Pool, Log: testenv.Log(t)}); n != 1 {
		t.Fatalf("sweep after the end was seen again closed %d, want 1", n)
	}
	// DELETE of an expired-closed subscription answers as for any closed one.
	if r := api.Do(http.MethodDelete, "/subscription/first", key, nil); r.Status != 200 || r.Message() != "Subscription already closed" {
		t.Fatalf("delete after expiry: %d %s", r.Status, r.Raw)
	}
}
