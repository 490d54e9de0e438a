package projector_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
)

// A history record (an event emitted again for a subscription made later)
// is passed over by the read models: they took the event from its own
// emission, and the history may carry an older version than one emitted
// since. Here the history of e1 carries its first version after its
// second: the events table keeps the second, and only the regular records
// reach it.
func TestHistoryRecordsLeaveTheReadModels(t *testing.T) {
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 1)
	prod := testenv.KafkaClient(t, kc.Brokers)
	ctx := context.Background()
	tracking := uuid.NewString()
	event := func(id, at string) []byte {
		ev, _ := json.Marshal(dcsa.Event{EventID: id, EventType: dcsa.EventTypeEquipment, EventClassifierCode: "EST", EventDateTime: at,
			EventCreatedDateTime: "2026-10-01T00:00:00Z", EquipmentEventTypeCode: "DISC", EquipmentReference: "MSKU9070323", EmptyIndicatorCode: "LADEN",
			EventLocation: &dcsa.Location{UNLocationCode: "NLRTM"}})
		rec, _ := json.Marshal(schemas.EventRecord{TrackingID: tracking, AccountID: "acct", Env: "sandbox", SCAC: "MAEU", EventID: id,
			ContentHash: at, Event: ev, EmittedAt: time.Now()})
		return rec
	}
	topic := kc.Topic(schemas.TopicEvents)
	if err := kafka.ProduceSync(ctx, prod,
		&kgo.Record{Topic: topic, Key: []byte(tracking), Value: event("e1", "2026-10-10T08:00:00Z")},
		&kgo.Record{Topic: topic, Key: []byte(tracking), Value: event("e1", "2026-10-11T08:00:00Z")},
		&kgo.Record{Topic: topic, Key: []byte(tracking), Value: event("e1", "2026-10-10T08:00:00Z"),
			Headers: []kgo.RecordHeader{{Key: schemas.HeaderHistoryFor, Value: []byte(uuid.NewString())}}},
		&kgo.Record{Topic: topic, Key: []byte(tracking), Value: event("sentinel", "2026-10-12T08:00:00Z")},
	); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- projector.Run(rctx, projector.Config{MaxWait: 100 * time.Millisecond}, projector.Deps{Brokers: kc.Brokers, Namespace: kc.NS, CH: ch.Conn, Log: testenv.Log(t)})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("projector: %v", err)
		}
	}()
	testkit.Eventually(t, 20*time.Second, "the sentinel in the events table", func() bool {
		var n uint64
		_ = ch.Conn.QueryRow(ctx, `SELECT count() FROM events WHERE tracking_id = ? AND event_id = 'sentinel'`, tracking).Scan(&n)
		return n > 0
	})
	var rows uint64
	var latest string
	if err := ch.Conn.QueryRow(ctx, `SELECT count(), argMax(content_hash, version) FROM events WHERE tracking_id = ? AND event_id = 'e1'`, tracking).Scan(&rows, &latest); err != nil {
		t.Fatal(err)
	}
	if rows != 2 || latest != "2026-10-11T08:00:00Z" {
		t.Fatalf("e1: %d rows, the latest %s; want its two regular versions, the second latest", rows, latest)
	}
}
