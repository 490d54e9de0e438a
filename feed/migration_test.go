package feed

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/testenv"
)

// Migration 0071 turns every feed row into a batch of one item, keeping its
// number, and marks each tracking's highest written offset: after it the
// feed reads as before and a replay of a written record writes nothing.
func TestMigrationKeepsTheFeedAndMarksWhatWasWritten(t *testing.T) {
	ctx := context.Background()
	conn, migrate := testenv.MigratedBefore(t, testenv.Postgres(t), 71)
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	const acct, trk, sub = "'00000000-0000-4000-8000-0000000000a1'", "'00000000-0000-4000-8000-0000000000f1'", "'00000000-0000-4000-8000-0000000000b1'"
	exec(`INSERT INTO accounts (id, client_slug, env, display_name) VALUES (` + acct + `, 'acme', 'sandbox', 'acme')`)
	exec(`INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
		VALUES (` + trk + `, ` + acct + `, 'sandbox', 'MAEU', 'container', 'C1', 'CONNECTED')`)
	exec(`INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
		VALUES (` + sub + `, ` + acct + `, 'r', ` + trk + `, 'MAEU', 'C1', 'OPEN', now(), now() + interval '1 day')`)
	exec(`INSERT INTO feed_events (account_id, seq, subscription_id, event_id, content_hash, src_partition, src_offset, event, created_at,
			tags, alert_type, change_minutes) VALUES
		(` + acct + `, 1, ` + sub + `, 'e1', 'h1', 2, 40, '{"eventID":"e1"}', now(), '{EQUIPMENT,ACT}', NULL, NULL),
		(` + acct + `, 2, ` + sub + `, 'e2', 'h1', 2, 41, '{"eventID":"e2"}', now(), NULL, NULL, NULL),
		(` + acct + `, 3, ` + sub + `, 'alert-1', 'alert:x', 0, 7, '{"alertID":"alert-1"}', now(), NULL, 'ETA_CHANGED', 400)`)
	exec(`INSERT INTO feed_accounts (account_id, last_seq) VALUES (` + acct + `, 3)`)
	migrate()
	list := func(sql string) string {
		t.Helper()
		rows, _ := conn.Query(ctx, sql)
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " | ")
	}
	items := list(`SELECT seq || ' ' || event_id || ' ' || kind || ' ' || coalesce(array_to_string(tags, ','), '-') || ' ' ||
		coalesce(alert_type, '-') || ' ' || coalesce(change_minutes::text, '-') || ' ' || convert_from(event, 'UTF8') FROM feed_items ORDER BY seq`)
	want := `1 e1 EVENT EQUIPMENT,ACT - - {"eventID":"e1"} | 2 e2 EVENT - - - {"eventID":"e2"} | 3 alert-1 ALERT - ETA_CHANGED 400 {"alertID":"alert-1"}`
	if items != want {
		t.Fatalf("items after 0071:\n got %s\nwant %s", items, want)
	}
	if alerts := list(`SELECT event_ids[1] FROM feed_batches WHERE subscription_id = ` + sub + ` AND kind = 'ALERT'`); alerts != "alert-1" {
		t.Errorf("alert rows by subscription: %q", alerts)
	}
	if marks := list(`SELECT source || ' ' || tracking_id || ' ' || src_partition || ' ' || src_offset FROM feed_marks ORDER BY source`); marks != "alerts 00000000-0000-4000-8000-0000000000f1 0 7 | events 00000000-0000-4000-8000-0000000000f1 2 41" {
		t.Errorf("marks after 0071: %q", marks)
	}
}
