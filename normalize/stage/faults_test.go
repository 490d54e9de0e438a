package stage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// The routing index used to fail silently: each pushed event waited
// RoutingWait, was routed to nobody and its offset committed, no dead
// letter. Now the stage stops with the index's error, and the pushed event
// is not committed: once the index can be read, a restarted stage routes it.
func TestStageStopsWhenTheRoutingIndexFails(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 3)
	brokers := kc.Brokers
	h := routingHarness{t: t, brokers: brokers, kc: kc, prod: testenv.KafkaClient(t, brokers), pool: db.Pool}
	run := func(ctx context.Context) error {
		return stage.Run(ctx, stage.Config{RoutingWait: 5 * time.Second}, stage.Deps{
			Brokers: brokers, Namespace: kc.NS, Pool: db.Pool, Log: testenv.Log(t),
			Parsers: map[carriers.Format]normalize.Parser{carriers.FormatPushed: pushed.Parse},
		})
	}
	// The index cannot be read: its topic is gone.
	adm := kadm.NewClient(h.prod)
	if _, err := adm.DeleteTopics(context.Background(), kc.Topic(schemas.TopicSubscriptions)); err != nil {
		t.Fatal(err)
	}
	const id = "33333333-0000-4000-8000-000000000001"
	h.push("key-maeu", "MAEU", "sandbox", eventWithID(id))

	done := make(chan error, 1)
	go func() { done <- run(context.Background()) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "routing index") {
			t.Fatalf("stage returned %v, want the routing index's error", err)
		}
	case <-time.After(testkit.Scale(30 * time.Second)):
		t.Fatal("stage still running 30 s after its routing index failed")
	}
	if n, _ := h.unmatched("key-maeu"); n != 0 {
		t.Fatalf("the pushed event was counted as routed to nobody (%d)", n)
	}

	// The topic is back with a tracking that follows the container: the
	// pushed event, never committed, reaches it.
	if err := kafka.EnsureTopics(context.Background(), h.prod, kc.NS, 3, schemas.TopicSubscriptions); err != nil {
		t.Fatal(err)
	}
	h.subscribe("trk-maeu", "acct-a", "sandbox", "MAEU", "container", "CSQU3054383")
	testenv.RunStage(t, "normalize", run)
	readUntil(t, kc, "trk-maeu/"+id)
}
