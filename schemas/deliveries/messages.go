package deliveries

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/secretbox"
)

// Delivery kinds (deliveries.kind): a subscription's events, or a message of
// its own — the webhook verification and the console's test delivery. All
// go the same way: durable, leased, signed, behind the endpoint's breaker,
// retried on the schedule and logged.
const (
	KindEvents       = "events"
	KindVerification = "verification"
	KindTest         = "test"
)

// Message types, the "type" of a message delivery's body.
const (
	TypeVerification = "webhook.verification"
	TypeTest         = "webhook.test"
)

// VerificationMessage is POSTed to a newly configured targetUrl. It carries
// the secret the consumer sends back to POST /webhook/activate, proving it
// controls the URL; it is signed like every delivery.
type VerificationMessage struct {
	Type      string `json:"type"` // TypeVerification
	Secret    string `json:"secret"`
	TargetURL string `json:"targetUrl"`
	Env       string `json:"env"`
	Timestamp string `json:"timestamp"`
}

// TestMessage is the body of a test delivery (POST /webhook/test).
type TestMessage struct {
	Type      string `json:"type"` // TypeTest
	TargetURL string `json:"targetUrl"`
	Env       string `json:"env"`
	Timestamp string `json:"timestamp"`
}

// Limits of test deliveries, per account.
const (
	TestDeliveriesPerWindow = 5
	TestDeliveryWindow      = time.Minute
)

// Errors of QueueTest.
var (
	ErrNoWebhook    = errors.New("delivery: no webhook configured")
	ErrNotActivated = errors.New("delivery: webhook not activated")
	ErrTooManyTests = errors.New("delivery: too many test deliveries")
)

// QueueVerification queues the verification message of an account's webhook
// just configured with targetURL and secret, replacing any verification
// still open (its secret is no longer current). Call it in the transaction
// that stores the webhook: the message is durable from the commit on, and
// the delivery stage sends it (it needs no activated webhook). It returns
// the delivery id, the message's webhook-id.
func QueueVerification(ctx context.Context, tx pgx.Tx, box *secretbox.Box, accountID, env, targetURL, secret string, now time.Time) (string, error) {
	body, err := json.Marshal(VerificationMessage{Type: TypeVerification, Secret: secret, TargetURL: targetURL, Env: env,
		Timestamp: now.UTC().Format(time.RFC3339)})
	if err != nil {
		return "", err
	}
	if err := CancelVerification(ctx, tx, accountID); err != nil {
		return "", err
	}
	return insertMessage(ctx, tx, box, accountID, KindVerification, body, now)
}

// CancelVerification deletes the account's open verification: its webhook
// was activated or re-configured, so the message is moot. An attempt in
// flight then records nothing (its row is gone).
func CancelVerification(ctx context.Context, tx pgx.Tx, accountID string) error {
	_, err := tx.Exec(ctx, `DELETE FROM deliveries WHERE account_id = $1 AND kind = 'verification' AND status IN ('PENDING', 'FAILED')`, accountID)
	if err != nil {
		return fmt.Errorf("cancel webhook verification: %w", err)
	}
	return nil
}

// QueueTest queues a signed test delivery to the account's webhook, which
// must be activated (it is sent, retried and parked like the account's
// events, and listed by GET /webhook/deliveries). At most
// TestDeliveriesPerWindow per TestDeliveryWindow per account
// (ErrTooManyTests, with how long until one more is allowed); ErrNoWebhook,
// ErrNotActivated.
func QueueTest(ctx context.Context, pool *pgxpool.Pool, box *secretbox.Box, accountID string, now time.Time) (id string, retryAfter time.Duration, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// One account's test requests are serialised, so the limit holds
		// under concurrent requests (and across API processes).
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, testLockClass, accountID); err != nil {
			return err
		}
		var url, env string
		var activated bool
		err := tx.QueryRow(ctx, `SELECT w.target_url, w.activated, a.env FROM webhooks w JOIN accounts a ON a.id = w.account_id
			WHERE w.account_id = $1`, accountID).Scan(&url, &activated, &env)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNoWebhook
		}
		if err != nil {
			return err
		}
		if !activated {
			return ErrNotActivated
		}
		var n int
		var oldest time.Time
		if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(min(created_at), $3) FROM deliveries
			WHERE account_id = $1 AND kind = 'test' AND created_at > $2`,
			accountID, now.Add(-TestDeliveryWindow), now).Scan(&n, &oldest); err != nil {
			return err
		}
		if n >= TestDeliveriesPerWindow {
			retryAfter = max(oldest.Add(TestDeliveryWindow).Sub(now), time.Second)
			return ErrTooManyTests
		}
		body, err := json.Marshal(TestMessage{Type: TypeTest, TargetURL: url, Env: env, Timestamp: now.UTC().Format(time.RFC3339)})
		if err != nil {
			return err
		}
		id, err = insertMessage(ctx, tx, box, accountID, KindTest, body, now)
		return err
	})
	if err != nil && !errors.Is(err, ErrNoWebhook) && !errors.Is(err, ErrNotActivated) && !errors.Is(err, ErrTooManyTests) {
		err = fmt.Errorf("queue test delivery: %w", err)
	}
	return id, retryAfter, err
}

// testLockClass is the first key of the two-key advisory lock that
// serialises an account's test requests (the delivery stage's subscriptionLockClass is 7_402_130).
const testLockClass = 7_402_131

// insertMessage stores a message delivery, its body sealed, due now.
func insertMessage(ctx context.Context, tx pgx.Tx, box *secretbox.Box, accountID, kind string, body []byte, now time.Time) (string, error) {
	enc, err := box.Seal(body, secretbox.WebhookMessageContext(accountID))
	if err != nil {
		return "", fmt.Errorf("seal webhook message: %w", err)
	}
	id := uuid.New()
	_, err = tx.Exec(ctx, `INSERT INTO deliveries (id, account_id, kind, message_enc, status, event_count, next_attempt_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, 'PENDING', 0, $5, $5, $5)`, id, accountID, kind, enc, now)
	if err != nil {
		return "", fmt.Errorf("queue %s delivery: %w", kind, err)
	}
	return id.String(), nil
}
