package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// heartbeat records that this instance is alive at now (and that it started
// at start), and forgets instances silent for a day.
func (s *store) heartbeat(ctx context.Context, start, now time.Time) error {
	b := &pgx.Batch{}
	b.Queue(asyncCommit)
	b.Queue(`INSERT INTO delivery_instances (id, started_at, heartbeat_at) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`, s.instance, start, now)
	b.Queue(`DELETE FROM delivery_instances WHERE heartbeat_at < $1`, now.Add(-24*time.Hour))
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("delivery instance heartbeat: %w", err)
	}
	return nil
}

// retire removes this instance at a clean shutdown (its leases were
// released or recorded).
func (s *store) retire(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM delivery_instances WHERE id = $1`, s.instance); err != nil {
		return fmt.Errorf("retire delivery instance: %w", err)
	}
	return nil
}
