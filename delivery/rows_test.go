package delivery

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/deliveries"
)

// rowsStore is a store with one account, its webhook activated, and one
// OPEN subscription; it returns the subscription's tracking and id.
func rowsStore(t *testing.T, cfg Config) (*store, uuid.UUID, string) {
	t.Helper()
	st, _, _ := storeWithSubscription(t)
	st.cfg = cfg.WithDefaults()
	_, trks := hookedAccounts(t, st, []string{"a.example"}, 1)
	var sub string
	if err := st.pool.QueryRow(context.Background(), `SELECT id::text FROM subscriptions WHERE tracking_id = $1`, trks[0][0]).Scan(&sub); err != nil {
		t.Fatal(err)
	}
	return st, trks[0][0], sub
}

// versionAt is event id's version hash of tracking trk with body
// {"eventID": id, "v": hash}, emitted at second n of a fixed hour.
func versionAt(trk uuid.UUID, id, hash string, n int) queued {
	q := event(trk, id)
	q.ev.ContentHash = hash
	q.ev.Event = []byte(`{"eventID":"` + id + `","v":"` + hash + `"}`)
	q.ev.EmittedAt = time.Date(2026, 11, 20, 10, 0, n, 0, time.UTC)
	return q
}

// retractionAt withdraws event id of trk, emitted at second n.
func retractionAt(trk uuid.UUID, id string, n int) queued {
	q := versionAt(trk, id, schemas.RetractedHash, n)
	q.ev.Event = schemas.RetractionEvent(id)
	return q
}

func mustEnqueue(t *testing.T, st *store, evs ...queued) {
	t.Helper()
	if _, _, err := st.enqueue(context.Background(), evs, leaseGrant{}, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// queueRows are sub's queue rows in order, each as its events'
// "id:hash" joined by spaces.
func queueRows(t *testing.T, st *store, sub string) []string {
	t.Helper()
	rows, err := st.pool.Query(context.Background(), `
		SELECT string_agg(e.id || ':' || e.hash, ' ' ORDER BY e.pos) FROM delivery_queue q
		CROSS JOIN LATERAL unnest(q.event_ids, q.content_hashes) WITH ORDINALITY AS e(id, hash, pos)
		WHERE q.subscription_id = $1 GROUP BY q.id ORDER BY q.id`, sub)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A subscription's events queued by one statement share a queue row, in
// order, as many as a delivery may batch (MaxBatchEvents, MaxBatchBytes
// unless one event is larger): a delivery is a range of whole rows.
func TestEventsOfOneStatementShareARow(t *testing.T) {
	st, trk, sub := rowsStore(t, Config{MaxBatchEvents: 3, MaxBatchBytes: 1000})
	var evs []queued
	for i, id := range []string{"a", "b", "c", "d", "e"} {
		evs = append(evs, versionAt(trk, id, "h", i))
	}
	mustEnqueue(t, st, evs...)
	// Each body is 28 bytes: 1000 holds them; the event limit splits.
	if got, want := queueRows(t, st, sub), []string{"a:h b:h c:h", "d:h e:h"}; !slices.Equal(got, want) {
		t.Fatalf("queue rows %q, want %q", got, want)
	}
	var from, to int64
	var n int
	if err := st.pool.QueryRow(context.Background(), `SELECT queue_from, queue_to, event_count FROM deliveries WHERE subscription_id = $1`,
		sub).Scan(&from, &to, &n); err != nil {
		t.Fatal(err)
	}
	if from != to || n != 3 {
		t.Fatalf("the delivery opened spans rows %d..%d with %d events, want the first row's 3", from, to, n)
	}

	// The byte limit: two 60-byte events fill 128 bytes, the third starts
	// a row; one event larger than the limit is a row of its own.
	st2, trk2, sub2 := rowsStore(t, Config{MaxBatchEvents: 100, MaxBatchBytes: 128})
	big := func(id string, n int) queued {
		q := versionAt(trk2, id, "h", n)
		q.ev.Event = []byte(`{"eventID":"` + id + `","pad":"` + strings.Repeat("x", n) + `"}`)
		return q
	}
	mustEnqueue(t, st2, big("a", 34), big("b", 34), big("c", 34), big("d", 300), big("e", 1))
	if got, want := queueRows(t, st2, sub2), []string{"a:h b:h", "c:h", "d:h", "e:h"}; !slices.Equal(got, want) {
		t.Fatalf("queue rows by bytes %q, want %q", got, want)
	}
}

// A record consumed again (the same emission) is queued once, whether it
// is the version last queued or an earlier one, alone or with others in
// one statement; a return to an earlier content (A → B → A) is a new
// version, queued in order.
func TestReplayedEmissionQueuedOnce(t *testing.T) {
	st, trk, sub := rowsStore(t, Config{})
	a1, b2, a3 := versionAt(trk, "x", "A", 1), versionAt(trk, "x", "B", 2), versionAt(trk, "x", "A", 3)
	mustEnqueue(t, st, a1)
	mustEnqueue(t, st, b2)
	mustEnqueue(t, st, a1, b2) // both consumed again
	mustEnqueue(t, st, a1)     // an earlier emission again, alone
	if got, want := queueRows(t, st, sub), []string{"x:A", "x:B"}; !slices.Equal(got, want) {
		t.Fatalf("after replays: queue rows %q, want %q", got, want)
	}
	mustEnqueue(t, st, a3) // A → B → A
	mustEnqueue(t, st, a1, b2, a3)
	mustEnqueue(t, st, b2)
	again := versionAt(trk, "x", "A", 4) // A re-emitted unchanged
	mustEnqueue(t, st, again)
	if got, want := queueRows(t, st, sub), []string{"x:A", "x:B", "x:A"}; !slices.Equal(got, want) {
		t.Fatalf("queue rows %q, want %q", got, want)
	}
}

// A retraction queued in a statement of its own goes out with the event as
// the subscription last got it: the bytes of the version last queued,
// wherever in its row that version is; a subscription that never got the
// event queues nothing, and the same retraction again is a repeat.
func TestRetractionCarriesTheVersionLastQueued(t *testing.T) {
	st, trk, sub := rowsStore(t, Config{})
	mustEnqueue(t, st, versionAt(trk, "x", "A", 1))
	mustEnqueue(t, st, versionAt(trk, "w", "h", 2), versionAt(trk, "x", "B", 3), versionAt(trk, "y", "h", 4))
	mustEnqueue(t, st, retractionAt(trk, "x", 5))
	mustEnqueue(t, st, retractionAt(trk, "never", 6))
	mustEnqueue(t, st, retractionAt(trk, "x", 7))
	rows, err := st.pool.Query(context.Background(), `SELECT event_id || ' ' || content_hash || ' ' || convert_from(event, 'UTF8')
		FROM delivery_queue_events WHERE subscription_id = $1 ORDER BY id, pos`, sub)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`x A {"eventID":"x","v":"A"}`, `w h {"eventID":"w","v":"h"}`, `x B {"eventID":"x","v":"B"}`,
		`y h {"eventID":"y","v":"h"}`, `x retracted {"eventID":"x","v":"B"}`}
	if !slices.Equal(got, want) {
		t.Fatalf("queued:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A version after the retraction, then the retraction again: it
	// carries the new version.
	mustEnqueue(t, st, versionAt(trk, "x", "C", 8))
	mustEnqueue(t, st, retractionAt(trk, "x", 9))
	var last string
	if err := st.pool.QueryRow(context.Background(), `SELECT convert_from(event, 'UTF8') FROM delivery_queue_events
		WHERE subscription_id = $1 ORDER BY id DESC, pos DESC LIMIT 1`, sub).Scan(&last); err != nil {
		t.Fatal(err)
	}
	if last != `{"eventID":"x","v":"C"}` {
		t.Fatalf("the second retraction carries %s, want version C", last)
	}
}

// A delivery whose range spans queue rows (events queued while the one
// before it was open, by several statements) sends its events in order,
// and its body is the encoding of those events, byte for byte: the
// payload the queue held one row per event gave.
func TestDeliverySpansRowsWithTheSameBody(t *testing.T) {
	ctx := context.Background()
	st, trk, sub := rowsStore(t, Config{})
	mustEnqueue(t, st, versionAt(trk, "e1", "h", 1)) // opens the first delivery
	later := []queued{versionAt(trk, "e2", "h", 2), versionAt(trk, "e3", "h", 3), versionAt(trk, "e4", "h", 4), retractionAt(trk, "e2", 5)}
	mustEnqueue(t, st, later[0], later[1])
	mustEnqueue(t, st, later[2])
	mustEnqueue(t, st, later[3])
	mustExec(t, st, `UPDATE deliveries SET status = 'DELIVERED' WHERE subscription_id = $1`, sub)
	if opened, err := st.sweep(ctx, time.Now()); err != nil || !opened {
		t.Fatalf("sweep: %v %v", opened, err)
	}
	got, err := st.claim(ctx, 10, claimLimits{Default: 10}, time.Now())
	if err != nil || len(got) != 1 {
		t.Fatalf("claimed %d, %v; want the second delivery", len(got), err)
	}
	if c := got[0]; c.EventCount != 4 {
		t.Fatalf("the delivery holds %d events, want 4", c.EventCount)
	}
	var rows int
	if err := st.pool.QueryRow(ctx, `SELECT count(*) FROM delivery_queue q JOIN deliveries d ON d.id = $1
		AND q.subscription_id = d.subscription_id AND q.id BETWEEN d.queue_from AND d.queue_to`, got[0].ID).Scan(&rows); err != nil || rows != 3 {
		t.Fatalf("the delivery spans %d rows (%v), want 3", rows, err)
	}
	want := deliveries.Stream{Refs: deliveries.References{SubscriptionReference: "T0-0", EquipmentNumber: "T0-0", ScacCode: "MAEU"}}
	for _, q := range later {
		want.Events = append(want.Events, q.ev.Event)
		want.IDs, want.Hashes, want.Emitted = append(want.IDs, q.ev.EventID), append(want.Hashes, q.ev.ContentHash), append(want.Emitted, q.ev.EmittedAt)
	}
	want.Events[3] = later[0].ev.Event // the retraction, as e2 was last queued
	body, _, err := want.Encode("")
	if err != nil {
		t.Fatal(err)
	}
	if string(got[0].Body) != string(body) {
		t.Fatalf("body\n%s\nwant\n%s", got[0].Body, body)
	}
}

// Pruning a delivery deletes its queue rows and the version rows that
// point into them; a later delivery's rows, and the versions in them, stay.
func TestPruneDeletesRowsAndVersions(t *testing.T) {
	ctx := context.Background()
	st, trk, sub := rowsStore(t, Config{})
	mustEnqueue(t, st, versionAt(trk, "a", "h", 1), versionAt(trk, "b", "h1", 2)) // the first delivery
	mustEnqueue(t, st, versionAt(trk, "b", "h2", 3), versionAt(trk, "c", "h", 4)) // queued behind it
	mustExec(t, st, `UPDATE deliveries SET status = 'DELIVERED', created_at = now() - interval '400 days' WHERE subscription_id = $1`, sub)
	if n, err := st.prune(ctx, time.Now()); err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want 1", n, err)
	}
	if got, want := queueRows(t, st, sub), []string{"b:h2 c:h"}; !slices.Equal(got, want) {
		t.Fatalf("queue rows after pruning %q, want %q", got, want)
	}
	rows, _ := st.pool.Query(ctx, `SELECT v.event_id || ':' || h FROM delivery_versions v
		JOIN unnest('{h,h1,h2}'::text[]) h ON hashtextextended(h, 0) = v.content_hash WHERE v.subscription_id = $1 ORDER BY v.event_id`, sub)
	versions, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"b:h2", "c:h"}; !slices.Equal(versions, want) {
		t.Fatalf("versions after pruning %q, want %q", versions, want)
	}
}
