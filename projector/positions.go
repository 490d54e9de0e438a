package projector

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/schemas"
)

// positionsView writes vessel position reports into vessel_positions.
var positionsView = view{
	group:   schemas.GroupVesselPositionsView,
	topic:   schemas.TopicVesselPositions,
	table:   "vessel_positions",
	columns: []string{"env", "imo", "voyage", "at", "lat", "lon", "speed_knots", "course", "nav_status", "source", "day"},
	row: func(r *kgo.Record) ([]any, bool) {
		p, err := schemas.DecodeVesselPosition(r.Value)
		if err != nil {
			return nil, false
		}
		at := p.At.UTC().Truncate(time.Second)
		return []any{p.Env, p.IMO, p.Voyage, at, p.Lat, p.Lon, float32(p.SpeedKnots), float32(p.Course), uint8(p.NavStatus), p.Source, day(at)}, true
	},
}
