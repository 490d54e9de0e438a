package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// statisticsLock is the first key of the two-key advisory locks that let
// one process at a time analyse a table (the second is the table's name).
const statisticsLock = 7_402_115

// YoungTableRows is how many rows a table must have changed before
// KeepStatistics analyses it: below it every plan is cheap anyway.
const YoungTableRows = 1000

// StatisticsEvery is how often stages check their tables' statistics.
const StatisticsEvery = 5 * time.Second

// KeepStatistics analyses each of tables (in the connection's schema) that
// has changed by more rows than it held when last analysed, and by at least
// YoungTableRows, checking every `every` until ctx ends.
//
// Why: a connection keeps a prepared statement's generic plan until a table
// it reads is analysed, and autovacuum's first ANALYZE of a new table comes
// a minute or more after it fills. Plans made meanwhile believe the table
// empty (Postgres assumes 10 pages for a never-analysed table), so a new
// deployment's first minutes — and every benchmark on a fresh database —
// ran key look-ups as scans of whole tables that had grown to thousands of
// rows. A table analysed at 1,000, 2,000, 4,000, … rows costs a handful of
// ANALYZEs; past that autovacuum (10 % of the table) comes first.
//
// An error is logged and the check tried again at the next tick.
func KeepStatistics(ctx context.Context, pool *pgxpool.Pool, tables []string, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := AnalyseGrown(ctx, pool, tables); err != nil && ctx.Err() == nil {
			log.Warn("postgres: keeping table statistics", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// AnalyseGrown is one check of KeepStatistics: it analyses the tables that
// grew past their statistics and returns their names.
func AnalyseGrown(ctx context.Context, pool *pgxpool.Pool, tables []string) ([]string, error) {
	rows, err := pool.Query(ctx, `
		SELECT c.relname FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
		WHERE c.relname = ANY($1) AND c.relnamespace = current_schema()::regnamespace
		  AND s.n_mod_since_analyze >= $2 AND s.n_mod_since_analyze > c.reltuples`, tables, YoungTableRows)
	if err != nil {
		return nil, fmt.Errorf("postgres: tables past their statistics: %w", err)
	}
	grown, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres: tables past their statistics: %w", err)
	}
	var analysed []string
	for _, name := range grown {
		ok, err := analyse(ctx, pool, name)
		if err != nil {
			return analysed, err
		}
		if ok {
			analysed = append(analysed, name)
		}
	}
	return analysed, nil
}

// analyse runs ANALYZE on a table unless another process is doing so.
func analyse(ctx context.Context, pool *pgxpool.Pool, table string) (bool, error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("postgres: analyse %s: %w", table, err)
	}
	defer tx.Rollback(ctx)
	var mine bool
	if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1, hashtext($2))`, statisticsLock, table).Scan(&mine); err != nil {
		return false, fmt.Errorf("postgres: analyse %s: %w", table, err)
	}
	if !mine {
		return false, nil
	}
	if _, err := tx.Exec(ctx, "ANALYZE "+pgx.Identifier{table}.Sanitize()); err != nil {
		return false, fmt.Errorf("postgres: analyse %s: %w", table, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("postgres: analyse %s: %w", table, err)
	}
	return true, nil
}
