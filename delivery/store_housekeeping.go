package delivery

import (
	"context"
	"fmt"
	"time"
)

// prune deletes closed deliveries created before their retention, with
// their queue rows and the version rows that point into them (see
// queueSQL), a bounded number at a time; it reports how many.
func (s *store) prune(ctx context.Context, now time.Time) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `
		WITH gone AS (
			DELETE FROM deliveries WHERE id IN (
				SELECT id FROM deliveries WHERE created_at < $1 AND status = 'DELIVERED'
				UNION ALL
				SELECT id FROM deliveries WHERE created_at < $2 AND status = 'DEAD' AND dlq_published_at IS NOT NULL
				LIMIT $3)
			RETURNING id, subscription_id, queue_from, queue_to
		), events AS (
			DELETE FROM delivery_queue q USING gone g
			WHERE q.subscription_id = g.subscription_id AND q.id BETWEEN g.queue_from AND g.queue_to
		), versions AS (
			DELETE FROM delivery_versions v USING gone g
			WHERE v.subscription_id = g.subscription_id AND v.queue_id BETWEEN g.queue_from AND g.queue_to
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
		SELECT count(*) FILTER (WHERE d.status = 'PENDING'), count(*) FILTER (WHERE d.status = 'FAILED'),
		       -- Above the cursor of each subscription with an open delivery
		       -- (its newest: the cursor); none queue without one, but for a
		       -- moment (see sweep).
		       coalesce(sum((SELECT coalesce(sum(q.event_count), 0) FROM delivery_queue q
		                     WHERE q.subscription_id = d.subscription_id
		                       AND (q.subscription_id, q.id) > (d.subscription_id, d.queue_to)))
		                FILTER (WHERE NOT d.replayed AND d.queue_to IS NOT NULL), 0)
		FROM deliveries d WHERE d.status IN ('PENDING', 'FAILED')`).Scan(&pending, &failed, &queued)
	if err != nil {
		err = fmt.Errorf("queue depth: %w", err)
	}
	return pending, failed, queued, err
}
