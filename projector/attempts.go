// Package projector writes ClickHouse read models from Kafka: poll attempts
// (carrier metrics) and events (journeys for GET /subscription/equipment).
// Each projection inserts a batch, then commits its offsets.
package projector

import (
	"encoding/json"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/schemas"
)

var attemptsView = view{
	group:   schemas.GroupProjector,
	topic:   schemas.TopicPollAttempts,
	table:   "poll_attempts",
	columns: []string{"attempt_id", "account_id", "env", "scac", "tracking_id", "outcome", "http_code", "latency_ms", "event_count", "at", "day"},
	row: func(r *kgo.Record) ([]any, bool) {
		var a schemas.PollAttempt
		if err := json.Unmarshal(r.Value, &a); err != nil || a.ID == "" {
			return nil, false
		}
		at := a.At.UTC().Truncate(time.Second)
		return []any{a.ID, a.AccountID, a.Env, a.SCAC, a.TrackingID, a.Outcome,
			uint16(min(max(a.HTTPCode, 0), 65535)), uint32(min(max(a.LatencyMS, 0), 1<<32-1)), uint32(max(a.EventCount, 0)),
			at, day(at)}, true
	},
}
