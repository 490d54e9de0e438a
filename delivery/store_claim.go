package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/schemas/deliveries"
)

// claimed is a delivery leased to this process for one attempt.
type claimed struct {
	ID, AccountID, Env, SubscriptionID string   // SubscriptionID: "" for a message delivery
	Kind                               string   // KindEvents, deliveries.KindVerification, deliveries.KindTest
	MessageEnc                         []byte   // a message delivery's sealed body, opened at send time
	Traceparents                       []string // of the body's events, in body order ("" when not sampled)
	APIVersion                         string   // the API-Version header of a TNT 3.0 body; "" otherwise
	Token                              uuid.UUID
	Body                               []byte
	Attempts, RoundAttempts            int
	EventCount                         int
	TargetURL                          string
	SecretEnc                          []byte
	AuthHeadersEnc                     []byte // the receiver's auth headers, sealed (nil: none); opened at send time
	Endpoint                           string // endpointKey: account and host
	CreatedAt                          time.Time
}

// claimLimits says how many more deliveries each endpoint (endpointKey)
// may take: none for Full, Free[i] for Keys[i], Default for any other.
// Orphans are this process's lease tokens whose deliveries no sender holds
// (see dispatcher.orphan): those are claimable although their lease runs.
type claimLimits struct {
	Full    []string
	Keys    []string
	Free    []int32
	Default int
	Orphans []uuid.UUID
}

// bodySelect are the columns a delivery's body is built from, for a
// delivery aliased c (its subscription_id, queue_from and queue_to: its
// events are that range of the subscription's queue) joined to its
// subscription s, its account's webhook w and bodyJoin's qa. (s is NULL
// for a message delivery, and its range too: every column then reads "",
// the lists are empty.)
const bodySelect = `coalesce(s.reference, ''), coalesce(s.container_number, ''), coalesce(s.bill_number, ''),
	coalesce(s.booking_number, ''), coalesce(s.scac, ''), coalesce(w.event_format, ''),
	coalesce(qa.events, '{}'), coalesce(qa.traceparents, '{}'), coalesce(qa.ids, '{}'), coalesce(qa.hashes, '{}'),
	coalesce(qa.emitted, '{}')`

// bodyJoin reads a delivery's range of queue rows once for every list of
// bodySelect (one index range of the queue's key), the rows' events in
// order.
const bodyJoin = `
	LEFT JOIN LATERAL (
		SELECT array_agg(u.event ORDER BY q.id, u.pos) AS events, array_agg(u.traceparent ORDER BY q.id, u.pos) AS traceparents,
		       array_agg(u.event_id ORDER BY q.id, u.pos) AS ids, array_agg(u.hash ORDER BY q.id, u.pos) AS hashes,
		       array_agg(u.emitted_at ORDER BY q.id, u.pos) AS emitted
		FROM delivery_queue q
		CROSS JOIN LATERAL unnest(q.events, q.traceparents, q.event_ids, q.content_hashes, q.emitted_at)
			WITH ORDINALITY AS u(event, traceparent, event_id, hash, emitted_at, pos)
		WHERE q.subscription_id = c.subscription_id AND q.id BETWEEN c.queue_from AND c.queue_to) qa ON true`

// body is what bodySelect reads.
type body struct {
	stream       deliveries.Stream
	format       string
	traceparents []string
}

// scan are the bodySelect columns' scan targets.
func (b *body) scan() []any {
	r := &b.stream.Refs
	return []any{&r.SubscriptionReference, &r.EquipmentNumber, &r.BillNumber, &r.BookingNumber, &r.ScacCode, &b.format,
		&b.stream.Events, &b.traceparents, &b.stream.IDs, &b.stream.Hashes, &b.stream.Emitted}
}

// build is the body's bytes, in the webhook's format, and its API-Version.
func (b *body) build() ([]byte, string, error) { return b.stream.Encode(b.format) }

// leaseFree is true of a delivery no live process holds: never leased, its
// lease expired, its owner's heartbeat is older than InstanceTimeout (the
// owner died: its work resumes in seconds, not when the lease expires), or
// its lease token is one of the claimer's orphans.
const leaseFree = `(d.lease_until IS NULL OR d.lease_until <= @now
	OR d.lease_token = ANY(@orphans::uuid[])
	OR (d.lease_owner IS NOT NULL AND NOT EXISTS (
		SELECT 1 FROM delivery_instances i WHERE i.id = d.lease_owner AND i.heartbeat_at > @alive_after)))`

// claimSQL leases due deliveries; see claim. It looks at most
// @per_account of the oldest due deliveries of each activated webhook whose
// endpoint (account and host) has room (an index range each), so its cost
// follows the number of webhooks, never the backlog, and a backlog at the
// head of the queue whose endpoint is full or broken never hides another
// endpoint's deliveries. Verifications are looked up apart (their own due
// index): their webhook is not activated yet.
const claimSQL = `
		WITH hooks AS (
			-- An inactive account's deliveries wait until it is active again.
			SELECT w.account_id, ` + keyExpr + ` AS key FROM webhooks w
			JOIN accounts a ON a.id = w.account_id AND a.active
			WHERE w.activated
		), cand AS (
			SELECT d.id, d.next_attempt_at, h.key
			FROM hooks h CROSS JOIN LATERAL (
				SELECT d.id, d.next_attempt_at FROM deliveries d
				WHERE d.account_id = h.account_id AND d.status IN ('PENDING', 'FAILED') AND d.next_attempt_at <= @now
				  AND d.kind <> 'verification' AND ` + leaseFree + `
				ORDER BY d.next_attempt_at
				LIMIT @per_account) d
			WHERE NOT (h.key = ANY(@full::text[]))
			UNION ALL
			SELECT v.id, v.next_attempt_at, k.key
			FROM (
				SELECT d.id, d.account_id, d.next_attempt_at FROM deliveries d
				WHERE d.kind = 'verification' AND d.status IN ('PENDING', 'FAILED') AND d.next_attempt_at <= @now
				  AND ` + leaseFree + `
				ORDER BY d.next_attempt_at
				LIMIT @n) v
			CROSS JOIN LATERAL (SELECT ` + keyExpr + ` AS key FROM webhooks w JOIN accounts a ON a.id = w.account_id AND a.active
				WHERE w.account_id = v.account_id) k
			WHERE NOT (k.key = ANY(@full::text[]))
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
			RETURNING d.id, d.account_id, d.subscription_id, d.attempts, d.round_attempts, d.event_count, d.created_at,
			          d.kind, d.message_enc, d.queue_from, d.queue_to
		)
		SELECT c.id::text, c.account_id::text, a.env, coalesce(c.subscription_id::text, ''), c.attempts, c.round_attempts,
		       c.event_count, c.created_at, w.target_url, w.secret_enc, w.auth_headers_enc, c.kind, c.message_enc, ` + bodySelect + `
		FROM c JOIN webhooks w ON w.account_id = c.account_id
		JOIN accounts a ON a.id = c.account_id
		LEFT JOIN subscriptions s ON s.id = c.subscription_id` + bodyJoin

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
	orphans := limits.Orphans
	if orphans == nil {
		orphans = []uuid.UUID{}
	}
	var out []claimed
	b := &pgx.Batch{}
	b.Queue(asyncCommit)
	b.Queue(claimNamed.SQL, claimNamed.Args(pgx.NamedArgs{"now": now, "full": full, "per_account": max(limits.Default, 1), "keys": keys, "free": free,
		"default_free": limits.Default, "n": n, "lease_until": now.Add(s.cfg.Lease), "token": token,
		"owner": s.owner(), "alive_after": now.Add(-s.cfg.InstanceTimeout), "orphans": orphans})...).Query(func(rows pgx.Rows) error {
		var err error
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (claimed, error) {
			c := claimed{Token: token}
			var b body
			err := row.Scan(append([]any{&c.ID, &c.AccountID, &c.Env, &c.SubscriptionID, &c.Attempts, &c.RoundAttempts,
				&c.EventCount, &c.CreatedAt, &c.TargetURL, &c.SecretEnc, &c.AuthHeadersEnc, &c.Kind, &c.MessageEnc}, b.scan()...)...)
			if err != nil {
				return c, err
			}
			c.Endpoint, c.Traceparents = endpointKey(c.AccountID, c.TargetURL), b.traceparents
			if c.Kind != deliveries.KindEvents {
				return c, nil // its body is sealed: opened at send time (deliver)
			}
			c.Body, c.APIVersion, err = b.build()
			return c, err
		})
		return err
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	return out, nil
}

// claimNamed is claimSQL rewritten for its arguments once.
var claimNamed = postgres.NewNamed(claimSQL)
