// Package journeys is the contract of the journey read model between the
// projector, which derives and writes it, and the query API, which reads
// and serves it: the ClickHouse tables of a generation, which generation
// readers use, and the shape of one container's journey. Only the
// projector creates, alters or drops the tables (projector.EnsureJourneyTables
// has their columns); a reader finds a generation's tables missing until
// the projector has first run (MissingTable).
package journeys

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/contrack/contrack/schemas/readiness"
	"github.com/contrack/contrack/schemas/voyage"
)

// JourneysTable holds a generation's journeys: one row per (account,
// tracking, container), the latest version per key wins.
func JourneysTable(gen uint32) string { return fmt.Sprintf("journeys_g%d", gen) }

// ChunksTable holds a generation's journeys' source events in chunks (a
// JSON array each), which JourneysTable's rows name by version in
// source_chunks.
func ChunksTable(gen uint32) string { return fmt.Sprintf("journey_chunks_g%d", gen) }

// CurrentGeneration is the journey generation readers use (1 before any
// rebuild): the highest in journey_generations, which the projector
// writes once a rebuilt generation has caught up.
func CurrentGeneration(ctx context.Context, conn driver.Conn) (uint32, error) {
	var gen uint32
	if err := conn.QueryRow(ctx, `SELECT max(generation) FROM journey_generations`).Scan(&gen); err != nil {
		return 0, fmt.Errorf("journeys: read the current generation: %w", err)
	}
	return max(gen, 1), nil
}

// MissingTable says err is ClickHouse answering that a table does not
// exist (UNKNOWN_TABLE): a generation's tables before the projector has
// created them.
func MissingTable(err error) bool {
	var ex *ch.Exception
	return errors.As(err, &ex) && ex.Code == 60
}

// Milestone is one derived event of enhancedEvents.
type Milestone struct {
	EnhancedEventType string `json:"enhancedEventType"`
	UNLocationCode    string `json:"UNLocationCode"`
	EventDateTime     string `json:"eventDateTime"`
	// PreviousEventDateTime and RevisedDateTime: ETA_REVISION only.
	PreviousEventDateTime string `json:"previousEventDateTime,omitempty"`
	RevisedDateTime       string `json:"revisedDateTime,omitempty"`
	// ReloadDateTime: TRANSSHIPMENT only, once the reload is known.
	ReloadDateTime string `json:"reloadDateTime,omitempty"`
}

// Result is one container's journey, GET /subscription/equipment's result.
type Result struct {
	EquipmentNumber string            `json:"equipmentNumber"`
	ScacCode        string            `json:"scacCode"`
	TrackingStatus  string            `json:"trackingStatus"`
	LastLocation    string            `json:"lastLocation"`
	POL             string            `json:"POL"`
	POD             string            `json:"POD"`
	SourceEvents    []json.RawMessage `json:"sourceEvents"`
	EnhancedEvents  []Milestone       `json:"enhancedEvents"`
	VesselEvents    []json.RawMessage `json:"vesselEvents"`
	// Vessel, Route and ArrivalPrediction are added by the read side from
	// the vessel's reported positions (schemas/voyage); absent when the
	// carrier named no vessel passage (the projector's journey.Derive leaves them nil).
	Vessel            *voyage.Vessel     `json:"vessel,omitempty"`
	Route             *voyage.Route      `json:"route,omitempty"`
	ArrivalPrediction *voyage.Prediction `json:"arrivalPrediction,omitempty"`
	// Readiness is added by the read side from Facts, the account's
	// free-time rules and the clock (schemas/readiness); absent before the
	// container is discharged or its terminal reports anything.
	Readiness *readiness.Readiness `json:"readiness,omitempty"`
	// Facts are what the container's events say at the port of discharge
	// (the projector's derivation sets them and stores them beside the row).
	Facts readiness.Facts `json:"-"`
}
