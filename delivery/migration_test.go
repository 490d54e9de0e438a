package delivery

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/testenv"
)

// Migration 0029 gives every delivery the range of its queue rows, and the
// rows not in a delivery stay above their subscription's cursor: after it,
// each delivery's body and the queued rows are what they were.
func TestMigrationGivesDeliveriesTheirRange(t *testing.T) {
	ctx := context.Background()
	conn, migrate := testenv.MigratedBefore(t, testenv.Postgres(t), 29)
	// Two subscriptions' rows interleaved: s1's delivery d1 (a, b), its open
	// d2 (c) and c's successors queued (d, e); s2's d3 (x), born batched.
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	const s1, s2 = "'00000000-0000-4000-8000-000000000001'", "'00000000-0000-4000-8000-000000000002'"
	const d1, d2, d3 = "'00000000-0000-4000-8000-0000000000d1'", "'00000000-0000-4000-8000-0000000000d2'", "'00000000-0000-4000-8000-0000000000d3'"
	for _, d := range []struct{ id, sub, status string }{{d1, s1, "DELIVERED"}, {d2, s1, "PENDING"}, {d3, s2, "DELIVERED"}} {
		exec(`INSERT INTO deliveries (id, account_id, subscription_id, status, event_count, next_attempt_at, created_at, updated_at)
			VALUES (` + d.id + `, gen_random_uuid(), ` + d.sub + `, '` + d.status + `', 1, now(), now(), now())`)
	}
	for _, q := range []struct{ sub, event, delivery string }{
		{s1, "a", d1}, {s2, "x", d3}, {s1, "b", d1}, {s1, "c", d2}, {s1, "d", "NULL"}, {s1, "e", "NULL"},
	} {
		exec(`INSERT INTO delivery_queue (subscription_id, event_id, content_hash, event, enqueued_at, delivery_id)
			VALUES (` + q.sub + `, '` + q.event + `', 'h', '{}', now(), ` + q.delivery + `)`)
	}
	migrate()
	events := func(sql string) string {
		t.Helper()
		rows, _ := conn.Query(ctx, sql)
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	body := func(d string) string {
		return events(`SELECT q.event_id FROM deliveries c JOIN delivery_queue_events q ON q.subscription_id = c.subscription_id
			AND q.id BETWEEN c.queue_from AND c.queue_to WHERE c.id = ` + d + ` ORDER BY q.id, q.pos`)
	}
	if b1, b2, b3 := body(d1), body(d2), body(d3); b1 != "a b" || b2 != "c" || b3 != "x" {
		t.Fatalf("bodies after 0029: %q %q %q", b1, b2, b3)
	}
	queued := events(`SELECT q.event_id FROM delivery_queue_events q WHERE q.subscription_id = ` + s1 + `
		AND q.id > (SELECT max(queue_to) FROM deliveries WHERE subscription_id = ` + s1 + `) ORDER BY q.id`)
	if queued != "d e" {
		t.Fatalf("queued above the cursor after 0029: %q", queued)
	}
}

// Migration 0030 keys the queue by (subscription_id, id), the only order it
// is read in, and leaves no btree on id alone to be written for every event;
// migration 0075 drops the emission key (delivery_versions replaces it).
func TestQueueIsKeyedBySubscription(t *testing.T) {
	ctx := context.Background()
	conn, migrate := testenv.MigratedBefore(t, testenv.Postgres(t), 30)
	if _, err := conn.Exec(ctx, `INSERT INTO delivery_queue (subscription_id, event_id, content_hash, event, enqueued_at)
		VALUES (gen_random_uuid(), 'a', 'h', '{}', now()), (gen_random_uuid(), 'b', 'h', '{}', now())`); err != nil {
		t.Fatal(err)
	}
	migrate()
	rows, _ := conn.Query(ctx, `
		SELECT i.relname || ' ' || am.amname || ' ' || (
			SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
			JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum)
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am am ON am.oid = i.relam
		WHERE x.indrelid = 'delivery_queue'::regclass ORDER BY i.relname`)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := "delivery_queue_pkey btree subscription_id,id|delivery_queue_recent brin id"
	if g := strings.Join(got, "|"); g != want {
		t.Fatalf("queue indexes after 0030 and later:\n got %s\nwant %s", g, want)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM delivery_queue WHERE id > 0`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows after 0030: %d, %v", n, err)
	}
}
