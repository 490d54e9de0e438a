package poller_test

import (
	"context"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testkit"
)

// TestPollerStopsForInactiveAccounts: an account disabled by the operator,
// or whose every key is revoked, is not polled while another account's
// tracking on the same carrier is polled on; enabled again (or given a new
// key) it is polled again.
func TestPollerStopsForInactiveAccounts(t *testing.T) {
	w := newWorld(t, 1)
	s := newSim(t)
	ctx := context.Background()
	store := auth.NewStore(w.db.Pool)
	w.credentials(t, "MAEU", map[string]string{"apiKey": "sandbox-key"})
	sentinel := containers(2)[0]
	w.track(t, "MAEU", sentinel, true, "")

	// The account that will stop, with a key, credentials and a tracking.
	_, k, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "stopping", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	quiet, other := w.account, k.Account.ID
	w.account = other
	w.credentials(t, "MAEU", map[string]string{"apiKey": "sandbox-key"})
	stopped := containers(2)[1]
	w.track(t, "MAEU", stopped, true, "")
	w.account = quiet
	run(t, w, s, fastConfig())

	polled := func(what string, n int) {
		t.Helper()
		base := s.count(stopped)
		testkit.Eventually(t, 20*time.Second, what, func() bool { return s.count(stopped) >= base+n })
	}
	// quiet waits until the sentinel was polled twice more (a poll of the
	// stopped account in flight meanwhile has ended), then proves the
	// stopped account's tracking gets nothing while the sentinel gets 3.
	quietWhile := func(what string) {
		t.Helper()
		base := s.count(sentinel)
		testkit.Eventually(t, 20*time.Second, "two sentinel polls", func() bool { return s.count(sentinel) >= base+2 })
		before := s.count(stopped)
		base = s.count(sentinel)
		testkit.Eventually(t, 20*time.Second, "three sentinel polls", func() bool { return s.count(sentinel) >= base+3 })
		if got := s.count(stopped); got != before {
			t.Fatalf("%s: polled %d times while the sentinel was polled 3 times", what, got-before)
		}
	}
	polled("the account polled while active", 2)

	if _, err := store.SetAccountDisabled(ctx, "stopping", "sandbox", true); err != nil {
		t.Fatal(err)
	}
	quietWhile("disabled account")
	if _, err := store.SetAccountDisabled(ctx, "stopping", "sandbox", false); err != nil {
		t.Fatal(err)
	}
	polled("polled again once enabled", 2)

	if ok, err := store.RevokeKey(ctx, k.ID); err != nil || !ok {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	quietWhile("account without keys")
	if _, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "stopping", Env: "sandbox"}); err != nil {
		t.Fatal(err)
	}
	polled("polled again with a new key", 2)
}
