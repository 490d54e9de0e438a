package projector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/schemas"
)

func TestPollAttemptsReachClickHouse(t *testing.T) {
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 2)
	brokers := kc.Brokers
	prod := testenv.KafkaClient(t, brokers)
	at := time.Date(2026, 11, 20, 10, 30, 15, 0, time.UTC)
	var recs []*kgo.Record
	for i := range 50 {
		a := schemas.PollAttempt{ID: fmt.Sprintf("att-%d", i%40), AccountID: "acct-1", Env: "sandbox", SCAC: "MAEU", TrackingID: "trk",
			Outcome: []string{"success", "noData", "error"}[i%3], HTTPCode: 200, LatencyMS: int64(i), EventCount: i, At: at}
		v, _ := json.Marshal(a)
		recs = append(recs, &kgo.Record{Topic: kc.Topic(schemas.TopicPollAttempts), Key: []byte("trk"), Value: v}) // 10 repeats of earlier ids
	}
	if err := kafka.ProduceSync(context.Background(), prod, recs...); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- projector.Run(ctx, projector.Config{MaxWait: 100 * time.Millisecond}, projector.Deps{Brokers: brokers, Namespace: kc.NS, CH: ch.Conn, Log: testenv.Log(t)})
	}()
	var rows, distinct uint64
	testkit.Eventually(t, 15*time.Second, "50 rows in poll_attempts", func() bool {
		if err := ch.Conn.QueryRow(context.Background(), `SELECT count(), uniqExact(attempt_id) FROM poll_attempts`).Scan(&rows, &distinct); err != nil {
			t.Fatal(err)
		}
		return rows >= 50
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if rows != 50 || distinct != 40 {
		t.Fatalf("rows %d distinct %d, want 50 rows of 40 attempts (repeats fold on merge)", rows, distinct)
	}
	var day time.Time
	var gotAt time.Time
	var code uint16
	if err := ch.Conn.QueryRow(context.Background(), `SELECT at, day, http_code FROM poll_attempts WHERE attempt_id = 'att-1' LIMIT 1`).Scan(&gotAt, &day, &code); err != nil {
		t.Fatal(err)
	}
	if !gotAt.Equal(at) || day.Day() != 20 || code != 200 {
		t.Fatalf("row: at %v day %v code %d", gotAt, day, code)
	}
}

// Records trickling in are inserted a MaxWait's worth at a time, not one
// insert per poll: every insert is a part ClickHouse has to merge. The
// table's parts (merged ones stay listed, inactive, for minutes) count the
// inserts.
func TestTricklingRecordsAreBatched(t *testing.T) {
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	prod := testenv.KafkaClient(t, brokers)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- projector.Run(ctx, projector.Config{MaxWait: 500 * time.Millisecond}, projector.Deps{Brokers: brokers, Namespace: kc.NS, CH: ch.Conn, Log: testenv.Log(t)})
	}()
	const n = 60
	for i := range n { // about 1.2 s of records
		v, _ := json.Marshal(schemas.PollAttempt{ID: fmt.Sprintf("att-%d", i), AccountID: "acct-1", Env: "sandbox", SCAC: "MAEU",
			TrackingID: "trk", Outcome: "success", At: time.Now().UTC().Truncate(time.Second)})
		if err := kafka.ProduceSync(context.Background(), prod, &kgo.Record{Topic: kc.Topic(schemas.TopicPollAttempts), Key: []byte("trk"), Value: v}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // records trickle in: the pace under test
	}
	var rows uint64
	testkit.Eventually(t, 15*time.Second, fmt.Sprintf("%d rows in poll_attempts", n), func() bool {
		if err := ch.Conn.QueryRow(context.Background(), `SELECT count() FROM poll_attempts`).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		return rows >= n
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if rows != n {
		t.Fatalf("%d rows, want %d", rows, n)
	}
	var parts uint64
	if err := ch.Conn.QueryRow(context.Background(), `SELECT count() FROM system.parts WHERE database = ? AND table = 'poll_attempts'`,
		ch.Name).Scan(&parts); err != nil {
		t.Fatal(err)
	}
	if parts > 5 {
		t.Fatalf("%d inserts (parts) for %d records over ~1.2 s with MaxWait 500ms, want about 3", parts, n)
	}
}
