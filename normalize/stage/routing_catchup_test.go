package stage_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// heldIndexCluster is a kfake cluster (holding a request back needs the
// broker in hand, so this test uses kfake whatever testenv would) that holds
// back the routing index's look-up of the subscriptions topic's end offsets
// (ListOffsets, latest) until release is called: until then the index
// cannot catch up. held is closed once such a look-up is being held.
func heldIndexCluster(t *testing.T, partitions int32) (brokers []string, held <-chan struct{}, release func()) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DefaultNumPartitions(int(partitions)))
	if err != nil {
		t.Fatal(err)
	}
	brokers = c.ListenAddrs()
	cl := testenv.KafkaClient(t, brokers)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	if err := kafka.EnsureTopics(ctx, cl, "", partitions, schemas.AllTopics...); err != nil {
		t.Fatal(err)
	}
	heldCh, released := make(chan struct{}), make(chan struct{})
	var heldOnce, releaseOnce sync.Once
	release = func() { releaseOnce.Do(func() { close(released) }) }
	t.Cleanup(func() { release(); c.Close() }) // a sleeping control must not outlive the test
	c.ControlKey(int16(kmsg.ListOffsets), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		for _, tp := range req.(*kmsg.ListOffsetsRequest).Topics {
			if tp.Topic != schemas.TopicSubscriptions {
				continue
			}
			for _, p := range tp.Partitions {
				if p.Timestamp == -1 { // latest: the index's "caught up" mark
					heldOnce.Do(func() { close(heldCh) })
					c.SleepControl(func() { <-released })
					return nil, nil, false // answered by the cluster, as of now
				}
			}
		}
		return nil, nil, false
	})
	return brokers, heldCh, release
}

// A pushed event handled while the routing index is behind the
// subscriptions topic is never routed to nobody: its batch is aborted and
// retried (counted as a retry), and once the index has caught up (with a
// subscription made while it was behind) the event reaches that tracking.
func TestStagePushedEventWaitsForTheRoutingIndex(t *testing.T) {
	db := testenv.Postgres(t)
	brokers, held, release := heldIndexCluster(t, 3)
	kc := testenv.KafkaCluster{Brokers: brokers} // kfake: its requests are held by hand
	h := routingHarness{t: t, brokers: brokers, kc: kc, prod: testenv.KafkaClient(t, brokers), pool: db.Pool}
	reg := prometheus.NewRegistry()
	metrics, err := kafka.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}

	const id = "44444444-0000-4000-8000-000000000001"
	h.push("key-maeu", "MAEU", "sandbox", eventWithID(id))
	// RoutingWait is short: past it the wait is reported, still retried.
	testenv.RunStage(t, "normalize", func(ctx context.Context) error {
		return stage.Run(ctx, stage.Config{RoutingWait: 100 * time.Millisecond}, stage.Deps{
			Brokers: brokers, Namespace: kc.NS, Pool: db.Pool, Log: testenv.Log(t), Metrics: metrics,
			Parsers: map[carriers.Format]normalize.Parser{carriers.FormatPushed: pushed.Parse},
		})
	})
	select {
	case <-held:
	case <-time.After(testkit.Scale(30 * time.Second)):
		t.Fatal("the routing index never asked for the subscriptions topic's end offsets")
	}
	// The pushed event's batch is tried while the index is behind: aborted
	// and retried, more than once (the wait is not a single retry).
	testkit.Eventually(t, 30*time.Second, "the pushed event's batch retried while the index is behind", func() bool {
		return testkit.Counter(t, reg, "contrack_stream_records_total", map[string]string{"consumer": "normalize", "outcome": "retry"}) >= 2
	})
	if n, _ := h.unmatched("key-maeu"); n != 0 {
		t.Fatalf("the pushed event was routed to nobody while the index was behind (%d)", n)
	}

	// A tracking follows the container now; the index catches up with it.
	h.subscribe("trk-late", "acct-a", "sandbox", "MAEU", "container", "CSQU3054383")
	release()
	readUntil(t, kc, "trk-late/"+id)
	if n, _ := h.unmatched("key-maeu"); n != 0 {
		t.Fatalf("the pushed event was also counted as routed to nobody (%d)", n)
	}
}
