package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// failingCommits is a kfake cluster (fault injection needs the broker in
// hand, so this test uses kfake whatever testenv would) whose OffsetCommit
// answers fail every partition, while fail is set, with an error the client
// does not retry by itself.
func failingCommits(t *testing.T) (brokers []string, fail *atomic.Bool, commitsRefused *atomic.Int32) {
	return failingCommitsWith(t, kerr.OffsetMetadataTooLarge)
}

// failingCommitsWith is failingCommits answering code.
func failingCommitsWith(t *testing.T, code *kerr.Error) (brokers []string, fail *atomic.Bool, commitsRefused *atomic.Int32) {
	t.Helper()
	c := faultCluster(t)
	brokers = c.ListenAddrs()
	fail, commitsRefused = new(atomic.Bool), new(atomic.Int32)
	fail.Store(true)
	c.ControlKey(int16(kmsg.OffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !fail.Load() {
			return nil, nil, false // the cluster handles it as usual
		}
		commitsRefused.Add(1)
		r := req.(*kmsg.OffsetCommitRequest)
		resp := r.ResponseKind().(*kmsg.OffsetCommitResponse)
		resp.Version = r.Version
		for _, rt := range r.Topics {
			st := kmsg.NewOffsetCommitResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewOffsetCommitResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = code.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	return brokers, fail, commitsRefused
}

// Batch mode: a commit the broker refuses stops the consumer with the
// error (not a stall, not a silent skip), and nothing is lost: the next
// consumer of the group gets the uncommitted records again and commits them.
func TestConsumeBatchesStopsWhenCommitFailsAndLosesNothing(t *testing.T) {
	brokers, fail, refused := failingCommits(t)
	cl := testenv.KafkaClient(t, brokers)
	const n = 10
	produceN(t, cl, schemas.TopicPollAttempts, n)
	cfg := kafka.BatchConfig{Brokers: brokers, Group: "test-batch-commit", Topics: []string{schemas.TopicPollAttempts},
		Log: testenv.Log(t), MaxBatch: 100, MaxWait: 200 * time.Millisecond}

	var first []string
	err := runFor(t, 30*time.Second, func(ctx context.Context) error {
		return kafka.ConsumeBatches(ctx, cfg, func(_ context.Context, b *kafka.Batch) error {
			for _, r := range b.Records {
				first = append(first, string(r.Value))
			}
			return nil
		})
	})
	if err == nil || !strings.Contains(err.Error(), "commit") || !errors.Is(err, kerr.OffsetMetadataTooLarge) {
		t.Fatalf("ConsumeBatches returned %v, want the commit's error", err)
	}
	if refused.Load() == 0 {
		t.Fatal("no offset commit reached the broker: the fault was never injected")
	}
	if len(first) == 0 {
		t.Fatal("the first consumer handled nothing before its commit failed")
	}
	if o := committed(t, cl, "test-batch-commit", schemas.TopicPollAttempts); o > 0 {
		t.Fatalf("offset %d committed although every commit was refused", o)
	}

	// The broker accepts commits again: the group's next consumer starts
	// where the committed offset is (nowhere), so it handles the first
	// consumer's records again, then every other.
	fail.Store(false)
	var (
		mu     sync.Mutex
		second []string
	)
	testenv.RunStage(t, "batches", func(ctx context.Context) error {
		return kafka.ConsumeBatches(ctx, cfg, func(_ context.Context, b *kafka.Batch) error {
			mu.Lock()
			defer mu.Unlock()
			for _, r := range b.Records {
				second = append(second, string(r.Value))
			}
			return nil
		})
	})
	testkit.Eventually(t, 20*time.Second, "every record committed by the next consumer", func() bool {
		return committed(t, cl, "test-batch-commit", schemas.TopicPollAttempts) == n
	})
	mu.Lock()
	defer mu.Unlock()
	for i := range n {
		if v := strconv.Itoa(i); !slices.Contains(second, v) {
			t.Errorf("record %s lost: the next consumer handled %v", v, second)
		}
	}
	for _, v := range first {
		if !slices.Contains(second, v) {
			t.Errorf("record %s, handled before the failed commit, was not handled again", v)
		}
	}
}

// Batch mode: a commit the broker answers "try again" (or cannot take, being
// out of reach) is retried until it is taken, and one refused because the
// group moved on (a broker restart dropped the member) is left to the
// batch's next owner: either way the consumer goes on, and every record's
// offset is committed in the end.
func TestConsumeBatchesOutlivesCommitsTheBrokerCannotTake(t *testing.T) {
	for _, code := range []*kerr.Error{kerr.RequestTimedOut, kerr.IllegalGeneration} {
		t.Run(code.Message, func(t *testing.T) {
			brokers, fail, refused := failingCommitsWith(t, code)
			cl := testenv.KafkaClient(t, brokers)
			const n = 10
			produceN(t, cl, schemas.TopicPollAttempts, n)
			cfg := kafka.BatchConfig{Brokers: brokers, Group: "test-batch-commit-retry", Topics: []string{schemas.TopicPollAttempts},
				Log: testenv.Log(t), MaxBatch: 100, MaxWait: 200 * time.Millisecond}
			stopped := make(chan error, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				stopped <- kafka.ConsumeBatches(ctx, cfg, func(context.Context, *kafka.Batch) error { return nil })
			}()
			running := func() {
				select {
				case err := <-stopped:
					t.Fatalf("ConsumeBatches stopped: %v", err)
				default:
				}
			}
			testkit.Eventually(t, 20*time.Second, "a commit refused", func() bool { running(); return refused.Load() >= 1 })
			fail.Store(false)
			// More records, so a consumer that carried on commits past the
			// refused batch.
			produceN(t, cl, schemas.TopicPollAttempts, n)
			testkit.Eventually(t, 20*time.Second, "every record committed once the broker takes commits", func() bool {
				running()
				return committed(t, cl, "test-batch-commit-retry", schemas.TopicPollAttempts) == 2*n
			})
		})
	}
}

func TestBrokerUnreachableTellsOutagesFromRefusals(t *testing.T) {
	_, dialErr := net.Dial("tcp", "127.0.0.1:1")
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("unable to dial: %w", dialErr), true},
		{fmt.Errorf("read: %w", io.EOF), true},
		{kerr.RequestTimedOut, true},
		{kerr.OffsetMetadataTooLarge, false},
		{kerr.IllegalGeneration, false}, // the group moved on: not waited out
		{errors.New("something else"), false},
	} {
		if got := kafka.BrokerUnreachable(c.err); got != c.want {
			t.Errorf("BrokerUnreachable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
