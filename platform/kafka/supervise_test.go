package kafka_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// faultCluster is a one-broker kfake cluster with every topic made: fault
// injection needs the broker in hand, so these tests use kfake whatever
// testenv would.
func faultCluster(t *testing.T) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DefaultNumPartitions(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	if err := kafka.EnsureTopics(ctx, testenv.KafkaClient(t, c.ListenAddrs()), "", 1, schemas.AllTopics...); err != nil {
		t.Fatal(err)
	}
	return c
}

// failingFetches is a kfake cluster (fault injection needs the broker in
// hand) whose Fetch answers give every partition code while fail is set:
// an error franz-go does not retry by itself, so it reaches the poll.
func failingFetches(t *testing.T, code *kerr.Error) (brokers []string, fail *atomic.Bool) {
	t.Helper()
	c := faultCluster(t)
	brokers = c.ListenAddrs()
	fail = new(atomic.Bool)
	c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !fail.Load() {
			return nil, nil, false
		}
		r := req.(*kmsg.FetchRequest)
		resp := r.ResponseKind().(*kmsg.FetchResponse)
		resp.Version = r.Version
		for _, rt := range r.Topics {
			st := kmsg.NewFetchResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewFetchResponseTopicPartition()
				sp.Partition, sp.ErrorCode = rp.Partition, code.Code
				sp.HighWatermark, sp.LastStableOffset, sp.LogStartOffset = -1, -1, -1
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	return brokers, fail
}

// runtimeModes starts each of the runtime's four modes on topic with
// loops and metrics, handling records with nothing to do.
var runtimeModes = []struct {
	name string
	run  func(ctx context.Context, brokers []string, topic string, m *kafka.Metrics, loops *loop.Supervisor, log *slog.Logger) error
}{
	{"per-record", func(ctx context.Context, brokers []string, topic string, m *kafka.Metrics, loops *loop.Supervisor, l *slog.Logger) error {
		return kafka.Consume(ctx, kafka.ConsumerConfig{Brokers: brokers, Group: "g-consume", Topics: []string{topic}, Name: "per-record",
			Log: l, Metrics: m, Loops: loops}, func(context.Context, *kgo.Record) error { return nil })
	}},
	{"batch", func(ctx context.Context, brokers []string, topic string, m *kafka.Metrics, loops *loop.Supervisor, l *slog.Logger) error {
		return kafka.ConsumeBatches(ctx, kafka.BatchConfig{Brokers: brokers, Group: "g-batch", Topics: []string{topic}, Name: "batch",
			Log: l, Metrics: m, Loops: loops, MaxWait: 50 * time.Millisecond}, func(context.Context, *kafka.Batch) error { return nil })
	}},
	{"transactional", func(ctx context.Context, brokers []string, topic string, m *kafka.Metrics, loops *loop.Supervisor, l *slog.Logger) error {
		return kafka.ConsumeTransactional(ctx, kafka.TransactConfig{Brokers: brokers, Group: "g-tx", Topics: []string{topic}, Name: "transactional",
			TransactionalID: "tx-supervise", Log: l, Metrics: m, Loops: loops}, func(context.Context, *kafka.TxBatch) error { return nil })
	}},
	{"follower", func(ctx context.Context, brokers []string, topic string, m *kafka.Metrics, loops *loop.Supervisor, l *slog.Logger) error {
		return kafka.Follow(ctx, kafka.FollowConfig{Brokers: brokers, Topics: []string{topic}, Name: "follower",
			Log: l, Metrics: m, Loops: loops}, func(context.Context, *kafka.Batch) error { return nil })
	}},
}

// Fetch errors used to be logged and retried for ever while /readyz stayed
// green, in every mode. Now each mode counts them as its fetch loop's
// failures, turns /readyz red after a run of them, and green again once
// fetches succeed.
func TestFetchErrorsTurnReadinessRedInEveryMode(t *testing.T) {
	for _, mode := range runtimeModes {
		t.Run(mode.name, func(t *testing.T) {
			brokers, fail := failingFetches(t, kerr.UnknownServerError)
			topic := schemas.TopicCarrierRaw
			produceN(t, testenv.KafkaClient(t, brokers), topic, 3)
			reg := prometheus.NewRegistry()
			health := httpapi.NewHealth(nil, 0, testenv.Log(t))
			loops, err := loop.New(loop.Config{UnreadyAfter: 3, Backoff: loop.Backoff{Initial: 10 * time.Millisecond, Max: 50 * time.Millisecond}}, reg, health, testenv.Log(t))
			if err != nil {
				t.Fatal(err)
			}
			m, err := kafka.NewMetrics(reg)
			if err != nil {
				t.Fatal(err)
			}
			fail.Store(true)
			testenv.RunStage(t, mode.name, func(ctx context.Context) error {
				return mode.run(ctx, brokers, topic, m, loops, testenv.Log(t))
			})
			fetchLoop := mode.name + "/fetch"
			testkit.Eventually(t, 20*time.Second, "/readyz 503 naming "+fetchLoop, func() bool {
				code, body := readyz(health)
				return code == http.StatusServiceUnavailable && strings.Contains(body, fetchLoop+" failing")
			})
			if n := testkit.Counter(t, reg, "contrack_loop_failures_total", map[string]string{"loop": fetchLoop}); n < 3 {
				t.Fatalf("fetch failures counted %v, want at least 3", n)
			}
			fail.Store(false)
			testkit.Eventually(t, 20*time.Second, "/readyz 200 once fetches succeed", func() bool {
				code, _ := readyz(health)
				return code == http.StatusOK
			})
		})
	}
}

// A fetch the broker refuses because the client is not authorised cannot
// be fixed by retrying: every mode stops with it (the stage's errgroup
// then stops the process with the reason).
func TestAnUnauthorisedFetchStopsEveryMode(t *testing.T) {
	for _, mode := range runtimeModes {
		t.Run(mode.name, func(t *testing.T) {
			brokers, fail := failingFetches(t, kerr.TopicAuthorizationFailed)
			topic := schemas.TopicCarrierRaw
			produceN(t, testenv.KafkaClient(t, brokers), topic, 3)
			fail.Store(true)
			err := runFor(t, 30*time.Second, func(ctx context.Context) error {
				return mode.run(ctx, brokers, topic, nil, nil, testenv.Log(t))
			})
			if !errors.Is(err, kerr.TopicAuthorizationFailed) {
				t.Fatalf("%s returned %v, want TOPIC_AUTHORIZATION_FAILED", mode.name, err)
			}
		})
	}
}

func readyz(h *httpapi.Health) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeReadyz(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	return rec.Code, rec.Body.String()
}

// Records a handler cannot use where no dead letter fits are skipped, and
// counted: a follower's with Batch.Skip, a per-record consumer's Permanent
// errors when it has no dead-letter topic (the feed's).
func TestSkippedRecordsAreCounted(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	topic := kc.Topic(schemas.TopicSubscriptions)
	produceN(t, testenv.KafkaClient(t, kc.Brokers), topic, 10) // values "0".."9"
	reg := prometheus.NewRegistry()
	m, err := kafka.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	odd := func(r *kgo.Record) bool { return (r.Value[0]-'0')%2 == 1 }
	testenv.RunStage(t, "follower", func(ctx context.Context) error {
		return kafka.Follow(ctx, kafka.FollowConfig{Brokers: kc.Brokers, Topics: []string{topic}, Name: "skipping-follower", Log: testenv.Log(t), Metrics: m},
			func(_ context.Context, b *kafka.Batch) error {
				for _, r := range b.Records {
					if odd(r) {
						b.Skip(r, errors.New("malformed"))
					}
				}
				return nil
			})
	})
	testenv.RunStage(t, "consumer", func(ctx context.Context) error {
		return kafka.Consume(ctx, kafka.ConsumerConfig{Brokers: kc.Brokers, Group: kc.Group("skipping"), Topics: []string{topic}, Name: "skipping-consumer",
			Log: testenv.Log(t), Metrics: m}, func(_ context.Context, r *kgo.Record) error {
			if odd(r) {
				return kafka.Permanent(errors.New("undecodable"))
			}
			return nil
		})
	})
	for _, consumer := range []string{"skipping-follower", "skipping-consumer"} {
		count := func(outcome string) float64 {
			return testkit.Counter(t, reg, "contrack_stream_records_total", map[string]string{"consumer": consumer, "outcome": outcome})
		}
		testkit.Eventually(t, 10*time.Second, consumer+"'s 10 records counted", func() bool { return count("ok")+count("skipped") == 10 })
		if ok, skipped := count("ok"), count("skipped"); ok != 5 || skipped != 5 {
			t.Errorf("%s: ok %v, skipped %v; want 5 and 5", consumer, ok, skipped)
		}
	}
}

// A transaction aborted at its commit (here: its output's produce refused)
// used to be retried at once, for ever, uncounted. Now it is a failure of
// the consumer's loop — counted, /readyz red after a run — retried after a
// backoff, and the records are handled again until a commit succeeds.
func TestAbortedCommitsAreCountedAndBackedOff(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DefaultNumPartitions(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	brokers := c.ListenAddrs()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	if err := kafka.EnsureTopics(ctx, testenv.KafkaClient(t, brokers), "", 1, schemas.AllTopics...); err != nil {
		t.Fatal(err)
	}
	produceN(t, testenv.KafkaClient(t, brokers), schemas.TopicCarrierRaw, 1)
	var refuse atomic.Bool
	refuse.Store(true)
	c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		r := req.(*kmsg.ProduceRequest)
		// Produce v13 names topics by id: the transactional producer's
		// requests are the consumer's outputs.
		if !refuse.Load() || r.TransactionID == nil || *r.TransactionID != "tx-aborts" {
			return nil, nil, false
		}
		resp := r.ResponseKind().(*kmsg.ProduceResponse)
		resp.Version = r.Version
		for _, rt := range r.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition, sp.ErrorCode = rp.Partition, kerr.InvalidRecord.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	reg := prometheus.NewRegistry()
	health := httpapi.NewHealth(nil, 0, testenv.Log(t))
	loops, err := loop.New(loop.Config{UnreadyAfter: 3, Backoff: loop.Backoff{Initial: 10 * time.Millisecond, Max: 50 * time.Millisecond}}, reg, health, testenv.Log(t))
	if err != nil {
		t.Fatal(err)
	}
	var handled atomic.Int32
	testenv.RunStage(t, "transactional", func(ctx context.Context) error {
		return kafka.ConsumeTransactional(ctx, kafka.TransactConfig{Brokers: brokers, Group: "g-aborts", Topics: []string{schemas.TopicCarrierRaw}, Name: "tx",
			TransactionalID: "tx-aborts", Log: testenv.Log(t), Loops: loops, Retry: kafka.Backoff{Initial: 10 * time.Millisecond, Max: 50 * time.Millisecond}},
			func(_ context.Context, b *kafka.TxBatch) error {
				handled.Add(1)
				b.Produce(&kgo.Record{Topic: schemas.TopicEvents, Value: []byte("out")})
				return nil
			})
	})
	testkit.Eventually(t, 20*time.Second, "/readyz 503 naming the consumer", func() bool {
		code, body := readyz(health)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "tx failing")
	})
	if n := testkit.Counter(t, reg, "contrack_loop_failures_total", map[string]string{"loop": "tx"}); n < 3 {
		t.Fatalf("aborted commits counted %v, want at least 3", n)
	}
	refuse.Store(false)
	testkit.Eventually(t, 20*time.Second, "/readyz 200 once a commit succeeds", func() bool {
		code, _ := readyz(health)
		return code == http.StatusOK
	})
	// The input's output is there once, committed: the input was not
	// committed without it.
	cl := testenv.KafkaClient(t, brokers, kgo.ConsumeTopics(schemas.TopicEvents), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var outs int
	testkit.Eventually(t, 10*time.Second, "the output committed", func() bool {
		pctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		outs += cl.PollFetches(pctx).NumRecords()
		return outs >= 1
	})
	if outs != 1 {
		t.Fatalf("%d outputs committed, want 1", outs)
	}
	t.Logf("handled %d times", handled.Load())
}

// endOffsetsRefused is a kfake cluster with the topics whose ListOffsets
// answers give every partition code for the first n requests.
func endOffsetsRefused(t *testing.T, code *kerr.Error, n int32) (brokers []string, asked *atomic.Int32) {
	t.Helper()
	c := faultCluster(t)
	brokers = c.ListenAddrs()
	asked = new(atomic.Int32)
	c.ControlKey(int16(kmsg.ListOffsets), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if asked.Add(1) > n {
			return nil, nil, false
		}
		r := req.(*kmsg.ListOffsetsRequest)
		resp := r.ResponseKind().(*kmsg.ListOffsetsResponse)
		resp.Version = r.Version
		for _, rt := range r.Topics {
			st := kmsg.NewListOffsetsResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewListOffsetsResponseTopicPartition()
				sp.Partition, sp.ErrorCode, sp.Offset = rp.Partition, code.Code, -1
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	return brokers, asked
}

// On a cluster of several brokers a topic just created is served by its
// leaders a moment after it exists: a follower that needs the topic's ends
// used to stop its stage at the first UNKNOWN_TOPIC_OR_PARTITION (a stage
// test failed so in CI). A retriable answer is now asked again; an error
// that is not retriable still stops the follower at once.
func TestFollowAsksAgainForEndsNotServedYet(t *testing.T) {
	topic := schemas.TopicCarrierRaw
	t.Run("retriable", func(t *testing.T) {
		brokers, asked := endOffsetsRefused(t, kerr.UnknownTopicOrPartition, 3)
		produceN(t, testenv.KafkaClient(t, brokers), topic, 5)
		var read atomic.Int32
		caughtUp := make(chan struct{})
		testenv.RunStage(t, "follower", func(ctx context.Context) error {
			return kafka.Follow(ctx, kafka.FollowConfig{Brokers: brokers, Topics: []string{topic}, Name: "follower",
				Log: testenv.Log(t), CaughtUp: func() { close(caughtUp) }},
				func(_ context.Context, b *kafka.Batch) error { read.Add(int32(len(b.Records))); return nil })
		})
		select {
		case <-caughtUp:
		case <-time.After(testkit.Scale(20 * time.Second)):
			t.Fatalf("not caught up within 20 s (ListOffsets asked %d times)", asked.Load())
		}
		if got := read.Load(); got != 5 {
			t.Errorf("caught up after %d records, want 5", got)
		}
		if got := asked.Load(); got <= 3 {
			t.Errorf("ListOffsets asked %d times, want more than the 3 refused", got)
		}
	})
	t.Run("not retriable", func(t *testing.T) {
		brokers, _ := endOffsetsRefused(t, kerr.TopicAuthorizationFailed, 1000)
		done := make(chan error, 1)
		go func() {
			done <- kafka.Follow(context.Background(), kafka.FollowConfig{Brokers: brokers, Topics: []string{topic}, Name: "follower",
				Log: testenv.Log(t), CaughtUp: func() {}}, func(context.Context, *kafka.Batch) error { return nil })
		}()
		select {
		case err := <-done:
			if !errors.Is(err, kerr.TopicAuthorizationFailed) {
				t.Fatalf("Follow returned %v, want TOPIC_AUTHORIZATION_FAILED", err)
			}
		case <-time.After(testkit.Scale(10 * time.Second)):
			t.Fatal("Follow still running 10 s after an error that is not retriable")
		}
	})
}
