// Package kafka is contrack's thin layer over franz-go: clients, topic
// creation, the one consume loop, and the embedded single-node broker used
// for local runs and tests.
package kafka

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// EmbeddedBroker is franz-go's kfake run in-process: a single-node
// development broker speaking the Kafka protocol (consumer groups,
// transactions), its log kept on disk. Production uses a real Kafka cluster
// through KAFKA_BROKERS.
//
// Durability is Kafka's own trade: every write reaches the operating
// system's page cache before it is acknowledged, so a crash or restart of
// the process loses nothing; a flusher fsyncs what changed every flush
// interval, bounding what a crash of the machine itself can lose (Kafka's
// log.flush.interval.ms). A zero interval fsyncs every write instead, which
// holds every produce up behind the disk (several milliseconds each on the
// reference machine: most of an event's latency through the pipeline).
type EmbeddedBroker struct {
	cluster *kfake.Cluster
	addr    string
	stop    context.CancelFunc
	flushed chan struct{}
}

// StartEmbedded starts the embedded broker listening on addr (host:port).
// dataDir holds its log; empty keeps everything in memory (tests only).
// partitions is the default partition count of auto-created topics; flush
// is the flush interval (0: fsync every write).
func StartEmbedded(addr, dataDir string, partitions int, flush time.Duration, log *slog.Logger) (*EmbeddedBroker, error) {
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
		opts = append(opts, kfake.DataDir(dataDir))
		if flush <= 0 {
			opts = append(opts, kfake.SyncWrites())
		}
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka: start embedded broker on %s: %w", addr, err)
	}
	ctx, stop := context.WithCancel(context.Background())
	b := &EmbeddedBroker{cluster: c, addr: c.ListenAddrs()[0], stop: stop, flushed: make(chan struct{})}
	if dataDir != "" && flush > 0 {
		go b.flushLoop(ctx, dataDir, flush, log)
	} else {
		close(b.flushed)
	}
	log.Info("embedded kafka broker started (single-node development broker; use KAFKA_BROKERS for a real cluster)",
		"addr", b.addr, "data_dir", dataDir, "flush_interval", flush)
	return b, nil
}

// flushLoop fsyncs, every interval, the log files (and their directories)
// written since the previous pass, until ctx ends.
func (b *EmbeddedBroker) flushLoop(ctx context.Context, dir string, every time.Duration, log *slog.Logger) {
	defer close(b.flushed)
	t := time.NewTicker(every)
	defer t.Stop()
	var since time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		start := time.Now()
		if err := syncChangedSince(dir, since); err != nil {
			log.Error("embedded broker: flush to disk", "err", err)
			continue // the next pass tries everything since the last good one
		}
		// A write racing the walk has a modification time after start
		// minus the clock's coarseness: take it again next time.
		since = start.Add(-time.Second)
	}
}

// syncChangedSince fsyncs the regular files under dir modified after since,
// and the directories holding them (new segments' entries).
func syncChangedSince(dir string, since time.Time) error {
	dirs := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed by a compaction or retention meanwhile
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !info.ModTime().After(since) {
			return nil
		}
		dirs[filepath.Dir(path)] = true
		return syncPath(path)
	})
	if err != nil {
		return err
	}
	for d := range dirs {
		if err := syncPath(d); err != nil {
			return err
		}
	}
	return nil
}

func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	return nil
}

// Addr is the broker's listen address, usable as a seed broker.
func (b *EmbeddedBroker) Addr() string { return b.addr }

// Close stops the broker, flushing its log to disk.
func (b *EmbeddedBroker) Close() {
	b.stop()
	<-b.flushed
	b.cluster.Close()
}

// Wait blocks until ctx is done, then closes the broker.
func (b *EmbeddedBroker) Wait(ctx context.Context) {
	<-ctx.Done()
	b.Close()
}
