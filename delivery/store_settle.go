package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/schemas/deliveries"
)

// settleSQL writes one delivery's outcome ($3 its new status), unless its
// lease ($2) was taken over meanwhile.
const settleSQL = `
	UPDATE deliveries SET
		status = $3, attempts = attempts + 1, round_attempts = round_attempts + 1,
		next_attempt_at = $4, last_http_code = $5, last_error = $6,
		lease_until = NULL, lease_token = NULL, updated_at = $7,
		delivered_at = CASE WHEN $3 = 'DELIVERED' THEN $7::timestamptz END,
		dead_at = CASE WHEN $3 = 'DEAD' THEN $7::timestamptz END,
		-- A dead message delivery is not published: a dead letter is a
		-- subscription's events (and a verification carries a secret).
		dlq_published_at = CASE WHEN $3 = 'DEAD' AND kind <> 'events' THEN $7::timestamptz ELSE dlq_published_at END
	WHERE id = $1 AND lease_token = $2`

// outcome is what became of one claimed delivery.
type outcome struct {
	c *claimed
	// Status is the delivery's new status; "" releases the lease without
	// counting an attempt (breaker open, shutdown).
	Status   string
	NextAt   time.Time
	HTTPCode int // 0: no response
	Error    string
	// Gone (410) deactivates the account's webhook if still on this URL.
	Gone bool
	At   time.Time
}

// record writes outcomes and opens the next delivery of every subscription
// whose delivery closed (delivered or dead), in one transaction and one
// round trip. The deliveries it opens are leased under g as enqueue's are
// (a zero grant leases none); it returns them and how many died.
// Outcomes whose lease was taken over meanwhile (expired, claimed elsewhere)
// change nothing.
func (s *store) record(ctx context.Context, outs []outcome, g leaseGrant, now time.Time) (out *opened, died int, err error) {
	var (
		closing             []string
		settled, released   []outcome
		goneAccts, goneURLs []string
	)
	for _, o := range outs {
		if o.Gone {
			goneAccts, goneURLs = append(goneAccts, o.c.AccountID), append(goneURLs, o.c.TargetURL)
		}
		if o.Status == "" {
			released = append(released, o)
			continue
		}
		if o.closes() {
			closing = append(closing, o.c.SubscriptionID)
		}
		if o.Status == deliveries.StatusDead {
			died++
		}
		settled = append(settled, o)
	}
	args := leaseArgs(s.openArgs(now), g)
	args["closing"], args["gone_accts"], args["gone_urls"] = closing, goneAccts, goneURLs
	// One statement per delivery, by its key: an UPDATE joined to the
	// unnested outcomes was planned on the table's young statistics as a
	// scan of every delivery, a plan the connection then kept (Postgres
	// re-plans only after an ANALYZE): 1.8 ms a settle and growing with
	// the table, Postgres's largest statement at 200 events/s (7.2 of
	// 19.3 s of statement time, docs/performance.md).
	b := &pgx.Batch{}
	b.Queue(postgres.GenericPlan)
	b.Queue(postgres.KeyedPlan) // openSQL probes, whatever the statistics
	if len(closing) > 0 {
		b.Queue(lockClosing.SQL, lockClosing.Args(args)...)
	} else {
		// Only failures and releases: forgetting them in a crash makes the
		// deliveries due again, nothing else (see asyncCommit).
		b.Queue(asyncCommit)
	}
	for _, o := range settled {
		var code *int32
		if o.HTTPCode != 0 {
			c := int32(o.HTTPCode)
			code = &c
		}
		b.Queue(settleSQL, o.c.ID, o.c.Token, o.Status, o.NextAt, code, o.Error, o.At)
	}
	for _, o := range released {
		b.Queue(`UPDATE deliveries SET lease_until = NULL, lease_token = NULL WHERE id = $1 AND lease_token = $2`, o.c.ID, o.c.Token)
	}
	if len(goneAccts) > 0 {
		// Deactivated only while still on the URL that answered 410.
		b.Queue(`
			UPDATE webhooks w SET activated = false, updated_at = @now
			FROM unnest(@gone_accts::uuid[], @gone_urls::text[]) AS g(account_id, url)
			WHERE w.account_id = g.account_id AND w.target_url = g.url AND w.activated`, args)
	}
	out = &opened{}
	if len(closing) > 0 {
		b.Queue(openClosing.SQL, openClosing.Args(args)...).Query(out.scan(g))
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return &opened{}, 0, fmt.Errorf("record outcomes: %w", err)
	}
	return out, died, nil
}

// closes reports whether o ends its subscription's open delivery, so that
// the next one can open.
func (o outcome) closes() bool {
	return (o.Status == deliveries.StatusDelivered || o.Status == deliveries.StatusDead) && o.c.Kind == deliveries.KindEvents
}

// The statements opening the deliveries that follow those an outcome
// closed, rewritten for their arguments once.
var (
	closingSubs = `SELECT unnest(@closing::uuid[])`
	lockClosing = postgres.NewNamed(lockSQL(closingSubs))
	openClosing = postgres.NewNamed(openSQL(closingSubs))
)
