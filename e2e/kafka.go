package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
)

// realKafka is the Apache Kafka cluster a run uses instead of the
// embedded broker (-kafka): its brokers, the run's namespace on it, and
// deploy/kafka.sh to act on its nodes (the faults only a real cluster has).
type realKafka struct {
	brokers []string
	ns      schemas.Namespace
	script  string
	cl      *kgo.Client
	adm     *kadm.Client
}

func newRealKafka(brokers, script string) (*realKafka, error) {
	k := &realKafka{brokers: strings.Split(brokers, ","), ns: schemas.Namespace(randomName("e2e-")), script: script}
	cl, err := kafka.NewClient(k.brokers, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return nil, err
	}
	k.cl, k.adm = cl, kadm.NewClient(cl)
	return k, nil
}

// env is the configuration of every process of the run on this cluster.
func (k *realKafka) env() []string {
	return []string{"KAFKA_BROKERS=" + strings.Join(k.brokers, ","), "CONTRACK_KAFKA_NAMESPACE=" + string(k.ns)}
}

// drop deletes the run's topics and consumer groups and closes the client.
func (k *realKafka) drop(ctx context.Context) error {
	defer k.cl.Close()
	return kafka.DeleteNamespace(ctx, k.cl, k.ns)
}

// node runs `deploy/kafka.sh node ID ACTION` (kill, start, stop, pause, resume).
func (k *realKafka) node(id int32, action string) error {
	cmd := exec.Command(k.script, "node", strconv.Itoa(int(id)), action)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s node %d %s: %w: %s", k.script, id, action, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// busiestLeader is the broker leading the most partitions of the run's
// events and carrier-raw topics (the busiest: every event crosses both).
func (k *realKafka) busiestLeader(ctx context.Context) (int32, error) {
	md, err := k.adm.Metadata(ctx, k.ns.Topics(schemas.TopicEvents, schemas.TopicCarrierRaw)...)
	if err != nil {
		return 0, fmt.Errorf("metadata: %w", err)
	}
	led := map[int32]int{}
	for _, t := range md.Topics {
		for _, p := range t.Partitions {
			if p.Leader >= 0 {
				led[p.Leader]++
			}
		}
	}
	best, most := int32(-1), -1
	for id, n := range led {
		if n > most || (n == most && id < best) {
			best, most = id, n
		}
	}
	if best < 0 {
		return 0, errors.New("no partition of the run's topics has a leader")
	}
	return best, nil
}

// busiestCoordinator is the broker coordinating the most of the run's
// consumer groups and transactional ids: freezing it stalls commits and
// transaction ends rather than produces.
func (k *realKafka) busiestCoordinator(ctx context.Context) (int32, error) {
	groups, err := k.adm.ListGroups(ctx)
	if err != nil {
		return 0, fmt.Errorf("list groups: %w", err)
	}
	var ours []string
	for _, g := range groups.Groups() {
		if strings.HasPrefix(g, k.ns.Group("")) {
			ours = append(ours, g)
		}
	}
	txns, err := k.adm.ListTransactions(ctx, nil, nil)
	if err != nil {
		return 0, fmt.Errorf("list transactions: %w", err)
	}
	var txnIDs []string
	for id := range txns {
		if strings.HasPrefix(id, k.ns.TransactionalID("")) {
			txnIDs = append(txnIDs, id)
		}
	}
	led := map[int32]int{}
	for _, rs := range []kadm.FindCoordinatorResponses{k.adm.FindGroupCoordinators(ctx, ours...), k.adm.FindTxnCoordinators(ctx, txnIDs...)} {
		for _, r := range rs {
			if r.Err == nil {
				led[r.NodeID]++
			}
		}
	}
	best, most := int32(-1), -1
	for id, n := range led {
		if n > most || (n == most && id < best) {
			best, most = id, n
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("no coordinator found for %d groups and %d transactional ids", len(ours), len(txnIDs))
	}
	return best, nil
}

// activeController is the node leading the KRaft controller quorum.
func (k *realKafka) activeController(ctx context.Context) (int32, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = "__cluster_metadata"
	p := kmsg.NewDescribeQuorumRequestTopicPartition()
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, k.cl)
	if err != nil {
		return 0, fmt.Errorf("describe quorum: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return 0, fmt.Errorf("describe quorum: %w", err)
	}
	// The metadata log is one topic of one partition.
	if len(resp.Topics) == 0 || len(resp.Topics[0].Partitions) == 0 {
		return 0, errors.New("describe quorum: no partition in the answer")
	}
	part := resp.Topics[0].Partitions[0]
	if err := kerr.ErrorForCode(part.ErrorCode); err != nil {
		return 0, fmt.Errorf("describe quorum: %w", err)
	}
	return part.LeaderID, nil
}

// nodes is the cluster's broker ids, in order.
func (k *realKafka) nodes(ctx context.Context) ([]int32, error) {
	bs, err := k.adm.ListBrokers(ctx)
	if err != nil {
		return nil, fmt.Errorf("list brokers: %w", err)
	}
	var ids []int32
	for _, b := range bs {
		ids = append(ids, b.NodeID)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

// awaitInSync waits until every partition of the run's topics has all its
// replicas in sync again (a restarted broker has caught up).
func (k *realKafka) awaitInSync(ctx context.Context, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		md, err := k.adm.Metadata(ctx, k.ns.Topics(schemas.AllTopics...)...)
		behind := 0
		if err == nil {
			for _, t := range md.Topics {
				for _, p := range t.Partitions {
					if len(p.ISR) < len(p.Replicas) || p.Leader < 0 {
						behind++
					}
				}
			}
		}
		if err == nil && behind == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("partitions not in sync within %s: %d behind (%v)", within, behind, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// kafkaFault is one fault on the cluster's nodes: what it does at its
// time, and what it does DOWN later (restart, resume).
type kafkaFault struct {
	what     string
	down, up func(ctx context.Context) error
}

// newKafkaFault makes a -kafka-fault: leader (SIGKILL the broker leading the
// busiest partitions, restart DOWN later), controller (SIGKILL the active
// controller, restart DOWN later), freeze (SIGSTOP the busiest leader, SIGCONT
// DOWN later), coordinator (SIGSTOP the broker coordinating most of the
// run's groups and transactions, SIGCONT DOWN later), rolling (a clean restart of every node in turn, each waited
// for until every partition is in sync; DOWN is unused).
func (k *realKafka) newKafkaFault(kind string) (*kafkaFault, error) {
	var victim int32
	switch kind {
	case "leader", "freeze", "coordinator":
		action, back := "kill", "start"
		if kind != "leader" {
			action, back = "pause", "resume"
		}
		pick := k.busiestLeader
		if kind == "coordinator" {
			pick = k.busiestCoordinator
		}
		f := &kafkaFault{what: kind}
		f.down = func(ctx context.Context) error {
			id, err := pick(ctx)
			if err != nil {
				return err
			}
			victim = id
			f.what = fmt.Sprintf("%s (node %d)", kind, id)
			return k.node(id, action)
		}
		f.up = func(context.Context) error { return k.node(victim, back) }
		return f, nil
	case "controller":
		f := &kafkaFault{what: kind}
		f.down = func(ctx context.Context) error {
			id, err := k.activeController(ctx)
			if err != nil {
				return err
			}
			victim = id
			f.what = fmt.Sprintf("controller (node %d)", id)
			return k.node(id, "kill")
		}
		f.up = func(context.Context) error { return k.node(victim, "start") }
		return f, nil
	case "rolling":
		return &kafkaFault{what: "rolling restart", down: func(ctx context.Context) error {
			ids, err := k.nodes(ctx)
			if err != nil {
				return err
			}
			for _, id := range ids {
				if err := k.node(id, "stop"); err != nil {
					return err
				}
				if err := k.node(id, "start"); err != nil {
					return err
				}
				if err := k.awaitInSync(ctx, 2*time.Minute); err != nil {
					return fmt.Errorf("after restarting node %d: %w", id, err)
				}
			}
			return nil
		}, up: func(context.Context) error { return nil }}, nil
	}
	return nil, fmt.Errorf("unknown -kafka-fault %q (leader, controller, freeze, coordinator, rolling)", kind)
}

// eventsExactlyOnce reads the run's events topic as delivery does
// (read_committed) to its end and counts the records whose id (event id
// and content hash) appeared before: the normaliser's output is exactly
// once, so there must be none.
func (k *realKafka) eventsExactlyOnce(ctx context.Context) (records, duplicates int, err error) {
	return countDuplicateEvents(ctx, k.brokers, k.ns)
}

func countDuplicateEvents(ctx context.Context, brokers []string, ns schemas.Namespace) (records, duplicates int, err error) {
	topic := ns.Topic(schemas.TopicEvents)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	adm, err := kafka.NewClient(brokers, log)
	if err != nil {
		return 0, 0, err
	}
	ends, err := kadm.NewClient(adm).ListEndOffsets(ctx, topic)
	adm.Close()
	if err != nil {
		return 0, 0, fmt.Errorf("end offsets: %w", err)
	}
	cl, err := kafka.NewClient(brokers, log, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		return 0, 0, err
	}
	defer cl.Close()
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	seen := map[string]bool{}
	reached := map[int32]bool{}
	// Read until every partition reached its end, or (a partition that ends
	// in a transaction marker or an aborted transaction never shows its
	// last offset) until three polls in a row bring nothing: the load is
	// over, nothing more comes.
	for idle := 0; len(reached) < len(want) && idle < 3; {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return records, duplicates, ctx.Err()
		}
		n := 0
		fs.EachRecord(func(r *kgo.Record) {
			n++
			records++
			id := kafka.Header(r, schemas.HeaderID)
			if seen[id] {
				duplicates++
			}
			seen[id] = true
			if r.Offset+1 >= want[r.Partition] {
				reached[r.Partition] = true
			}
		})
		if n == 0 {
			idle++
		} else {
			idle = 0
		}
	}
	return records, duplicates, nil
}

// kafkaPIDs are the cluster's broker processes by name (kafka-1, …), read
// from deploy/kafka.sh's pid files, for the CPU table.
func kafkaPIDs(script string) map[string]int {
	out := map[string]int{}
	for i := 1; i <= 9; i++ {
		b, err := exec.Command(script, "node", strconv.Itoa(i), "pid").Output()
		if err != nil {
			break
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			out[fmt.Sprintf("kafka-%d", i)] = pid
		}
	}
	return out
}

// kafkaScript is deploy/kafka.sh from the repository root (make runs e2e there).
func kafkaScript() string {
	if p, err := filepath.Abs(filepath.Join("deploy", "kafka.sh")); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "deploy/kafka.sh"
}
