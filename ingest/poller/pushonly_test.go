package poller_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/contrack/contrack/platform/testkit"
)

// A tracking of a push-only carrier (a SCAC the registry does not know) is
// never polled and never marked: it stays PUSH_ONLY while a registry
// carrier's tracking, subscribed after it on the same partition, is polled
// several times.
func TestPollerSkipsPushOnlyCarriers(t *testing.T) {
	w := newWorld(t, 1)
	s := newSim(t)
	w.credentials(t, "MAEU", map[string]string{"apiKey": "sandbox-key"})
	// The account has no credentials for the push-only SCAC (it cannot
	// store any): a poll attempt would mark the tracking NO_CREDENTIALS.
	ctx := context.Background()
	pushOnly := uuid.NewString()
	if _, err := w.db.Pool.Exec(ctx, `INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status, open_subscriptions)
		VALUES ($1, $2, 'sandbox', 'XYZQ', 'container', 'CSQU3054383', 'PUSH_ONLY', 1)`, pushOnly, w.account); err != nil {
		t.Fatal(err)
	}
	sentinel := containers(1)[0]
	sentinelID := w.track(t, "MAEU", sentinel, true, "")
	run(t, w, s, fastConfig())

	testkit.Eventually(t, 20*time.Second, "three polls of the sentinel tracking", func() bool { return s.count(sentinel) >= 3 })
	if got := w.status(t, sentinelID); got != "CONNECTED" {
		t.Fatalf("sentinel status %s", got)
	}
	if got := w.status(t, pushOnly); got != "PUSH_ONLY" {
		t.Fatalf("push-only tracking status %s, want PUSH_ONLY", got)
	}
	if n := s.count("CSQU3054383"); n != 0 {
		t.Fatalf("push-only container polled %d times", n)
	}
}
