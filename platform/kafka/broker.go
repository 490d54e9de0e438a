// Package kafka is contrack's thin layer over franz-go: clients, topic
// creation, the one consume loop, and the embedded single-node broker used
// for local runs and tests.
package kafka

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"

	"github.com/twmb/franz-go/pkg/kfake"
)

// EmbeddedBroker is franz-go's kfake run in-process: a single-node
// development broker speaking the Kafka protocol (consumer groups,
// transactions), its log kept on disk with an fsync per produce so a restart
// loses nothing. Production uses a real Kafka cluster through KAFKA_BROKERS.
type EmbeddedBroker struct {
	cluster *kfake.Cluster
	addr    string
}

// StartEmbedded starts the embedded broker listening on addr (host:port).
// dataDir holds its log; empty keeps everything in memory (tests only).
// partitions is the default partition count of auto-created topics.
func StartEmbedded(addr, dataDir string, partitions int, log *slog.Logger) (*EmbeddedBroker, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("kafka: embedded broker address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("kafka: embedded broker port %q: %w", portStr, err)
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.ClusterID("contrack-embedded"),
		kfake.DefaultNumPartitions(partitions),
		kfake.ListenFn(func(network, _ string) (net.Listener, error) {
			return net.Listen(network, net.JoinHostPort(host, strconv.Itoa(port)))
		}),
	}
	if dataDir != "" {
		if err := os.MkdirAll(dataDir, 0o755); err != nil {
			return nil, fmt.Errorf("kafka: embedded broker data dir: %w", err)
		}
		opts = append(opts, kfake.DataDir(dataDir), kfake.SyncWrites())
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka: start embedded broker on %s: %w", addr, err)
	}
	b := &EmbeddedBroker{cluster: c, addr: c.ListenAddrs()[0]}
	log.Info("embedded kafka broker started (single-node development broker; use KAFKA_BROKERS for a real cluster)",
		"addr", b.addr, "data_dir", dataDir)
	return b, nil
}

// Addr is the broker's listen address, usable as a seed broker.
func (b *EmbeddedBroker) Addr() string { return b.addr }

// Close stops the broker, flushing its log to disk.
func (b *EmbeddedBroker) Close() { b.cluster.Close() }

// Wait blocks until ctx is done, then closes the broker.
func (b *EmbeddedBroker) Wait(ctx context.Context) {
	<-ctx.Done()
	b.Close()
}
