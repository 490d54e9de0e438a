package feed

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
)

// A history record is written for the subscriptions it names only, and
// the new events beside it for every open subscription but those; a
// version a subscription had already is not written for it again as
// history, in the same transaction or a later one.
func TestWriteHistoryOnlyToItsSubscriptions(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	acct, tracking := uuid.NewString(), uuid.New()
	exec(`INSERT INTO accounts (id, client_slug, env, display_name) VALUES ($1, 'acme', 'sandbox', 'acme')`, acct)
	exec(`INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
		VALUES ($1, $2, 'sandbox', 'MAEU', 'container', 'MSKU0000001', 'CONNECTED')`, tracking, acct)
	subs := map[string]string{}
	for _, ref := range []string{"a", "b", "c"} {
		subs[ref] = uuid.NewString()
		exec(`INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
			VALUES ($1, $2, $3, $4, 'MAEU', 'MSKU0000001', 'OPEN', now(), now() + interval '1 day')`, subs[ref], acct, ref, tracking)
	}
	ev := func(id string, off int64, historyFor, except string) item {
		return item{tracking: tracking, source: sourceEvents, partition: 0, offset: off, historyFor: historyFor, historyExcept: except,
			ev: schemas.EventRecord{EventID: id, ContentHash: "h-" + id, Event: []byte(`{"eventID":"` + id + `"}`)}}
	}
	bc := subs["b"] + "," + subs["c"]
	items := []item{
		ev("e1", 0, "", ""),        // everyone's
		ev("e1", 1, bc, ""),        // b's and c's history: e1 again, then e2
		ev("e2", 2, bc, ""),        //
		ev("e3", 3, "", bc),        // new beside their history: everyone else's
		ev("e4", 4, "", ""),        // after: everyone's
		ev("e5", 5, subs["a"], ""), // a's alone
	}
	// One transaction, and one per record: the same items either way.
	for i, split := range []bool{false, true} {
		exec(`DELETE FROM feed_batches`)
		exec(`DELETE FROM feed_marks`)
		if split {
			for _, it := range items {
				if err := writeItems(ctx, db.Pool, []item{it}, time.Now()); err != nil {
					t.Fatal(err)
				}
			}
		} else if err := writeItems(ctx, db.Pool, items, time.Now()); err != nil {
			t.Fatal(err)
		}
		for ref, want := range map[string][]string{"a": {"e1", "e3", "e4", "e5"}, "b": {"e1", "e2", "e4"}, "c": {"e1", "e2", "e4"}} {
			rows, err := db.Pool.Query(ctx, `SELECT event_id FROM feed_items WHERE subscription_id = $1 ORDER BY seq`, subs[ref])
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				got = append(got, id)
			}
			rows.Close()
			if !slices.Equal(got, want) {
				t.Errorf("run %d: %s's feed %v, want %v", i, ref, got, want)
			}
		}
	}
}
