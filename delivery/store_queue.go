package delivery

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/deliveries"
	"github.com/contrack/contrack/schemas/eventfilter"
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

// cursorSQL is the cursor of subscription s.id: the highest queue_to of
// its deliveries (0 for none). Its rows above the cursor are queued and
// not yet in a delivery (migration 0029).
const cursorSQL = `coalesce((SELECT d.queue_to FROM deliveries d WHERE d.subscription_id = s.id AND d.queue_to IS NOT NULL
	ORDER BY d.queue_to DESC LIMIT 1), 0)`

// openSQL opens a delivery for every subscription an SQL expression yields
// that has no open delivery of its ordered stream and events queued above
// its cursor, batching the oldest of its queue rows (whole rows, at most
// @max_events events and @max_bytes of event JSON unless the first row is
// larger) as the range queue_from..queue_to: no queue row is written. The caller holds the
// subscriptions' locks, taken by an earlier statement. Subscriptions are
// probed one by one (see queueSQL).
//
// The first @lease_max eligible deliveries — within @lease_per_account per
// account, none of @lease_skip's accounts, the account's webhook activated
// — are leased to the caller at birth, round-robin over accounts (see
// leaseGrant), and returned with their bodies; the others are returned
// without (to be claimed).
func openSQL(subs string) string {
	return `
	WITH idle AS MATERIALIZED (
		-- Materialized: the cursor is then a value the lateral scan below
		-- probes the queue's key (subscription_id, id) with (inlined, it
		-- became a subplan, and the plan a scan of an index on id from it).
		SELECT s.id, s.account_id, ` + cursorSQL + ` AS cursor
		FROM (SELECT DISTINCT id FROM (` + subs + `) AS l(id)) AS l CROSS JOIN LATERAL (
			SELECT s.id, s.account_id FROM subscriptions s
			WHERE s.id = l.id
			  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.subscription_id = s.id
			                  AND d.status IN ('PENDING', 'FAILED') AND NOT d.replayed)
			OFFSET 0) s
	), cand AS (
		SELECT q.id, i.id AS subscription_id, i.account_id, q.event_count,
		       row_number() OVER w AS n, sum(q.event_count) OVER w AS events, sum(q.bytes) OVER w AS bytes
		FROM idle i CROSS JOIN LATERAL (
			-- The rows above the cursor as a row comparison, which only
			-- the key (subscription_id, id) can probe: on small tables the
			-- planner took an index on id from the cursor, filtered by
			-- subscription, reading other subscriptions' rows. A row holds
			-- at least one event: @max_events rows are always enough.
			SELECT q.id, q.event_count, q.bytes FROM delivery_queue q
			WHERE q.subscription_id = i.id AND (q.subscription_id, q.id) > (i.id, i.cursor)
			ORDER BY q.subscription_id, q.id LIMIT @max_events) q
		WINDOW w AS (PARTITION BY i.id ORDER BY q.id)
	), batch AS (
		-- Whole rows, the first always, then while the limits hold: the
		-- sums only grow, so what is taken is a contiguous range.
		SELECT c.subscription_id, c.account_id, min(c.id) AS queue_from, max(c.id) AS queue_to, sum(c.event_count) AS events,
		       coalesce(bool_or(w.activated), false) AS activated
		FROM cand c LEFT JOIN webhooks w ON w.account_id = c.account_id
		WHERE c.n = 1 OR (c.events <= @max_events AND c.bytes <= @max_bytes)
		GROUP BY c.subscription_id, c.account_id
	), leasing AS (
		SELECT *, eligible AND row_number() OVER (PARTITION BY eligible ORDER BY per_account, subscription_id) <= @lease_max AS lease
		FROM (
			SELECT *, activated AND per_account <= @lease_per_account AND NOT (account_id = ANY(@lease_skip::uuid[])) AS eligible
			FROM (
				SELECT b.*, row_number() OVER (PARTITION BY b.account_id ORDER BY b.subscription_id) AS per_account
				FROM batch b) b) b
	), opened AS (
		INSERT INTO deliveries (id, account_id, subscription_id, status, event_count, queue_from, queue_to, next_attempt_at,
		                        created_at, updated_at, lease_until, lease_token, lease_owner)
		SELECT gen_random_uuid(), account_id, subscription_id, 'PENDING', events, queue_from, queue_to, @now, @now, @now,
		       CASE WHEN lease THEN @lease_until::timestamptz END, CASE WHEN lease THEN @token::uuid END,
		       CASE WHEN lease THEN @owner::uuid END
		FROM leasing
		RETURNING id, account_id, subscription_id, created_at, lease_token, event_count, queue_from, queue_to
	)
	SELECT c.id::text, c.account_id::text, c.subscription_id::text, c.created_at, c.leased, c.event_count,
	       a.env, coalesce(w.target_url, ''), w.secret_enc, w.auth_headers_enc, ` + bodySelect + `
	FROM (
		-- Only a leased delivery's body is read (the range of the others
		-- reads as NULL, their lists as empty): the others are claimed.
		SELECT o.id, o.account_id, o.subscription_id, o.created_at, o.event_count, o.lease_token IS NOT NULL AS leased,
		       CASE WHEN o.lease_token IS NOT NULL THEN o.queue_from END AS queue_from, o.queue_to
		FROM opened o) c
	JOIN subscriptions s ON s.id = c.subscription_id
	JOIN accounts a ON a.id = c.account_id
	LEFT JOIN webhooks w ON w.account_id = c.account_id AND c.leased` + bodyJoin
}

// queueSQL queues events (@trackings, @event_ids, @hashes, @emitted,
// @events, @probes: one element per event, a tracking's in order) for the
// OPEN subscriptions of their trackings whose account is active (not
// disabled, a key left) and has an activated webhook, unless it is a
// repeat (see queueRepeat). A subscription's events of one @chunks number
// go into one queue row, in order (enqueueBatch numbers a tracking's
// events so that a row stays within a delivery's batch limits), and rows
// get queue ids in that order. An event is compared with the version
// queued before this statement only where @probes says so: a tracking's
// later versions of the same event in one statement were compared with
// the version before them already (repeatsInBatch); its emission always
// is. The statement then records each subscription's last version of
// every event it queued in delivery_versions (migration 0075). The caller
// holds the subscriptions' locks; openSQL then batches what it queued.
//
// Every lookup is written as a per-event probe (a LATERAL fenced by OFFSET
// 0), so the plan stays index probes whatever the statistics say: on
// tables just filled (a new deployment's first burst) the planner would
// otherwise scan every open subscription for each batch — and a plan made
// then is kept by the connection until the table is next analysed.
//
// A retraction (content hash schemas.RetractedHash) is queued with the
// event it withdraws as that subscription last got it — from @events when
// an earlier element of the statement is that version (@lookups false),
// else the bytes of the version last queued (a retraction's own row holds
// the version it withdrew) — and not at all for a subscription that never
// got the event: its payload then carries that version (see
// deliveries.Payload.RetractedEventIDs).
const queueSQL = `
	WITH ev AS (
		SELECT * FROM unnest(@trackings::uuid[], @event_ids::text[], @hashes::text[], @emitted::timestamptz[], @events::bytea[],
		                     @traceparents::text[], @probes::bool[], @lookups::bool[], @tags::text[], @alert_types::text[],
		                     @change_minutes::int[], @chunks::int[], @history_for::text[], @history_except::text[],
		                     @tnt3_only::bool[]) WITH ORDINALITY
			AS e(tracking_id, event_id, hash, emitted_at, event, traceparent, probe, lookup, tags, alert_type, change_minutes, chunk,
			     history_for, history_except, tnt3_only, ord)
	), cand AS (
		SELECT s.id AS subscription_id, ev.chunk, ev.ord, ev.event_id, ev.hash, ev.emitted_at, coalesce(s.last, ev.event) AS event,
		       ev.traceparent, s.known
		FROM ev CROSS JOIN LATERAL (
			SELECT s.id, l.event AS last, v.queue_id IS NOT NULL AS known FROM subscriptions s
			JOIN webhooks w ON w.account_id = s.account_id AND w.activated
			JOIN accounts a ON a.id = s.account_id AND a.active
			-- The version last queued for the subscription and event.
			LEFT JOIN LATERAL (
				SELECT v.content_hash, v.queue_id, v.queue_pos, v.emissions FROM delivery_versions v
				WHERE v.subscription_id = s.id AND v.event_id = ev.event_id
				OFFSET 0) v ON true
			-- A retraction's event as last queued (only for retractions).
			LEFT JOIN LATERAL (
				SELECT q.events[v.queue_pos] AS event FROM delivery_queue q
				WHERE ev.lookup AND q.subscription_id = s.id AND q.id = v.queue_id
				OFFSET 0) l ON true
			WHERE s.tracking_id = ev.tracking_id AND s.status = 'OPEN'
			  -- History on subscribe: a history record goes to its
			  -- subscriptions only; the new events beside it skip them.
			  AND (ev.history_for = '' OR s.id::text = ANY(string_to_array(ev.history_for, ',')))
			  AND NOT (s.id::text = ANY(string_to_array(ev.history_except, ',')))
			  -- The webhook's filters (schemas/eventfilter); a retraction
			  -- follows its event (queued only where the event went).
			  AND (ev.lookup OR CASE WHEN ev.alert_type <> ''
			      THEN ev.alert_type = ANY(w.alert_types)
			           AND (ev.change_minutes IS NULL
			                OR abs(ev.change_minutes) >= coalesce(s.eta_threshold_minutes, a.eta_threshold_minutes, ` + defaultETAThreshold + `))
			      ELSE (w.filter_event_types IS NULL OR string_to_array(ev.tags, ',') && w.filter_event_types)
			           AND (w.filter_classifiers IS NULL OR string_to_array(ev.tags, ',') && w.filter_classifiers)
			           AND (NOT w.filter_milestones_only OR string_to_array(ev.tags, ',') && @milestone_kinds::text[]) END)
			  -- A 3.0-only event (SHIPMENT, IOT, REEFER), or the retraction
			  -- of one, goes to TNT_3.0.0 webhooks only: EVENT_DOMAIN 2.0.2
			  -- has no form for it.
			  AND (NOT ev.tnt3_only OR w.event_format = '` + deliveries.FormatTNT3 + `')
			  -- queueRepeat: the same emission, or the version last queued.
			  AND NOT coalesce(delivery_emission(ev.hash, ev.emitted_at) = ANY(v.emissions), false)
			  AND NOT (ev.probe AND coalesce(v.content_hash = hashtextextended(ev.hash, 0), false))
			  AND (NOT ev.lookup OR l.event IS NOT NULL)
			OFFSET 0) s
	), queued AS (
		INSERT INTO delivery_queue (subscription_id, event_count, bytes, enqueued_at, event_ids, content_hashes, emitted_at, events,
		                            traceparents)
		SELECT subscription_id, count(*), sum(octet_length(event)), @now, array_agg(event_id ORDER BY ord), array_agg(hash ORDER BY ord),
		       array_agg(emitted_at ORDER BY ord), array_agg(event ORDER BY ord), array_agg(traceparent ORDER BY ord)
		FROM cand GROUP BY subscription_id, chunk
		-- Ids are given out in this order: a subscription's rows queue in turn.
		ORDER BY min(ord)
		RETURNING subscription_id, id, event_ids, content_hashes, emitted_at
	), placed AS (
		SELECT q.subscription_id, q.id, u.pos, u.event_id, u.hash, delivery_emission(u.hash, u.emitted_at) AS emission
		FROM queued q CROSS JOIN LATERAL unnest(q.event_ids, q.content_hashes, q.emitted_at) WITH ORDINALITY AS u(event_id, hash, emitted_at, pos)
	), latest AS (
		-- Each subscription's last version of each event, and the
		-- emissions queued, in order.
		SELECT p.subscription_id, p.event_id, coalesce(k.known, false) AS known,
		       hashtextextended((array_agg(p.hash ORDER BY p.id DESC, p.pos DESC))[1], 0) AS hash,
		       (array_agg(p.id ORDER BY p.id DESC, p.pos DESC))[1] AS queue_id, (array_agg(p.pos ORDER BY p.id DESC, p.pos DESC))[1] AS queue_pos,
		       array_agg(p.emission ORDER BY p.id, p.pos) AS emissions
		FROM placed p
		LEFT JOIN (SELECT DISTINCT subscription_id, event_id, true AS known FROM cand WHERE known) k
		       ON k.subscription_id = p.subscription_id AND k.event_id = p.event_id
		GROUP BY p.subscription_id, p.event_id, k.known
	), updated AS (
		UPDATE delivery_versions v SET content_hash = l.hash, queue_id = l.queue_id, queue_pos = l.queue_pos,
			-- The newest ` + keptEmissions + ` (migration 0075).
			emissions = (v.emissions || l.emissions)[greatest(cardinality(v.emissions) + cardinality(l.emissions) - ` + keptEmissions + ` + 1, 1):]
		FROM latest l WHERE l.known AND v.subscription_id = l.subscription_id AND v.event_id = l.event_id
	)
	-- A plain insert of the events new to the subscription, not an upsert
	-- (whose speculative insertion writes a record more): the
	-- subscription's lock keeps out any other insert of the same key.
	INSERT INTO delivery_versions (subscription_id, event_id, content_hash, queue_id, queue_pos, emissions)
	SELECT subscription_id, event_id, hash, queue_id, queue_pos, emissions FROM latest WHERE NOT known`

// The statements of enqueue, rewritten for their arguments once.
var (
	lockQueueTargets = postgres.NewNamed(lockSQL(queueTargets))
	queueNamed       = postgres.NewNamed(queueSQL)
	openQueueTargets = postgres.NewNamed(openSQL(queueTargets))
)

// keptEmissions is how many emissions of an event delivery_versions keeps
// per subscription (migration 0075).
const keptEmissions = "32"

// queueRepeat is the rule that makes queuing idempotent without losing a
// version. An event record is one emission of one version of an event: the
// normaliser emits a version only when its content differs from the one it
// emitted last for that tracking, and stamps it with emittedAt, which every
// replay of the record carries unchanged. So a record is a repeat, and is
// skipped, when
//
//   - the same emission (subscription, event id, emittedAt, content hash) is
//     queued already: Kafka delivered the record again (at-least-once
//     consumption, a rebalance before the offset commit) — the emissions
//     delivery_versions lists for the subscription and event; or
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
		JOIN accounts a ON a.id = s.account_id AND a.active
		WHERE s.tracking_id = t.id AND s.status = 'OPEN' AND w.activated
		OFFSET 0) s`

// openArgs are openSQL's arguments, leasing nothing.
func (s *store) openArgs(now time.Time) pgx.NamedArgs {
	return pgx.NamedArgs{"max_events": s.cfg.MaxBatchEvents, "max_bytes": s.cfg.MaxBatchBytes, "now": now,
		"lease_max": 0, "lease_per_account": 0, "lease_skip": []uuid.UUID{}, "token": uuid.Nil, "lease_until": now,
		"owner": s.owner()}
}

// queued is one event to queue: its record, tracking, and the traceparent
// of its fan-out span ("" when not sampled), which every attempt continues.
type queued struct {
	ev          schemas.EventRecord
	tracking    uuid.UUID
	traceparent string
	// filter is what the webhooks' filters judge of it.
	filter eventfilter.Record
	// historyFor and historyExcept are the record's history targeting
	// (schemas.HeaderHistoryFor, HeaderHistoryExcept): comma-separated
	// subscription ids, "" for none.
	historyFor, historyExcept string
}

// defaultETAThreshold is the ETA move (minutes) an ETA_CHANGED alert needs
// when neither the subscription nor the account set one: 6 hours.
const defaultETAThreshold = "360"

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

// enqueue queues events (a tracking's in order) for every OPEN
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

// opened is what an openSQL statement made: the deliveries leased at birth
// (with their bodies, to be handed off) and the accounts of the others (to
// be claimed).
type opened struct {
	leased   []claimed
	unleased []string
}

// scan reads an openSQL statement's rows, the deliveries leased under g.
func (o *opened) scan(g leaseGrant) func(pgx.Rows) error {
	return func(rows pgx.Rows) error {
		for rows.Next() {
			c := claimed{Token: g.Token, Kind: deliveries.KindEvents}
			var isLeased bool
			var b body
			if err := rows.Scan(append([]any{&c.ID, &c.AccountID, &c.SubscriptionID, &c.CreatedAt, &isLeased, &c.EventCount, &c.Env,
				&c.TargetURL, &c.SecretEnc, &c.AuthHeadersEnc}, b.scan()...)...); err != nil {
				return err
			}
			if !isLeased {
				o.unleased = append(o.unleased, c.AccountID)
				continue
			}
			var err error
			if c.Body, c.APIVersion, err = b.build(); err != nil {
				return err
			}
			c.Endpoint, c.Traceparents = endpointKey(c.AccountID, c.TargetURL), b.traceparents
			o.leased = append(o.leased, c)
		}
		return rows.Err()
	}
}

// leaseArgs sets openSQL's lease parameters in args from g.
func leaseArgs(args pgx.NamedArgs, g leaseGrant) pgx.NamedArgs {
	skip := g.Skip
	if skip == nil {
		skip = []uuid.UUID{}
	}
	args["lease_max"], args["lease_per_account"], args["lease_skip"] = g.Max, g.PerAccount, skip
	args["token"], args["lease_until"] = g.Token, g.Until
	return args
}

// enqueueBatch is enqueue's transaction as a pgx batch (one implicit
// transaction); out is filled as it runs.
func (s *store) enqueueBatch(evs []queued, g leaseGrant, now time.Time) (b *pgx.Batch, out *opened) {
	out = &opened{}
	evs, probes := repeatsInBatch(evs)
	trackings := make([]uuid.UUID, len(evs))
	ids, hashes := make([]string, len(evs)), make([]string, len(evs))
	emitted := make([]time.Time, len(evs))
	events := make([][]byte, len(evs))
	traceparents := make([]string, len(evs))
	lookups := make([]bool, len(evs))
	historyFor, historyExcept := make([]string, len(evs)), make([]string, len(evs))
	tags, alertTypes, changes := make([]string, len(evs)), make([]string, len(evs)), make([]*int32, len(evs))
	tnt3Only := make([]bool, len(evs))
	for i, q := range evs {
		tags[i], alertTypes[i] = strings.Join(q.filter.Tags, ","), q.filter.AlertType
		if m := q.filter.ChangeMinutes; m != nil {
			v := int32(max(min(*m, math.MaxInt32), math.MinInt32+1))
			changes[i] = &v
		}
		trackings[i], ids[i], hashes[i], events[i] = q.tracking, q.ev.EventID, q.ev.ContentHash, q.ev.Event
		emitted[i], traceparents[i] = q.ev.EmittedAt, q.traceparent
		historyFor[i], historyExcept[i] = q.historyFor, q.historyExcept
		tnt3Only[i] = slices.ContainsFunc(q.filter.Tags, dcsa.IsTNT3Only)
		if q.ev.Retraction() {
			events[i], lookups[i] = lastVersion(evs[:i], q)
			if !lookups[i] {
				// The retraction of the version before it in the batch
				// goes where that version goes.
				var v dcsa.Summary
				tnt3Only[i] = dcsa.DecodeValidSummary(events[i], &v) == nil && dcsa.IsTNT3Only(v.EventType)
			}
		}
	}
	args := s.openArgs(now)
	args["trackings"], args["event_ids"], args["hashes"], args["emitted"] = postgres.UUIDs(trackings), ids, hashes, emitted
	args["events"], args["traceparents"], args["probes"], args["lookups"] = events, traceparents, probes, lookups
	args["tags"], args["alert_types"], args["change_minutes"], args["milestone_kinds"] = tags, alertTypes, changes, eventfilter.MilestoneKinds
	args["chunks"] = s.chunks(evs, events, lookups)
	args["history_for"], args["history_except"], args["tnt3_only"] = historyFor, historyExcept, tnt3Only
	leaseArgs(args, g)
	b = &pgx.Batch{}
	b.Queue(postgres.GenericPlan)
	// Probes only, whatever the statistics: a young table's plan scanned
	// every open subscription for each event (docs/performance.md).
	b.Queue(postgres.KeyedPlan)
	b.Queue(lockQueueTargets.SQL, lockQueueTargets.Args(args)...)
	b.Queue(queueNamed.SQL, queueNamed.Args(args)...)
	// Every target subscription, not only those queued to: one left
	// stranded (see sweep) goes out with its next event, in order.
	b.Queue(openQueueTargets.SQL, openQueueTargets.Args(args)...).Query(out.scan(g))
	return b, out
}

// chunks numbers evs (with the bytes each is queued with, and lookups
// where those come from the queue) so that a tracking's events of one
// number, in a row of one subscription (which drops those its webhook's
// filters leave out), stay within a delivery's batch limits: at most
// MaxBatchEvents events and MaxBatchBytes bytes, or one event. A retraction
// whose bytes the queue supplies (unknown here) has a number of its own.
// Numbers are per tracking, in order: a subscription's rows of a statement
// follow its tracking's events.
func (s *store) chunks(evs []queued, events [][]byte, lookups []bool) []int32 {
	type run struct {
		chunk         int32
		events, bytes int
		alone         bool // the chunk holds a lookup: nothing joins it
	}
	out := make([]int32, len(evs))
	runs := make(map[uuid.UUID]*run, 8)
	for i, q := range evs {
		r := runs[q.tracking]
		n := len(events[i])
		if r == nil {
			r = &run{}
			runs[q.tracking] = r
		} else if r.alone || lookups[i] || r.events+1 > s.cfg.MaxBatchEvents || r.bytes+n > s.cfg.MaxBatchBytes {
			*r = run{chunk: r.chunk + 1}
		}
		r.events, r.bytes, r.alone = r.events+1, r.bytes+n, lookups[i]
		out[i] = r.chunk
	}
	return out
}

// lastVersion is the version of r's event before r among before, to queue
// r with; lookup (and r's own bytes, a placeholder) when before has none
// and the queue must say.
func lastVersion(before []queued, r queued) (event []byte, lookup bool) {
	for i := len(before) - 1; i >= 0; i-- {
		q := before[i]
		if q.tracking == r.tracking && q.ev.EventID == r.ev.EventID {
			if q.ev.Retraction() {
				break // withdrawn already: the version before that is in the queue, or in before
			}
			return q.ev.Event, false
		}
	}
	return r.ev.Event, true
}

// repeatsInBatch applies queueRepeat among a batch's own events: a
// tracking's version of an event equal to its version before it in the
// batch is dropped, and only an event's first version in the batch is
// compared with what was queued before (probes), since a later one follows
// the version before it in the batch, queued or itself a repeat of what
// was queued. A history record (historyFor) has an audience of its own:
// it is dropped when the version before it in the batch was the same and
// reached all of its subscriptions (a record of the tracking's that
// excepted none of them, or a history record for the same ones), else it
// is compared with what was queued before. Order is kept.
func repeatsInBatch(evs []queued) ([]queued, []bool) {
	type key struct {
		tracking uuid.UUID
		event    string
	}
	var last map[key]queued // the version before, by tracking and event
	kept, probes := evs[:0:0], make([]bool, 0, len(evs))
	for _, q := range evs {
		k := key{q.tracking, q.ev.EventID}
		prev, seen := last[k]
		sameAudience := seen && prev.historyFor == q.historyFor
		if seen && prev.ev.ContentHash == q.ev.ContentHash {
			switch {
			case sameAudience,
				q.historyFor != "" && prev.historyFor == "" && !schemas.HistoryOverlaps(q.historyFor, prev.historyExcept):
				continue
			}
		}
		if last == nil {
			last = make(map[key]queued, len(evs))
		}
		last[k] = q
		kept, probes = append(kept, q), append(probes, !sameAudience)
	}
	return kept, probes
}

// sweep opens deliveries for subscriptions with events queued above their
// cursor and no open delivery. Enqueue and record open them as they go (an
// enqueue for every subscription of its trackings, so one left stranded
// goes out with its next event); this is the safety net for one with no
// later event, e.g. a subscription closed, or its webhook deactivated,
// between an enqueue's statements. It looks at the subscriptions of the
// rows queued since the sweep before the last (no queue transaction lasts
// that long), and after a start at the last sweepWindow rows. Sweeps run
// one at a time (housekeeping).
func (s *store) sweep(ctx context.Context, now time.Time) (bool, error) {
	// The newest id given out (the queue has no index on id alone to take
	// max(id) from). It may name rows not yet committed; those are above the
	// next sweep's low mark.
	var top int64
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('delivery_queue', 'id')::regclass), 0)`).Scan(&top); err != nil {
		return false, fmt.Errorf("sweep: %w", err)
	}
	if !s.swept {
		low := max(top-sweepWindow, 0)
		s.sweepFrom, s.swept = [2]int64{low, low}, true
	}
	stranded := `
		SELECT s.id FROM (SELECT DISTINCT subscription_id FROM delivery_queue WHERE id > @low) AS r(id)
		CROSS JOIN LATERAL (
			SELECT s.id FROM subscriptions s
			WHERE s.id = r.id
			  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.subscription_id = s.id
			                  AND d.status IN ('PENDING', 'FAILED') AND NOT d.replayed)
			  AND EXISTS (SELECT 1 FROM delivery_queue q
			              WHERE q.subscription_id = s.id AND (q.subscription_id, q.id) > (s.id, ` + cursorSQL + `))
			OFFSET 0) s
		LIMIT ` + strconv.Itoa(sweepLimit)
	rows, err := s.pool.Query(ctx, stranded, pgx.NamedArgs{"low": s.sweepFrom[0]})
	if err != nil {
		return false, fmt.Errorf("sweep: %w", err)
	}
	subs, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return false, fmt.Errorf("sweep: %w", err)
	}
	if len(subs) < sweepLimit {
		// All found: the next sweeps need not look below this one's rows.
		s.sweepFrom = [2]int64{s.sweepFrom[1], top}
	}
	if len(subs) == 0 {
		return false, nil
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

// sweepWindow is how many of the newest queue rows the first sweep of a
// process looks at; sweepLimit how many subscriptions one sweep opens for
// (the next sweep goes on from the same rows).
const (
	sweepWindow = 100_000
	sweepLimit  = 1000
)
