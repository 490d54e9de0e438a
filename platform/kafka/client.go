package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/plugin/kslog"

	"github.com/contrack/contrack/schemas"
)

// MaxRecordBatchBytes is the largest record batch a client produces
// (franz-go's ProducerBatchMaxBytes, set explicitly here so producers and
// callers that size records agree). It is franz-go's and Kafka's broker
// default (1,000,012 bytes), below kfake's and Kafka's topic default
// max.message.bytes (1,048,588), so any record that fits is accepted by
// a topic with default settings. One record must fit in one batch with the
// batch header (61 bytes) and its own framing.
const MaxRecordBatchBytes = 1_000_012

// GroupSessionTimeout is how long a consumer group waits for a silent
// member before handing its partitions to the others: the least a Kafka
// broker accepts by default (group.min.session.timeout.ms, 6 s), so a
// restarted process waits about this long for its dead predecessor.
const GroupSessionTimeout = 6 * time.Second

// TransactionTimeout is how long a transaction may stay open before the
// broker aborts it. A producer killed mid-transaction leaves its
// transaction open until then, and read_committed consumers of its output
// (delivery, the feed) wait behind it: franz-go's default of 40 s stalled
// every push that long after a normaliser crash. A transaction here spans
// one short batch, far below this. It equals GroupSessionTimeout, so a
// restarted pipeline waits for neither longer than for the other (10 s
// made the last in-flight events of a SIGKILLed process wait 10.3 s).
const TransactionTimeout = GroupSessionTimeout

// RequestTimeout bounds how long a client waits for a broker's answer
// beyond the request's own timeout (franz-go's RequestTimeoutOverhead), and
// ProduceRequestTimeout how long a broker may wait for its replicas before
// answering a produce. A frozen broker (stopped, partitioned, in a long
// GC pause) keeps its connections open and answers nothing: with
// franz-go's defaults (10 s each) a request sent to it waited 20 s, and was
// sent to it again until the controller fenced it, so every acks=all write
// behind it stalled as long as the freeze, 30 s in `make chaos
// KAFKA=real`; with 3 s each, as long as the fencing (about 15 s). A
// request that times out is retried, and producers are idempotent.
const (
	RequestTimeout        = 3 * time.Second
	ProduceRequestTimeout = 3 * time.Second
)

// MetadataMinAge is the least time between two metadata refreshes of a
// client (franz-go's MetadataMinAge, default 5 s). A produce answered with
// a retriable error is resent only after a metadata refresh, and on Apache
// Kafka 4 a transaction's first produce to a partition is now and then
// answered CONCURRENT_TRANSACTIONS: the partition leaders verify the
// transaction with its coordinator at the same time, and the coordinator
// refuses the one that arrives while the other's state change is being
// written. With the default the resend waited for the 5-s age of the last
// refresh: the normaliser's transaction flush took 1.9 to 3.6 s two to
// four times in a 20-s run at 500 events/s on the local cluster, and
// every event behind it waited as long (the steps of about 5 s in the
// tails). At 100 ms the resend waits at most that plus the refresh: in
// alternating runs the transaction commit's p99 fell from 3.9-4.7 s to
// 0.96-2.25 s and the ledger's p99 from 5.7-8.6 s to 4.3-6.3 s
// (docs/performance.md, issue 46). A broker outage then refreshes
// metadata up to ten times a second per client, which also finds a moved
// leader sooner.
const MetadataMinAge = 100 * time.Millisecond

// clientOpts are the options every client and transactional session of
// contrack shares.
func clientOpts(brokers []string, log *slog.Logger) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(brokers...),
		kgo.WithLogger(kslog.New(log.With("component", "kafka"))),
		// Records must survive a broker restart before we answer 200.
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(0),
		kgo.ProducerBatchMaxBytes(MaxRecordBatchBytes),
		// A member that died (SIGKILL, a lost node) is noticed after
		// SessionTimeout and its partitions move: franz-go's default of 45 s
		// stalled every group that long after a crash. 6 s is Kafka's
		// default group.min.session.timeout.ms; heartbeats run off the
		// processing path, so a long batch does not count against it.
		kgo.SessionTimeout(GroupSessionTimeout),
		kgo.HeartbeatInterval(GroupSessionTimeout / 6),
		kgo.RequestTimeoutOverhead(RequestTimeout),
		kgo.ProduceRequestTimeout(ProduceRequestTimeout),
		kgo.MetadataMinAge(MetadataMinAge),
	}
}

// NewClient returns a franz-go client for brokers, logging through log.
// Extra options (consumer group, transactional id, ...) are appended.
func NewClient(brokers []string, log *slog.Logger, opts ...kgo.Opt) (*kgo.Client, error) {
	if len(brokers) == 0 {
		return nil, errors.New("kafka: no brokers")
	}
	cl, err := kgo.NewClient(append(clientOpts(brokers, log), opts...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka: new client: %w", err)
	}
	return cl, nil
}

// EnsureTopics creates the topics of ns that do not exist yet (topics are
// logical names, schemas.TopicX), each with partitions partitions and its
// settings from schemas.TopicConfigs. On a cluster of three brokers or
// more a topic gets three replicas and min.insync.replicas 2 (with
// producers' acks=all, a write survives the loss of any one broker and
// is refused rather than kept on one alone); on fewer, one replica per
// broker and min.insync.replicas 1. Existing topics keep their
// partitions, replicas and min.insync.replicas; their schemas.TopicConfigs
// settings are brought up to date.
func EnsureTopics(ctx context.Context, cl *kgo.Client, ns schemas.Namespace, partitions int32, topics ...string) error {
	adm := kadm.NewClient(cl)
	brokers, err := adm.ListBrokers(ctx)
	if err != nil {
		return fmt.Errorf("kafka: list brokers: %w", err)
	}
	replicas, minISR := replication(len(brokers))
	for _, topic := range topics {
		settings := map[string]*string{}
		for k, v := range schemas.TopicConfigs[topic] {
			settings[k] = kadm.StringPtr(v)
		}
		create := maps.Clone(settings)
		create["min.insync.replicas"] = kadm.StringPtr(strconv.Itoa(minISR))
		name := ns.Topic(topic)
		resp, err := adm.CreateTopics(ctx, partitions, replicas, create, name)
		if err != nil {
			return fmt.Errorf("kafka: create topic %s: %w", name, err)
		}
		for _, r := range resp.Sorted() {
			if r.Err != nil && !errors.Is(r.Err, kerr.TopicAlreadyExists) {
				return fmt.Errorf("kafka: create topic %s: %w", r.Topic, r.Err)
			}
			if errors.Is(r.Err, kerr.TopicAlreadyExists) && len(settings) > 0 {
				// A topic made by an older version: bring its settings up to
				// date. Its replicas and min.insync.replicas are the
				// operator's (deploy/kafka-topics.sh), never changed here.
				var alter []kadm.AlterConfig
				for k, v := range settings {
					alter = append(alter, kadm.AlterConfig{Op: kadm.SetConfig, Name: k, Value: v})
				}
				res, err := adm.AlterTopicConfigs(ctx, alter, name)
				if err == nil {
					for _, r := range res {
						err = errors.Join(err, r.Err)
					}
				}
				if err != nil {
					return fmt.Errorf("kafka: configure topic %s: %w", name, err)
				}
			}
		}
	}
	return waitForLeaders(ctx, cl, ns.Topics(topics...))
}

// waitForLeaders waits until the metadata every broker serves lists each
// topic with a leader for each partition. Kafka answers CreateTopics once
// its controller has the topic, before the brokers do: a describe, a list
// of offsets or a fetch sent to a broker that has not applied it yet fails
// with UNKNOWN_TOPIC_OR_PARTITION.
func waitForLeaders(ctx context.Context, cl *kgo.Client, topics []string) error {
	brokers, err := kadm.NewClient(cl).ListBrokers(ctx)
	if err != nil {
		return fmt.Errorf("kafka: list brokers: %w", err)
	}
	wait := 20 * time.Millisecond
	for {
		missing := ""
		for _, b := range brokers {
			if missing = missingLeader(ctx, cl.Broker(int(b.NodeID)), topics); missing != "" {
				missing = fmt.Sprintf("%s on broker %d", missing, b.NodeID)
				break
			}
		}
		if missing == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafka: topics not ready (%s): %w", missing, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// missingLeader asks one broker for the topics' metadata: the first topic
// or partition it does not serve with a leader, or "" when it serves all.
func missingLeader(ctx context.Context, b *kgo.Broker, topics []string) string {
	req := kmsg.NewPtrMetadataRequest()
	for _, name := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, b)
	if err != nil {
		return err.Error()
	}
	served := map[string]kmsg.MetadataResponseTopic{}
	for _, td := range resp.Topics {
		if td.Topic != nil {
			served[*td.Topic] = td
		}
	}
	for _, name := range topics {
		td, ok := served[name]
		if !ok || td.ErrorCode != 0 || len(td.Partitions) == 0 {
			return name
		}
		for _, p := range td.Partitions {
			if p.ErrorCode != 0 || p.Leader < 0 {
				return fmt.Sprintf("%s[%d]", name, p.Partition)
			}
		}
	}
	return ""
}

// replication is the replication factor and min.insync.replicas of the
// topics contrack creates on a cluster of n brokers.
func replication(n int) (replicas int16, minISR int) {
	switch {
	case n >= 3:
		return 3, 2
	case n < 1:
		return 1, 1
	default:
		return int16(n), 1
	}
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
