package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/loop"
)

// BatchConfig configures ConsumeBatches, the batch mode.
type BatchConfig struct {
	Brokers []string
	Group   string
	Topics  []string
	// Name labels the consumer in logs, metrics and dead-letter headers; default Group.
	Name string
	Log  *slog.Logger
	// Metrics, if set, counts records by outcome (the role's registry).
	Metrics *Metrics
	// Loops, if set, supervises the consumer (the role's): fetch errors
	// are the loop "<Name>/fetch"'s failures, a failed batch the loop
	// "<Name>"'s; a run of either turns /readyz red.
	Loops *loop.Supervisor
	// MaxBatch bounds the records of a batch (default 5,000); MaxWait
	// bounds how long a partial batch waits after its first record
	// (default 1 s).
	MaxBatch int
	MaxWait  time.Duration
	// Paced, if set, lets a batch gather for as long as the last one took to
	// handle when that is longer than MaxWait: a handler whose cost is per
	// batch rather than per record (a ClickHouse insert rewriting whole
	// rows) then spends at most about half the time writing, however far
	// behind it is, instead of writing back to back and taking the CPU the
	// stages before it need. Latency grows by at most one handling time.
	Paced bool
	// Retry is the backoff of a failed batch (default 100 ms doubling to
	// 10 s, 8 attempts, about 40 s). After the attempts the consumer stops
	// with the error: the stage stops with the reason instead of stalling
	// while the process looks healthy.
	Retry Backoff
	// Transient, if set, says an error is an outage the batch waits out
	// (its store unreachable): such failures are retried past
	// Retry.Attempts, every one logged, until the store answers again.
	Transient func(error) bool
	// DeadLetterTopic receives the records a handler refused with
	// Batch.DeadLetter, with dlq-* reason headers (empty: logged and
	// skipped). DeadLetterAttempts bounds a dead-letter produce's tries.
	DeadLetterTopic    string
	DeadLetterAttempts int
	// OnRevoked, if set, runs when partitions are revoked or lost (state
	// kept for them must be dropped). Rebalances happen only between batches.
	OnRevoked func()
	// OnAssigned, if set, runs when the member is assigned partitions (the
	// group has formed and fetching can begin).
	OnAssigned func()
	// Stop, if set, is asked after each poll (idle: polls in a row that
	// brought nothing); true ends ConsumeBatches with nil.
	Stop func(idle int) bool
	// Opts are extra client options.
	Opts []kgo.Opt
}

// Batch is one batch of records handed to a BatchHandler (or, in Follow,
// one poll's records).
type Batch struct {
	Records []*kgo.Record
	cl      *kgo.Client
	log     *slog.Logger
	dead    []*kgo.Record
	causes  []error
	skipped int
}

// DeadLetter sets r aside: it goes to the dead-letter topic with cause as
// its reason before the batch is committed.
func (b *Batch) DeadLetter(r *kgo.Record, cause error) {
	b.dead = append(b.dead, r)
	b.causes = append(b.causes, cause)
}

// Skip passes over r, which the handler cannot apply, without a dead
// letter: logged with cause and counted (outcome skipped). For a follower,
// which reads its topics from the start at every start and would
// dead-letter the same record again each time.
func (b *Batch) Skip(r *kgo.Record, cause error) {
	b.skipped++
	if b.log != nil {
		b.log.Warn("skipping record", "topic", r.Topic, "partition", r.Partition, "offset", r.Offset, "err", cause)
	}
}

// Produce produces records on the consumer's client and waits for them.
func (b *Batch) Produce(ctx context.Context, rs ...*kgo.Record) error {
	return ProduceSync(ctx, b.cl, rs...)
}

// BatchHandler handles a batch; an error retries the whole batch (the
// handler must be idempotent for it); Fatal stops the consumer at once.
type BatchHandler func(ctx context.Context, b *Batch) error

// ConsumeBatches runs a consumer group that gathers records into batches
// (MaxBatch records, or what arrived within MaxWait of the first), hands
// each to handle, and commits its offsets only after handle succeeded and
// its dead letters are produced: at least once, a partition's records in
// order. A failed batch is retried with every partition's fetches paused;
// after Retry.Attempts, when a dead-letter produce fails, or when the broker
// refuses a commit, it returns the error (a commit the broker cannot take
// yet is retried; one refused because the group moved on is left to the
// batch's next owner). It returns nil when ctx ends or Stop says so.
func ConsumeBatches(ctx context.Context, cfg BatchConfig, handle BatchHandler) error {
	if cfg.Name == "" {
		cfg.Name = cfg.Group
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 5000
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = time.Second
	}
	cfg.Retry = cfg.Retry.withDefaults(100*time.Millisecond, 10*time.Second)
	if cfg.Retry.Attempts <= 0 {
		cfg.Retry.Attempts = 8
	}
	log := cfg.Log.With("consumer", cfg.Name)
	opts := []kgo.Opt{
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(cfg.Topics...),
		kgo.DisableAutoCommit(),
		// Rebalances wait for the batch in hand, so its commit is ours to make.
		kgo.BlockRebalanceOnPoll(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	}
	if cfg.OnAssigned != nil {
		opts = append(opts, kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) { cfg.OnAssigned() }))
	}
	if cfg.OnRevoked != nil {
		drop := func(context.Context, *kgo.Client, map[string][]int32) { cfg.OnRevoked() }
		opts = append(opts, kgo.OnPartitionsRevoked(drop), kgo.OnPartitionsLost(drop))
	}
	cl, err := NewClient(cfg.Brokers, log, append(opts, cfg.Opts...)...)
	if err != nil {
		return err
	}
	defer func() {
		// With BlockRebalanceOnPoll, Close waits for a rebalance the poll blocked.
		cl.AllowRebalance()
		cl.Close()
	}()
	dl := &deadLetterer{cl: cl, topic: cfg.DeadLetterTopic, stage: cfg.Name, log: log, attempts: cfg.DeadLetterAttempts}
	fail := func(err error) error { return fmt.Errorf("kafka: consumer %s: %w", cfg.Name, err) }
	fetch := newFetchWatch(cfg.Loops, cfg.Name, log)
	handling := cfg.Loops.Loop(cfg.Name, log)
	// A commit the broker did not take is a failure of "<Name>/commit"
	// (counted; a run of them turns /readyz red).
	commits := cfg.Loops.Loop(cfg.Name+"/commit", log)

	idle := 0
	window := cfg.MaxWait
	for {
		if cfg.Stop != nil && cfg.Stop(idle) {
			return nil
		}
		recs, err := gather(ctx, cl, fetch, cfg.MaxBatch, window)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			log.Error("consumer stopping: fetch", "err", err)
			return fail(err)
		}
		if len(recs) == 0 {
			idle++
			cl.AllowRebalance()
			continue
		}
		idle = 0
		cfg.Metrics.ages(cfg.Name, recs...)
		backoff := cfg.Retry.loop().New()
		for n := 1; ; n++ {
			b := &Batch{Records: recs, cl: cl, log: log}
			start := time.Now()
			err := handleBatch(ctx, cfg.Name, log, cfg.Metrics, recs, func(ctx context.Context) error { return handle(ctx, b) })
			if cfg.Paced {
				window = max(cfg.MaxWait, time.Since(start))
			}
			if err == nil {
				err = dl.produce(ctx, b.dead, b.causes)
			}
			if err == nil {
				cfg.Metrics.count(cfg.Name, "ok", len(recs)-len(b.dead)-b.skipped)
				cfg.Metrics.count(cfg.Name, dl.outcome(), len(b.dead))
				cfg.Metrics.count(cfg.Name, "skipped", b.skipped)
				handling.Succeeded()
				break
			}
			if ctx.Err() != nil {
				return nil
			}
			handling.Report(err)
			if errors.Is(err, ErrFatal) || (n >= cfg.Retry.Attempts && (cfg.Transient == nil || !cfg.Transient(err))) {
				cfg.Metrics.count(cfg.Name, "fatal", len(recs))
				log.Error("consumer stopping: batch failed", "records", len(recs), "attempts", n, "err", err)
				return fail(fmt.Errorf("batch of %d records failed %d times: %w", len(recs), n, err))
			}
			cfg.Metrics.count(cfg.Name, "retry", len(recs))
			wait := backoff.NextBackOff()
			log.Warn("batch failed; fetches paused until the retry", "records", len(recs), "attempt", n, "backoff", wait, "err", err)
			cl.PauseFetchTopics(cfg.Topics...)
			cfg.Metrics.pausedAdd(cfg.Name, 1)
			ok := sleep(ctx, wait)
			cl.ResumeFetchTopics(cfg.Topics...)
			cfg.Metrics.pausedAdd(cfg.Name, -1)
			if !ok {
				return nil
			}
		}
		if err := commitBatch(ctx, cl, log, recs, func(err error) { cfg.Metrics.commitFailed(cfg.Name); commits.Report(err) }); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !groupMovedOn(err) {
				log.Error("consumer stopping: commit failed", "err", err)
				return fail(fmt.Errorf("commit: %w", err))
			}
			// The member was dropped (a broker restart, a session timed
			// out): its partitions' next owner, most likely this consumer
			// rejoining, handles these records again (at least once).
			log.Warn("commit refused, the group moved on; the batch is handled again by its next owner", "records", len(recs), "err", err)
		} else {
			commits.Succeeded()
		}
		cl.AllowRebalance()
	}
}

// commitBatch commits a handled batch's offsets. A broker out of reach (a
// restart, a coordinator moving) is waited out, retrying: the batch is
// written, and stopping for it took every projector process down with a
// 5 s broker restart. A commit the broker refuses is returned. Every
// failed try is reported to failed.
func commitBatch(ctx context.Context, cl *kgo.Client, log *slog.Logger, recs []*kgo.Record, failed func(error)) error {
	backoff := loop.Backoff{Initial: 100 * time.Millisecond, Max: 5 * time.Second}.New()
	for {
		err := cl.CommitRecords(ctx, recs...)
		if err != nil && ctx.Err() == nil {
			failed(err)
		}
		if err == nil || ctx.Err() != nil || !brokerUnreachable(err) {
			return err
		}
		wait := backoff.NextBackOff()
		log.Warn("commit failed, broker unreachable; retrying", "backoff", wait, "err", err)
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
	}
}

// groupMovedOn reports whether err says this member's generation of the
// group is over, so the partitions may be another's (or its own again).
func groupMovedOn(err error) bool {
	return errors.Is(err, kerr.IllegalGeneration) || errors.Is(err, kerr.UnknownMemberID) ||
		errors.Is(err, kerr.RebalanceInProgress) || errors.Is(err, kerr.StaleMemberEpoch)
}

// brokerUnreachable reports whether err says the broker could not be
// reached or answered "try again", rather than refusing the request.
func brokerUnreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || kerr.IsRetriable(err)
}

// poller is what records are polled from: a consumer group's client, or a
// transactional session.
type poller interface {
	PollRecords(ctx context.Context, maxPollRecords int) kgo.Fetches
}

// gather polls a batch: up to max records, or what arrived within maxWait
// of the first; none if nothing came within maxWait. Fetch errors go to
// fw; one that retrying cannot fix is returned.
func gather(ctx context.Context, p poller, fw *fetchWatch, max int, maxWait time.Duration) ([]*kgo.Record, error) {
	recs, ok, err := pollFor(ctx, p, fw, max, maxWait)
	if !ok || len(recs) == 0 || err != nil {
		return nil, err
	}
	return gatherMore(ctx, p, fw, recs, max, maxWait)
}

// gatherMore adds to recs what p brings within wait, until there are max.
func gatherMore(ctx context.Context, p poller, fw *fetchWatch, recs []*kgo.Record, max int, wait time.Duration) ([]*kgo.Record, error) {
	deadline := time.Now().Add(wait)
	for len(recs) < max {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		got, ok, err := pollFor(ctx, p, fw, max-len(recs), left)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		recs = append(recs, got...)
	}
	return recs, nil
}

// pollFor polls p for at most wait; ok is false once ctx has ended or the
// client is closed (what that poll brought is dropped: nothing is handled
// after it). Fetch errors other than the wait running out go to fw (a poll
// of nothing but errors waits fw's backoff before returning); one that
// retrying cannot fix is returned.
func pollFor(ctx context.Context, p poller, fw *fetchWatch, max int, wait time.Duration) (recs []*kgo.Record, ok bool, err error) {
	pollCtx, cancel := context.WithTimeout(ctx, wait)
	fs := p.PollRecords(pollCtx, max)
	cancel()
	if ctx.Err() != nil || fs.IsClientClosed() {
		return nil, false, nil
	}
	pause, err := fw.check(fs)
	if err != nil {
		return nil, false, err
	}
	if pause > 0 && !sleep(ctx, pause) {
		return nil, false, nil
	}
	return fs.Records(), true, nil
}
