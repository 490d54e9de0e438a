package clickhouse_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas/migrations"
)

func TestMigrateIsIdempotent(t *testing.T) {
	db := testenv.ClickHouse(t) // migrated once already
	ctx := context.Background()
	n, err := clickhouse.Migrate(ctx, db.Conn, testenv.Log(t))
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("second run applied %d migrations, want 0", n)
	}
	ms, _ := migrations.ClickHouse()
	var count uint64
	if err := db.Conn.QueryRow(ctx, `SELECT count() FROM schema_migrations`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if int(count) != len(ms) {
		t.Fatalf("schema_migrations has %d rows, want %d", count, len(ms))
	}
}

// The driver is not tested upstream against 18.16 and has returned wrong
// data from old servers: every column type the schemas use is written and
// read back here, through the real tables.
func TestPollAttemptsRoundTripEveryColumnType(t *testing.T) {
	db := testenv.ClickHouse(t)
	ctx := context.Background()
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	day := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	err := clickhouse.Insert(ctx, db.Conn, "poll_attempts",
		[]string{"attempt_id", "account_id", "env", "scac", "tracking_id", "outcome", "http_code", "latency_ms", "event_count", "at", "day"},
		[]any{"a-1", "acct-ü-1", "sandbox", "MAEU", "trk-1", "success", uint16(65535), uint32(4294967295), uint32(12), at, day},
		[]any{"a-2", "", "live", "HLCU", "trk-2", "error", uint16(0), uint32(0), uint32(0), at.Add(time.Hour), day},
	)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Conn.Query(ctx, `SELECT attempt_id, account_id, env, scac, tracking_id, outcome, http_code, latency_ms, event_count, at, day
		FROM poll_attempts ORDER BY attempt_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type row struct {
		id, account, env, scac, tracking, outcome string
		code                                      uint16
		latency, events                           uint32
		at, day                                   time.Time
	}
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.account, &r.env, &r.scac, &r.tracking, &r.outcome, &r.code, &r.latency, &r.events, &r.at, &r.day); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if len(got) != 2 {
		t.Fatalf("read %d rows, want 2", len(got))
	}
	r := got[0]
	if r.id != "a-1" || r.account != "acct-ü-1" || r.env != "sandbox" || r.scac != "MAEU" || r.tracking != "trk-1" || r.outcome != "success" {
		t.Errorf("strings: %+v", r)
	}
	if r.code != 65535 || r.latency != 4294967295 || r.events != 12 {
		t.Errorf("integers: code %d latency %d events %d", r.code, r.latency, r.events)
	}
	if !r.at.Equal(at) {
		t.Errorf("DateTime: got %v want %v", r.at, at)
	}
	if r.day.Year() != 2026 || r.day.Month() != 3 || r.day.Day() != 4 {
		t.Errorf("Date: got %v", r.day)
	}
	if got[1].account != "" || got[1].code != 0 || !got[1].at.Equal(at.Add(time.Hour)) {
		t.Errorf("second row: %+v", got[1])
	}
}

func TestSchemaMigrationsRoundTrip(t *testing.T) {
	db := testenv.ClickHouse(t)
	var version uint32
	var name string
	var applied time.Time
	err := db.Conn.QueryRow(context.Background(), `SELECT version, name, applied_at FROM schema_migrations ORDER BY version LIMIT 1`).Scan(&version, &name, &applied)
	if err != nil {
		t.Fatal(err)
	}
	if version != 1 || name != "0001_poll_attempts.sql" || time.Since(applied) > time.Hour || time.Since(applied) < -time.Minute {
		t.Fatalf("got %d %q %v", version, name, applied)
	}
}

// An unreachable server is an outage to wait out; an error the server
// answered with is not.
func TestUnreachableTellsOutagesFromAnswers(t *testing.T) {
	db := testenv.ClickHouse(t)
	ctx := context.Background()
	err := db.Conn.Exec(ctx, "SELECT * FROM no_such_table")
	if err == nil || clickhouse.Unreachable(err) {
		t.Errorf("a missing table: %v, unreachable %v; want an answered error", err, clickhouse.Unreachable(err))
	}
	l, lerr := net.Listen("tcp", "127.0.0.1:0")
	if lerr != nil {
		t.Fatal(lerr)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	_, err = clickhouse.Open(ctx, addr, "x")
	if err == nil || !clickhouse.Unreachable(err) {
		t.Errorf("a closed port: %v, unreachable %v; want unreachable", err, clickhouse.Unreachable(err))
	}
	if clickhouse.Unreachable(nil) {
		t.Error("nil is not an outage")
	}
}

// TestCancelAfterInsertKeepsTheConnection: a caller that cancels its
// context as soon as Insert returns (a deferred cancel) must not break the
// next query. clickhouse-go closes a batch's connection from a watchdog
// goroutine when the batch's context ends, and that goroutine can still see
// the cancellation after Send returned and the connection went back to the
// pool ("use of closed network connection" on the next query).
func TestCancelAfterInsertKeepsTheConnection(t *testing.T) {
	db := testenv.ClickHouse(t)
	if err := db.Conn.Exec(context.Background(), "CREATE TABLE cancel_probe (n UInt32) ENGINE = MergeTree ORDER BY n"); err != nil {
		t.Fatal(err)
	}
	// Busy goroutines keep the watchdog waiting for a core, as a loaded
	// machine does: that is when it sees the cancellation first.
	stop := make(chan struct{})
	defer close(stop)
	for range 4 {
		go func() {
			for {
				select {
				case <-stop:
					return
				default: //nolint:staticcheck // SA5004: spinning is the point (a busy core)
				}
			}
		}()
	}
	broken := 0
	for i := range 100 {
		ctx, cancel := context.WithCancel(context.Background())
		if err := clickhouse.Insert(ctx, db.Conn, "cancel_probe", []string{"n"}, []any{uint32(i)}); err != nil {
			cancel()
			t.Fatalf("insert %d: %v", i, err)
		}
		cancel()
		var n uint64
		if err := db.Conn.QueryRow(context.Background(), "SELECT count() FROM cancel_probe").Scan(&n); err != nil {
			broken++
		}
	}
	if broken > 0 {
		t.Fatalf("%d of 100 queries right after a cancelled insert failed", broken)
	}
}

// TestInsertInBlocksWritesEveryRow: rows sent in many blocks (a block every
// ~200 bytes of strings) all arrive, each whole, with every column right.
// (The server squashes an INSERT's small blocks into one part, so the
// blocks themselves leave no trace to count.)
func TestInsertInBlocksWritesEveryRow(t *testing.T) {
	db := testenv.ClickHouse(t)
	ctx := context.Background()
	if err := db.Conn.Exec(ctx, "CREATE TABLE blocks_probe (n UInt32, s String) ENGINE = MergeTree ORDER BY n"); err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	want := map[uint32]string{}
	for i := range 500 {
		s := strings.Repeat(string(rune('a'+i%26)), 1+i%97)
		rows = append(rows, []any{uint32(i), s})
		want[uint32(i)] = s
	}
	if err := clickhouse.InsertInBlocks(ctx, db.Conn, "blocks_probe", []string{"n", "s"}, 200, rows...); err != nil {
		t.Fatal(err)
	}
	got, err := db.Conn.Query(ctx, "SELECT n, s FROM blocks_probe")
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	seen := 0
	for got.Next() {
		var n uint32
		var s string
		if err := got.Scan(&n, &s); err != nil {
			t.Fatal(err)
		}
		if want[n] != s {
			t.Fatalf("row %d: got %q, want %q", n, s, want[n])
		}
		delete(want, n)
		seen++
	}
	if err := got.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) != 0 || seen != 500 {
		t.Fatalf("read %d rows, %d of the 500 written missing", seen, len(want))
	}
}

// A migration that stopped half-way (recorded as started, never as
// applied) is run again at the next start; an applied one whose file
// changed since stops Migrate with its name.
func TestMigrateRerunsADirtyMigrationAndRefusesAChangedOne(t *testing.T) {
	db := testenv.ClickHouse(t)
	ctx := context.Background()
	ms, _ := migrations.ClickHouse()
	last := ms[len(ms)-1]
	// As if the last migration's run had stopped after its start was
	// recorded: its states are only "started", it is not in schema_migrations.
	for _, stmt := range []string{
		`CREATE TABLE states_copy ENGINE = TinyLog AS SELECT * FROM schema_migration_states WHERE version != ` + strconv.Itoa(last.Version),
		`DROP TABLE schema_migration_states`,
		`RENAME TABLE states_copy TO schema_migration_states`,
		`CREATE TABLE migrations_copy ENGINE = TinyLog AS SELECT * FROM schema_migrations WHERE version != ` + strconv.Itoa(last.Version),
		`DROP TABLE schema_migrations`,
		`RENAME TABLE migrations_copy TO schema_migrations`,
	} {
		if err := db.Conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := clickhouse.Insert(ctx, db.Conn, "schema_migration_states", []string{"version", "name", "checksum", "state", "at"},
		[]any{uint32(last.Version), last.Name, last.Checksum(), "started", time.Now().UTC().Truncate(time.Second)}); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	n, err := clickhouse.Migrate(ctx, db.Conn, slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil || n != 1 {
		t.Fatalf("migrate over a dirty migration: applied %d, %v; want it run again", n, err)
	}
	if !strings.Contains(logged.String(), "dirty") || !strings.Contains(logged.String(), last.Name) {
		t.Fatalf("the dirty migration was run again without saying so: %s", logged.String())
	}
	var states uint64
	if err := db.Conn.QueryRow(ctx, `SELECT count() FROM schema_migration_states WHERE version = ? AND state = 'applied'`, uint32(last.Version)).Scan(&states); err != nil || states != 1 {
		t.Fatalf("the dirty migration recorded as applied %d times (%v), want once", states, err)
	}
	// An applied migration's file changed since.
	if err := clickhouse.Insert(ctx, db.Conn, "schema_migration_states", []string{"version", "name", "checksum", "state", "at"},
		[]any{uint32(ms[0].Version), ms[0].Name, "edited", "applied", time.Now().UTC().Truncate(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if _, err := clickhouse.Migrate(ctx, db.Conn, testenv.Log(t)); !errors.Is(err, migrations.ErrChanged) || !strings.Contains(err.Error(), ms[0].Name) {
		t.Fatalf("migrate over an edited migration: %v; want ErrChanged naming %s", err, ms[0].Name)
	}
}
