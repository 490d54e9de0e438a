package delivery_test

import (
	"context"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testkit"
)

// TestInactiveAccountGetsNoWebhooks: while an account is disabled (or has
// no key left) no webhook is sent to it: its deliveries waiting for a retry
// wait, and its events are not queued; another account's deliveries go on.
// Enabled again, the waiting delivery goes out, and new events are pushed.
func TestInactiveAccountGetsNoWebhooks(t *testing.T) {
	h := dt.New(t, false)
	ctx := context.Background()
	store := auth.NewStore(h.DB.Pool)
	var failing atomic.Bool
	failing.Store(true)
	rc := dt.NewReceiver(t, func(int, *http.Request) int {
		if failing.Load() {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	_, k, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "stopping", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	acct := k.Account.ID
	h.Webhook(acct, rc.URL, true)
	s := h.Subscribe(acct, "stopping")
	sentinelRC := dt.NewReceiver(t, nil)
	other := h.Account("sandbox")
	h.Webhook(other, sentinelRC.URL, true)
	sentinel := h.Subscribe(other, "sentinel")
	h.Partitions = 1 // one partition: a sentinel comes after what was produced before it
	h.Start(dt.Config())
	// passes: a sentinel produced after everything before it is delivered,
	// so what came before was handled.
	sentinels := 0
	pass := func() {
		t.Helper()
		sentinels++
		h.Produce(sentinel, "s"+string(rune('0'+sentinels)))
		testkit.Eventually(t, 15*time.Second, "the sentinel delivered", func() bool { return len(sentinelRC.Acked()) == sentinels })
	}

	// e1 fails (503) and waits for a retry; then the account is disabled.
	h.Produce(s, "e1")
	testkit.Eventually(t, 15*time.Second, "e1 attempted", func() bool { return len(rc.Requests()) >= 1 })
	if _, err := store.SetAccountDisabled(ctx, "stopping", "sandbox", true); err != nil {
		t.Fatal(err)
	}
	// An attempt of e1 claimed before may still be under way: let it end.
	pass()
	failing.Store(false)
	before := len(rc.Requests())
	h.Produce(s, "e2") // while disabled: not queued
	for range 3 {
		pass()
	}
	if got := len(rc.Requests()); got != before {
		t.Fatalf("a disabled account got %d webhook requests", got-before)
	}
	if q := h.Count(`SELECT count(*) FROM delivery_queue_events WHERE subscription_id = $1`, s.ID); q != 1 {
		t.Fatalf("%d events queued, want e1 only (e2 came while disabled)", q)
	}
	// Enabled: the waiting delivery goes out.
	if _, err := store.SetAccountDisabled(ctx, "stopping", "sandbox", false); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 15*time.Second, "e1 delivered once enabled", func() bool { return len(rc.Acked()) == 1 })
	h.Produce(s, "e3")
	testkit.Eventually(t, 15*time.Second, "e3 delivered", func() bool { return slices.Contains(rc.AckedEvents(t), "e3") })
	if got := rc.AckedEvents(t); !slices.Equal(got, []string{"e1", "e3"}) {
		t.Fatalf("acknowledged %v, want e1 and e3 (e2 came while disabled)", got)
	}

	// Its last key revoked, the account stops too.
	if _, err := store.RevokeKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	before = len(rc.Requests())
	h.Produce(s, "e4")
	pass()
	pass()
	if got := len(rc.Requests()); got != before {
		t.Fatalf("an account without keys got %d webhook requests", got-before)
	}
}
