// Package subscription holds the command side's writes of a subscription
// that more than one part makes: closing one (the HTTP API's DELETE, the
// lifecycle stage's sweeps) and queueing its change in the outbox, which
// the relay stage publishes. The HTTP handlers and both stages share them
// here, not through each other.
package subscription

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/schemas"
)

// Subscription statuses.
const (
	StatusOpen   = "OPEN"
	StatusClosed = "CLOSED"
)

// OutboxChannel is the Postgres NOTIFY channel that wakes the relay; a
// write to the outbox notifies it in its transaction (at commit).
const OutboxChannel = "contrack_outbox"

// Reasons a subscription closed (subscriptions.closed_reason).
const (
	ClosedDeleted      = "DELETED"       // DELETE /subscription/{id}
	ClosedExpired      = "EXPIRED"       // subscriptionExpiryDate reached
	ClosedJourneyEnded = "JOURNEY_ENDED" // every container returned empty after discharge
	ClosedIdle         = "IDLE"          // no new or changed event for the lifecycle's IdleLimit
)

// Locked is a subscription row locked FOR UPDATE in the closing transaction.
type Locked struct {
	ID, AccountID, Env, TrackingID, SCAC string
}

// Close closes s (locked, OPEN) in tx: status CLOSED, one less open
// subscription on its tracking, and the change in the outbox — whatever
// closes it (DELETE, expiry, journey end), so the poller stops exactly when
// the tracking's last open subscription closes. It reports whether that
// was the last one (stoppedTracking).
func Close(ctx context.Context, tx pgx.Tx, s Locked, reason string, now time.Time) (stopped bool, err error) {
	if _, err := tx.Exec(ctx, `UPDATE subscriptions SET status = 'CLOSED', closed_at = $2, closed_reason = $3 WHERE id = $1`, s.ID, now, reason); err != nil {
		return false, fmt.Errorf("close subscription: %w", err)
	}
	// One open subscription less for the plan's limit; the account's row
	// before the tracking's, as subscribe takes them. (Never below zero:
	// rows written before the count existed are counted by migration 0031.)
	if _, err := tx.Exec(ctx, `UPDATE accounts SET open_subscriptions = greatest(open_subscriptions - 1, 0) WHERE id = $1`, s.AccountID); err != nil {
		return false, fmt.Errorf("count open subscriptions: %w", err)
	}
	var open int
	var kind, value string
	if err := tx.QueryRow(ctx, `
		UPDATE trackings SET open_subscriptions = open_subscriptions - 1, updated_at = now()
		WHERE id = $1 RETURNING open_subscriptions, identifier_kind, identifier`, s.TrackingID).Scan(&open, &kind, &value); err != nil {
		return false, fmt.Errorf("update tracking: %w", err)
	}
	stopped = open == 0
	return stopped, EnqueueChange(ctx, tx, schemas.SubscriptionChanged{
		AccountID: s.AccountID, Env: s.Env, TrackingID: s.TrackingID, SubscriptionID: s.ID,
		SCAC: s.SCAC, IdentifierKind: kind, Identifier: value,
		Status: StatusClosed, TrackingOpen: !stopped, OccurredAt: now,
	})
}

// EnqueueChange writes the change to the outbox in tx, with a new id; the
// relay (commandapi/relay) publishes it to the subscriptions topic keyed
// by tracking.
func EnqueueChange(ctx context.Context, tx pgx.Tx, ch schemas.SubscriptionChanged) error {
	ch.ID = uuid.NewString()
	payload, err := json.Marshal(ch)
	if err != nil {
		return fmt.Errorf("marshal subscription change: %w", err)
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO outbox (record_id, topic, record_key, record_type, account_id, payload)
		VALUES ($1, $2, $3, $4, $5, $6)`,
		ch.ID, schemas.TopicSubscriptions, ch.TrackingID, schemas.TypeSubscriptionChanged, ch.AccountID, payload)
	if err != nil {
		return fmt.Errorf("write outbox: %w", err)
	}
	// Wakes the relay at commit (notifications are transactional).
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, '')`, OutboxChannel); err != nil {
		return fmt.Errorf("notify outbox: %w", err)
	}
	return nil
}
