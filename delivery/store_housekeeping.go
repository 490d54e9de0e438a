package delivery

import (
	"context"
	"fmt"
	"time"
)

// prune deletes closed deliveries created before their retention, with
// their queue rows, a bounded number at a time; it reports how many.
func (s *store) prune(ctx context.Context, now time.Time) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `
		WITH gone AS (
			DELETE FROM deliveries WHERE id IN (
				SELECT id FROM deliveries WHERE created_at < $1 AND status = 'DELIVERED'
				UNION ALL
				SELECT id FROM deliveries WHERE created_at < $2 AND status = 'DEAD' AND dlq_published_at IS NOT NULL
				LIMIT $3)
			RETURNING id
		), events AS (
			DELETE FROM delivery_queue WHERE delivery_id IN (SELECT id FROM gone)
		)
		SELECT count(*) FROM gone`,
		now.Add(-s.cfg.Retention), now.Add(-s.cfg.DeadRetention), pruneBatch).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("prune deliveries: %w", err)
	}
	return n, nil
}

// pruneBatch bounds the deliveries one prune statement deletes.
const pruneBatch = 5000

// depth counts open deliveries by status and events queued but not batched.
func (s *store) depth(ctx context.Context) (pending, failed, queued int64, err error) {
	err = s.pool.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE status = 'PENDING'), count(*) FILTER (WHERE status = 'FAILED'),
		       (SELECT count(*) FROM delivery_queue WHERE delivery_id IS NULL)
		FROM deliveries WHERE status IN ('PENDING', 'FAILED')`).Scan(&pending, &failed, &queued)
	if err != nil {
		err = fmt.Errorf("queue depth: %w", err)
	}
	return pending, failed, queued, err
}
