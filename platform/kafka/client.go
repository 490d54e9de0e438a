package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/plugin/kslog"
)

// NewClient returns a franz-go client for brokers, logging through log.
// Extra options (consumer group, transactional id, ...) are appended.
func NewClient(brokers []string, log *slog.Logger, opts ...kgo.Opt) (*kgo.Client, error) {
	if len(brokers) == 0 {
		return nil, errors.New("kafka: no brokers")
	}
	base := []kgo.Opt{
		kgo.SeedBrokers(brokers...),
		kgo.WithLogger(kslog.New(log.With("component", "kafka"))),
		// Records must survive a broker restart before we answer 200.
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(0),
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka: new client: %w", err)
	}
	return cl, nil
}

// EnsureTopics creates the topics that do not exist yet, each with
// partitions partitions. Existing topics are left as they are.
func EnsureTopics(ctx context.Context, cl *kgo.Client, partitions int32, topics ...string) error {
	adm := kadm.NewClient(cl)
	resp, err := adm.CreateTopics(ctx, partitions, -1, nil, topics...)
	if err != nil {
		return fmt.Errorf("kafka: create topics: %w", err)
	}
	for _, r := range resp.Sorted() {
		if r.Err != nil && !errors.Is(r.Err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("kafka: create topic %s: %w", r.Topic, r.Err)
		}
	}
	return nil
}

// Ping checks that the cluster answers a metadata request.
func Ping(ctx context.Context, cl *kgo.Client) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := cl.Ping(ctx); err != nil {
		return fmt.Errorf("kafka: ping: %w", err)
	}
	return nil
}

// ProduceSync produces records and waits for the broker's acknowledgement of
// every one; the first error is returned.
func ProduceSync(ctx context.Context, cl *kgo.Client, rs ...*kgo.Record) error {
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		return fmt.Errorf("kafka: produce: %w", err)
	}
	return nil
}
