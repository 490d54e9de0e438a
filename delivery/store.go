package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/schemas"
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

// hostExpr is a webhook's target URL's host[:port] in SQL, lower-cased —
// the same as endpointHost in Go; keyExpr its endpoint key, the same as
// endpointKey.
const (
	hostExpr = `coalesce(lower(substring(w.target_url from '^[^:/?#]+://(?:[^@/?#]*@)?([^/?#]*)')), '')`
	keyExpr  = `w.account_id::text || '|' || ` + hostExpr
)

// store is the delivery state in Postgres.
type store struct {
	pool *pgxpool.Pool
	cfg  Config
	// instance owns the leases this process takes; its heartbeat in
	// delivery_instances says it is alive. Without one (uuid.Nil) leases
	// have no owner and wait for lease_until.
	instance uuid.UUID
}

// owner is the lease_owner of leases taken by this process.
func (s *store) owner() any {
	if s.instance == uuid.Nil {
		return nil
	}
	return s.instance
}

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

// subscriptionLockClass is the first key of the two-key advisory locks that
// serialise, per subscription, queuing events and closing deliveries, so an
// event queued while its subscription's delivery closes is always batched
// by one or the other. The second key is hashtext(subscription id); locks
// are taken in key order, so two transactions never wait on each other in
// a cycle. (Two-key advisory locks never collide with the single-key ones
// of the relay and the migrator.)
const subscriptionLockClass = 7_402_130

// lockSQL locks the subscriptions an SQL expression yields. It must be a
// statement of its own, before the ones that rely on the locks: a statement
// reads from a snapshot taken when it starts, before any lock it takes.
func lockSQL(subs string) string {
	return `SELECT pg_advisory_xact_lock(` + strconv.Itoa(subscriptionLockClass) + `, h)
		FROM (SELECT DISTINCT hashtext(id::text) AS h FROM (` + subs + `) AS s(id)) AS k ORDER BY h`
}

// openSQL opens a delivery for every subscription an SQL expression yields
// that has queued events and no open delivery of its ordered stream,
// batching its oldest queued events (at most @max_events, and @max_bytes of
// event JSON unless a single event is larger). The caller holds the
// subscriptions' locks, taken by an earlier statement.
func openSQL(subs string) string {
	return `
	WITH idle AS (
		SELECT s.id, s.account_id FROM subscriptions s
		WHERE s.id IN (` + subs + `)
		  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.subscription_id = s.id
		                  AND d.status IN ('PENDING', 'FAILED') AND NOT d.replayed)
	), cand AS (
		SELECT q.id, i.id AS subscription_id, i.account_id,
		       row_number() OVER w AS n, sum(octet_length(q.event)) OVER w AS bytes
		FROM idle i CROSS JOIN LATERAL (
			SELECT q.id, q.event FROM delivery_queue q
			WHERE q.subscription_id = i.id AND q.delivery_id IS NULL
			ORDER BY q.id LIMIT @max_events) q
		WINDOW w AS (PARTITION BY i.id ORDER BY q.id)
	), pick AS (
		SELECT id, subscription_id, account_id FROM cand WHERE n = 1 OR bytes <= @max_bytes
	), opened AS (
		INSERT INTO deliveries (id, account_id, subscription_id, status, event_count, next_attempt_at, created_at, updated_at)
		SELECT gen_random_uuid(), account_id, subscription_id, 'PENDING', count(*), @now, @now, @now
		FROM pick GROUP BY subscription_id, account_id
		RETURNING id, subscription_id
	)
	UPDATE delivery_queue q SET delivery_id = o.id
	FROM pick p JOIN opened o ON o.subscription_id = p.subscription_id
	WHERE q.id = p.id`
}

// queueSQL queues events (@trackings, @event_ids, @hashes, @emitted,
// @events: one element per event, one event per tracking at most) for the
// OPEN subscriptions of their trackings whose account has an activated
// webhook, unless it is a repeat (see queueRepeat). A
// subscription with neither an open delivery nor queued events — the usual
// case — gets a delivery of the event at once, the queue row born batched.
// The caller holds the subscriptions' locks.
//
// Every lookup is written as a per-event probe (a LATERAL fenced by OFFSET
// 0, EXISTS in the select list), so the plan stays index probes whatever
// the statistics say: on tables just filled (a new deployment's first
// burst) the planner would otherwise scan every open subscription and
// delivery for each batch.
const queueSQL = `
	WITH ev AS (
		SELECT * FROM unnest(@trackings::uuid[], @event_ids::text[], @hashes::text[], @emitted::timestamptz[], @events::bytea[],
		                     @traceparents::text[])
			AS e(tracking_id, event_id, hash, emitted_at, event, traceparent)
	), fresh AS (
		SELECT s.id, s.account_id, ev.event_id, ev.hash, ev.emitted_at, ev.event, ev.traceparent,
		       CASE WHEN NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.subscription_id = s.id
		                             AND d.status IN ('PENDING', 'FAILED') AND NOT d.replayed)
		             AND NOT EXISTS (SELECT 1 FROM delivery_queue q WHERE q.subscription_id = s.id AND q.delivery_id IS NULL)
		            THEN gen_random_uuid() END AS delivery_id
		FROM ev CROSS JOIN LATERAL (
			SELECT s.id, s.account_id FROM subscriptions s
			JOIN webhooks w ON w.account_id = s.account_id AND w.activated
			WHERE s.tracking_id = ev.tracking_id AND s.status = 'OPEN'
			  AND NOT coalesce((SELECT q.content_hash = ev.hash FROM delivery_queue q
			                    WHERE q.subscription_id = s.id AND q.event_id = ev.event_id
			                    ORDER BY q.id DESC LIMIT 1), false)
			OFFSET 0) s
	), queued AS (
		INSERT INTO delivery_queue (subscription_id, event_id, content_hash, emitted_at, event, enqueued_at, delivery_id, traceparent)
		SELECT id, event_id, hash, emitted_at, event, @now, delivery_id, NULLIF(traceparent, '') FROM fresh
		ON CONFLICT (subscription_id, event_id, emitted_at, content_hash) DO NOTHING
		RETURNING delivery_id
	), opened AS (
		-- Only for rows actually queued: never a delivery without its event.
		-- The first of them (see leaseGrant) are leased to the caller at birth.
		INSERT INTO deliveries (id, account_id, subscription_id, status, event_count, next_attempt_at, created_at, updated_at,
		                        lease_until, lease_token, lease_owner)
		SELECT delivery_id, account_id, id, 'PENDING', 1, @now, @now, @now,
		       CASE WHEN lease THEN @lease_until::timestamptz END, CASE WHEN lease THEN @token::uuid END,
		       CASE WHEN lease THEN @owner::uuid END
		FROM (
			-- Eligible: within the per-account bound and not skipped; the
			-- first @lease_max eligible, round-robin over accounts, lease.
			SELECT *, eligible AND row_number() OVER (PARTITION BY eligible ORDER BY per_account, delivery_id) <= @lease_max AS lease
			FROM (
				SELECT *, per_account <= @lease_per_account AND NOT (account_id = ANY(@lease_skip::uuid[])) AS eligible
				FROM (
					SELECT f.*, row_number() OVER (PARTITION BY f.account_id ORDER BY f.delivery_id) AS per_account
					FROM fresh f WHERE f.delivery_id IN (SELECT delivery_id FROM queued)) f) f) f
		RETURNING id, account_id, subscription_id, created_at, lease_token
	)
	SELECT o.id::text, o.account_id::text, o.subscription_id::text, o.created_at, o.lease_token IS NOT NULL,
	       a.env, w.target_url, w.secret_enc, s.reference, s.container_number, s.bill_number, s.booking_number, s.scac,
	       ARRAY[f.event], ARRAY[f.traceparent]
	FROM opened o JOIN fresh f ON f.delivery_id = o.id
	JOIN accounts a ON a.id = o.account_id
	JOIN webhooks w ON w.account_id = o.account_id
	JOIN subscriptions s ON s.id = o.subscription_id`

// queueRepeat is the rule that makes queuing idempotent without losing a
// version. An event record is one emission of one version of an event: the
// normaliser emits a version only when its content differs from the one it
// emitted last for that tracking, and stamps it with emittedAt, which every
// replay of the record carries unchanged. So a record is a repeat, and is
// skipped, when
//
//   - the same emission (subscription, event id, emittedAt, content hash) is
//     queued already: Kafka delivered the record again (at-least-once
//     consumption, a rebalance before the offset commit) — the unique key; or
//   - its content equals the version last queued for that subscription and
//     event: the normaliser emitted the unchanged event again (its dedupe
//     state was lost in a crash after its transaction committed).
//
// Anything else is a change after the version last queued — a return to an
// earlier content (A → B → A) included — and is queued and delivered, in
// order. Content alone (the former key) cannot tell the third A from a
// replay of the first; emittedAt alone would push a re-emitted unchanged
// event twice, and the Kafka offset would too (and is gone if the topic is
// ever copied). Both rules together never drop a change.
//
// queueTargets are the subscriptions events of @trackings go to.
const queueTargets = `
	SELECT s.id FROM subscriptions s JOIN webhooks w ON w.account_id = s.account_id
	WHERE s.tracking_id = ANY(@trackings::uuid[]) AND s.status = 'OPEN' AND w.activated`

// asyncCommit makes the transaction it starts commit without waiting for
// its WAL to reach disk. Claims use it: a database crash may forget the
// last few hundred milliseconds of leases, which only makes those
// deliveries due again — sent again with the same webhook-id and body, the
// at-least-once promise. So do outcomes that close no delivery (failures to
// retry, releases). Outcomes that close one open the next delivery, whose id
// (webhook-id) a receiver may see at once: they commit synchronously, and so
// do queued events, acknowledged to Kafka after their commit.
const asyncCommit = `SELECT set_config('synchronous_commit', 'off', true)`

// runBatch sends statements in one round trip, as one implicit transaction
// (all or nothing), and returns each one's affected row count.
func (s *store) runBatch(ctx context.Context, stmts []string, args pgx.NamedArgs) ([]int64, error) {
	b := &pgx.Batch{}
	for _, q := range stmts {
		b.Queue(q, args)
	}
	res := s.pool.SendBatch(ctx, b)
	n := make([]int64, len(stmts))
	var err error
	for i := range stmts {
		tag, e := res.Exec()
		if e != nil {
			err = e
			break
		}
		n[i] = tag.RowsAffected()
	}
	if cerr := res.Close(); err == nil {
		err = cerr
	}
	return n, err
}

func (s *store) openArgs(now time.Time) pgx.NamedArgs {
	return pgx.NamedArgs{"max_events": s.cfg.MaxBatchEvents, "max_bytes": s.cfg.MaxBatchBytes, "now": now}
}

// queued is one event to queue: its record, tracking, and the traceparent
// of its fan-out span ("" when not sampled), which every attempt continues.
type queued struct {
	ev          schemas.EventRecord
	tracking    uuid.UUID
	traceparent string
}

// leaseGrant lets enqueue lease the deliveries it opens to this process at
// birth, so they are sent at once, without a claim: at most Max in all and
// PerAccount per account, none of Skip's accounts (their endpoint is busy).
// A zero grant leases none; those are claimed as usual.
type leaseGrant struct {
	Max, PerAccount int
	Skip            []uuid.UUID
	Token           uuid.UUID
	Until           time.Time
}

// enqueue queues events (at most one per tracking) for every OPEN
// subscription of their trackings whose account has an activated webhook,
// skipping repeats (queueRepeat), and opens a delivery for
// each such subscription that has neither an open delivery nor queued
// events. It returns the deliveries it leased under g, ready to send, and
// the accounts of those it opened without a lease (to be claimed). One
// transaction, one round trip.
func (s *store) enqueue(ctx context.Context, evs []queued, g leaseGrant, now time.Time) (leased []claimed, unleased []string, err error) {
	trackings := make([]uuid.UUID, len(evs))
	ids, hashes := make([]string, len(evs)), make([]string, len(evs))
	emitted := make([]time.Time, len(evs))
	events := make([][]byte, len(evs))
	traceparents := make([]string, len(evs))
	for i, q := range evs {
		trackings[i], ids[i], hashes[i], events[i] = q.tracking, q.ev.EventID, q.ev.ContentHash, q.ev.Event
		emitted[i], traceparents[i] = q.ev.EmittedAt, q.traceparent
	}
	skip := g.Skip
	if skip == nil {
		skip = []uuid.UUID{}
	}
	args := pgx.NamedArgs{"trackings": trackings, "event_ids": ids, "hashes": hashes, "emitted": emitted, "events": events,
		"traceparents": traceparents, "now": now,
		"lease_max": g.Max, "lease_per_account": g.PerAccount, "lease_skip": skip, "token": g.Token, "lease_until": g.Until,
		"owner": s.owner()}
	b := &pgx.Batch{}
	b.Queue(lockSQL(queueTargets), args)
	b.Queue(queueSQL, args).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			c := claimed{Token: g.Token}
			var isLeased bool
			var refs References
			var events [][]byte
			if err := rows.Scan(append([]any{&c.ID, &c.AccountID, &c.SubscriptionID, &c.CreatedAt, &isLeased, &c.Env,
				&c.TargetURL, &c.SecretEnc}, scanBody(&refs, &events, &c.Traceparents)...)...); err != nil {
				return err
			}
			if !isLeased {
				unleased = append(unleased, c.AccountID)
				continue
			}
			body, err := buildBody(refs, events)
			if err != nil {
				return err
			}
			c.Body, c.EventCount, c.Endpoint = body, 1, endpointKey(c.AccountID, c.TargetURL)
			leased = append(leased, c)
		}
		return rows.Err()
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, nil, fmt.Errorf("queue events: %w", err)
	}
	return leased, unleased, nil
}

// claimed is a delivery leased to this process for one attempt.
type claimed struct {
	ID, AccountID, Env, SubscriptionID string
	Traceparents                       []string // of the body's events, in body order ("" when not sampled)
	Token                              uuid.UUID
	Body                               []byte
	Attempts, RoundAttempts            int
	EventCount                         int
	TargetURL                          string
	SecretEnc                          []byte
	Endpoint                           string // endpointKey: account and host
	CreatedAt                          time.Time
}

// claimLimits says how many more deliveries each endpoint (endpointKey)
// may take: none for Full, Free[i] for Keys[i], Default for any other.
type claimLimits struct {
	Full    []string
	Keys    []string
	Free    []int32
	Default int
}

// bodySelect are the columns a delivery's body is built from, for a
// delivery aliased c joined to its subscription s.
const bodySelect = `s.reference, s.container_number, s.bill_number, s.booking_number, s.scac,
	ARRAY(SELECT q.event FROM delivery_queue q WHERE q.delivery_id = c.id ORDER BY q.id),
	ARRAY(SELECT coalesce(q.traceparent, '') FROM delivery_queue q WHERE q.delivery_id = c.id ORDER BY q.id)`

// scanBody builds a body from the bodySelect columns; traceparents are its
// events' trace contexts, in body order.
func scanBody(refs *References, events *[][]byte, traceparents *[]string) []any {
	return []any{&refs.SubscriptionReference, &refs.EquipmentNumber, &refs.BillNumber, &refs.BookingNumber, &refs.ScacCode, events, traceparents}
}

func buildBody(refs References, events [][]byte) ([]byte, error) {
	raw := make([]json.RawMessage, len(events))
	for i, e := range events {
		raw[i] = e
	}
	return encodePayload(refs, raw)
}

// leaseFree is true of a delivery no live process holds: never leased, its
// lease expired, or its owner's heartbeat is older than InstanceTimeout (the
// owner died: its work resumes in seconds, not when the lease expires).
const leaseFree = `(d.lease_until IS NULL OR d.lease_until <= @now
	OR (d.lease_owner IS NOT NULL AND NOT EXISTS (
		SELECT 1 FROM delivery_instances i WHERE i.id = d.lease_owner AND i.heartbeat_at > @alive_after)))`

// claimSQL leases due deliveries; see claim. It looks at most
// @per_account of the oldest due deliveries of each activated webhook whose
// endpoint (account and host) has room (an index range each), so its cost
// follows the number of webhooks, never the backlog, and a backlog at the
// head of the queue whose endpoint is full or broken never hides another
// endpoint's deliveries.
const claimSQL = `
		WITH hooks AS (
			SELECT w.account_id, ` + keyExpr + ` AS key FROM webhooks w WHERE w.activated
		), cand AS (
			SELECT d.id, d.next_attempt_at, h.key
			FROM hooks h CROSS JOIN LATERAL (
				SELECT d.id, d.next_attempt_at FROM deliveries d
				WHERE d.account_id = h.account_id AND d.status IN ('PENDING', 'FAILED') AND d.next_attempt_at <= @now
				  AND ` + leaseFree + `
				ORDER BY d.next_attempt_at
				LIMIT @per_account) d
			WHERE NOT (h.key = ANY(@full::text[]))
		), ranked AS (
			SELECT id, key, next_attempt_at,
			       row_number() OVER (PARTITION BY key ORDER BY next_attempt_at, id) AS rn
			FROM cand
		), picked AS (
			SELECT r.id FROM ranked r
			LEFT JOIN unnest(@keys::text[], @free::int4[]) AS f(key, free) ON f.key = r.key
			WHERE r.rn <= coalesce(f.free, @default_free)
			ORDER BY r.next_attempt_at
			LIMIT @n
		), locked AS (
			-- Only the rows taken are locked; one claimed meanwhile by another
			-- process is skipped, or re-checked (and dropped) if it committed.
			SELECT d.id FROM deliveries d
			WHERE d.id = ANY(ARRAY(SELECT id FROM picked))
			  AND d.status IN ('PENDING', 'FAILED') AND ` + leaseFree + `
			FOR UPDATE SKIP LOCKED
		), c AS (
			UPDATE deliveries d SET lease_until = @lease_until, lease_token = @token, lease_owner = @owner
			FROM locked l WHERE d.id = l.id
			RETURNING d.id, d.account_id, d.subscription_id, d.attempts, d.round_attempts, d.event_count, d.created_at
		)
		SELECT c.id::text, c.account_id::text, a.env, c.subscription_id::text, c.attempts, c.round_attempts,
		       c.event_count, c.created_at, w.target_url, w.secret_enc, ` + bodySelect + `
		FROM c JOIN webhooks w ON w.account_id = c.account_id
		JOIN accounts a ON a.id = c.account_id
		JOIN subscriptions s ON s.id = c.subscription_id`

// claim leases up to n due deliveries of activated webhooks, oldest due
// first, at most limits allow per endpoint, and builds their bodies. Rows
// locked by another claimer are skipped, not waited for.
func (s *store) claim(ctx context.Context, n int, limits claimLimits, now time.Time) ([]claimed, error) {
	token := uuid.New()
	full := limits.Full
	if full == nil {
		full = []string{}
	}
	keys, free := limits.Keys, limits.Free
	if keys == nil {
		keys, free = []string{}, []int32{}
	}
	var out []claimed
	b := &pgx.Batch{}
	b.Queue(asyncCommit)
	b.Queue(claimSQL, pgx.NamedArgs{"now": now, "full": full, "per_account": max(limits.Default, 1), "keys": keys, "free": free,
		"default_free": limits.Default, "n": n, "lease_until": now.Add(s.cfg.Lease), "token": token,
		"owner": s.owner(), "alive_after": now.Add(-s.cfg.InstanceTimeout)}).Query(func(rows pgx.Rows) error {
		var err error
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (claimed, error) {
			c := claimed{Token: token}
			var refs References
			var events [][]byte
			err := row.Scan(append([]any{&c.ID, &c.AccountID, &c.Env, &c.SubscriptionID, &c.Attempts, &c.RoundAttempts,
				&c.EventCount, &c.CreatedAt, &c.TargetURL, &c.SecretEnc}, scanBody(&refs, &events, &c.Traceparents)...)...)
			if err != nil {
				return c, err
			}
			c.Endpoint = endpointKey(c.AccountID, c.TargetURL)
			c.Body, err = buildBody(refs, events)
			return c, err
		})
		return err
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	return out, nil
}

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
		if o.Status == StatusDelivered || o.Status == StatusDead {
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
				dead_at = CASE WHEN u.status = 'DEAD' THEN u.at END
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

// sweep opens deliveries for subscriptions with queued events and no open
// delivery. Enqueue and record open them as they go; this is the safety net
// (e.g. an event queued by a subscription made while its lock was taken).
func (s *store) sweep(ctx context.Context, now time.Time) (bool, error) {
	stranded := `
		SELECT DISTINCT q.subscription_id FROM delivery_queue q
		WHERE q.delivery_id IS NULL
		  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.subscription_id = q.subscription_id
		                  AND d.status IN ('PENDING', 'FAILED') AND NOT d.replayed)
		LIMIT 1000`
	rows, err := s.pool.Query(ctx, stranded)
	if err != nil {
		return false, fmt.Errorf("sweep: %w", err)
	}
	subs, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil || len(subs) == 0 {
		return false, err
	}
	args := s.openArgs(now)
	args["subs"] = subs
	list := `SELECT unnest(@subs::uuid[])`
	n, err := s.runBatch(ctx, []string{lockSQL(list), openSQL(list)}, args)
	if err != nil {
		return false, fmt.Errorf("sweep: %w", err)
	}
	return n[1] > 0, nil
}

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
		WHERE c.status = 'DEAD' AND c.dlq_published_at IS NULL
		ORDER BY c.dead_at LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("read dead letters: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (deadLetter, error) {
		var d deadLetter
		var refs References
		var events [][]byte
		var traceparents []string
		err := row.Scan(append([]any{&d.ID, &d.AccountID, &d.SubscriptionID, &d.Attempts, &d.Replays,
			&d.LastHTTPCode, &d.LastError, &d.CreatedAt, &d.DeadAt}, scanBody(&refs, &events, &traceparents)...)...)
		if err != nil {
			return d, err
		}
		d.Reference = refs.SubscriptionReference
		d.Payload, err = buildBody(refs, events)
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

// Replay puts a DEAD delivery of account back in the queue: PENDING, due at
// now, with a fresh retry schedule and its earlier attempts kept in its
// history (the attempt count goes on). It is sent outside its subscription's
// ordered stream, the same body and webhook-id as before. ErrNotFound: no
// such delivery of this account (a malformed id included); ErrNotDead: it is
// not dead-lettered.
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
		WITH cur AS (SELECT id, status FROM deliveries WHERE id = $1 AND account_id = $2 FOR UPDATE),
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
