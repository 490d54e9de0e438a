package projector

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/schemas/journeys"
)

// StateTable is the per-tracking state table of a generation as written
// before events were stored apart (read for trackings not in StateRowsTable).
func StateTable(gen uint32) string { return fmt.Sprintf("journey_state_g%d", gen) }

// StateRowsTable is the per-tracking state of a generation: a header row
// and one row per event.
func StateRowsTable(gen uint32) string { return fmt.Sprintf("journey_state_rows_g%d", gen) }

// generationTables are a generation's tables (a rebuild drops them).
func generationTables(gen uint32) []string {
	return []string{journeys.JourneysTable(gen), journeys.ChunksTable(gen), StateTable(gen), StateRowsTable(gen)}
}

// journeyColumns are journeys_g<N>'s columns, in insert order.
var journeyColumns = []string{"account_id", "env", "lookup_kind", "lookup_value", "tracking_id", "since", "position",
	"equipment_number", "scac", "tracking_status", "pol", "pod", "last_location",
	"source_events", "source_chunks", "vessel_events", "enhanced_events", "readiness", "updated_at", "version"}

// ReadinessTable is the containers' readiness facts for analysts and the
// alerts stage (ClickHouse migration 0021): not a generation's.
const ReadinessTable = "readiness"

// readinessColumns are readiness's columns, in insert order.
var readinessColumns = []string{"account_id", "env", "tracking_id", "equipment_number", "scac", "pod", "discharged_at",
	"available_at", "picked_up_at", "returned_at", "holds", "holds_open", "facts_json", "updated_at", "version"}

// chunkColumns are journey_chunks_g<N>'s columns, in insert order.
var chunkColumns = []string{"account_id", "lookup_kind", "lookup_value", "tracking_id", "equipment_number", "chunk",
	"events", "version"}

// stateRowColumns are journey_state_rows_g<N>'s columns, in insert order.
var stateRowColumns = []string{"tracking_id", "seq", "event_id", "hash", "row_json", "version"}

// EnsureJourneyTables creates generation gen's tables if missing: the
// projector alone does (their names and the result's shape are the read
// side's contract, schemas/journeys).
//
// journeys_g<N> holds one row per (account, tracking, container), ordered by
// the lookup key GET /subscription/equipment reads by, with 16-row granules
// so a point read decompresses a few rows, not 8,192. A change is a new row
// with a higher version (ReplacingMergeTree): readers take the highest
// version per (tracking, container). The event lists are stored encoded
// (JSON arrays) as the API serves them; the source events, which grow with
// the journey, in journey_chunks_g<N>: chunk i holds the container's
// source events i*SourceChunkEvents onwards (a JSON array), and the row's
// source_chunks the version of each chunk it is made of, so a change
// rewrites the chunks it changed — at the end of the journey, as events
// mostly arrive — not every event. A row with no source_chunks holds its
// source events in source_events (rows written before chunks, and
// containers without events: "[]").
//
// journey_state_rows_g<N> holds the projector's state per tracking so it
// can update a journey from one event without reading the events table:
// seq 0 is the header (journey.State without its events, as JSON), seq i+1
// the i-th event in order of first appearance (id, content hash, the event).
// A batch inserts, for each tracking it changed, the header and the events
// it changed, all with the state's version: a change costs what changed,
// not the tracking's whole history. Loading takes the newest header and,
// per event, the newest version not above the header's.
//
// journey_state_g<N> holds whole states (events included) as written
// before; it is only read, for trackings with no rows in
// journey_state_rows_g<N> (generations projected by an older release).
func EnsureJourneyTables(ctx context.Context, conn driver.Conn, gen uint32) error {
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS ` + journeys.JourneysTable(gen) + ` (
			account_id       String,
			env              String,
			lookup_kind      String,
			lookup_value     String,
			tracking_id      String,
			since            DateTime,
			position         UInt16,
			equipment_number String,
			scac             String,
			tracking_status  String,
			pol              String,
			pod              String,
			last_location    String,
			source_events    String,
			source_chunks    Array(UInt64),
			vessel_events    String,
			enhanced_events  String,
			readiness        String,
			updated_at       DateTime,
			version          UInt64
		) ENGINE = ReplacingMergeTree(version)
		ORDER BY (account_id, lookup_kind, lookup_value, tracking_id, equipment_number)
		SETTINGS index_granularity = 16`,
		`CREATE TABLE IF NOT EXISTS ` + journeys.ChunksTable(gen) + ` (
			account_id       String,
			lookup_kind      String,
			lookup_value     String,
			tracking_id      String,
			equipment_number String,
			chunk            UInt32,
			events           String,
			version          UInt64
		) ENGINE = ReplacingMergeTree(version)
		ORDER BY (account_id, lookup_kind, lookup_value, tracking_id, equipment_number, chunk)
		SETTINGS index_granularity = 16`,
		`CREATE TABLE IF NOT EXISTS ` + StateTable(gen) + ` (
			account_id  String,
			tracking_id String,
			state_json  String,
			updated_at  DateTime,
			version     UInt64
		) ENGINE = ReplacingMergeTree(version)
		ORDER BY tracking_id
		SETTINGS index_granularity = 16`,
		`CREATE TABLE IF NOT EXISTS ` + StateRowsTable(gen) + ` (
			tracking_id String,
			seq         UInt32,
			event_id    String,
			hash        String,
			row_json    String,
			version     UInt64
		) ENGINE = ReplacingMergeTree(version)
		ORDER BY (tracking_id, seq)
		SETTINGS index_granularity = 16`,
	}
	for _, s := range stmts {
		if err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("projector: create journey tables g%d: %w", gen, err)
		}
	}
	if err := addSourceChunks(ctx, conn, journeys.JourneysTable(gen)); err != nil {
		return err
	}
	return AddReadiness(ctx, conn, journeys.JourneysTable(gen))
}

// addSourceChunks adds source_chunks to a journeys table created before
// chunks.
func addSourceChunks(ctx context.Context, conn driver.Conn, table string) error {
	return addColumn(ctx, conn, table, "source_chunks", "Array(UInt64)", "source_events")
}

// AddReadiness adds readiness (a container's readiness facts, JSON; ""
// for none) to a journeys table created before it.
func AddReadiness(ctx context.Context, conn driver.Conn, table string) error {
	return addColumn(ctx, conn, table, "readiness", "String", "enhanced_events")
}

// addColumn adds a column to a table that lacks it. ClickHouse 18.16 has
// no ADD COLUMN IF NOT EXISTS: the column is looked for first, and a
// concurrent process adding it first is no error.
func addColumn(ctx context.Context, conn driver.Conn, table, name, typ, after string) error {
	has := func() (bool, error) {
		var n uint64
		err := conn.QueryRow(ctx, `SELECT count() FROM system.columns
			WHERE database = currentDatabase() AND table = ? AND name = ?`, table, name).Scan(&n)
		return n > 0, err
	}
	wrap := func(err error) error {
		if err == nil {
			return nil
		}
		return fmt.Errorf("projector: add %s to %s: %w", name, table, err)
	}
	ok, err := has()
	if err != nil || ok {
		return wrap(err)
	}
	if err := conn.Exec(ctx, `ALTER TABLE `+table+` ADD COLUMN `+name+` `+typ+` AFTER `+after); err != nil {
		if ok, again := has(); again == nil && ok {
			return nil
		}
		return wrap(err)
	}
	return nil
}

func setGeneration(ctx context.Context, conn driver.Conn, gen uint32) error {
	return clickhouse.Insert(ctx, conn, "journey_generations", []string{"generation", "at"},
		[]any{gen, time.Now().UTC().Truncate(time.Second)})
}
