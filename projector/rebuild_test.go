package projector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
)

// A rebuild whose consumer group takes its time to form (as on Apache
// Kafka under load) waits for its partitions before it counts empty polls:
// it once switched to an empty generation after five polls that came back
// empty because the member had no partitions yet.
func TestRebuildWaitsForItsGroup(t *testing.T) {
	ch := testenv.ClickHouse(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DefaultNumPartitions(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	brokers := c.ListenAddrs()
	prod := testenv.KafkaClient(t, brokers)
	ctx := context.Background()
	if err := kafka.EnsureTopics(ctx, prod, "", 2, schemas.AllTopics...); err != nil {
		t.Fatal(err)
	}
	tracking := uuid.NewString()
	sub, _ := json.Marshal(schemas.SubscriptionChanged{ID: "c1", AccountID: "acct", Env: "sandbox", TrackingID: tracking, SCAC: "MAEU",
		IdentifierKind: "container", Identifier: "MSKU9070323", Status: "OPEN", TrackingOpen: true, OccurredAt: time.Now()})
	at := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	ev, _ := json.Marshal(dcsa.Event{EventID: "e1", EventType: dcsa.EventTypeEquipment, EventClassifierCode: "ACT", EventDateTime: at,
		EventCreatedDateTime: at, EquipmentEventTypeCode: "GTIN", EquipmentReference: "MSKU9070323", EmptyIndicatorCode: "LADEN",
		EventLocation: &dcsa.Location{UNLocationCode: "CNSHA"}})
	rec, _ := json.Marshal(schemas.EventRecord{TrackingID: tracking, AccountID: "acct", Env: "sandbox", SCAC: "MAEU", EventID: "e1", ContentHash: at, Event: ev})
	if err := kafka.ProduceSync(ctx, prod,
		&kgo.Record{Topic: schemas.TopicSubscriptions, Key: []byte(tracking), Value: sub},
		&kgo.Record{Topic: schemas.TopicEvents, Key: []byte(tracking), Value: rec}); err != nil {
		t.Fatal(err)
	}
	// The rebuild's group forms 1.5 s late; other requests go on meanwhile.
	held := false
	c.ControlKey(int16(kmsg.JoinGroup), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if join := req.(*kmsg.JoinGroupRequest); !held && strings.HasSuffix(join.Group, "-g2") {
			held = true
			c.SleepControl(func() { time.Sleep(1500 * time.Millisecond) })
		}
		return nil, nil, false
	})
	gen, err := projector.RebuildJourneys(ctx, projector.Config{JourneyMaxWait: 20 * time.Millisecond},
		projector.Deps{Brokers: brokers, CH: ch.Conn, Log: testenv.Log(t)})
	if err != nil || gen != 2 {
		t.Fatalf("rebuild: generation %d, %v", gen, err)
	}
	if !held {
		t.Fatal("the rebuild's JoinGroup was never held: the test did not test the wait")
	}
	var rows uint64
	if err := ch.Conn.QueryRow(ctx, fmt.Sprintf(`SELECT count() FROM journeys_g%d WHERE tracking_id = ?`, gen), tracking).Scan(&rows); err != nil || rows == 0 {
		t.Fatalf("the rebuilt generation has %d rows of the tracking (%v): it switched before reading the topics", rows, err)
	}
}
