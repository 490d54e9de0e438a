// Package postgres opens contrack's Postgres pool and applies its migrations.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/schemas/migrations"
)

// Open connects to the database named in url, creating it first if it does
// not exist (connecting to the server's "postgres" database to do so). The
// pool has pgx's default size (max(4, CPUs)) unless url sets pool_max_conns.
func Open(ctx context.Context, url string) (*pgxpool.Pool, error) {
	return OpenPool(ctx, url, 0)
}

// OpenPool is Open with a pool of at most maxConns connections (0: pgx's
// default). contrack gives the API its own pool beside the stages' one, so
// a flood of API requests waits for API connections and never for the
// poller's, the delivery's or the relay's.
func OpenPool(ctx context.Context, url string, maxConns int) (*pgxpool.Pool, error) {
	if err := ensureDatabase(ctx, url); err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse url: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = int32(maxConns)
	}
	// No JIT unless the URL asks for it (jit=on): contrack's statements are
	// probes and keyed writes, where compiling never pays. The one that
	// crossed jit_above_cost, the delivery queue-depth gauges' count,
	// spent about 150 ms of Postgres CPU compiling on every refresh.
	if _, set := cfg.ConnConfig.RuntimeParams["jit"]; !set {
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: ping %s: %w", cfg.ConnConfig.Host, err)
	}
	return pool, nil
}

func ensureDatabase(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("postgres: parse url: %w", err)
	}
	name := cfg.Database
	if name == "" || name == "postgres" {
		return nil
	}
	cfg.Database = "postgres"
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("postgres: connect to create database %s: %w", name, err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return fmt.Errorf("postgres: look up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	// Stages starting together race to create it: the loser sees 42P04, or
	// 23505 on pg_database's name index when both got past the check.
	if errors.As(err, &pgErr) && (pgErr.Code == "42P04" || pgErr.Code == "23505") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("postgres: create database %s: %w", name, err)
	}
	return nil
}

// GenericPlan, queued first in a pgx batch (one implicit transaction), has
// the batch's prepared statements run on their generic plan. Postgres
// re-plans a statement for each execution while a custom plan looks cheaper
// than the generic one, which for the fan-out statements (arrays unnested
// into fenced per-key probes) it always does: planning was 40 % of
// Postgres's CPU in the ledger at 500 events/s (docs/performance.md). Those
// statements are written so that their plan does not depend on the values.
const GenericPlan = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`

// KeyedPlan, queued first in a pgx batch (one implicit transaction), lets
// the batch's statements reach rows only through indexes and nested loops.
// It is for batches of key look-ups whose plans must not depend on
// statistics: a prepared statement's generic plan is made once, when a new
// database's tables are empty (Postgres assumes a never-analysed table is
// 10 pages), and kept until the table is analysed, so a join that scanned
// a "small" table goes on scanning it as it grows (delivery's opening of a
// batch planned its update of the queue that way, docs/performance.md).
const KeyedPlan = `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_hashjoin', 'off', true),
	set_config('enable_mergejoin', 'off', true)`

// migrationLock is the advisory lock key that serialises concurrent migrators.
const migrationLock = 7_402_113

// UUIDs returns us as arrays of 16 bytes, which pgx encodes for a uuid[]
// parameter directly: a uuid.UUID is a driver.Valuer, which pgx encodes
// through its text form, one reflective call and one parse per element (5 %
// of contrack's CPU at 5,000 events/s in the delivery queue's batches).
func UUIDs(us []uuid.UUID) [][16]byte {
	bs := make([][16]byte, len(us))
	for i, u := range us {
		bs[i] = u
	}
	return bs
}

// ClickHouseMigrationLock serialises ClickHouse migrators: ClickHouse has no
// locks of its own, and stages starting together would otherwise apply the
// same migration at once (and write its record twice, or fail on 18.16's
// TinyLog) — every stage has Postgres, so the lock lives there.
const ClickHouseMigrationLock = 7_402_114

// WithLock runs fn holding the session advisory lock key on one of pool's
// connections, so concurrent callers, in any process, run fn one at a time.
// If the unlock fails, the connection is closed (ending its session frees
// the lock) and the error is returned with fn's.
func WithLock(ctx context.Context, pool *pgxpool.Pool, key int64, fn func() error) (err error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: lock %d: acquire: %w", key, err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, key); err != nil {
		return fmt.Errorf("postgres: lock %d: %w", key, err)
	}
	defer func() {
		if _, uerr := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, key); uerr != nil {
			conn.Conn().Close(context.WithoutCancel(ctx))
			err = errors.Join(err, fmt.Errorf("postgres: unlock %d: %w", key, uerr))
		}
	}()
	return fn()
}

// Migrate applies every migration not yet recorded in schema_migrations, each
// in its own transaction (so none is ever half applied), recording its
// checksum. Re-running is a no-op. An applied migration whose file changed
// since is an error (migrations.ErrChanged), checked before anything is
// applied. Concurrent callers (several stages starting at once) are
// serialised by an advisory lock.
func Migrate(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) (applied int, err error) {
	ms, err := migrations.Postgres()
	if err != nil {
		return 0, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("postgres: migrate: acquire: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return 0, fmt.Errorf("postgres: migrate: lock: %w", err)
	}
	defer func() {
		// A failed unlock leaves the lock to the session, which the pool
		// may keep: the next migrator would wait for ever. Closing the
		// connection ends the session and frees it.
		if _, uerr := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock); uerr != nil {
			conn.Conn().Close(context.WithoutCancel(ctx))
			err = errors.Join(err, fmt.Errorf("postgres: migrate: unlock: %w", uerr))
		}
	}()

	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), checksum text);
		ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text`); err != nil {
		return 0, fmt.Errorf("postgres: migrate: create schema_migrations: %w", err)
	}
	done := map[int]string{}
	rows, err := conn.Query(ctx, `SELECT version, coalesce(checksum, '') FROM schema_migrations`)
	if err != nil {
		return 0, fmt.Errorf("postgres: migrate: read applied: %w", err)
	}
	for rows.Next() {
		var v int
		var sum string
		if err := rows.Scan(&v, &sum); err != nil {
			return 0, fmt.Errorf("postgres: migrate: scan: %w", err)
		}
		done[v] = sum
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("postgres: migrate: read applied: %w", err)
	}
	if err := migrations.CheckApplied("postgres", ms, done); err != nil {
		return 0, err
	}
	for _, m := range ms {
		sum, ok := done[m.Version]
		if ok && sum == "" {
			// Applied before checksums were kept: the file as it is now is
			// taken as the one applied.
			if _, err := conn.Exec(ctx, `UPDATE schema_migrations SET checksum = $2 WHERE version = $1`, m.Version, m.Checksum()); err != nil {
				return applied, fmt.Errorf("postgres: migrate: record checksum of %s: %w", m.Name, err)
			}
		}
		if ok {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`, m.Version, m.Name, m.Checksum())
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("postgres: migration %s: %w", m.Name, err)
		}
		log.Info("applied postgres migration", "migration", m.Name)
		applied++
	}
	return applied, nil
}
