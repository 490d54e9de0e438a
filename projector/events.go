package projector

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
)

var eventsView = view{
	group: schemas.GroupEventsView,
	topic: schemas.TopicEvents,
	table: "events",
	columns: []string{"account_id", "env", "tracking_id", "scac", "event_id", "content_hash", "event_type", "classifier", "type_code",
		"equipment_reference", "location", "event_time", "event_json", "emitted_at", "version"},
	row: func(r *kgo.Record) ([]any, bool) {
		var rec schemas.EventRecord
		if err := schemas.DecodeEventRecord(r.Value, &rec); err != nil || rec.EventID == "" {
			return nil, false
		}
		emitted := rec.EmittedAt.UTC()
		if rec.Retraction() {
			// The event's last version: withdrawn. Readers take the
			// newest row per event, so it stands for the event from now on.
			return []any{rec.AccountID, rec.Env, rec.TrackingID, rec.SCAC, rec.EventID, rec.ContentHash, "", "", "", "", "",
				emitted.Truncate(time.Second), string(rec.Event), emitted.Truncate(time.Second), uint64(emitted.UnixNano())}, true
		}
		var ev dcsa.Summary
		if err := dcsa.DecodeValidSummary(rec.Event, &ev); err != nil { // valid: DecodeEventRecord checked it
			return nil, false
		}
		at, _ := time.Parse(time.RFC3339Nano, ev.EventDateTime)
		code := ev.TypeCode()
		return []any{rec.AccountID, rec.Env, rec.TrackingID, rec.SCAC, rec.EventID, rec.ContentHash, ev.EventType,
			ev.EventClassifierCode, code, ev.EquipmentReference, ev.Place(), at.UTC().Truncate(time.Second),
			string(rec.Event), emitted.Truncate(time.Second), uint64(emitted.UnixNano())}, true
	},
}
