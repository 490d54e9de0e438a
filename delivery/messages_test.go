package delivery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"

	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/deliveries"
)

// queueVerification queues acct's verification as POST /webhook/configure does.
func queueVerification(t *testing.T, h *dt.Harness, acct, url, secret string) string {
	t.Helper()
	var id string
	err := pgx.BeginFunc(context.Background(), h.DB.Pool, func(tx pgx.Tx) error {
		var err error
		id, err = deliveries.QueueVerification(context.Background(), tx, h.Box, acct, "sandbox", url, secret, time.Now())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// The verification is a durable delivery: the stage stopped while it waits
// for its next attempt sends it after a restart, under the same webhook-id,
// signed with the secret it carries, and every attempt is logged.
func TestVerificationSurvivesRestart(t *testing.T) {
	h := dt.New(t, true)
	rc := dt.NewReceiver(t, func(int, *http.Request) int { return 503 })
	acct := h.Account("sandbox")
	secret := h.Webhook(acct, rc.URL, false) // configured, not activated
	id := queueVerification(t, h, acct, rc.URL, secret)

	cfg := dt.Config()
	// Long enough that the stop below lands between two attempts.
	cfg.Schedule = []time.Duration{time.Second, time.Second, time.Second}
	stop := h.Start(cfg)
	testkit.Eventually(t, 10*time.Second, "a failed verification attempt recorded", func() bool {
		return h.Count(`SELECT count(*) FROM deliveries WHERE id = $1 AND status = 'FAILED' AND attempts = 1`, id) == 1
	})
	stop()
	rc.SetAnswer(nil)
	h.Start(cfg)
	testkit.Eventually(t, 10*time.Second, "the verification delivered after the restart", func() bool {
		return h.Count(`SELECT count(*) FROM deliveries WHERE id = $1 AND status = 'DELIVERED'`, id) == 1
	})
	reqs := rc.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (one failed before the restart, one after)", len(reqs))
	}
	for _, r := range reqs {
		if r.WebhookID() != id {
			t.Errorf("webhook-id %q, want the delivery id %q", r.WebhookID(), id)
		}
		if err := dt.Verify(secret, r.Header, r.Body); err != nil {
			t.Errorf("verification signature: %v", err)
		}
		var msg deliveries.VerificationMessage
		if err := json.Unmarshal(r.Body, &msg); err != nil || msg.Type != "webhook.verification" || msg.Secret != secret ||
			msg.TargetURL != rc.URL || msg.Env != "sandbox" {
			t.Errorf("verification body %s", r.Body)
		}
	}
	if string(reqs[0].Body) != string(reqs[1].Body) {
		t.Errorf("the body changed across the restart:\n%s\n%s", reqs[0].Body, reqs[1].Body)
	}
	// The attempt log has both attempts, numbered. (Distinct numbers: an
	// insert retried after ClickHouse took it but the answer was lost writes
	// its rows twice; the log is at least once.)
	testkit.Eventually(t, 20*time.Second, "both attempts in the attempt log", func() bool {
		var n uint64
		err := h.CH.Conn.QueryRow(context.Background(),
			`SELECT uniqExact(attempt) FROM delivery_attempts WHERE delivery_id = ? AND account_id = ? AND attempt IN (1, 2)`, id, acct).Scan(&n)
		return err == nil && n == 2
	})
	// The secret is never stored in the clear.
	var enc []byte
	if err := h.DB.Pool.QueryRow(context.Background(), `SELECT message_enc FROM deliveries WHERE id = $1`, id).Scan(&enc); err != nil {
		t.Fatal(err)
	}
	if len(enc) == 0 || json.Valid(enc) || bytes.Contains(enc, []byte(secret)) || bytes.Contains(enc, []byte(secret[6:20])) {
		t.Error("the verification message is stored unsealed")
	}
}

// Verification attempts go through the endpoint's circuit breaker: failures
// open it, and while it is open no attempt is spent.
func TestVerificationOpensTheBreaker(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, func(int, *http.Request) int { return 500 })
	acct := h.Account("sandbox")
	secret := h.Webhook(acct, rc.URL, false)
	id := queueVerification(t, h, acct, rc.URL, secret)
	cfg := dt.Config()
	cfg.Schedule = slices.Repeat([]time.Duration{10 * time.Millisecond}, 20)
	cfg.BreakerFailures = 2
	cfg.BreakerTimeout = time.Hour
	h.Start(cfg)
	testkit.Eventually(t, 10*time.Second, "the breaker open", func() bool { return h.Metrics.Breakers("open") == 1 })
	testkit.Eventually(t, 10*time.Second, "both failures recorded", func() bool {
		return h.Count(`SELECT count(*) FROM deliveries WHERE id = $1 AND status = 'FAILED' AND attempts = 2`, id) == 1
	})
	// Sentinel: a second account's verification on its own endpoint is sent
	// (and its claim passes the first's due verification over) before we
	// look: the open breaker let nothing more through.
	other := dt.NewReceiver(t, nil)
	acct2 := h.Account("sandbox")
	secret2 := h.Webhook(acct2, other.URL, false)
	id2 := queueVerification(t, h, acct2, other.URL, secret2)
	testkit.Eventually(t, 10*time.Second, "the other account's verification", func() bool {
		return h.Count(`SELECT count(*) FROM deliveries WHERE id = $1 AND status = 'DELIVERED'`, id2) == 1
	})
	if n := len(rc.Requests()); n != 2 {
		t.Errorf("%d requests reached the endpoint, want 2 (then its breaker opened)", n)
	}
	if n := h.Count(`SELECT attempts FROM deliveries WHERE id = $1`, id); n != 2 {
		t.Errorf("%d attempts spent, want 2", n)
	}
}

// Activating (or configuring again) cancels the open verification: nothing
// more is sent for it.
func TestVerificationCancelled(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, func(int, *http.Request) int { return 500 })
	acct := h.Account("sandbox")
	secret := h.Webhook(acct, rc.URL, false)
	id := queueVerification(t, h, acct, rc.URL, secret)
	err := pgx.BeginFunc(context.Background(), h.DB.Pool, func(tx pgx.Tx) error {
		return deliveries.CancelVerification(context.Background(), tx, acct)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := h.Count(`SELECT count(*) FROM deliveries WHERE id = $1`, id); n != 0 {
		t.Fatalf("verification still queued after cancel")
	}
	// Re-configure: the newer verification replaces the open one.
	first := queueVerification(t, h, acct, rc.URL, secret)
	second := queueVerification(t, h, acct, rc.URL, secret)
	if n := h.Count(`SELECT count(*) FROM deliveries WHERE account_id = $1 AND kind = 'verification'`, acct); n != 1 {
		t.Fatalf("%d verifications queued, want only the newest", n)
	}
	if h.Count(`SELECT count(*) FROM deliveries WHERE id = $1`, second) != 1 || first == second {
		t.Fatal("the newest verification is not the one kept")
	}
}

// Dead message deliveries are not dead letters: a dead verification and a
// dead test delivery are marked published without reaching the dead-letter
// topic (the verification carries a secret), while an events delivery that
// dies after them — the sentinel — is published. A dead test delivery is
// replayable; a verification is not.
func TestDeadMessagesAreNotDeadLetters(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, func(int, *http.Request) int { return 503 })
	verifying, active := h.Account("sandbox"), h.Account("sandbox")
	secret := h.Webhook(verifying, rc.URL+"/v", false)
	h.Webhook(active, rc.URL+"/a", true)
	vid := queueVerification(t, h, verifying, rc.URL+"/v", secret)
	tid, _, err := deliveries.QueueTest(context.Background(), h.DB.Pool, h.Box, active, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cfg := dt.Config()
	cfg.Schedule = []time.Duration{10 * time.Millisecond}
	h.Start(cfg)
	testkit.Eventually(t, 15*time.Second, "both messages dead and settled", func() bool {
		return h.Count(`SELECT count(*) FROM deliveries WHERE id IN ($1, $2) AND status = 'DEAD' AND dlq_published_at IS NOT NULL`, vid, tid) == 2
	})
	s := h.Subscribe(active, "sentinel")
	h.Produce(s, "e1")
	testkit.Eventually(t, 15*time.Second, "the events delivery dead", func() bool {
		d := h.Deliveries(s.ID)
		return len(d) == 1 && d[0].Status == deliveries.StatusDead
	})
	sentinel := h.Deliveries(s.ID)[0].ID
	cl := testenv.KafkaClient(t, h.Brokers(), kgo.ConsumeTopics(h.Kafka().Topic(schemas.TopicDeliveryDeadLetters)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
	defer cancel()
	var ids []string
	for !slices.ContainsFunc(ids, func(id string) bool { return strings.HasPrefix(id, sentinel) }) && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { ids = append(ids, kafka.Header(r, schemas.HeaderID)) })
	}
	if len(ids) != 1 || !strings.HasPrefix(ids[0], sentinel) {
		t.Errorf("dead letters %v, want only the events delivery %s", ids, sentinel)
	}
	if err := deliveries.Replay(context.Background(), h.DB.Pool, verifying, vid, time.Now()); err != deliveries.ErrNotFound {
		t.Errorf("replaying a verification: %v, want not found", err)
	}
	rc.SetAnswer(nil)
	if err := deliveries.Replay(context.Background(), h.DB.Pool, active, tid, time.Now()); err != nil {
		t.Fatalf("replaying a test delivery: %v", err)
	}
	testkit.Eventually(t, 15*time.Second, "the replayed test delivery", func() bool {
		return h.Count(`SELECT count(*) FROM deliveries WHERE id = $1 AND status = 'DELIVERED' AND attempts = 3`, tid) == 1
	})
}
