package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/schemas"
)

// Handler processes one record. Returning an error wrapped with Permanent
// sends the record to the dead-letter topic; any other error is treated as
// transient (a store is down) and the record is retried with backoff until it
// succeeds or the consumer stops, so an outage pauses the partition instead of
// losing records.
type Handler func(ctx context.Context, r *kgo.Record) error

// ErrPermanent marks an error that retrying cannot fix (a poison record).
var ErrPermanent = errors.New("permanent")

// Permanent wraps err so the consume loop dead-letters the record.
func Permanent(err error) error { return fmt.Errorf("%w: %w", ErrPermanent, err) }

// ConsumerConfig configures Consume.
type ConsumerConfig struct {
	Brokers []string
	Group   string
	Topics  []string
	// DeadLetterTopic receives records whose handler returned a Permanent
	// error, with dlq-* headers. Empty means such records are logged and skipped.
	DeadLetterTopic string
	Log             *slog.Logger
	// Opts are extra client options (e.g. kgo.FetchIsolationLevel).
	Opts []kgo.Opt
	// KeyConcurrency, above 1, lets a partition's handler calls overlap: up
	// to this many records of one fetched batch are in flight at once, the
	// records of any one key still handled one after the other, in offset
	// order. For handlers that wait on I/O another record could share (a
	// group commit); 0 or 1 handles a partition's records strictly in turn.
	KeyConcurrency int
}

// Consume runs a consumer group with one goroutine per assigned partition,
// committing only offsets whose records the handler finished (franz-go's
// goroutine-per-partition manual-commit pattern). It blocks until ctx is
// done, then finishes in-flight records, commits and leaves the group; it
// returns nil on a clean shutdown.
func Consume(ctx context.Context, cfg ConsumerConfig, handle Handler) error {
	c := &consumer{cfg: cfg, handle: handle, workers: map[tp]*partitionWorker{}}
	opts := append([]kgo.Opt{
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(cfg.Topics...),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsAssigned(c.assigned),
		kgo.OnPartitionsRevoked(c.revoked),
		kgo.OnPartitionsLost(c.lost),
	}, cfg.Opts...)
	cl, err := NewClient(cfg.Brokers, cfg.Log, opts...)
	if err != nil {
		return err
	}
	c.cl = cl
	defer cl.Close()

	for {
		fetches := cl.PollRecords(ctx, 1000)
		if ctx.Err() != nil {
			cl.AllowRebalance()
			break
		}
		if fetches.IsClientClosed() {
			return nil
		}
		fetches.EachError(func(topic string, p int32, err error) {
			cfg.Log.Error("fetch error", "topic", topic, "partition", p, "err", err)
		})
		fetches.EachPartition(func(p kgo.FetchTopicPartition) {
			if len(p.Records) == 0 {
				return
			}
			c.mu.Lock()
			w := c.workers[tp{p.Topic, p.Partition}]
			c.mu.Unlock()
			if w != nil {
				select {
				case w.recs <- p.Records:
				case <-w.done: // partition lost meanwhile: records are redelivered
				}
			}
		})
		cl.AllowRebalance()
	}
	// Clean shutdown: stop workers (they finish the batch in hand and commit),
	// then leave the group so partitions move at once.
	c.stopAll()
	leaveCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl.LeaveGroupContext(leaveCtx)
	return nil
}

type tp struct {
	topic     string
	partition int32
}

type consumer struct {
	cfg     ConsumerConfig
	cl      *kgo.Client
	handle  Handler
	mu      sync.Mutex
	workers map[tp]*partitionWorker
}

type partitionWorker struct {
	recs   chan []*kgo.Record
	quit   chan struct{}
	done   chan struct{}
	cancel context.CancelFunc
}

func (c *consumer) assigned(_ context.Context, cl *kgo.Client, assigned map[string][]int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for topic, parts := range assigned {
		for _, p := range parts {
			ctx, cancel := context.WithCancel(context.Background())
			w := &partitionWorker{recs: make(chan []*kgo.Record, 4), quit: make(chan struct{}), done: make(chan struct{}), cancel: cancel}
			c.workers[tp{topic, p}] = w
			go c.run(ctx, cl, topic, p, w)
		}
	}
}

func (c *consumer) revoked(ctx context.Context, cl *kgo.Client, revoked map[string][]int32) {
	c.stop(revoked, false)
}

func (c *consumer) lost(ctx context.Context, cl *kgo.Client, lost map[string][]int32) {
	// Lost partitions may already belong to someone else: abandon, do not commit.
	c.stop(lost, true)
}

func (c *consumer) stop(parts map[string][]int32, abandon bool) {
	c.mu.Lock()
	var ws []*partitionWorker
	for topic, ps := range parts {
		for _, p := range ps {
			if w := c.workers[tp{topic, p}]; w != nil {
				delete(c.workers, tp{topic, p})
				ws = append(ws, w)
			}
		}
	}
	c.mu.Unlock()
	for _, w := range ws {
		if abandon {
			w.cancel()
		}
		close(w.quit)
	}
	for _, w := range ws {
		<-w.done
	}
}

func (c *consumer) stopAll() {
	c.mu.Lock()
	all := map[string][]int32{}
	for k := range c.workers {
		all[k.topic] = append(all[k.topic], k.partition)
	}
	c.mu.Unlock()
	c.stop(all, false)
}

func (c *consumer) run(ctx context.Context, cl *kgo.Client, topic string, partition int32, w *partitionWorker) {
	defer close(w.done)
	defer w.cancel()
	log := c.cfg.Log.With("topic", topic, "partition", partition)
	// Offsets are committed by a goroutine of their own, so the next batch
	// is handled while the last one's commit is on the wire; only the
	// newest pending offset is kept. On return the last commit is made
	// before done closes (a revoke waits for it; a lost partition skips it).
	pending := make(chan *kgo.Record, 1)
	committed := make(chan struct{})
	go func() {
		defer close(committed)
		for r := range pending {
			if ctx.Err() != nil {
				continue // partition lost: no longer ours to commit
			}
			if err := cl.CommitRecords(context.Background(), r); err != nil {
				log.Error("commit offset", "offset", r.Offset, "err", err)
			}
		}
	}()
	defer func() { close(pending); <-committed }()
	for {
		select {
		case <-w.quit:
			return
		case recs := <-w.recs:
			last := c.processBatch(ctx, log, recs)
			// One commit per batch: a crash before it redelivers the batch,
			// which handlers tolerate (they are idempotent by record id).
			if last != nil && ctx.Err() == nil {
				select {
				case <-pending: // superseded by this newer offset
				default:
				}
				pending <- last
			}
			if ctx.Err() != nil {
				return
			}
		}
	}
}

// processBatch handles a partition's batch and returns the last record of
// its longest prefix handled in full (nil if none): all of it unless ctx
// ended meanwhile.
func (c *consumer) processBatch(ctx context.Context, log *slog.Logger, recs []*kgo.Record) *kgo.Record {
	if c.cfg.KeyConcurrency <= 1 {
		var last *kgo.Record
		for _, r := range recs {
			if err := c.process(ctx, log, r); err != nil {
				break // context cancelled: partition lost or shutting down
			}
			last = r
		}
		return last
	}
	// One chain per key, in offset order; chains run side by side.
	var chains [][]*kgo.Record
	byKey := map[string]int{}
	for _, r := range recs {
		i, ok := byKey[string(r.Key)]
		if !ok {
			i = len(chains)
			byKey[string(r.Key)] = i
			chains = append(chains, nil)
		}
		chains[i] = append(chains[i], r)
	}
	sem := make(chan struct{}, c.cfg.KeyConcurrency)
	var wg sync.WaitGroup
	for _, chain := range chains {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			for _, r := range chain {
				if c.process(ctx, log, r) != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		// Which prefix finished is not tracked: commit none of the batch
		// (it is redelivered; handlers are idempotent by record id).
		return nil
	}
	return recs[len(recs)-1]
}

// process runs the handler until it succeeds, dead-letters a permanent
// failure, or ctx ends (returning ctx's error, record not committed).
func (c *consumer) process(ctx context.Context, log *slog.Logger, r *kgo.Record) error {
	backoff := 100 * time.Millisecond
	for {
		err := c.handle(ctx, r)
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrPermanent) {
			return c.deadLetter(ctx, log, r, err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		log.Warn("handler failed, retrying", "offset", r.Offset, "err", err, "backoff", backoff)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}

func (c *consumer) deadLetter(ctx context.Context, log *slog.Logger, r *kgo.Record, cause error) error {
	log.Warn("dead-lettering record", "offset", r.Offset, "err", cause)
	if c.cfg.DeadLetterTopic == "" {
		return nil
	}
	dl := &kgo.Record{
		Topic: c.cfg.DeadLetterTopic,
		Key:   r.Key,
		Value: r.Value,
		Headers: append(append([]kgo.RecordHeader{}, r.Headers...),
			kgo.RecordHeader{Key: schemas.HeaderDLQReason, Value: []byte(cause.Error())},
			kgo.RecordHeader{Key: schemas.HeaderDLQTopic, Value: []byte(r.Topic)},
			kgo.RecordHeader{Key: schemas.HeaderDLQPartition, Value: []byte(strconv.Itoa(int(r.Partition)))},
			kgo.RecordHeader{Key: schemas.HeaderDLQOffset, Value: []byte(strconv.FormatInt(r.Offset, 10))},
		),
	}
	// The dead-letter produce is checked: if it fails the record is not
	// committed and will be redelivered.
	for {
		err := c.cl.ProduceSync(ctx, dl).FirstErr()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		log.Error("dead-letter produce failed, retrying", "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// Header returns the value of header key on r, or "".
func Header(r *kgo.Record, key string) string {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}
