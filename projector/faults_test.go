package projector_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/schemas"
)

// A view whose inserts fail used to retry for ever while the process and
// /healthz stayed up. Now the projector stops with the error once the
// retries are spent, and the batch's offsets are not committed (nothing is
// lost: a restart inserts them).
func TestProjectorStopsWhenInsertsKeepFailing(t *testing.T) {
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	prod := testenv.KafkaClient(t, brokers)
	v, _ := json.Marshal(schemas.PollAttempt{ID: "att-1", AccountID: "acct-1", Env: "sandbox", SCAC: "MAEU", TrackingID: "trk",
		Outcome: "success", HTTPCode: 200, At: time.Now().UTC()})
	if err := kafka.ProduceSync(context.Background(), prod, &kgo.Record{Topic: kc.Topic(schemas.TopicPollAttempts), Key: []byte("trk"), Value: v}); err != nil {
		t.Fatal(err)
	}
	// The test's own database: the table every insert of the view goes to is gone.
	if err := ch.Conn.Exec(context.Background(), "DROP TABLE poll_attempts"); err != nil {
		t.Fatal(err)
	}

	done := make(chan error, 1)
	go func() {
		done <- projector.Run(context.Background(), projector.Config{MaxWait: 50 * time.Millisecond,
			Retry: kafka.Backoff{Initial: 20 * time.Millisecond, Max: 100 * time.Millisecond, Attempts: 3}},
			projector.Deps{Brokers: brokers, Namespace: kc.NS, CH: ch.Conn, Log: testenv.Log(t)})
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "poll_attempts") || !strings.Contains(err.Error(), "failed 3 times") {
			t.Fatalf("projector returned %v, want the poll_attempts view's insert failure after 3 attempts", err)
		}
	case <-time.After(testkit.Scale(60 * time.Second)):
		t.Fatal("projector still running 60 s after its inserts started failing")
	}

	offsets, err := kadm.NewClient(prod).FetchOffsets(context.Background(), kc.Group(schemas.GroupProjector))
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := offsets.Lookup(kc.Topic(schemas.TopicPollAttempts), 0); ok && o.At > 0 {
		t.Fatalf("offset %d committed for a batch never inserted", o.At)
	}
}

// Malformed records used to be skipped with a log line. Now each goes to
// the projector's dead-letter topic with reason headers, once per
// projection that refused it, and the records after it are projected.
func TestProjectorDeadLettersMalformedRecords(t *testing.T) {
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	prod := testenv.KafkaClient(t, brokers)
	if err := kafka.ProduceSync(context.Background(), prod,
		&kgo.Record{Topic: kc.Topic(schemas.TopicEvents), Key: []byte("trk-bad"), Value: []byte("not json")}); err != nil {
		t.Fatal(err)
	}
	good, _ := json.Marshal(schemas.PollAttempt{ID: "att-ok", AccountID: "acct-1", Env: "sandbox", SCAC: "MAEU", TrackingID: "trk",
		Outcome: "success", HTTPCode: 200, At: time.Now().UTC()})
	if err := kafka.ProduceSync(context.Background(), prod,
		&kgo.Record{Topic: kc.Topic(schemas.TopicPollAttempts), Key: []byte("trk"), Value: []byte("{broken")},
		&kgo.Record{Topic: kc.Topic(schemas.TopicPollAttempts), Key: []byte("trk"), Value: good}); err != nil {
		t.Fatal(err)
	}
	testenv.RunStage(t, "projector", func(ctx context.Context) error {
		return projector.Run(ctx, projector.Config{MaxWait: 50 * time.Millisecond, JourneyMaxWait: 50 * time.Millisecond},
			projector.Deps{Brokers: brokers, Namespace: kc.NS, CH: ch.Conn, Log: testenv.Log(t)})
	})

	dlq := testenv.KafkaClient(t, brokers, kgo.ConsumeTopics(kc.Topic(schemas.TopicProjectorDeadLetters)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	got := map[string]*kgo.Record{} // by stage
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	for len(got) < 3 && ctx.Err() == nil {
		dlq.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got[kafka.Header(r, schemas.HeaderDLQStage)] = r })
	}
	for stage, src := range map[string]string{
		"projector-events": kc.Topic(schemas.TopicEvents), "projector-journeys": kc.Topic(schemas.TopicEvents), "projector-poll_attempts": kc.Topic(schemas.TopicPollAttempts),
	} {
		r := got[stage]
		if r == nil {
			t.Errorf("no dead letter from %s (got %d)", stage, len(got))
			continue
		}
		if kafka.Header(r, schemas.HeaderDLQReason) == "" || kafka.Header(r, schemas.HeaderDLQTopic) != src ||
			kafka.Header(r, schemas.HeaderDLQPartition) != "0" || kafka.Header(r, schemas.HeaderDLQOffset) != "0" {
			t.Errorf("%s dead letter headers %v", stage, r.Headers)
		}
	}
	// The good attempt after the malformed one is projected.
	testkit.Eventually(t, 20*time.Second, "the attempt after a malformed one in ClickHouse", func() bool {
		var n uint64
		if err := ch.Conn.QueryRow(context.Background(), "SELECT count() FROM poll_attempts WHERE attempt_id = 'att-ok'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	})
}
