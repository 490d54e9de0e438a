package commandapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/schemas"
)

// Reasons a subscription closed (subscriptions.closed_reason).
const (
	ClosedDeleted      = "DELETED"       // DELETE /subscription/{id}
	ClosedExpired      = "EXPIRED"       // subscriptionExpiryDate reached
	ClosedJourneyEnded = "JOURNEY_ENDED" // every container returned empty after discharge
	ClosedIdle         = "IDLE"          // no new or changed event for LifecycleConfig.IdleLimit
)

// sub is a subscription row locked FOR UPDATE in the closing transaction.
type sub struct {
	id, accountID, env, trackingID, scac string
}

// closeLocked closes s (locked, OPEN) in tx: status CLOSED, one less open
// subscription on its tracking, and the change in the outbox — whatever
// closes it (DELETE, expiry, journey end), so the poller stops exactly when
// the tracking's last open subscription closes. It reports whether that
// was the last one (stoppedTracking).
func closeLocked(ctx context.Context, tx pgx.Tx, s sub, reason string, now time.Time) (stopped bool, err error) {
	if _, err := tx.Exec(ctx, `UPDATE subscriptions SET status = 'CLOSED', closed_at = $2, closed_reason = $3 WHERE id = $1`, s.id, now, reason); err != nil {
		return false, fmt.Errorf("close subscription: %w", err)
	}
	// One open subscription less for the plan's limit; the account's row
	// before the tracking's, as subscribe takes them. (Never below zero:
	// rows written before the count existed are counted by migration 0031.)
	if _, err := tx.Exec(ctx, `UPDATE accounts SET open_subscriptions = greatest(open_subscriptions - 1, 0) WHERE id = $1`, s.accountID); err != nil {
		return false, fmt.Errorf("count open subscriptions: %w", err)
	}
	var open int
	var kind, value string
	if err := tx.QueryRow(ctx, `
		UPDATE trackings SET open_subscriptions = open_subscriptions - 1, updated_at = now()
		WHERE id = $1 RETURNING open_subscriptions, identifier_kind, identifier`, s.trackingID).Scan(&open, &kind, &value); err != nil {
		return false, fmt.Errorf("update tracking: %w", err)
	}
	stopped = open == 0
	return stopped, enqueueSubscriptionChange(ctx, tx, schemas.SubscriptionChanged{
		AccountID: s.accountID, Env: s.env, TrackingID: s.trackingID, SubscriptionID: s.id,
		SCAC: s.scac, IdentifierKind: kind, Identifier: value,
		Status: StatusClosed, TrackingOpen: !stopped, OccurredAt: now,
	})
}

// LifecycleConfig tunes the subscription lifecycle. Zero values take the defaults.
type LifecycleConfig struct {
	// Every is the time between sweeps (default 1 min): a subscription
	// closes at most this long after its end.
	Every time.Duration
	// IdleLimit closes a polled subscription whose tracking saw no new or
	// changed event for this long, counted from the later of the last
	// change and the subscription's creation (default 720h, 30 days).
	// Trackings never polled successfully (no credentials, push-only) are
	// not idle: they end at their expiry.
	IdleLimit time.Duration
	// Batch bounds the subscriptions closed per sweep round (default 500).
	Batch int
}

// Validate reports every invalid field.
func (c LifecycleConfig) Validate() error {
	var errs []error
	if c.Every < 0 {
		errs = append(errs, errors.New("lifecycle: Every must not be negative"))
	}
	if c.IdleLimit < 0 {
		errs = append(errs, errors.New("lifecycle: IdleLimit must not be negative"))
	}
	if c.Batch < 0 {
		errs = append(errs, errors.New("lifecycle: Batch must not be negative"))
	}
	return errors.Join(errs...)
}

// WithDefaults returns c with every zero field set to its documented default;
// RunLifecycle applies it after Validate.
func (c LifecycleConfig) WithDefaults() LifecycleConfig {
	if c.Every == 0 {
		c.Every = time.Minute
	}
	if c.IdleLimit == 0 {
		c.IdleLimit = 30 * 24 * time.Hour
	}
	if c.Batch == 0 {
		c.Batch = 500
	}
	return c
}

// LifecycleDeps are the lifecycle's connections.
type LifecycleDeps struct {
	Pool *pgxpool.Pool
	Log  *slog.Logger
	// Now defaults to time.Now.
	Now func() time.Time
	// Loops, if set, supervises the sweep (the loop
	// "subscription-lifecycle", the role's): a failed sweep is counted and
	// retried after a backoff, a run of them turns /readyz red.
	Loops *loop.Supervisor
}

// RunLifecycle closes subscriptions whose time is up until ctx ends; nil on
// a clean shutdown. Every sweep closes, exactly as DELETE would:
//
//   - EXPIRED: subscriptionExpiryDate (expires_at) reached;
//   - JOURNEY_ENDED: the poller saw every container of the tracking returned
//     empty after its last discharge (trackings.journey_ended_at, see
//     ingest/poller journey.go) since the subscription was created;
//   - IDLE: no new or changed event for IdleLimit.
//
// Several replicas may run it: rows are claimed with SKIP LOCKED.
func RunLifecycle(ctx context.Context, cfg LifecycleConfig, deps LifecycleDeps) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.WithDefaults()
	if deps.Now == nil {
		deps.Now = time.Now
	}
	log := deps.Log.With("stage", "subscription-lifecycle")
	return deps.Loops.Loop("subscription-lifecycle", log).Run(ctx, cfg.Every, func(ctx context.Context) error {
		n, err := Sweep(ctx, cfg, deps)
		if n > 0 {
			log.Info("closed ended subscriptions", "count", n)
		}
		if err != nil {
			return fmt.Errorf("subscription lifecycle sweep: %w", err)
		}
		return nil
	})
}

// Sweep closes every subscription whose time is up now (in rounds of
// Batch) and returns how many it closed.
func Sweep(ctx context.Context, cfg LifecycleConfig, deps LifecycleDeps) (int, error) {
	cfg = cfg.WithDefaults()
	if deps.Now == nil {
		deps.Now = time.Now
	}
	total := 0
	for {
		n, err := sweepRound(ctx, cfg, deps)
		total += n
		if err != nil || n < cfg.Batch {
			return total, err
		}
	}
}

func sweepRound(ctx context.Context, cfg LifecycleConfig, deps LifecycleDeps) (int, error) {
	now := deps.Now().UTC()
	n := 0
	err := pgx.BeginFunc(ctx, deps.Pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			SELECT s.id::text, s.account_id::text, a.env, s.tracking_id::text, s.scac,
				CASE WHEN s.expires_at <= $1 THEN 'EXPIRED'
				     WHEN t.journey_ended_at >= s.created_at THEN 'JOURNEY_ENDED'
				     ELSE 'IDLE' END
			FROM subscriptions s
			JOIN trackings t ON t.id = s.tracking_id
			JOIN accounts a ON a.id = s.account_id
			WHERE s.status = 'OPEN' AND s.expires_at IS NOT NULL AND (
				s.expires_at <= $1
				OR t.journey_ended_at >= s.created_at
				OR greatest(t.events_changed_at, s.created_at) <= $2 AND t.events_changed_at IS NOT NULL)
			ORDER BY s.expires_at
			LIMIT $3
			FOR UPDATE OF s SKIP LOCKED`, now, now.Add(-cfg.IdleLimit), cfg.Batch)
		if err != nil {
			return fmt.Errorf("find ended subscriptions: %w", err)
		}
		type ended struct {
			s      sub
			reason string
		}
		due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ended, error) {
			var e ended
			err := r.Scan(&e.s.id, &e.s.accountID, &e.s.env, &e.s.trackingID, &e.s.scac, &e.reason)
			return e, err
		})
		if err != nil {
			return fmt.Errorf("find ended subscriptions: %w", err)
		}
		// Accounts' and trackings' rows in one order, so replicas sweeping
		// at once (and subscribes) never wait on each other in a cycle.
		slices.SortFunc(due, func(a, b ended) int {
			return cmp.Or(cmp.Compare(a.s.accountID, b.s.accountID), cmp.Compare(a.s.trackingID, b.s.trackingID))
		})
		for _, e := range due {
			if _, err := closeLocked(ctx, tx, e.s, e.reason, now); err != nil {
				return fmt.Errorf("close %s subscription %s: %w", e.reason, e.s.id, err)
			}
		}
		n = len(due)
		return nil
	})
	return n, err
}
