package delivery

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
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

// Migration 0075 makes every queue row a one-event row with its id: each
// delivery's events (what its body is built from) and the rows above each
// cursor are what they were, the version last queued of every event is in
// delivery_versions with the emissions queued, and new rows number on.
func TestMigrationMakesOneEventRows(t *testing.T) {
	ctx := context.Background()
	conn, migrate := testenv.MigratedBefore(t, testenv.Postgres(t), 75)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	const s1, s2 = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"
	t1 := time.Date(2026, 11, 20, 10, 0, 0, 123456000, time.UTC)
	at := func(s int) string { return t1.Add(time.Duration(s) * time.Second).Format(time.RFC3339Nano) }
	// s1: a, b (queued before emittedAt existed), x in versions A, B and
	// withdrawn (its row holding B), then c queued above the cursor; s2: y.
	for i, q := range []struct {
		sub, event, hash, body string
		at                     string
	}{
		{s1, "a", "h", `{"eventID":"a"}`, at(0)}, {s2, "y", "h", `{"eventID":"y"}`, at(0)}, {s1, "b", "h", `{"eventID":"b"}`, "-infinity"},
		{s1, "x", "A", `{"eventID":"x","v":"A"}`, at(1)}, {s1, "x", "B", `{"eventID":"x","v":"B"}`, at(2)},
		{s1, "x", schemas.RetractedHash, `{"eventID":"x","v":"B"}`, at(3)}, {s1, "c", "h", `{"eventID":"c"}`, at(0)},
	} {
		var tp any
		if i == 3 {
			tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
		}
		exec(`INSERT INTO delivery_queue (subscription_id, event_id, content_hash, event, enqueued_at, emitted_at, traceparent)
			VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $7)`, q.sub, q.event, q.hash, []byte(q.body), t1.Add(-time.Hour), q.at, tp)
	}
	exec(`INSERT INTO deliveries (id, account_id, subscription_id, status, event_count, queue_from, queue_to, next_attempt_at, created_at, updated_at)
		SELECT gen_random_uuid(), gen_random_uuid(), subscription_id, 'DELIVERED', count(*), min(id), max(id), now(), now(), now()
		FROM delivery_queue WHERE event_id <> 'c' GROUP BY subscription_id`)
	// Each delivery's events as the body read them before, and after.
	const before = `SELECT d.subscription_id::text || ' ' || string_agg(q.event_id || '/' || q.content_hash || '/' || encode(q.event, 'escape')
			|| '/' || (CASE WHEN isfinite(q.emitted_at) THEN q.emitted_at ELSE q.enqueued_at END)::text || '/' || coalesce(q.traceparent, ''), ' ' ORDER BY q.id)
		FROM deliveries d JOIN delivery_queue q ON q.subscription_id = d.subscription_id AND q.id BETWEEN d.queue_from AND d.queue_to
		GROUP BY d.subscription_id ORDER BY 1`
	const after = `SELECT d.subscription_id::text || ' ' || string_agg(q.event_id || '/' || q.content_hash || '/' || encode(q.event, 'escape')
			|| '/' || q.emitted_at::text || '/' || q.traceparent, ' ' ORDER BY q.id, q.pos)
		FROM deliveries d JOIN delivery_queue_events q ON q.subscription_id = d.subscription_id AND q.id BETWEEN d.queue_from AND d.queue_to
		GROUP BY d.subscription_id ORDER BY 1`
	strs := func(sql string) []string {
		t.Helper()
		rows, _ := conn.Query(ctx, sql)
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	bodies := strs(before)
	var top int64
	if err := conn.QueryRow(ctx, `SELECT max(id) FROM delivery_queue`).Scan(&top); err != nil {
		t.Fatal(err)
	}
	migrate()
	if got := strs(after); !slices.Equal(got, bodies) || len(got) != 2 {
		t.Fatalf("deliveries' events after 0075:\n%s\nbefore:\n%s", strings.Join(got, "\n"), strings.Join(bodies, "\n"))
	}
	if got := strs(`SELECT q.event_id FROM delivery_queue_events q WHERE q.subscription_id = '` + s1 + `'
		AND q.id > (SELECT max(queue_to) FROM deliveries WHERE subscription_id = '` + s1 + `') ORDER BY q.id`); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("queued above the cursor after 0075: %q", got)
	}
	if got := strs(`SELECT DISTINCT event_count::text FROM delivery_queue`); !slices.Equal(got, []string{"1"}) {
		t.Fatalf("event counts after 0075: %q, want one event a row", got)
	}
	// The versions: x withdrawn, its row holding B; every emission but b's
	// (-infinity: only ever the version last queued) listed.
	versions := strs(`SELECT v.event_id || ' ' || (SELECT h FROM unnest('{h,retracted}'::text[]) h WHERE hashtextextended(h, 0) = v.content_hash) || ' ' || encode(q.events[v.queue_pos], 'escape') || ' ' || (
			SELECT count(*) FROM delivery_queue_events e WHERE e.subscription_id = v.subscription_id AND e.event_id = v.event_id
			  AND delivery_emission(e.content_hash, e.emitted_at) = ANY(v.emissions))::text || '/' || cardinality(v.emissions)
		FROM delivery_versions v JOIN delivery_queue q ON q.subscription_id = v.subscription_id AND q.id = v.queue_id
		ORDER BY v.subscription_id, v.event_id`)
	want := []string{`a h {"eventID":"a"} 1/1`, `b h {"eventID":"b"} 0/0`, `c h {"eventID":"c"} 1/1`,
		`x retracted {"eventID":"x","v":"B"} 3/3`, `y h {"eventID":"y"} 1/1`}
	if !slices.Equal(versions, want) {
		t.Fatalf("versions after 0075:\n%s\nwant:\n%s", strings.Join(versions, "\n"), strings.Join(want, "\n"))
	}
	var id int64
	if err := conn.QueryRow(ctx, `INSERT INTO delivery_queue (subscription_id, event_count, bytes, enqueued_at, event_ids, content_hashes,
		emitted_at, events, traceparents) VALUES ($1, 1, 2, now(), '{d}', '{h}', ARRAY[now()], '{"{}"}', '{""}') RETURNING id`, s1).Scan(&id); err != nil || id <= top {
		t.Fatalf("a row queued after 0075 got id %d (%v), want above %d", id, err, top)
	}
}
