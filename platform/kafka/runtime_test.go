package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// committed is the group's committed offset of topic's partition 0 (-1: none).
func committed(t *testing.T, cl *kgo.Client, group, topic string) int64 {
	t.Helper()
	offs, err := kadm.NewClient(cl).FetchOffsets(context.Background(), group)
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := offs.Lookup(topic, 0); ok {
		return o.At
	}
	return -1
}

// The dead-letter produce used to be retried every second for ever. Now it
// is tried DeadLetterAttempts times, then Consume returns the error, and
// the record is not committed.
func TestConsumeStopsWhenDeadLetterProduceFails(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	produceN(t, cl, kc.Topic(schemas.TopicCarrierRaw), 1)
	var calls atomic.Int32
	done := make(chan error, 1)
	go func() {
		done <- kafka.Consume(context.Background(), kafka.ConsumerConfig{
			Brokers: brokers, Group: kc.Group("test-dlq-broken"), Topics: []string{kc.Topic(schemas.TopicCarrierRaw)},
			DeadLetterTopic: "contrack.no-such-topic.v1", DeadLetterAttempts: 2, Log: testenv.Log(t),
		}, func(context.Context, *kgo.Record) error {
			calls.Add(1)
			return kafka.Permanent(errors.New("poison"))
		})
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "dead-letter produce") {
			t.Fatalf("Consume returned %v, want the dead-letter produce error", err)
		}
	case <-time.After(testkit.Scale(60 * time.Second)):
		t.Fatal("Consume still running 60 s after its dead-letter topic failed")
	}
	if calls.Load() != 1 {
		t.Errorf("handler called %d times, want 1", calls.Load())
	}
	if o := committed(t, cl, kc.Group("test-dlq-broken"), kc.Topic(schemas.TopicCarrierRaw)); o > 0 {
		t.Errorf("offset %d committed for a record neither handled nor dead-lettered", o)
	}
}

// A transient failure pauses the partition (the gauge says so) instead of
// sleeping in the worker; later records wait behind the failed one, and
// once it succeeds the partition resumes and order is kept.
func TestConsumeRetryPausesThePartition(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	produceN(t, cl, kc.Topic(schemas.TopicCarrierRaw), 10)
	reg := prometheus.NewRegistry()
	m, err := kafka.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	paused := func() float64 {
		mfs, _ := reg.Gather()
		for _, mf := range mfs {
			if mf.GetName() == "contrack_stream_paused_partitions" {
				return mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		return 0
	}
	var healed atomic.Bool
	var mu sync.Mutex
	var order []string
	testenv.RunStage(t, "consumer", func(ctx context.Context) error {
		return kafka.Consume(ctx, kafka.ConsumerConfig{
			Brokers: brokers, Group: kc.Group("test-pause"), Topics: []string{kc.Topic(schemas.TopicCarrierRaw)}, Log: testenv.Log(t),
			Metrics: m, Retry: kafka.Backoff{Initial: 20 * time.Millisecond, Max: 50 * time.Millisecond},
		}, func(_ context.Context, r *kgo.Record) error {
			if string(r.Value) == "3" && !healed.Load() {
				return errors.New("store down")
			}
			mu.Lock()
			order = append(order, string(r.Value))
			mu.Unlock()
			return nil
		})
	})
	testkit.Eventually(t, 10*time.Second, "the partition paused", func() bool { return paused() == 1 })
	mu.Lock()
	if strings.Join(order, ",") != "0,1,2" {
		t.Errorf("handled while record 3 fails: %v, want 0,1,2", order)
	}
	mu.Unlock()
	healed.Store(true)
	testkit.Eventually(t, 10*time.Second, "every record", func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == 10 })
	testkit.Eventually(t, 10*time.Second, "the partition resumed", func() bool { return paused() == 0 })
	if got := strings.Join(order, ","); got != "0,1,2,3,4,5,6,7,8,9" {
		t.Errorf("order %s", got)
	}
	if n := testkit.Counter(t, reg, "contrack_stream_records_total", map[string]string{"outcome": "retry"}); n < 1 {
		t.Errorf("retry outcomes counted %v", n)
	}
	// A record's age is observed once, when the consumer first takes it, not at each retry.
	if n := testkit.HistogramCount(t, reg, "contrack_stream_record_age_seconds", map[string]string{"consumer": kc.Group("test-pause")}); n != 10 {
		t.Errorf("record ages observed %d, want 10", n)
	}
}

// A handler panic is an error like any other: the record is dead-lettered
// with the panic as its reason and the stage goes on.
func TestConsumeRecoversPanics(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	produceN(t, cl, kc.Topic(schemas.TopicCarrierRaw), 3)
	var ok collector
	testenv.RunStage(t, "consumer", func(ctx context.Context) error {
		return kafka.Consume(ctx, kafka.ConsumerConfig{
			Brokers: brokers, Group: kc.Group("test-panic"), Name: "panicky", Topics: []string{kc.Topic(schemas.TopicCarrierRaw)},
			DeadLetterTopic: kc.Topic(schemas.TopicNormalizeDeadLetters), Log: testenv.Log(t),
		}, func(_ context.Context, r *kgo.Record) error {
			if string(r.Value) == "1" {
				panic("bug in one record's path")
			}
			ok.add(string(r.Value))
			return nil
		})
	})
	testkit.Eventually(t, 10*time.Second, "the good records", func() bool { return ok.count() == 2 })
	dlq := testenv.KafkaClient(t, brokers, kgo.ConsumeTopics(kc.Topic(schemas.TopicNormalizeDeadLetters)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
	defer cancel()
	recs := dlq.PollFetches(ctx).Records()
	if len(recs) != 1 {
		t.Fatalf("dead letters = %d, want 1", len(recs))
	}
	r := recs[0]
	if reason := kafka.Header(r, schemas.HeaderDLQReason); !strings.Contains(reason, "panic: bug in one record's path") {
		t.Errorf("reason %q", reason)
	}
	if kafka.Header(r, schemas.HeaderDLQStage) != "panicky" || kafka.Header(r, schemas.HeaderDLQOffset) != "1" ||
		kafka.Header(r, schemas.HeaderDLQPartition) != "0" || kafka.Header(r, schemas.HeaderDLQTopic) != kc.Topic(schemas.TopicCarrierRaw) {
		t.Errorf("headers %v", r.Headers)
	}
}

// Batch mode: a batch is committed only after the handler succeeded and
// its dead letters are out; a batch that keeps failing stops the consumer
// with the error, uncommitted.
func TestConsumeBatchesCommitsAfterSuccessAndStopsAfterRetries(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	produceN(t, cl, kc.Topic(schemas.TopicPollAttempts), 20)
	cfg := kafka.BatchConfig{Brokers: brokers, Group: kc.Group("test-batch"), Topics: []string{kc.Topic(schemas.TopicPollAttempts)}, Log: testenv.Log(t),
		MaxBatch: 100, MaxWait: 200 * time.Millisecond, DeadLetterTopic: kc.Topic(schemas.TopicProjectorDeadLetters),
		Retry: kafka.Backoff{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, Attempts: 3}}
	var attempts atomic.Int32
	err := runFor(t, 30*time.Second, func(ctx context.Context) error {
		return kafka.ConsumeBatches(ctx, cfg, func(context.Context, *kafka.Batch) error {
			attempts.Add(1)
			return errors.New("insert refused")
		})
	})
	if err == nil || !strings.Contains(err.Error(), "failed 3 times") || attempts.Load() != 3 {
		t.Fatalf("ConsumeBatches returned %v after %d attempts, want an error after 3", err, attempts.Load())
	}
	if o := committed(t, cl, kc.Group("test-batch"), kc.Topic(schemas.TopicPollAttempts)); o > 0 {
		t.Fatalf("failed batch committed up to %d", o)
	}

	var handled atomic.Int32
	testenv.RunStage(t, "batches", func(ctx context.Context) error {
		return kafka.ConsumeBatches(ctx, cfg, func(_ context.Context, b *kafka.Batch) error {
			for _, r := range b.Records {
				if string(r.Value) == "7" {
					b.DeadLetter(r, errors.New("malformed"))
					continue
				}
				handled.Add(1)
			}
			return nil
		})
	})
	testkit.Eventually(t, 10*time.Second, "the batch committed", func() bool {
		return committed(t, cl, kc.Group("test-batch"), kc.Topic(schemas.TopicPollAttempts)) == 20
	})
	if handled.Load() != 19 {
		t.Errorf("handled %d, want 19", handled.Load())
	}
	dlq := testenv.KafkaClient(t, brokers, kgo.ConsumeTopics(kc.Topic(schemas.TopicProjectorDeadLetters)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
	defer cancel()
	recs := dlq.PollFetches(ctx).Records()
	if len(recs) != 1 || string(recs[0].Value) != "7" || kafka.Header(recs[0], schemas.HeaderDLQReason) != "malformed" {
		t.Fatalf("dead letters %v", recs)
	}
}

// runFor runs f until it returns, failing the test after d.
func runFor(t *testing.T, d time.Duration, f func(ctx context.Context) error) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f(ctx) }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
		return nil
	}
}

// Follower mode: every partition from the start, caught up reported once
// the ends as of the start are read; a topic that cannot be read is an error.
func TestFollowReportsCaughtUpAndFailures(t *testing.T) {
	kc := testenv.Kafka(t, 3)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	produceN(t, cl, kc.Topic(schemas.TopicSubscriptions), 30)
	var mu sync.Mutex
	n := 0
	atCaughtUp := -1
	testenv.RunStage(t, "follower", func(ctx context.Context) error {
		return kafka.Follow(ctx, kafka.FollowConfig{Brokers: brokers, Topics: []string{kc.Topic(schemas.TopicSubscriptions)}, Name: "test", Log: testenv.Log(t),
			CaughtUp: func() { mu.Lock(); atCaughtUp = n; mu.Unlock() },
		}, func(_ context.Context, b *kafka.Batch) error {
			mu.Lock()
			n += len(b.Records)
			mu.Unlock()
			return nil
		})
	})
	testkit.Eventually(t, 10*time.Second, "caught up", func() bool { mu.Lock(); defer mu.Unlock(); return atCaughtUp >= 0 })
	mu.Lock()
	if atCaughtUp != 30 {
		t.Errorf("caught up after %d records, want 30", atCaughtUp)
	}
	mu.Unlock()

	err := runFor(t, 30*time.Second, func(ctx context.Context) error {
		return kafka.Follow(ctx, kafka.FollowConfig{Brokers: brokers, Topics: []string{"contrack.no-such-topic.v1"}, Name: "missing",
			Log: testenv.Log(t), CaughtUp: func() {}}, func(context.Context, *kafka.Batch) error { return nil })
	})
	if err == nil {
		t.Fatal("following a topic that does not exist returned nil")
	}
	err = runFor(t, 30*time.Second, func(ctx context.Context) error {
		return kafka.Follow(ctx, kafka.FollowConfig{Brokers: brokers, Topics: []string{kc.Topic(schemas.TopicSubscriptions)}, Name: "failing",
			Log: testenv.Log(t)}, func(context.Context, *kafka.Batch) error { return errors.New("cannot apply") })
	})
	if err == nil || !strings.Contains(err.Error(), "cannot apply") {
		t.Fatalf("a failing follower returned %v", err)
	}
}

// A paced consumer gathers a batch for as long as the last one took to
// handle: after a 400 ms batch, two records 150 ms apart make one batch,
// where an unpaced one (MaxWait 30 ms) hands them over one by one.
func TestConsumeBatchesPacedGathersForTheLastHandlingTime(t *testing.T) {
	for _, paced := range []bool{false, true} {
		t.Run(map[bool]string{false: "unpaced", true: "paced"}[paced], func(t *testing.T) {
			kc := testenv.Kafka(t, 1)
			brokers := kc.Brokers
			cl := testenv.KafkaClient(t, brokers)
			produce := func(v string) {
				if err := kafka.ProduceSync(context.Background(), cl, &kgo.Record{Topic: kc.Topic(schemas.TopicPollAttempts), Value: []byte(v)}); err != nil {
					t.Error(err)
				}
			}
			produce("first")
			var batches batchLog
			testenv.RunStage(t, "batches", func(ctx context.Context) error {
				cfg := kafka.BatchConfig{Brokers: brokers, Group: kc.Group("test-paced"), Topics: []string{kc.Topic(schemas.TopicPollAttempts)},
					Log: testenv.Log(t), MaxBatch: 100, MaxWait: 30 * time.Millisecond, Paced: paced}
				return kafka.ConsumeBatches(ctx, cfg, func(_ context.Context, b *kafka.Batch) error {
					if batches.add(b.Records)[0] == "first" {
						produce("a") // waits in the broker until the batch is done
						go func() {
							time.Sleep(400*time.Millisecond + 150*time.Millisecond) // 150 ms after the batch
							produce("b")
						}()
						time.Sleep(400 * time.Millisecond) // a slow insert
					}
					return nil
				})
			})
			testkit.Eventually(t, 10*time.Second, "both records handled", func() bool { return strings.Contains(batches.String(), "b") })
			want := map[bool]string{false: "first | a | b", true: "first | a,b"}[paced]
			if got := batches.String(); got != want {
				t.Fatalf("batches %q, want %q", got, want)
			}
		})
	}
}

// commitCounter counts a client's OffsetCommit requests.
type commitCounter struct{ n atomic.Int32 }

func (c *commitCounter) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if key == kmsg.OffsetCommit.Int16() && err == nil {
		c.n.Add(1)
	}
}

// Records arriving one by one are committed a few at a time, not one
// commit round trip each, and the last offset is still committed.
func TestConsumeCoalescesCommits(t *testing.T) {
	for _, keys := range []int{1, 4} {
		t.Run(fmt.Sprintf("key concurrency %d", keys), func(t *testing.T) {
			kc := testenv.Kafka(t, 1)
			brokers := kc.Brokers
			cl := testenv.KafkaClient(t, brokers)
			commits := &commitCounter{}
			var handled atomic.Int32
			cfg := kafka.ConsumerConfig{Brokers: brokers, Group: kc.Group("test-coalesce"), Topics: []string{kc.Topic(schemas.TopicEvents)},
				Log: testenv.Log(t), KeyConcurrency: keys, Opts: []kgo.Opt{kgo.WithHooks(commits)}}
			testenv.RunStage(t, "consume", func(ctx context.Context) error {
				return kafka.Consume(ctx, cfg, func(context.Context, *kgo.Record) error {
					handled.Add(1)
					return nil
				})
			})
			const n = 40
			for i := range n {
				// One at a time, each handled before the next is produced.
				produceN(t, cl, kc.Topic(schemas.TopicEvents), 1)
				testkit.Eventually(t, 10*time.Second, "the record handled", func() bool { return handled.Load() == int32(i+1) })
			}
			testkit.Eventually(t, 10*time.Second, "every offset committed", func() bool {
				return committed(t, cl, kc.Group("test-coalesce"), kc.Topic(schemas.TopicEvents)) == n
			})
			if got := commits.n.Load(); got > n/4 {
				t.Fatalf("%d commits for %d records handled one by one, want a few", got, n)
			}
		})
	}
}

// A lingering transactional consumer lets a transaction's first record wait
// for more: two records 100 ms apart make one transaction with a 400 ms
// linger, two without one. Each batch is committed.
func TestConsumeTransactionalLingers(t *testing.T) {
	for _, linger := range []time.Duration{0, 400 * time.Millisecond} {
		t.Run(fmt.Sprintf("linger %s", linger), func(t *testing.T) {
			kc := testenv.Kafka(t, 1)
			brokers := kc.Brokers
			cl := testenv.KafkaClient(t, brokers)
			produce := func(v string) {
				t.Helper()
				if err := kafka.ProduceSync(context.Background(), cl, &kgo.Record{Topic: kc.Topic(schemas.TopicCarrierRaw), Value: []byte(v)}); err != nil {
					t.Fatal(err)
				}
			}
			var txns batchLog
			testenv.RunStage(t, "transactional", func(ctx context.Context) error {
				cfg := kafka.TransactConfig{Brokers: brokers, Group: kc.Group("test-linger"), Topics: []string{kc.Topic(schemas.TopicCarrierRaw)},
					TransactionalID: kc.NS.TransactionalID("test-linger-" + t.Name()), Log: testenv.Log(t), MaxRecords: 100, Linger: linger}
				return kafka.ConsumeTransactional(ctx, cfg, func(_ context.Context, b *kafka.TxBatch) error {
					txns.add(b.Records)
					return nil
				})
			})
			got := txns.String
			produce("warm-up") // the consumer is in its group and idle once this is handled
			testkit.Eventually(t, 20*time.Second, "the warm-up handled", func() bool { return strings.Contains(got(), "warm-up") })
			produce("a")
			time.Sleep(100 * time.Millisecond) // the second record comes 100 ms after the first
			produce("b")
			testkit.Eventually(t, 10*time.Second, "both records handled", func() bool { return strings.Contains(got(), "b") })
			want := map[time.Duration]string{0: "warm-up | a | b", 400 * time.Millisecond: "warm-up | a,b"}[linger]
			if got() != want {
				t.Fatalf("transactions %q, want %q", got(), want)
			}
			testkit.Eventually(t, 10*time.Second, "every offset committed", func() bool {
				return committed(t, cl, kc.Group("test-linger"), kc.Topic(schemas.TopicCarrierRaw)) == 3
			})
		})
	}
}

// batchLog records the values of each batch (or transaction) a handler
// got, shown as "a,b | c".
type batchLog struct {
	mu      sync.Mutex
	batches []string
}

// add records recs as one batch and returns their values.
func (l *batchLog) add(recs []*kgo.Record) []string {
	vs := make([]string, len(recs))
	for i, r := range recs {
		vs[i] = string(r.Value)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.batches = append(l.batches, strings.Join(vs, ","))
	return vs
}

func (l *batchLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.batches, " | ")
}
