package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// deadLetter is a DEAD delivery to publish on the dead-letter topic.
type deadLetter struct {
	ID             string          `json:"id"`
	AccountID      string          `json:"accountId"`
	SubscriptionID string          `json:"subscriptionId"`
	Reference      string          `json:"subscriptionReference"`
	Attempts       int             `json:"attempts"`
	Replays        int             `json:"replays"`
	LastHTTPCode   *int            `json:"lastHttpCode"`
	LastError      string          `json:"lastError"`
	CreatedAt      time.Time       `json:"createdAt"`
	DeadAt         time.Time       `json:"deadAt"`
	Payload        json.RawMessage `json:"payload"`
}

func (s *store) unpublishedDead(ctx context.Context, limit int) ([]deadLetter, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT c.id::text, c.account_id::text, c.subscription_id::text, c.attempts, c.replays,
		       c.last_http_code, c.last_error, c.created_at, c.dead_at, `+bodySelect+`
		FROM deliveries c JOIN subscriptions s ON s.id = c.subscription_id
		LEFT JOIN webhooks w ON w.account_id = c.account_id`+bodyJoin+`
		WHERE c.status = 'DEAD' AND c.dlq_published_at IS NULL
		ORDER BY c.dead_at LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("read dead letters: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (deadLetter, error) {
		var d deadLetter
		var b body
		err := row.Scan(append([]any{&d.ID, &d.AccountID, &d.SubscriptionID, &d.Attempts, &d.Replays,
			&d.LastHTTPCode, &d.LastError, &d.CreatedAt, &d.DeadAt}, b.scan()...)...)
		if err != nil {
			return d, err
		}
		d.Reference = b.stream.Refs.SubscriptionReference
		d.Payload, _, err = b.build()
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("read dead letters: %w", err)
	}
	return out, nil
}

func (s *store) markPublished(ctx context.Context, ids []string, now time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE deliveries SET dlq_published_at = $2 WHERE id = ANY($1::uuid[]) AND status = 'DEAD'`, ids, now)
	if err != nil {
		return fmt.Errorf("mark dead letters published: %w", err)
	}
	return nil
}
