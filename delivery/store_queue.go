package delivery

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/schemas"
)

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
// subscriptions' locks, taken by an earlier statement. Subscriptions are
// probed one by one (see queueSQL).
func openSQL(subs string) string {
	return `
	WITH idle AS (
		SELECT s.id, s.account_id FROM (SELECT DISTINCT id FROM (` + subs + `) AS l(id)) AS l CROSS JOIN LATERAL (
			SELECT s.id, s.account_id FROM subscriptions s
			WHERE s.id = l.id
			  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.subscription_id = s.id
			                  AND d.status IN ('PENDING', 'FAILED') AND NOT d.replayed)
			OFFSET 0) s
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
// 0, EXISTS in the select list), and what the answer needs of the
// subscription, its webhook and account is read by that probe, so the plan
// stays index probes whatever the statistics say: on tables just filled (a
// new deployment's first burst) the planner would otherwise scan every open
// subscription and delivery for each batch — and a plan made then is kept
// by the connection until the table is next analysed.
const queueSQL = `
	WITH ev AS (
		SELECT * FROM unnest(@trackings::uuid[], @event_ids::text[], @hashes::text[], @emitted::timestamptz[], @events::bytea[],
		                     @traceparents::text[])
			AS e(tracking_id, event_id, hash, emitted_at, event, traceparent)
	), fresh AS (
		SELECT s.*, ev.event_id, ev.hash, ev.emitted_at, ev.event, ev.traceparent,
		       CASE WHEN NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.subscription_id = s.id
		                             AND d.status IN ('PENDING', 'FAILED') AND NOT d.replayed OFFSET 0)
		             AND NOT EXISTS (SELECT 1 FROM delivery_queue q WHERE q.subscription_id = s.id AND q.delivery_id IS NULL
		                             OFFSET 0)
		            THEN gen_random_uuid() END AS delivery_id
		FROM ev CROSS JOIN LATERAL (
			SELECT s.id, s.account_id, a.env, w.target_url, w.secret_enc, s.reference, s.container_number,
			       s.bill_number, s.booking_number, s.scac
			FROM subscriptions s
			JOIN webhooks w ON w.account_id = s.account_id AND w.activated
			JOIN accounts a ON a.id = s.account_id
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
	       f.env, f.target_url, f.secret_enc, f.reference, f.container_number, f.bill_number, f.booking_number, f.scac,
	       ARRAY[f.event], ARRAY[f.traceparent]
	FROM opened o JOIN fresh f ON f.delivery_id = o.id`

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
// A probe per tracking, like queueSQL's: as a join (tracking_id = ANY)
// the plan made on young statistics scanned every open subscription.
const queueTargets = `
	SELECT s.id FROM unnest(@trackings::uuid[]) AS t(id) CROSS JOIN LATERAL (
		SELECT s.id FROM subscriptions s JOIN webhooks w ON w.account_id = s.account_id
		WHERE s.tracking_id = t.id AND s.status = 'OPEN' AND w.activated
		OFFSET 0) s`

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
	b, out := s.enqueueBatch(evs, g, now)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, nil, fmt.Errorf("queue events: %w", err)
	}
	return out.leased, out.unleased, nil
}

// enqueued is what enqueue's batch returns once it has run.
type enqueued struct {
	leased   []claimed
	unleased []string
}

// enqueueBatch is enqueue's transaction as a pgx batch (one implicit
// transaction); out is filled as it runs.
func (s *store) enqueueBatch(evs []queued, g leaseGrant, now time.Time) (b *pgx.Batch, out *enqueued) {
	out = &enqueued{}
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
	b = &pgx.Batch{}
	b.Queue(postgres.GenericPlan)
	// Probes only, whatever the statistics: a young table's plan scanned
	// every open subscription for each event (docs/performance.md).
	b.Queue(postgres.KeyedPlan)
	b.Queue(lockSQL(queueTargets), args)
	b.Queue(queueSQL, args).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			c := claimed{Token: g.Token, Kind: kindEvents}
			var isLeased bool
			var refs References
			var events [][]byte
			if err := rows.Scan(append([]any{&c.ID, &c.AccountID, &c.SubscriptionID, &c.CreatedAt, &isLeased, &c.Env,
				&c.TargetURL, &c.SecretEnc}, scanBody(&refs, &events, &c.Traceparents)...)...); err != nil {
				return err
			}
			if !isLeased {
				out.unleased = append(out.unleased, c.AccountID)
				continue
			}
			body, err := buildBody(refs, events)
			if err != nil {
				return err
			}
			c.Body, c.EventCount, c.Endpoint = body, 1, endpointKey(c.AccountID, c.TargetURL)
			out.leased = append(out.leased, c)
		}
		return rows.Err()
	})
	return b, out
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
	n, err := s.runBatch(ctx, []string{postgres.GenericPlan, postgres.KeyedPlan, lockSQL(list), openSQL(list)}, args)
	if err != nil {
		return false, fmt.Errorf("sweep: %w", err)
	}
	return n[3] > 0, nil
}
