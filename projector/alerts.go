package projector

import (
	"encoding/json"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/schemas"
)

// alertsView keeps every alert for analysts (docs/analytics.md).
var alertsView = view{
	group: schemas.GroupAlertsView,
	topic: schemas.TopicAlerts,
	table: "alerts",
	columns: []string{"account_id", "env", "tracking_id", "scac", "alert_id", "alert_type", "equipment_reference", "location",
		"alert_time", "change_minutes", "alert_json", "emitted_at", "version"},
	row: func(r *kgo.Record) ([]any, bool) {
		var rec schemas.EventRecord
		if err := schemas.DecodeEventRecord(r.Value, &rec); err != nil || rec.EventID == "" || !schemas.IsAlertHash(rec.ContentHash) {
			return nil, false
		}
		var a schemas.Alert
		if err := json.Unmarshal(rec.Event, &a); err != nil || a.AlertType == "" {
			return nil, false
		}
		at, _ := time.Parse(time.RFC3339Nano, a.AlertDateTime)
		var mins int32
		if a.ChangeMinutes != nil {
			mins = int32(*a.ChangeMinutes)
		}
		emitted := rec.EmittedAt.UTC()
		return []any{rec.AccountID, rec.Env, rec.TrackingID, rec.SCAC, a.AlertID, a.AlertType, a.EquipmentReference, a.UNLocationCode,
			at.UTC().Truncate(time.Second), mins, string(rec.Event), emitted.Truncate(time.Second), uint64(emitted.UnixNano())}, true
	},
}
