// Package clickhouse opens contrack's ClickHouse connection (native protocol)
// and applies its migrations. Every INSERT names its columns and no SQL uses
// types newer than ClickHouse 18.16 (no LowCardinality, DateTime64, Map, JSON).
package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/contrack/contrack/schemas/migrations"
)

// Open connects to addr and database db as the user default without a
// password, creating the database if missing.
func Open(ctx context.Context, addr, db string) (driver.Conn, error) {
	return OpenAs(ctx, addr, db, Credentials{})
}

// Credentials are the ClickHouse user contrack connects as; the zero value
// is the user default without a password.
type Credentials struct {
	User, Password string
}

// OpenAs connects to addr and database db as the user of cred, creating the
// database if missing.
func OpenAs(ctx context.Context, addr, db string, cred Credentials) (driver.Conn, error) {
	if cred.User == "" {
		cred.User = "default"
	}
	if err := ensureDatabase(ctx, addr, db, cred); err != nil {
		return nil, err
	}
	conn, err := dial(addr, db, cred)
	if err != nil {
		return nil, err
	}
	if err := Ping(ctx, conn); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

func dial(addr, db string, cred Credentials) (driver.Conn, error) {
	conn, err := ch.Open(&ch.Options{
		Addr:        []string{addr},
		Auth:        ch.Auth{Database: db, Username: cred.User, Password: cred.Password},
		DialTimeout: 5 * time.Second,
		// Old servers (18.16) do not understand newer settings; send none.
		Settings: ch.Settings{},
	})
	if err != nil {
		return nil, fmt.Errorf("clickhouse: open %s/%s: %w", addr, db, err)
	}
	return conn, nil
}

func ensureDatabase(ctx context.Context, addr, db string, cred Credentials) error {
	conn, err := dial(addr, "default", cred)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.Exec(ctx, "CREATE DATABASE IF NOT EXISTS `"+db+"`"); err != nil {
		return fmt.Errorf("clickhouse: create database %s: %w", db, err)
	}
	return nil
}

// Ping checks the server answers.
func Ping(ctx context.Context, conn driver.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := conn.Ping(ctx); err != nil {
		return fmt.Errorf("clickhouse: ping: %w", err)
	}
	return nil
}

// Migrate applies the ClickHouse migrations not yet recorded in
// schema_migrations. ClickHouse has no transactions: every statement is
// written to be re-runnable (IF NOT EXISTS), and schema_migration_states
// records a migration as started before its first statement and applied
// after its last, so one that stopped half-way (dirty) is found at the next
// start, logged, and run again from its first statement. An applied
// migration whose file changed since is an error (migrations.ErrChanged),
// checked before anything is applied. Callers serialise concurrent
// migrators themselves (a Postgres advisory lock: ClickHouse has none).
func Migrate(ctx context.Context, conn driver.Conn, log *slog.Logger) (applied int, err error) {
	ms, err := migrations.ClickHouse()
	if err != nil {
		return 0, err
	}
	for _, ddl := range []string{
		`CREATE TABLE IF NOT EXISTS schema_migrations (version UInt32, name String, applied_at DateTime) ENGINE = TinyLog`,
		`CREATE TABLE IF NOT EXISTS schema_migration_states (version UInt32, name String, checksum String, state String, at DateTime) ENGINE = TinyLog`,
	} {
		if err := conn.Exec(ctx, ddl); err != nil {
			return 0, fmt.Errorf("clickhouse: migrate: create bookkeeping: %w", err)
		}
	}
	legacy := map[int]bool{} // applied, as recorded before states were kept
	rows, err := conn.Query(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return 0, fmt.Errorf("clickhouse: migrate: read applied: %w", err)
	}
	for rows.Next() {
		var v uint32
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return 0, fmt.Errorf("clickhouse: migrate: scan: %w", err)
		}
		legacy[int(v)] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("clickhouse: migrate: read applied: %w", err)
	}
	done := map[int]string{}  // applied: version → checksum recorded
	started := map[int]bool{} // a run began
	rows, err = conn.Query(ctx, `SELECT version, checksum, state FROM schema_migration_states`)
	if err != nil {
		return 0, fmt.Errorf("clickhouse: migrate: read states: %w", err)
	}
	for rows.Next() {
		var v uint32
		var sum, state string
		if err := rows.Scan(&v, &sum, &state); err != nil {
			rows.Close()
			return 0, fmt.Errorf("clickhouse: migrate: scan states: %w", err)
		}
		switch state {
		case stateApplied:
			done[int(v)] = sum
		case stateStarted:
			started[int(v)] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("clickhouse: migrate: read states: %w", err)
	}
	if err := migrations.CheckApplied("clickhouse", ms, done); err != nil {
		return 0, err
	}
	record := func(m migrations.Migration, state string) error {
		return Insert(ctx, conn, "schema_migration_states", []string{"version", "name", "checksum", "state", "at"},
			[]any{uint32(m.Version), m.Name, m.Checksum(), state, time.Now().UTC().Truncate(time.Second)})
	}
	for _, m := range ms {
		if _, ok := done[m.Version]; ok {
			continue
		}
		if legacy[m.Version] {
			// Applied before states were kept: the file as it is now is
			// taken as the one applied.
			if err := record(m, stateApplied); err != nil {
				return applied, fmt.Errorf("clickhouse: record checksum of %s: %w", m.Name, err)
			}
			continue
		}
		if started[m.Version] {
			log.Warn("clickhouse migration stopped half-way at an earlier start (dirty); its statements are re-runnable: running it again",
				"migration", m.Name)
		}
		if err := record(m, stateStarted); err != nil {
			return applied, fmt.Errorf("clickhouse: record start of %s: %w", m.Name, err)
		}
		for _, stmt := range migrations.Statements(m.SQL) {
			if err := conn.Exec(ctx, stmt); err != nil {
				return applied, fmt.Errorf("clickhouse: migration %s (left dirty: run again at the next start): %w", m.Name, err)
			}
		}
		if err := Insert(ctx, conn, "schema_migrations", []string{"version", "name", "applied_at"},
			[]any{uint32(m.Version), m.Name, time.Now().UTC().Truncate(time.Second)}); err != nil {
			return applied, fmt.Errorf("clickhouse: record migration %s: %w", m.Name, err)
		}
		if err := record(m, stateApplied); err != nil {
			return applied, fmt.Errorf("clickhouse: record migration %s: %w", m.Name, err)
		}
		log.Info("applied clickhouse migration", "migration", m.Name)
		applied++
	}
	return applied, nil
}

// The states of schema_migration_states: a run began, or finished.
const (
	stateStarted = "started"
	stateApplied = "applied"
)

// Insert writes rows into table through a native-protocol batch, naming
// every column (ClickHouse 18.16 needs that; parameter-bound INSERTs hang on
// old servers).
func Insert(ctx context.Context, conn driver.Conn, table string, columns []string, rows ...[]any) error {
	return insert(ctx, conn, table, columns, 0, rows)
}

// InsertInBlocks is Insert sending a block whenever the rows appended since
// the last hold blockBytes of strings. The driver grows each column's
// buffer by a quarter at a time, copying it: one block of 50 MB of journey
// JSON copied it about four times over into fresh memory, 16 % of the
// process's CPU at 2,500 events/s; blocks reuse the buffers. Unlike Insert
// it is not atomic: a failure can leave the first blocks written, so it is
// for rows that are written again whole on a retry (a read model's).
func InsertInBlocks(ctx context.Context, conn driver.Conn, table string, columns []string, blockBytes int, rows ...[]any) error {
	return insert(ctx, conn, table, columns, blockBytes, rows)
}

// BlockBytes is the block size for InsertInBlocks where nothing else
// bounds it: the server squashes an INSERT's blocks into parts of up to
// min_insert_block_size_rows / _bytes (about a million rows, 256 MB), so
// small blocks make no more parts than one large one, while the driver's
// column buffers, reused from block to block, stop growing past a block.
// A 20,000-row insert of events in one block spent more of the process's
// CPU on growing and copying its buffers than on everything else it did.
const BlockBytes = 1 << 20

func insert(ctx context.Context, conn driver.Conn, table string, columns []string, blockBytes int, rows [][]any) error {
	// clickhouse-go closes a batch's connection when the batch's context
	// ends, from a watchdog goroutine that a busy machine can leave
	// unscheduled until after Send returned and the connection went back to
	// the pool; a caller cancelling its context right after Insert (a
	// deferred cancel) then broke the next query on that connection ("use
	// of closed network connection"). So the batch's context ends with the
	// caller's only while the insert runs.
	bctx, bcancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, bcancel)
	defer stop()
	batch, err := conn.PrepareBatch(bctx, "INSERT INTO "+table+" ("+strings.Join(columns, ", ")+")")
	if err != nil {
		return fmt.Errorf("clickhouse: prepare insert into %s: %w", table, err)
	}
	pending := 0
	for _, r := range rows {
		if err := batch.Append(r...); err != nil {
			_ = batch.Abort() // releases the connection; fails only on a batch already sent
			return fmt.Errorf("clickhouse: append to %s: %w", table, err)
		}
		if blockBytes <= 0 {
			continue
		}
		for _, v := range r {
			if s, ok := v.(string); ok {
				pending += len(s)
			}
		}
		if pending >= blockBytes {
			if err := batch.Flush(); err != nil {
				_ = batch.Abort() // releases the connection; fails only on a batch already sent
				return fmt.Errorf("clickhouse: insert a block into %s: %w", table, err)
			}
			pending = 0
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse: insert into %s: %w", table, err)
	}
	return nil
}

// Unreachable says err is ClickHouse being unreachable (refused, reset or
// timed-out connections): an outage to wait out, unlike an error the
// server answered with (a bad query, a missing table).
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var ex *ch.Exception
	if errors.As(err, &ex) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, ch.ErrAcquireConnTimeout)
}
