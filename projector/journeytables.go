package projector

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/contrack/contrack/platform/clickhouse"
)

// JourneysTable and StateTable name a generation's tables.
func JourneysTable(gen uint32) string { return fmt.Sprintf("journeys_g%d", gen) }

// StateTable is the per-tracking state table of a generation.
func StateTable(gen uint32) string { return fmt.Sprintf("journey_state_g%d", gen) }

// journeyColumns are journeys_g<N>'s columns, in insert order.
var journeyColumns = []string{"account_id", "env", "lookup_kind", "lookup_value", "tracking_id", "since", "position",
	"equipment_number", "scac", "tracking_status", "pol", "pod", "last_location",
	"source_events", "vessel_events", "enhanced_events", "updated_at", "version"}

var stateColumns = []string{"account_id", "tracking_id", "state_json", "updated_at", "version"}

// EnsureJourneyTables creates generation gen's tables if missing.
//
// journeys_g<N> holds one row per (account, tracking, container), ordered by
// the lookup key GET /subscription/equipment reads by, with 16-row granules
// so a point read decompresses a few rows, not 8,192. A change is a new row
// with a higher version (ReplacingMergeTree): readers take the highest
// version per (tracking, container) with LIMIT 1 BY. The event lists are
// stored encoded (JSON arrays) as the API serves them.
//
// journey_state_g<N> holds the projector's state per tracking
// (projector/journey.State as JSON) so it can update a journey from one
// event without reading the events table.
func EnsureJourneyTables(ctx context.Context, conn driver.Conn, gen uint32) error {
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS ` + JourneysTable(gen) + ` (
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
			vessel_events    String,
			enhanced_events  String,
			updated_at       DateTime,
			version          UInt64
		) ENGINE = ReplacingMergeTree(version)
		ORDER BY (account_id, lookup_kind, lookup_value, tracking_id, equipment_number)
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
	}
	for _, s := range stmts {
		if err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("projector: create journey tables g%d: %w", gen, err)
		}
	}
	return nil
}

// CurrentGeneration is the journey generation readers use (1 before any rebuild).
func CurrentGeneration(ctx context.Context, conn driver.Conn) (uint32, error) {
	var gen uint32
	if err := conn.QueryRow(ctx, `SELECT max(generation) FROM journey_generations`).Scan(&gen); err != nil {
		return 0, fmt.Errorf("projector: read journey generation: %w", err)
	}
	return max(gen, 1), nil
}

func setGeneration(ctx context.Context, conn driver.Conn, gen uint32) error {
	return clickhouse.Insert(ctx, conn, "journey_generations", []string{"generation", "at"},
		[]any{gen, time.Now().UTC().Truncate(time.Second)})
}
