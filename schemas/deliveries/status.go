package deliveries

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Delivery statuses, as stored and as GET /webhook/deliveries shows them.
const (
	StatusPending   = "PENDING"   // not attempted yet (or replayed)
	StatusFailed    = "FAILED"    // attempted and failed; retrying on the schedule
	StatusDelivered = "DELIVERED" // acknowledged with a 2xx
	StatusDead      = "DEAD"      // every attempt failed; kept for inspection and replay
)

// Errors of Replay.
var (
	ErrNotFound = errors.New("delivery: not found")
	ErrNotDead  = errors.New("delivery: not dead-lettered")
)

// Replay puts a DEAD delivery of account back in the queue: PENDING, due at
// now, with a fresh retry schedule and its earlier attempts kept in its
// history (the attempt count goes on). It is sent outside its subscription's
// ordered stream, the same body and webhook-id as before. ErrNotFound: no
// such delivery of this account (a malformed id included); ErrNotDead: it is
// not dead-lettered. A verification is not replayed (not found): configuring
// the webhook again sends a new one.
func Replay(ctx context.Context, pool *pgxpool.Pool, accountID, id string, now time.Time) error {
	did, err := uuid.Parse(id)
	if err != nil {
		return ErrNotFound
	}
	aid, err := uuid.Parse(accountID)
	if err != nil {
		return ErrNotFound
	}
	var status string
	err = pool.QueryRow(ctx, `
		WITH cur AS (SELECT id, status FROM deliveries WHERE id = $1 AND account_id = $2 AND kind <> 'verification' FOR UPDATE),
		upd AS (
			UPDATE deliveries d SET status = 'PENDING', replayed = true, replays = d.replays + 1,
				round_attempts = 0, next_attempt_at = $3, lease_until = NULL, lease_token = NULL,
				dead_at = NULL, dlq_published_at = NULL, updated_at = $3
			FROM cur WHERE d.id = cur.id AND cur.status = 'DEAD'
			RETURNING d.id)
		SELECT cur.status FROM cur`, did, aid, now).Scan(&status)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("delivery: replay: %w", err)
	}
	if status != StatusDead {
		return ErrNotDead
	}
	return nil
}
