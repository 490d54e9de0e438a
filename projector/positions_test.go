package projector_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/schemas"
)

// TestVesselPositionsReachClickHouse: reports become rows of
// vessel_positions; a malformed report is dead-lettered with its reason,
// never a row.
func TestVesselPositionsReachClickHouse(t *testing.T) {
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 2)
	prod := testenv.KafkaClient(t, kc.Brokers)
	at := time.Date(2026, 11, 20, 10, 30, 0, 0, time.UTC)
	var recs []*kgo.Record
	for i := range 10 {
		p := schemas.VesselPosition{Env: schemas.EnvSandbox, IMO: "9811000", Voyage: "412W", At: at.Add(time.Duration(i) * time.Minute),
			Lat: 1.2 + float64(i)/100, Lon: 103.8, SpeedKnots: 17.5, Course: 271.5, NavStatus: schemas.NavUnderWayEngine, Source: "sandbox"}
		v, _ := p.Marshal()
		recs = append(recs, &kgo.Record{Topic: kc.Topic(schemas.TopicVesselPositions), Key: []byte(p.Key()), Value: v})
	}
	bad := schemas.VesselPosition{Env: schemas.EnvLive, IMO: "9811001", At: at, Lat: 91}
	v, _ := bad.Marshal()
	recs = append(recs, &kgo.Record{Topic: kc.Topic(schemas.TopicVesselPositions), Key: []byte(bad.Key()), Value: v})
	if err := kafka.ProduceSync(context.Background(), prod, recs...); err != nil {
		t.Fatal(err)
	}
	stop := testenv.RunStage(t, "projector", func(ctx context.Context) error {
		return projector.Run(ctx, projector.Config{MaxWait: 100 * time.Millisecond}, projector.Deps{Brokers: kc.Brokers, Namespace: kc.NS, CH: ch.Conn, Log: testenv.Log(t)})
	})
	var rows uint64
	testkit.Eventually(t, 15*time.Second, "10 rows in vessel_positions", func() bool {
		if err := ch.Conn.QueryRow(context.Background(), `SELECT count() FROM vessel_positions`).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		return rows >= 10
	})
	cons := testenv.KafkaClient(t, kc.Brokers, kgo.ConsumeTopics(kc.Topic(schemas.TopicProjectorDeadLetters)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var reason string
	testkit.Eventually(t, 15*time.Second, "the bad report dead-lettered", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		cons.PollFetches(ctx).EachRecord(func(r *kgo.Record) { reason = kafka.Header(r, schemas.HeaderDLQReason) })
		return reason != ""
	})
	stop()
	var lat float64
	var speed, course float32
	var status uint8
	if err := ch.Conn.QueryRow(context.Background(), `SELECT lat, speed_knots, course, nav_status FROM vessel_positions
		WHERE env = 'sandbox' AND imo = '9811000' AND voyage = '412W' ORDER BY at DESC LIMIT 1`).Scan(&lat, &speed, &course, &status); err != nil {
		t.Fatal(err)
	}
	if lat != 1.29 || speed != 17.5 || course != 271.5 || status != 0 || rows != 10 {
		t.Fatalf("latest row lat %v speed %v course %v status %v (%d rows)", lat, speed, course, status, rows)
	}
}
