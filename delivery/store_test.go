package delivery

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/contrack/contrack/platform/testenv"
)

// storeWithSubscription is a store on a fresh database with one account,
// tracking and OPEN subscription; it returns the account and subscription ids.
func storeWithSubscription(t *testing.T) (*store, string, string) {
	db := testenv.Postgres(t)
	acct, trk, sub := uuid.NewString(), uuid.NewString(), uuid.NewString()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO accounts (id, client_slug, env, display_name) VALUES ($1, 'acme', 'sandbox', 'acme')`, []any{acct}},
		{`INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
			VALUES ($1, $2, 'sandbox', 'MAEU', 'container', 'MSKU1234565', 'CONNECTED')`, []any{trk, acct}},
		{`INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
			VALUES ($1, $2, 'ref', $3, 'MAEU', 'MSKU1234565', 'OPEN', now(), now())`, []any{sub, acct, trk}},
	} {
		if _, err := db.Pool.Exec(context.Background(), q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	return &store{pool: db.Pool, cfg: Config{MaxBatchEvents: 2}.withDefaults()}, acct, sub
}

// Events left queued with no open delivery (which enqueue and record never
// leave behind) are batched by the sweep, in order, MaxBatchEvents at a time.
func TestSweepOpensStrandedEvents(t *testing.T) {
	st, _, sub := storeWithSubscription(t)
	ctx := context.Background()
	for _, ev := range []string{"a", "b", "c"} {
		if _, err := st.pool.Exec(ctx, `INSERT INTO delivery_queue (subscription_id, event_id, content_hash, event, enqueued_at)
			VALUES ($1, $2, 'h', '{}', now())`, sub, ev); err != nil {
			t.Fatal(err)
		}
	}
	opened, err := st.sweep(ctx, time.Now())
	if err != nil || !opened {
		t.Fatalf("sweep: %v %v", opened, err)
	}
	var got []string
	rows, _ := st.pool.Query(ctx, `SELECT q.event_id FROM delivery_queue q JOIN deliveries d ON d.id = q.delivery_id
		WHERE d.status = 'PENDING' AND d.event_count = 2 ORDER BY q.id`)
	for rows.Next() {
		var e string
		rows.Scan(&e)
		got = append(got, e)
	}
	rows.Close()
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("opened delivery holds %v, want [a b]", got)
	}
	// The open delivery blocks the next batch: sweeping again opens nothing.
	if opened, err := st.sweep(ctx, time.Now()); err != nil || opened {
		t.Fatalf("second sweep: %v %v", opened, err)
	}
}

// Closed deliveries past their retention go, with their queue rows; open
// ones and unpublished dead letters stay.
func TestPrune(t *testing.T) {
	st, acct, sub := storeWithSubscription(t)
	ctx := context.Background()
	now := time.Now()
	day := 24 * time.Hour
	cases := []struct {
		status    string
		age       time.Duration
		published bool
		kept      bool
	}{
		{StatusDelivered, 40 * day, false, false},
		{StatusDelivered, day, false, true},
		{StatusDead, 100 * day, true, false},
		{StatusDead, 100 * day, false, true}, // not yet on the dead-letter topic
		{StatusFailed, 100 * day, false, true},
	}
	ids := make([]string, len(cases))
	for i, c := range cases {
		ids[i] = uuid.NewString()
		var pub *time.Time
		if c.published {
			pub = &now
		}
		if _, err := st.pool.Exec(ctx, `INSERT INTO deliveries (id, account_id, subscription_id, status, event_count,
				next_attempt_at, created_at, updated_at, dlq_published_at, replayed)
			VALUES ($1, $2, $3, $4, 1, $5, $5, $5, $6, $7)`, ids[i], acct, sub, c.status, now.Add(-c.age), pub, c.status == StatusFailed); err != nil {
			t.Fatal(err)
		}
		if _, err := st.pool.Exec(ctx, `INSERT INTO delivery_queue (subscription_id, event_id, content_hash, event, enqueued_at, delivery_id)
			VALUES ($1, $2::text, 'h', '{}', now(), $3)`, sub, ids[i], ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	n, err := st.prune(ctx, now)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	for i, c := range cases {
		var d, q int
		st.pool.QueryRow(ctx, `SELECT count(*) FROM deliveries WHERE id = $1`, ids[i]).Scan(&d)
		st.pool.QueryRow(ctx, `SELECT count(*) FROM delivery_queue WHERE delivery_id = $1`, ids[i]).Scan(&q)
		if (d == 1) != c.kept || (q == 1) != c.kept {
			t.Errorf("%s aged %s: delivery %d, queue rows %d; kept %v", c.status, c.age, d, q, c.kept)
		}
	}
}
