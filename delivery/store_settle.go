package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
)

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
// round trip. It reports whether it opened any delivery and how many died.
// Outcomes whose lease was taken over meanwhile (expired, claimed elsewhere)
// change nothing.
func (s *store) record(ctx context.Context, outs []outcome, now time.Time) (opened bool, died int, err error) {
	var (
		closing, ids, statuses, errs []string
		tokens                       []uuid.UUID
		nexts, ats                   []time.Time
		codes                        []*int32
		relIDs                       []string
		relTokens                    []uuid.UUID
		goneAccts, goneURLs          []string
	)
	for _, o := range outs {
		if o.Gone {
			goneAccts, goneURLs = append(goneAccts, o.c.AccountID), append(goneURLs, o.c.TargetURL)
		}
		if o.Status == "" {
			relIDs, relTokens = append(relIDs, o.c.ID), append(relTokens, o.c.Token)
			continue
		}
		if (o.Status == StatusDelivered || o.Status == StatusDead) && o.c.Kind == kindEvents {
			closing = append(closing, o.c.SubscriptionID)
		}
		if o.Status == StatusDead {
			died++
		}
		ids, tokens, statuses = append(ids, o.c.ID), append(tokens, o.c.Token), append(statuses, o.Status)
		nexts, errs, ats = append(nexts, o.NextAt), append(errs, o.Error), append(ats, o.At)
		var code *int32
		if o.HTTPCode != 0 {
			c := int32(o.HTTPCode)
			code = &c
		}
		codes = append(codes, code)
	}
	args := s.openArgs(now)
	args["closing"], args["ids"], args["tokens"], args["statuses"], args["nexts"] = closing, ids, tokens, statuses, nexts
	args["codes"], args["errs"], args["ats"], args["rel_ids"], args["rel_tokens"] = codes, errs, ats, relIDs, relTokens
	args["gone_accts"], args["gone_urls"] = goneAccts, goneURLs
	var stmts []string
	closingSubs := `SELECT unnest(@closing::uuid[])`
	if len(closing) > 0 {
		stmts = append(stmts, lockSQL(closingSubs))
	} else {
		// Only failures and releases: forgetting them in a crash makes the
		// deliveries due again, nothing else (see asyncCommit).
		stmts = append(stmts, asyncCommit)
	}
	if len(ids) > 0 {
		stmts = append(stmts, `
			UPDATE deliveries d SET
				status = u.status, attempts = d.attempts + 1, round_attempts = d.round_attempts + 1,
				next_attempt_at = u.next_at, last_http_code = u.code, last_error = u.err,
				lease_until = NULL, lease_token = NULL, updated_at = u.at,
				delivered_at = CASE WHEN u.status = 'DELIVERED' THEN u.at END,
				dead_at = CASE WHEN u.status = 'DEAD' THEN u.at END,
				-- A dead message delivery is not published: a dead letter is a
				-- subscription's events (and a verification carries a secret).
				dlq_published_at = CASE WHEN u.status = 'DEAD' AND d.kind <> 'events' THEN u.at ELSE d.dlq_published_at END
			FROM unnest(@ids::uuid[], @tokens::uuid[], @statuses::text[], @nexts::timestamptz[], @codes::int4[],
			            @errs::text[], @ats::timestamptz[]) AS u(id, token, status, next_at, code, err, at)
			WHERE d.id = u.id AND d.lease_token = u.token`)
	}
	if len(relIDs) > 0 {
		stmts = append(stmts, `
			UPDATE deliveries d SET lease_until = NULL, lease_token = NULL
			FROM unnest(@rel_ids::uuid[], @rel_tokens::uuid[]) AS u(id, token)
			WHERE d.id = u.id AND d.lease_token = u.token`)
	}
	if len(goneAccts) > 0 {
		// Deactivated only while still on the URL that answered 410.
		stmts = append(stmts, `
			UPDATE webhooks w SET activated = false, updated_at = @now
			FROM unnest(@gone_accts::uuid[], @gone_urls::text[]) AS g(account_id, url)
			WHERE w.account_id = g.account_id AND w.target_url = g.url AND w.activated`)
	}
	if len(closing) > 0 {
		stmts = append(stmts, openSQL(closingSubs))
	}
	n, err := s.runBatch(ctx, stmts, args)
	if err != nil {
		return false, 0, fmt.Errorf("record outcomes: %w", err)
	}
	return len(closing) > 0 && n[len(n)-1] > 0, died, nil
}
