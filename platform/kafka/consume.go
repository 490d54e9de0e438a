package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/loop"
)

// ConsumerConfig configures Consume, the per-record at-least-once mode.
type ConsumerConfig struct {
	Brokers []string
	Group   string
	Topics  []string
	// Name labels the consumer in logs, metrics and dead-letter headers
	// (dlq-stage); default Group.
	Name string
	// DeadLetterTopic receives records whose handler returned a Permanent
	// error (or panicked), with dlq-* reason headers. Empty means such
	// records are logged and skipped.
	DeadLetterTopic string
	Log             *slog.Logger
	// Metrics, if set, counts records by outcome (the role's registry).
	Metrics *Metrics
	// Loops, if set, supervises the consumer (the role's): fetch errors
	// are the loop "<Name>/fetch"'s failures, a record that failed and
	// waits for its retry the loop "<Name>"'s; a run of either turns
	// /readyz red until it succeeds again.
	Loops *loop.Supervisor
	// Middleware wraps the handler, after the runtime's own Recover and
	// Trace (which always run) and before metrics.
	Middleware []Middleware
	// Retry is the backoff of a transient failure (default 100 ms doubling
	// to 10 s, unbounded: an outage pauses the partition, and it resumes
	// when the store is back). Attempts > 0 makes the consumer stop with
	// the error after that many tries of one record.
	Retry Backoff
	// DeadLetterAttempts bounds the tries of a dead-letter produce (default
	// DeadLetterProduceAttempts); then the consumer stops with the error.
	DeadLetterAttempts int
	// Opts are extra client options (e.g. kgo.FetchIsolationLevel).
	Opts []kgo.Opt
	// KeyConcurrency, above 1, lets a partition's handler calls overlap: up
	// to this many records of one fetched batch are in flight at once, the
	// records of any one key still handled one after the other, in offset
	// order. For handlers that wait on I/O another record could share (a
	// group commit); 0 or 1 handles a partition's records strictly in turn.
	KeyConcurrency int
	// Runs, with KeyConcurrency above 1, takes the records of one key that
	// wait while an earlier one is handled in one call (a run, at most
	// MaxRun, in offset order) instead of one call each: for a handler
	// that writes a key's records together, so a busy key is not held to
	// one record per write. A record alone still goes to the per-record
	// handler. A run that fails with a permanent error goes to the
	// per-record handler one record at a time (which dead-letters what it
	// must); any other error fails the run, retried like a record's. The
	// runtime starts no span per record for a run: the handler continues
	// each record's trace itself.
	Runs RunHandler
	// MaxRun bounds a run's records (default 64).
	MaxRun int
}

// RunHandler handles a run: records of one key, in offset order, all done
// when it returns nil.
type RunHandler func(ctx context.Context, run []*kgo.Record) error

// Consume runs a consumer group with one goroutine per assigned partition,
// committing only offsets whose records the handler finished (franz-go's
// goroutine-per-partition manual-commit pattern), off the processing path.
//
// A transient handler error pauses the partition's fetches
// (PauseFetchPartitions) and schedules a retry of the failed record after a
// backoff; the worker stays free to be revoked meanwhile, and the partition
// resumes once the record succeeds. A permanent error dead-letters the
// record; a dead-letter produce that keeps failing, or a Fatal error, stops
// the consumer and Consume returns the error.
//
// It blocks until ctx is done, then finishes in-flight records, commits
// and leaves the group; it returns nil on a clean shutdown.
func Consume(ctx context.Context, cfg ConsumerConfig, handle Handler) error {
	if cfg.Name == "" {
		cfg.Name = cfg.Group
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	cfg.Retry = cfg.Retry.withDefaults(100*time.Millisecond, 10*time.Second)
	if cfg.MaxRun <= 0 {
		cfg.MaxRun = 64
	}
	c := &consumer{cfg: cfg, workers: map[tp]*partitionWorker{}, fatal: make(chan error, 1),
		handling: cfg.Loops.Loop(cfg.Name, cfg.Log), commits: cfg.Loops.Loop(cfg.Name+"/commit", cfg.Log)}
	fetch := newFetchWatch(cfg.Loops, cfg.Name, cfg.Log)
	mws := append([]Middleware{Recover(cfg.Log), Trace(cfg.Name)}, cfg.Middleware...)
	c.handle = Chain(handle, mws...)
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
	c.dl = &deadLetterer{cl: cl, topic: cfg.DeadLetterTopic, stage: cfg.Name, log: cfg.Log, attempts: cfg.DeadLetterAttempts}
	defer cl.Close()

	pollCtx, stopPoll := context.WithCancel(ctx)
	defer stopPoll()
	var failed error
	go func() {
		select {
		case failed = <-c.fatal:
			stopPoll()
		case <-pollCtx.Done():
		}
	}()
	for {
		fetches := cl.PollRecords(pollCtx, 1000)
		if pollCtx.Err() != nil {
			cl.AllowRebalance()
			break
		}
		if fetches.IsClientClosed() {
			return nil
		}
		wait, ferr := fetch.check(fetches)
		if ferr != nil {
			c.fail(ferr)
		}
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
		if wait > 0 {
			sleep(pollCtx, wait)
		}
	}
	// Stop workers (they finish the batch in hand and commit), then leave
	// the group so partitions move at once.
	c.stopAll()
	leaveCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.LeaveGroupContext(leaveCtx); err != nil {
		// Its partitions move once the session times out instead of at once.
		cfg.Log.Warn("leave the consumer group", "group", cfg.Group, "err", err)
	}
	if ctx.Err() == nil {
		// Stopped by a worker's fatal error (read once the poll has ended).
		select {
		case err := <-c.fatal:
			failed = err
		default:
		}
		if failed == nil {
			failed = errors.New("stopped")
		}
		return fmt.Errorf("kafka: consumer %s: %w", cfg.Name, failed)
	}
	return nil
}

type tp struct {
	topic     string
	partition int32
}

type consumer struct {
	cfg     ConsumerConfig
	cl      *kgo.Client
	dl      *deadLetterer
	handle  Handler
	fatal   chan error
	mu      sync.Mutex
	workers map[tp]*partitionWorker
	// handling is the consumer's loop: a record that failed (transiently)
	// is its failure, a record handled its success.
	handling *loop.Loop
	// commits is the loop "<Name>/commit": an offset commit the broker did
	// not take is its failure (counted; a run of them turns /readyz red),
	// one it took its success.
	commits *loop.Loop
}

// fail reports a fatal error once; Consume stops.
func (c *consumer) fail(err error) {
	select {
	case c.fatal <- err:
	default:
	}
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

// run is a partition's worker: an event loop over fetched batches, handler
// calls finishing and retry timers. It never sleeps: while a failed record
// waits for its retry the partition's fetches are paused, later batches
// queue behind it (order kept), and a revoke is answered at once.
//
// Records go through one pipeline whatever the mode: handled as they
// arrive, up to KeyConcurrency calls at once (1 by default), a key's
// records one after the other. With one call at a time the records are
// handled strictly in offset order; with more, a slow record holds back
// only its own key (handling a fetched batch as a wave made every record
// wait for the slowest of the wave before it: at 500 events/s delivery took
// a record p99 250 ms after it was produced, twice its slowest handler
// call). After a failure nothing more starts; once the calls in flight
// have drained, the records from the first one not done go back into the
// pipeline after the backoff (records done after it are handled again: at
// least once, each key in order).
func (c *consumer) run(ctx context.Context, cl *kgo.Client, topic string, partition int32, w *partitionWorker) {
	defer close(w.done)
	defer w.cancel()
	log := c.cfg.Log.With("consumer", c.cfg.Name, "topic", topic, "partition", partition)
	// Offsets are committed by a goroutine of their own, so the next batch
	// is handled while the last one's commit is on the wire; only the
	// newest pending offset is kept, and a commit waits commitInterval for
	// newer ones: at low rates every record would otherwise cost a commit
	// round trip to the broker (at 500 events/s, hundreds a second per
	// consumer), and a crash replays at most that much more, which the
	// handlers absorb (they are idempotent). On return the last commit is
	// made at once before done closes (a revoke waits for it; a lost
	// partition skips it).
	pending := make(chan *kgo.Record, 1)
	committed := make(chan struct{})
	go func() {
		defer close(committed)
		for r := range pending {
			wait := time.NewTimer(commitInterval)
		gather:
			for {
				select {
				case newer, ok := <-pending:
					if !ok {
						break gather // stopping: commit what we have now
					}
					r = newer
				case <-wait.C:
					break gather
				}
			}
			wait.Stop()
			if ctx.Err() != nil {
				continue // partition lost: no longer ours to commit
			}
			if err := cl.CommitRecords(context.Background(), r); err != nil {
				log.Error("commit offset", "offset", r.Offset, "err", err)
				c.cfg.Metrics.commitFailed(c.cfg.Name)
				c.commits.Report(err)
			} else {
				c.commits.Succeeded()
			}
		}
	}()
	defer func() { close(pending); <-committed }()
	commit := func(r *kgo.Record) {
		if ctx.Err() != nil {
			return
		}
		select {
		case <-pending: // superseded by this newer offset
		default:
		}
		pending <- r
	}

	this := map[string][]int32{topic: {partition}}
	paused := false
	defer func() {
		if paused {
			cl.ResumeFetchPartitions(this)
			c.cfg.Metrics.pausedAdd(c.cfg.Name, -1)
		}
	}()
	pipe := newPipeline(ctx, c, max(c.cfg.KeyConcurrency, 1))
	// Handler calls in flight finish (or, abandoned, end with ctx) before
	// the worker is done; what they finish is committed.
	defer func() {
		pipe.stopping = true
		for pipe.running > 0 {
			if r := pipe.finish(<-pipe.results); r != nil {
				commit(r)
			}
		}
	}()
	// backlog holds the records from the first one not done while it waits
	// for its retry, and the batches fetched meanwhile.
	var backlog []*kgo.Record
	var retry *time.Timer
	var retryC <-chan time.Time
	defer func() {
		if retry != nil {
			retry.Stop()
		}
	}()
	failures := 0
	failedAt := int64(-1) // the offset a failure stopped at, until the commits pass it
	backoff := c.cfg.Retry.loop().New()
	for {
		recsC := w.recs
		if len(pipe.window) >= pipelineWindow {
			recsC = nil // the pipeline is full: fetched batches wait in w.recs, then in the client
		}
		select {
		case <-w.quit:
			return
		case <-ctx.Done():
			return
		case recs := <-recsC:
			c.cfg.Metrics.ages(c.cfg.Name, recs...)
			if retryC != nil || pipe.failed != nil {
				backlog = append(backlog, recs...) // a failed record waits: later ones queue behind it
				continue
			}
			pipe.add(recs)
			continue
		case <-retryC:
			retryC = nil
			recs := backlog
			backlog = nil
			pipe.add(recs)
			continue
		case res := <-pipe.results:
			if res.err == nil {
				c.handling.Succeeded()
			}
			if r := pipe.finish(res); r != nil {
				commit(r)
				if failedAt >= 0 && r.Offset >= failedAt {
					// The record that failed is done: the partition goes on.
					failures, failedAt = 0, -1
					backoff.Reset()
					if paused {
						cl.ResumeFetchPartitions(this)
						c.cfg.Metrics.pausedAdd(c.cfg.Name, -1)
						paused = false
					}
				}
			}
			if pipe.failed == nil || pipe.running > 0 {
				continue
			}
		}
		// Drained after a failure: retry from the first record not done.
		err := pipe.failed
		pipe.failed = nil
		backlog = append(pipe.takeRest(), backlog...)
		if ctx.Err() != nil {
			return
		}
		failures++
		failedAt = backlog[0].Offset
		c.handling.Report(err)
		if errors.Is(err, ErrFatal) || (c.cfg.Retry.Attempts > 0 && failures >= c.cfg.Retry.Attempts) {
			log.Error("consumer stopping", "offset", backlog[0].Offset, "attempts", failures, "err", err)
			c.fail(err)
			return
		}
		wait := backoff.NextBackOff()
		log.Warn("handler failed; partition paused until the retry", "offset", backlog[0].Offset, "attempt", failures, "backoff", wait, "err", err)
		if !paused {
			cl.PauseFetchPartitions(this)
			c.cfg.Metrics.pausedAdd(c.cfg.Name, 1)
			paused = true
		}
		retry = time.NewTimer(wait)
		retryC = retry.C
	}
}

// pipelineWindow bounds a partition's records in a pipeline (in flight,
// waiting, or done behind one not done): beyond it the worker takes no
// more batches, as a wave in hand did.
const pipelineWindow = 1000

// commitInterval is how long a partition's offset commit waits for newer
// offsets (see consumer.run).
const commitInterval = 100 * time.Millisecond

// pipeline is a partition's records in flight and waiting, for run.
type pipeline struct {
	c       *consumer
	ctx     context.Context
	max     int
	window  []*slot            // records not yet committed, in offset order
	keys    map[string][]*slot // per key: its records not done, the first in flight
	ready   []string           // keys whose first record waits for a free place, in turn
	running int
	results chan *call
	// failed is the first error of a record; nothing more starts and
	// run retries from the first record not done once the rest drain.
	failed error
	// stopping: the worker is returning; what is in flight finishes,
	// nothing more starts.
	stopping bool
}

type slot struct {
	r    *kgo.Record
	done bool
}

// call is one handler call's records (one, or a run of one key) and its
// outcome.
type call struct {
	slots []*slot
	err   error
}

func newPipeline(ctx context.Context, c *consumer, max int) *pipeline {
	return &pipeline{c: c, ctx: ctx, max: max, keys: map[string][]*slot{}, results: make(chan *call, max)}
}

// add queues records behind their keys' and starts what it may.
func (p *pipeline) add(recs []*kgo.Record) {
	for _, r := range recs {
		s := &slot{r: r}
		p.window = append(p.window, s)
		k := string(r.Key)
		p.keys[k] = append(p.keys[k], s)
		if len(p.keys[k]) == 1 {
			p.ready = append(p.ready, k)
		}
	}
	p.start()
}

// start hands waiting keys' first records (with Runs, all a key has
// waiting, up to MaxRun) to handler calls, up to max calls. With one call
// at a time it takes the first record not done, so records go strictly in
// offset order across keys (and no runs).
func (p *pipeline) start() {
	for p.failed == nil && !p.stopping && p.running < p.max && len(p.ready) > 0 && p.ctx.Err() == nil {
		i := 0
		if p.max == 1 {
			// The first record not done is its key's first: its key is ready.
			i = slices.Index(p.ready, string(p.firstNotDone().r.Key))
		}
		k := p.ready[i]
		p.ready = slices.Delete(p.ready, i, i+1)
		n := 1
		if p.c.cfg.Runs != nil && p.max > 1 {
			n = min(len(p.keys[k]), p.c.cfg.MaxRun)
		}
		cl := &call{slots: p.keys[k][:n:n]}
		p.running++
		go func() {
			if len(cl.slots) == 1 {
				cl.err = p.c.process(p.ctx, cl.slots[0].r)
			} else {
				recs := make([]*kgo.Record, len(cl.slots))
				for i, s := range cl.slots {
					recs[i] = s.r
				}
				cl.err = p.c.processRun(p.ctx, recs)
			}
			p.results <- cl
		}()
	}
}

// finish records a handler call's end, starts its key's next records and
// others, and returns the newest record whose predecessors are all done
// (to commit), or nil.
func (p *pipeline) finish(cl *call) *kgo.Record {
	p.running--
	k := string(cl.slots[0].r.Key)
	if cl.err != nil {
		if p.failed == nil {
			p.failed = cl.err
		}
	} else {
		for _, s := range cl.slots {
			s.done = true
		}
		p.keys[k] = p.keys[k][len(cl.slots):]
		if len(p.keys[k]) == 0 {
			delete(p.keys, k)
		} else {
			p.ready = append(p.ready, k)
		}
	}
	p.start()
	var last *kgo.Record
	for len(p.window) > 0 && p.window[0].done {
		last = p.window[0].r
		p.window = p.window[1:]
	}
	return last
}

// firstNotDone is the window's first record not done (there is one while
// a key is ready).
func (p *pipeline) firstNotDone() *slot {
	for _, s := range p.window {
		if !s.done {
			return s
		}
	}
	return nil
}

// takeRest empties the pipeline (nothing in flight) and returns its
// records from the first one not done, in offset order.
func (p *pipeline) takeRest() []*kgo.Record {
	rest := make([]*kgo.Record, len(p.window))
	for i, s := range p.window {
		rest[i] = s.r
	}
	p.window, p.ready = nil, nil
	clear(p.keys)
	return rest
}

// process handles one record once: nil when it is done (handled, or
// dead-lettered after a permanent error), else the transient or fatal error.
func (c *consumer) process(ctx context.Context, r *kgo.Record) error {
	start := time.Now()
	err := c.handle(ctx, r)
	c.cfg.Metrics.observe(c.cfg.Name, start)
	o := outcome(err)
	if o == "dead_letter" {
		o = c.dl.outcome()
	}
	c.cfg.Metrics.count(c.cfg.Name, o, 1)
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrPermanent) && !errors.Is(err, ErrFatal) {
		return c.dl.produce(ctx, []*kgo.Record{r}, []error{err})
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// processRun handles a run (records of one key) in one Runs call: nil when
// all are done. A permanent error hands them to process one at a time.
func (c *consumer) processRun(ctx context.Context, run []*kgo.Record) error {
	err := handleBatch(ctx, c.cfg.Name, c.cfg.Log, c.cfg.Metrics, run, func(ctx context.Context) error { return c.cfg.Runs(ctx, run) })
	if err == nil {
		c.cfg.Metrics.count(c.cfg.Name, outcome(nil), len(run))
		return nil
	}
	if (errors.Is(err, ErrPermanent) || errors.Is(err, errPanic)) && !errors.Is(err, ErrFatal) {
		for _, r := range run {
			if err := c.process(ctx, r); err != nil {
				return err
			}
		}
		return nil
	}
	c.cfg.Metrics.count(c.cfg.Name, outcome(err), len(run))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
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
