package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

func produceN(t *testing.T, cl *kgo.Client, topic string, n int) {
	t.Helper()
	var rs []*kgo.Record
	for i := range n {
		rs = append(rs, &kgo.Record{Topic: topic, Key: []byte("k" + strconv.Itoa(i%7)), Value: []byte(strconv.Itoa(i))})
	}
	if err := kafka.ProduceSync(context.Background(), cl, rs...); err != nil {
		t.Fatal(err)
	}
}

// produceSentinels writes a record valued "sentinel" to each partition of
// topic: a consumer that has handled all of them has handled everything
// produced to the topic before, so what it has not seen by then it will not.
func produceSentinels(t *testing.T, brokers []string, topic string, partitions int32) {
	t.Helper()
	cl := testenv.KafkaClient(t, brokers, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	var rs []*kgo.Record
	for p := range partitions {
		rs = append(rs, &kgo.Record{Topic: topic, Partition: p, Key: []byte("sentinel"), Value: []byte("sentinel")})
	}
	if err := kafka.ProduceSync(context.Background(), cl, rs...); err != nil {
		t.Fatal(err)
	}
}

// consumeUntilCleanup runs kafka.Consume until the test's cleanup (after
// its deferred calls), which fails the test if Consume returned an error.
func consumeUntilCleanup(t *testing.T, cfg kafka.ConsumerConfig, handler kafka.Handler) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kafka.Consume(ctx, cfg, handler) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

// collector records the values a handler saw.
type collector struct {
	mu   sync.Mutex
	seen map[string]int
}

func (c *collector) add(v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]int{}
	}
	c.seen[v]++
}

// times is how often the handler saw v.
func (c *collector) times(v string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[v]
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

func TestConsumeRoundTripCommitsAndResumes(t *testing.T) {
	kc := testenv.Kafka(t, 3)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	produceN(t, cl, kc.Topic(schemas.TopicEvents), 50)

	cfg := kafka.ConsumerConfig{Brokers: brokers, Group: kc.Group("test-roundtrip"), Topics: []string{kc.Topic(schemas.TopicEvents)}, Log: testenv.Log(t)}
	var first collector
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- kafka.Consume(ctx, cfg, func(_ context.Context, r *kgo.Record) error {
			first.add(string(r.Value))
			return nil
		})
	}()
	testkit.Eventually(t, 20*time.Second, "50 records", func() bool { return first.count() == 50 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("clean shutdown returned %v", err)
	}

	// A restarted member of the same group resumes after the committed
	// offsets: it sees only the new records.
	produceN(t, cl, kc.Topic(schemas.TopicEvents), 10)
	var second collector
	testenv.RunStage(t, "restarted consumer", func(ctx context.Context) error {
		return kafka.Consume(ctx, cfg, func(_ context.Context, r *kgo.Record) error {
			second.add(string(r.Value))
			return nil
		})
	})
	produceSentinels(t, brokers, kc.Topic(schemas.TopicEvents), 3)
	testkit.Eventually(t, 20*time.Second, "the sentinel of each partition", func() bool { return second.times("sentinel") == 3 })
	if got := second.count() - 1; got != 10 {
		t.Fatalf("restarted consumer saw %d records besides the sentinels, want only the 10 new ones: %v", got, second.seen)
	}
}

func TestConsumeDeadLettersPermanentErrorsAndRetriesTransient(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	produceN(t, cl, kc.Topic(schemas.TopicCarrierRaw), 5)

	var mu sync.Mutex
	attempts := map[string]int{}
	var ok collector
	testenv.RunStage(t, "consumer", func(ctx context.Context) error {
		return kafka.Consume(ctx, kafka.ConsumerConfig{
			Brokers: brokers, Group: kc.Group("test-dlq"), Topics: []string{kc.Topic(schemas.TopicCarrierRaw)},
			DeadLetterTopic: kc.Topic(schemas.TopicNormalizeDeadLetters), Log: testenv.Log(t),
		}, func(_ context.Context, r *kgo.Record) error {
			v := string(r.Value)
			mu.Lock()
			attempts[v]++
			n := attempts[v]
			mu.Unlock()
			switch {
			case v == "2":
				return kafka.Permanent(errors.New("poison record"))
			case v == "3" && n < 3:
				return fmt.Errorf("store down (attempt %d)", n)
			}
			ok.add(v)
			return nil
		})
	})
	testkit.Eventually(t, 20*time.Second, "4 good records", func() bool { return ok.count() == 4 })
	mu.Lock()
	if attempts["3"] != 3 {
		t.Errorf("transient failure attempted %d times, want 3", attempts["3"])
	}
	mu.Unlock()

	// The poison record is in the dead-letter topic with its provenance.
	dlq := testenv.KafkaClient(t, brokers, kgo.ConsumeTopics(kc.Topic(schemas.TopicNormalizeDeadLetters)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	fctx, fcancel := context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
	defer fcancel()
	fs := dlq.PollFetches(fctx)
	recs := fs.Records()
	if len(recs) != 1 {
		t.Fatalf("dead letters = %d, want 1 (errors %v)", len(recs), fs.Errors())
	}
	r := recs[0]
	if string(r.Value) != "2" {
		t.Errorf("dead letter value %q", r.Value)
	}
	if got := kafka.Header(r, schemas.HeaderDLQReason); got != "permanent: poison record" {
		t.Errorf("reason header %q", got)
	}
	if got := kafka.Header(r, schemas.HeaderDLQTopic); got != kc.Topic(schemas.TopicCarrierRaw) {
		t.Errorf("source topic header %q", got)
	}
	if kafka.Header(r, schemas.HeaderDLQOffset) != "2" {
		t.Errorf("source offset header %q", kafka.Header(r, schemas.HeaderDLQOffset))
	}
}

func TestEmbeddedBrokerKeepsRecordsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	log := testenv.Log(t)
	b, err := kafka.StartEmbedded("127.0.0.1:0", dir, 1, 0, log)
	if err != nil {
		t.Fatal(err)
	}
	addr := b.Addr()
	cl, err := kafka.NewClient([]string{addr}, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := kafka.EnsureTopics(ctx, cl, "", 1, schemas.TopicEvents); err != nil {
		t.Fatal(err)
	}
	produceN(t, cl, schemas.TopicEvents, 3)
	cl.Close()
	b.Close()

	b2, err := kafka.StartEmbedded(addr, dir, 1, 0, log)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	cl2, err := kafka.NewClient([]string{b2.Addr()}, log, kgo.ConsumeTopics(schemas.TopicEvents), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl2.Close()
	var got []string
	fctx, cancel := context.WithTimeout(ctx, testkit.Scale(10*time.Second))
	defer cancel()
	for len(got) < 3 && fctx.Err() == nil {
		cl2.PollFetches(fctx).EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	if len(got) != 3 {
		t.Fatalf("after restart read %v, want 3 records", got)
	}
}

func TestSubscriptionsTopicIsCompacted(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	rc, err := kadm.NewClient(cl).DescribeTopicConfigs(context.Background(), kc.Topic(schemas.TopicSubscriptions))
	if err != nil {
		t.Fatal(err)
	}
	c, err := rc.On(kc.Topic(schemas.TopicSubscriptions), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range c.Configs {
		if kv.Key == "cleanup.policy" {
			if kv.MaybeValue() != "compact" {
				t.Fatalf("cleanup.policy = %q", kv.MaybeValue())
			}
			return
		}
	}
	t.Fatal("no cleanup.policy on the subscriptions topic")
}

// With KeyConcurrency, a partition's records of different keys overlap and
// each key's records still arrive in offset order; the batch is committed,
// so a second consumer of the group gets nothing again.
func TestConsumeKeyConcurrencyKeepsPerKeyOrder(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	const n = 70 // keys k0..k6, ten records each, interleaved
	produceN(t, cl, kc.Topic(schemas.TopicCarrierRaw), n)

	var mu sync.Mutex
	order := map[string][]int{}
	inFlight, maxInFlight, handled := 0, 0, 0
	handler := func(_ context.Context, r *kgo.Record) error {
		mu.Lock()
		inFlight++
		maxInFlight = max(maxInFlight, inFlight)
		mu.Unlock()
		time.Sleep(5 * time.Millisecond) // the work being timed: lets records of different keys overlap
		v, _ := strconv.Atoi(string(r.Value))
		mu.Lock()
		inFlight--
		handled++
		order[string(r.Key)] = append(order[string(r.Key)], v)
		mu.Unlock()
		return nil
	}
	cfg := kafka.ConsumerConfig{Brokers: brokers, Group: kc.Group("test-keys"), Topics: []string{kc.Topic(schemas.TopicCarrierRaw)},
		Log: testenv.Log(t), KeyConcurrency: 4}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kafka.Consume(ctx, cfg, handler) }()
	testkit.Eventually(t, 20*time.Second, "every record", func() bool { mu.Lock(); defer mu.Unlock(); return handled == n })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	if maxInFlight < 2 || maxInFlight > 4 {
		t.Errorf("at most %d records in flight, want 2..4", maxInFlight)
	}
	for key, vs := range order {
		for i := 1; i < len(vs); i++ {
			if vs[i] <= vs[i-1] {
				t.Fatalf("key %s handled out of order: %v", key, vs)
			}
		}
	}
	handled = 0
	mu.Unlock()

	testenv.RunStage(t, "consumer", func(ctx context.Context) error { return kafka.Consume(ctx, cfg, handler) })
	produceSentinels(t, brokers, kc.Topic(schemas.TopicCarrierRaw), 1)
	testkit.Eventually(t, 20*time.Second, "the sentinel", func() bool { mu.Lock(); defer mu.Unlock(); return len(order["sentinel"]) == 1 })
	mu.Lock()
	defer mu.Unlock()
	if handled != 1 {
		t.Fatalf("a restarted consumer handled %d committed records again", handled-1)
	}
}

// Without KeyConcurrency a partition's records are handled strictly in
// offset order across keys — records of one key bunched and spread alike —
// and a record that fails is retried before any later one starts.
func TestConsumeHandlesAPartitionInOffsetOrder(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	cl := testenv.KafkaClient(t, kc.Brokers)
	const n = 60
	var rs []*kgo.Record
	for i := range n {
		key := "k" + strconv.Itoa(i*i%5) // irregular: a key's records bunch and spread
		rs = append(rs, &kgo.Record{Topic: kc.Topic(schemas.TopicCarrierRaw), Key: []byte(key), Value: []byte(strconv.Itoa(i))})
	}
	if err := kafka.ProduceSync(context.Background(), cl, rs...); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []int
	failed := false
	consumeUntilCleanup(t, kafka.ConsumerConfig{Brokers: kc.Brokers, Group: kc.Group("test-order"), Topics: []string{kc.Topic(schemas.TopicCarrierRaw)},
		Log: testenv.Log(t), Retry: kafka.Backoff{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond}},
		func(_ context.Context, r *kgo.Record) error {
			v, _ := strconv.Atoi(string(r.Value))
			mu.Lock()
			defer mu.Unlock()
			if v == 23 && !failed {
				failed = true
				return errors.New("store down once")
			}
			order = append(order, v)
			return nil
		})
	testkit.Eventually(t, 20*time.Second, "every record", func() bool { mu.Lock(); defer mu.Unlock(); return len(order) >= n })
	mu.Lock()
	defer mu.Unlock()
	for i, v := range order {
		if v != i || len(order) != n {
			t.Fatalf("handled in the order %v, want offset order, each once", order)
		}
	}
}

// TestConsumeKeyConcurrencyDoesNotWaitForTheSlowest: with KeyConcurrency
// a record held up by its handler holds back only its own key. Records of
// other keys fetched after it are handled meanwhile (the runtime used to
// finish a fetched batch before taking the next), and the group's offset
// does not pass the record until it is done; then every record is
// committed.
func TestConsumeKeyConcurrencyDoesNotWaitForTheSlowest(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	topic := kc.Topic(schemas.TopicCarrierRaw)
	produce := func(key, value string) {
		t.Helper()
		if err := kafka.ProduceSync(context.Background(), cl, &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte(value)}); err != nil {
			t.Fatal(err)
		}
	}
	release := make(chan struct{})
	slowStarted := make(chan struct{})
	var mu sync.Mutex
	var handled []string
	handler := func(ctx context.Context, r *kgo.Record) error {
		if string(r.Value) == "slow" {
			close(slowStarted)
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		mu.Lock()
		handled = append(handled, string(r.Value))
		mu.Unlock()
		return nil
	}
	group := kc.Group("test-pipeline")
	cfg := kafka.ConsumerConfig{Brokers: brokers, Group: group, Topics: []string{topic}, Log: testenv.Log(t), KeyConcurrency: 4}
	consumeUntilCleanup(t, cfg, handler)
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	defer unblock() // before the cleanup, so a failing test does not hang the shutdown

	produce("a", "slow") // offset 0
	<-slowStarted
	produce("b", "b1") // offsets 1..3, fetched after the slow record
	produce("c", "c1")
	produce("a", "a2") // behind the slow record: its key waits
	has := func(v string) bool { mu.Lock(); defer mu.Unlock(); return slices.Contains(handled, v) }
	testkit.Eventually(t, 10*time.Second, "b1 and c1 while the slow record is held", func() bool { return has("b1") && has("c1") })
	if has("a2") {
		t.Fatal("a2 was handled before the slow record of its key")
	}
	adm := kadm.NewClient(cl)
	committedOffset := func() int64 {
		offs, err := adm.FetchOffsets(context.Background(), group)
		if err != nil {
			t.Fatal(err)
		}
		if o, ok := offs.Lookup(topic, 0); ok {
			return o.At
		}
		return -1
	}
	if at := committedOffset(); at > 0 {
		t.Fatalf("the group's offset is %d while the record at 0 is not done", at)
	}
	unblock()
	testkit.Eventually(t, 10*time.Second, "every record committed", func() bool { return committedOffset() == 4 })
	mu.Lock()
	defer mu.Unlock()
	if i, j := slices.Index(handled, "slow"), slices.Index(handled, "a2"); i < 0 || j < i {
		t.Fatalf("key a handled out of order: %v", handled)
	}
}

// TestConsumeKeyConcurrencyRetriesInKeyOrder: a record that fails (twice)
// while its partition's records run side by side is retried, every record
// is handled, and no later record of its key is handled before it.
func TestConsumeKeyConcurrencyRetriesInKeyOrder(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	const n = 70 // keys k0..k6, ten records each, interleaved; 12 is k5's second
	produceN(t, cl, kc.Topic(schemas.TopicCarrierRaw), n)
	var mu sync.Mutex
	failures := 0
	succeeded := map[int]bool{}
	var violations []string
	handler := func(_ context.Context, r *kgo.Record) error {
		v, _ := strconv.Atoi(string(r.Value))
		mu.Lock()
		defer mu.Unlock()
		if v == 12 && failures < 2 {
			failures++
			return errors.New("a store is down")
		}
		if v%7 == 5 && v > 12 && !succeeded[12] {
			violations = append(violations, fmt.Sprintf("%d before 12", v))
		}
		succeeded[v] = true
		return nil
	}
	cfg := kafka.ConsumerConfig{Brokers: brokers, Group: kc.Group("test-pipeline-retry"), Topics: []string{kc.Topic(schemas.TopicCarrierRaw)},
		Log: testenv.Log(t), KeyConcurrency: 4, Retry: kafka.Backoff{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kafka.Consume(ctx, cfg, handler) }()
	testkit.Eventually(t, 20*time.Second, "every record", func() bool { mu.Lock(); defer mu.Unlock(); return len(succeeded) == n })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if failures != 2 || len(violations) > 0 {
		t.Fatalf("failures %d (want 2); key k5 out of order: %v", failures, violations)
	}
}

// TestConsumeRunsTakeAKeysWaitingRecordsTogether: with Runs, the records
// of a key that waited behind one in flight go to one Runs call, in offset
// order; a run that fails permanently goes to the per-record handler one
// record at a time, which dead-letters only the bad one; everything is
// committed.
func TestConsumeRunsTakeAKeysWaitingRecordsTogether(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	topic := kc.Topic(schemas.TopicCarrierRaw)
	produce := func(kvs ...string) {
		t.Helper()
		var rs []*kgo.Record
		for i := 0; i < len(kvs); i += 2 {
			rs = append(rs, &kgo.Record{Topic: topic, Key: []byte(kvs[i]), Value: []byte(kvs[i+1])})
		}
		if err := kafka.ProduceSync(context.Background(), cl, rs...); err != nil {
			t.Fatal(err)
		}
	}
	started := map[string]chan struct{}{"slow-a": make(chan struct{}), "slow-p": make(chan struct{})}
	release := make(chan struct{})
	var mu sync.Mutex
	var single []string // values the per-record handler took, in order
	var runs [][]string // the runs, each in the order given
	handled := map[string]int{}
	handler := func(ctx context.Context, r *kgo.Record) error {
		v := string(r.Value)
		if ch, ok := started[v]; ok {
			close(ch)
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		mu.Lock()
		defer mu.Unlock()
		single = append(single, v)
		if v == "poison" {
			return kafka.Permanent(errors.New("poison"))
		}
		handled[v]++
		return nil
	}
	runHandler := func(_ context.Context, run []*kgo.Record) error {
		var vs []string
		for _, r := range run {
			if string(r.Value) == "poison" {
				return kafka.Permanent(errors.New("a poison record in the run"))
			}
			vs = append(vs, string(r.Value))
		}
		mu.Lock()
		defer mu.Unlock()
		runs = append(runs, vs)
		for _, v := range vs {
			handled[v]++
		}
		return nil
	}
	group := kc.Group("test-runs")
	cfg := kafka.ConsumerConfig{Brokers: brokers, Group: group, Topics: []string{topic}, Log: testenv.Log(t),
		KeyConcurrency: 4, Runs: runHandler}
	consumeUntilCleanup(t, cfg, handler)
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	defer unblock()
	seen := func(v string) bool { mu.Lock(); defer mu.Unlock(); return handled[v] > 0 }

	produce("a", "slow-a", "p", "slow-p") // offsets 0, 1: each alone, held
	<-started["slow-a"]
	<-started["slow-p"]
	produce("a", "a2", "a", "a3", "a", "a4", "a", "a5", "p", "p2", "p", "poison", "p", "p4", "b", "b1") // offsets 2..9
	testkit.Eventually(t, 10*time.Second, "b1 while its partition's a and p records wait", func() bool { return seen("b1") })
	unblock()
	testkit.Eventually(t, 10*time.Second, "every record", func() bool { return seen("a5") && seen("p4") })

	mu.Lock()
	if want := [][]string{{"a2", "a3", "a4", "a5"}}; !slices.EqualFunc(runs, want, slices.Equal) {
		t.Errorf("runs %v, want %v (key a's waiting records together, in order)", runs, want)
	}
	var ps []string
	for _, v := range single {
		if len(v) > 0 && v[0] == 'p' {
			ps = append(ps, v)
		}
	}
	if want := []string{"p2", "poison", "p4"}; !slices.Equal(ps, want) {
		t.Errorf("the failed run went to the per-record handler as %v, want %v", ps, want)
	}
	for _, v := range []string{"slow-a", "slow-p", "a2", "a3", "a4", "a5", "p2", "p4", "b1"} {
		if handled[v] != 1 {
			t.Errorf("%s handled %d times, want once", v, handled[v])
		}
	}
	mu.Unlock()

	adm := kadm.NewClient(cl)
	testkit.Eventually(t, 10*time.Second, "every record committed", func() bool {
		offs, err := adm.FetchOffsets(context.Background(), group)
		if err != nil {
			t.Fatal(err)
		}
		o, ok := offs.Lookup(topic, 0)
		return ok && o.At == 10
	})
}
