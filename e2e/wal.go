package main

import (
	"context"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/postgres"
)

// walMark is where the server's write-ahead log stood when the load began.
// What the run's own database wrote since (pg_walinspect) is a figure the
// machine's other load does not move, unlike CPU: other databases on the
// server write to the same log, and are left out.
//
// The mark holds a temporary replication slot on its own connection, so
// the server keeps the run's log (a checkpoint would otherwise recycle
// it); the slot goes with the connection, whatever becomes of the run.
type walMark struct {
	conn *pgx.Conn
	lsn  string
}

func startWAL(ctx context.Context, dbURL string) (walMark, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return walMark{}, fmt.Errorf("wal: %w", err)
	}
	m := walMark{conn: conn}
	if _, err := conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_walinspect`); err != nil {
		conn.Close(ctx)
		return walMark{}, fmt.Errorf("wal: %w", err)
	}
	if err := conn.QueryRow(ctx, `SELECT lsn::text FROM pg_create_physical_replication_slot('e2e_' || pg_backend_pid(), true, true)`).Scan(&m.lsn); err != nil {
		conn.Close(ctx)
		return walMark{}, fmt.Errorf("wal: %w", err)
	}
	return m, nil
}

// print writes the run's database's WAL since m per delivered event, by
// table (an index's and a TOAST table's records count for their table),
// the largest first: records and bytes without full-page images, whose
// number depends on when checkpoints fell.
func (m walMark) print(ctx context.Context, out io.Writer, delivered int) error {
	defer m.conn.Close(ctx)
	if delivered == 0 {
		return nil
	}
	rows, err := m.conn.Query(ctx, postgres.WALByTableSQL, m.lsn)
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	type table struct {
		name        string
		recs, bytes int64
	}
	tables, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (t table, err error) {
		var rowWrites int64
		err = r.Scan(&t.name, &rowWrites, &t.recs, &t.bytes)
		return t, err
	})
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	var recs, bytes int64
	for _, t := range tables {
		recs, bytes = recs+t.recs, bytes+t.bytes
	}
	per := func(n int64) float64 { return float64(n) / float64(delivered) }
	fmt.Fprintf(out, "postgres WAL of this run's database (full-page images left out): %.1f records, %.0f bytes per event\n", per(recs), per(bytes))
	for i, t := range tables {
		if i == 8 {
			break
		}
		fmt.Fprintf(out, "  %-28s %6.2f records %7.0f bytes per event\n", t.name, per(t.recs), per(t.bytes))
	}
	return nil
}
