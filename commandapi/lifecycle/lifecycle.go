// Package lifecycle is the stage that closes subscriptions whose time is
// up — expired, their journey ended, or idle — exactly as DELETE would
// (commandapi/subscription.Close). It runs beside the API (contrack api,
// contrack all).
package lifecycle

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

	"github.com/contrack/contrack/commandapi/subscription"
	"github.com/contrack/contrack/platform/loop"
)

// Config tunes the subscription lifecycle. Zero values take the defaults.
type Config struct {
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
func (c Config) Validate() error {
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
// Run applies it after Validate.
func (c Config) WithDefaults() Config {
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

// Deps are the lifecycle's connections.
type Deps struct {
	Pool *pgxpool.Pool
	Log  *slog.Logger
	// Now defaults to time.Now.
	Now func() time.Time
	// Loops, if set, supervises the sweep (the loop
	// "subscription-lifecycle", the role's): a failed sweep is counted and
	// retried after a backoff, a run of them turns /readyz red.
	Loops *loop.Supervisor
}

// Run closes subscriptions whose time is up until ctx ends; nil on
// a clean shutdown. Every sweep closes, exactly as DELETE would:
//
//   - EXPIRED: subscriptionExpiryDate (expires_at) reached;
//   - JOURNEY_ENDED: the poller saw every container of the tracking returned
//     empty after its last discharge (trackings.journey_ended_at, see
//     ingest/poller journey.go) since the subscription was created;
//   - IDLE: no new or changed event for IdleLimit.
//
// Several replicas may run it: rows are claimed with SKIP LOCKED.
func Run(ctx context.Context, cfg Config, deps Deps) error {
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
func Sweep(ctx context.Context, cfg Config, deps Deps) (int, error) {
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

func sweepRound(ctx context.Context, cfg Config, deps Deps) (int, error) {
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
			s      subscription.Locked
			reason string
		}
		due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ended, error) {
			var e ended
			err := r.Scan(&e.s.ID, &e.s.AccountID, &e.s.Env, &e.s.TrackingID, &e.s.SCAC, &e.reason)
			return e, err
		})
		if err != nil {
			return fmt.Errorf("find ended subscriptions: %w", err)
		}
		// Accounts' and trackings' rows in one order, so replicas sweeping
		// at once (and subscribes) never wait on each other in a cycle.
		slices.SortFunc(due, func(a, b ended) int {
			return cmp.Or(cmp.Compare(a.s.AccountID, b.s.AccountID), cmp.Compare(a.s.TrackingID, b.s.TrackingID))
		})
		for _, e := range due {
			if _, err := subscription.Close(ctx, tx, e.s, e.reason, now); err != nil {
				return fmt.Errorf("close %s subscription %s: %w", e.reason, e.s.ID, err)
			}
		}
		n = len(due)
		return nil
	})
	return n, err
}
