package feed

import (
	"context"
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
		INSERT INTO feed_events (account_id, seq, subscription_id, event_id, content_hash, src_partition, src_offset, event, created_at)
		SELECT account_id, row_number() OVER (), id, 'written', 'h', 0, 0, '{}', now() FROM subscriptions`)
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
		it := item{tracking: trackings[i], partition: 1, offset: int64(i),
			ev: schemas.EventRecord{EventID: "new", ContentHash: "h", Event: []byte(`{"eventID":"new"}`)}}
		tables := []string{"subscriptions", "feed_events"}
		b, read := testenv.RowsRead(writeBatch([]item{it}, time.Now()), tables)
		if err := db.Pool.SendBatch(ctx, b).Close(); err != nil {
			t.Fatal(err)
		}
		var written int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM feed_events WHERE event_id = 'new'`).Scan(&written); err != nil || written != i+1 {
			t.Fatalf("%s: %d events written (%v), want %d", when, written, err, i+1)
		}
		for _, table := range tables {
			if read[table] > 30 {
				t.Errorf("%s: writing one event read %d rows of %s", when, read[table], table)
			}
		}
	}
}
