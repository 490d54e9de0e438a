package feed

import (
	"fmt"

	"context"
	"github.com/jackc/pgx/v5"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
)

// Writing an event reads its own subscriptions' rows, not every open
// subscription or written event, before and after the tables are analysed
// (see delivery's TestEnqueueReadsOnlyItsSubscription for why small tables).
func TestWriteReadsOnlyItsSubscription(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	acct := uuid.NewString()
	exec(`INSERT INTO accounts (id, client_slug, env, display_name) VALUES ($1, 'acme', 'sandbox', 'acme')`, acct)
	exec(`
		WITH t AS (INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
			SELECT gen_random_uuid(), $1, 'sandbox', 'MAEU', 'container', 'C' || n, 'CONNECTED'
			FROM generate_series(1, 200) AS n RETURNING id, account_id, identifier)
		INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
		SELECT gen_random_uuid(), account_id, identifier, id, 'MAEU', identifier, 'OPEN', now(), now() + interval '1 day' FROM t`, acct)
	exec(`
		WITH n AS (SELECT account_id, row_number() OVER () AS seq, id, tracking_id FROM subscriptions),
		m AS (INSERT INTO feed_marks (source, tracking_id, src_partition, src_offset, updated_at)
		      SELECT 'events', tracking_id, 0, 0, now() FROM n)
		INSERT INTO feed_batches (account_id, seq_from, seq_to, kind, created_at, subscription_ids, event_ids, content_hashes, tags, events)
		SELECT account_id, seq, seq, 'EVENT', now(), ARRAY[id], ARRAY['written'], ARRAY['h'], ARRAY[''], ARRAY['{}'::bytea] FROM n`)
	exec(`INSERT INTO feed_accounts (account_id, last_seq) VALUES ($1, 200)`, acct)
	var trackings []uuid.UUID
	rows, err := db.Pool.Query(ctx, `SELECT tracking_id FROM subscriptions ORDER BY reference LIMIT 2`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		trackings = append(trackings, id)
	}
	if rows.Close(); len(trackings) != 2 {
		t.Fatalf("trackings %v", trackings)
	}
	for i, when := range []string{"without statistics", "analysed"} {
		if i == 1 {
			exec(`ANALYZE`)
		}
		it := item{tracking: trackings[i], source: sourceEvents, partition: 1, offset: int64(i),
			ev: schemas.EventRecord{EventID: "new", ContentHash: "h", Event: []byte(`{"eventID":"new"}`)}}
		tables := []string{"subscriptions", "feed_batches", "feed_marks"}
		b, read := testenv.RowsRead(writeBatch([]item{it}, time.Now()), tables)
		if err := db.Pool.SendBatch(ctx, b).Close(); err != nil {
			t.Fatal(err)
		}
		var written int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM feed_items WHERE event_id = 'new'`).Scan(&written); err != nil || written != i+1 {
			t.Fatalf("%s: %d events written (%v), want %d", when, written, err, i+1)
		}
		for _, table := range tables {
			if read[table] > 30 {
				t.Errorf("%s: writing one event read %d rows of %s", when, read[table], table)
			}
		}
	}
}

// batchWorld is one account with two open subscriptions on two trackings.
type batchWorld struct {
	db        testenv.PGDatabase
	ctx       context.Context
	acct      string
	trackings []uuid.UUID
	subs      []uuid.UUID
}

func newBatchWorld(t *testing.T) *batchWorld {
	t.Helper()
	w := &batchWorld{db: testenv.Postgres(t), ctx: context.Background(), acct: uuid.NewString()}
	if _, err := w.db.Pool.Exec(w.ctx, `INSERT INTO accounts (id, client_slug, env, display_name) VALUES ($1, 'acme', 'sandbox', 'acme')`, w.acct); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		tr, sub := uuid.New(), uuid.New()
		if _, err := w.db.Pool.Exec(w.ctx, `
			WITH t AS (INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
				VALUES ($1, $3, 'sandbox', 'MAEU', 'container', $4, 'CONNECTED') RETURNING id)
			INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
			VALUES ($2, $3, $4, $1, 'MAEU', $4, 'OPEN', now(), now() + interval '1 day')`, tr, sub, w.acct, "C"+string(rune('A'+i))); err != nil {
			t.Fatal(err)
		}
		w.trackings, w.subs = append(w.trackings, tr), append(w.subs, sub)
	}
	return w
}

func (w *batchWorld) item(tracking int, offset int64, id, hash string) item {
	ev := schemas.EventRecord{EventID: id, ContentHash: hash, Event: []byte(`{"eventID":"` + id + `","v":"` + hash + `"}`)}
	if hash == schemas.RetractedHash {
		ev.Event = schemas.RetractionEvent(id)
	}
	return item{tracking: w.trackings[tracking], source: sourceEvents, partition: 0, offset: offset, ev: ev}
}

func (w *batchWorld) write(t *testing.T, items ...item) {
	t.Helper()
	if err := writeItems(w.ctx, w.db.Pool, items, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// items lists the feed as "seq:event id:hash" in order, and the batches.
func (w *batchWorld) items(t *testing.T) (items []string, batches int) {
	t.Helper()
	rows, err := w.db.Pool.Query(w.ctx, `SELECT seq || ':' || event_id || ':' || convert_from(event, 'UTF8') FROM feed_items WHERE account_id = $1 ORDER BY seq`, w.acct)
	if err != nil {
		t.Fatal(err)
	}
	items, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if err := w.db.Pool.QueryRow(w.ctx, `SELECT count(*) FROM feed_batches WHERE account_id = $1`, w.acct).Scan(&batches); err != nil {
		t.Fatal(err)
	}
	return items, batches
}

// An account's items of one write share a row, numbered in order; a
// record consumed again (at or below its tracking's mark) writes nothing,
// a later record of the same tracking does.
func TestAWritesItemsShareABatchAndReplaysWriteNothing(t *testing.T) {
	w := newBatchWorld(t)
	w.write(t, w.item(0, 10, "a1", "h"), w.item(1, 11, "b1", "h"), w.item(0, 12, "a2", "h"))
	got, batches := w.items(t)
	want := `[1:a1:{"eventID":"a1","v":"h"} 2:b1:{"eventID":"b1","v":"h"} 3:a2:{"eventID":"a2","v":"h"}]`
	if fmt.Sprint(got) != want || batches != 1 {
		t.Fatalf("after one write: %v in %d batches, want %s in 1", got, batches, want)
	}
	// A replay of every record, and one new record of tracking 1.
	w.write(t, w.item(0, 10, "a1", "h"), w.item(1, 11, "b1", "h"), w.item(0, 12, "a2", "h"), w.item(1, 13, "b2", "h"))
	got, batches = w.items(t)
	want = want[:len(want)-1] + ` 4:b2:{"eventID":"b2","v":"h"}]`
	if fmt.Sprint(got) != want || batches != 2 {
		t.Fatalf("after the replay: %v in %d batches, want %s in 2", got, batches, want)
	}
}

// A retraction of an event written by an earlier transaction is written
// with the version the subscription's feed last had, found in the batches;
// one of an event the feed never had writes nothing.
func TestRetractionTakesTheVersionFromAnEarlierBatch(t *testing.T) {
	w := newBatchWorld(t)
	w.write(t, w.item(0, 1, "e1", "v1"), w.item(0, 2, "e2", "v1"))
	w.write(t, w.item(0, 3, "e1", "v2"), w.item(1, 4, "other", "v1"))
	w.write(t, w.item(0, 5, "e1", schemas.RetractedHash), w.item(0, 6, "never", schemas.RetractedHash))
	got, _ := w.items(t)
	if len(got) != 5 || got[4] != `5:e1:{"eventID":"e1","v":"v2"}` {
		t.Fatalf("feed %v: want the retraction of e1 fifth, with version v2, and nothing for 'never'", got)
	}
	var hash string
	if err := w.db.Pool.QueryRow(w.ctx, `SELECT content_hash FROM feed_items WHERE account_id = $1 AND seq = 5`, w.acct).Scan(&hash); err != nil || hash != schemas.RetractedHash {
		t.Fatalf("item 5's hash %q (%v), want %q", hash, err, schemas.RetractedHash)
	}
}
