package queryapi

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/voyage"
)

// reportsPerVessel bounds the reports read per vessel: the latest, and
// enough before it for the recent speed.
const reportsPerVessel = 60

// vesselKey names a ship's reports in vessel_positions: a sandbox ship is
// an IMO number on one voyage, a live one an IMO number (voyage ”).
type vesselKey struct{ env, imo, voyage string }

// addVoyages fills each row's vessel, route and predicted arrival: the
// legs its transport events describe, and for the rows at sea the
// vessel's latest reports, one query for all of them. The answers are
// cached like the rest of the row, so a pull's position is at most the
// cache's MaxAge older than the latest report (docs/vessels.md).
func (j *Journeys) addVoyages(ctx context.Context, rows map[journeyID]*journeyRow) error {
	type pending struct {
		row  *journeyRow
		legs []voyage.Leg
		key  *vesselKey
	}
	var work []pending
	keys := map[vesselKey]bool{}
	var since time.Time
	for _, r := range rows {
		var evs []json.RawMessage
		if r.ves == "" || json.Unmarshal([]byte(r.ves), &evs) != nil {
			continue
		}
		legs := voyage.Legs(evs)
		if len(legs) == 0 {
			continue
		}
		p := pending{row: r, legs: legs}
		if cur, atSea := voyage.Current(legs); atSea {
			k := vesselKey{r.env, legs[cur].IMO, ""}
			if r.env == schemas.EnvSandbox {
				k.voyage = legs[cur].Voyage
			}
			p.key = &k
			keys[k] = true
			if dep := legs[cur].Departure.Add(-24 * time.Hour); since.IsZero() || dep.Before(since) {
				since = dep
			}
		}
		work = append(work, p)
	}
	fixes := map[vesselKey][]voyage.Fix{}
	if len(keys) > 0 && j.ch != nil {
		set := make([]clickhouse.GroupSet, 0, len(keys))
		for k := range keys {
			set = append(set, clickhouse.GroupSet{Value: []any{k.env, k.imo, k.voyage}})
		}
		q, err := j.ch.Query(ctx, fmt.Sprintf(`SELECT env, imo, voyage, at, lat, lon, speed_knots, course, nav_status
			FROM vessel_positions WHERE (env, imo, voyage) IN (?) AND at >= ?
			ORDER BY env, imo, voyage, at DESC LIMIT %d BY env, imo, voyage`, reportsPerVessel), set, since.UTC())
		if err != nil {
			return fmt.Errorf("read vessel positions: %w", err)
		}
		defer q.Close()
		for q.Next() {
			var k vesselKey
			var f voyage.Fix
			var speed, course float32
			var status uint8
			if err := q.Scan(&k.env, &k.imo, &k.voyage, &f.At, &f.Lat, &f.Lon, &speed, &course, &status); err != nil {
				return fmt.Errorf("read vessel positions: %w", err)
			}
			f.SpeedKnots, f.Course, f.NavStatus = float64(speed), float64(course), int(status)
			fixes[k] = append(fixes[k], f)
		}
		if err := q.Err(); err != nil {
			return fmt.Errorf("read vessel positions: %w", err)
		}
	}
	for _, p := range work {
		var fs []voyage.Fix
		if p.key != nil {
			fs = fixes[*p.key]
		}
		v := voyage.Build(p.legs, fs)
		var b []byte
		for _, f := range []struct {
			name  string
			value any
			set   bool
		}{{"vessel", v.Vessel, v.Vessel != nil}, {"route", v.Route, v.Route != nil}, {"arrivalPrediction", v.Prediction, v.Prediction != nil}} {
			if !f.set {
				continue
			}
			enc, err := json.Marshal(f.value)
			if err != nil {
				return fmt.Errorf("encode %s: %w", f.name, err)
			}
			b = append(append(b, `,"`+f.name+`":`...), enc...)
		}
		p.row.voyage = b
	}
	return nil
}
