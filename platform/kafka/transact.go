package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/loop"
)

// TransactConfig configures ConsumeTransactional, the read-process-write mode.
type TransactConfig struct {
	Brokers []string
	Group   string
	Topics  []string
	// TransactionalID names this instance's producer; unique per instance.
	TransactionalID string
	// Name labels the consumer in logs and metrics; default Group.
	Name string
	Log  *slog.Logger
	// Metrics, if set, counts records by outcome (the role's registry).
	Metrics *Metrics
	// Loops, if set, supervises the consumer (the role's): fetch errors
	// are the loop "<Name>/fetch"'s failures, an aborted transaction the
	// loop "<Name>"'s; a run of either turns /readyz red.
	Loops *loop.Supervisor
	// MaxRecords bounds the records of one transaction (default 500).
	MaxRecords int
	// Linger, if set, is how long a transaction's first records wait for
	// more before it begins. Each transaction costs several broker round
	// trips, and its commit wakes every read_committed consumer of what it
	// wrote: at low rates, one per record or two.
	Linger time.Duration
	// Retry is the backoff of a failed batch (default 250 ms doubling to
	// 5 s, unbounded: a store outage pauses the stage; a handler that must
	// not wait for ever returns a Fatal error itself). Attempts > 0 stops
	// the consumer with the error after that many tries of one batch.
	Retry Backoff
	// Opts are extra client options.
	Opts []kgo.Opt
}

// TxBatch is one transaction's input and output.
type TxBatch struct {
	Records []*kgo.Record
	out     []*kgo.Record
	after   []func(context.Context)
}

// Produce adds records to the transaction: they are visible to
// read_committed consumers only if it commits, with the input's offsets.
func (b *TxBatch) Produce(rs ...*kgo.Record) { b.out = append(b.out, rs...) }

// AfterCommit runs f once the transaction committed (state that must not
// run ahead of Kafka: a crash before it only re-does the batch).
func (b *TxBatch) AfterCommit(f func(context.Context)) { b.after = append(b.after, f) }

// TxHandler turns a batch of input records into output records (dead
// letters included). An error aborts the transaction and the batch is
// fetched and handled again after a backoff; Fatal stops the consumer.
type TxHandler func(ctx context.Context, b *TxBatch) error

// ConsumeTransactional consumes, produces outputs and commits the input
// offsets in one Kafka transaction per batch (a GroupTransactSession):
// exactly once inside Kafka. An aborted transaction rewinds to the
// committed offsets, so nothing is skipped; the whole consumer waits out a
// retry's backoff without fetching (a transaction spans every partition of
// the poll). It returns nil when ctx ends, or the error that stopped it.
func ConsumeTransactional(ctx context.Context, cfg TransactConfig, handle TxHandler) error {
	if cfg.Name == "" {
		cfg.Name = cfg.Group
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.MaxRecords <= 0 {
		cfg.MaxRecords = 500
	}
	if cfg.TransactionalID == "" {
		return errors.New("kafka: transactional consumer without a transactional id")
	}
	cfg.Retry = cfg.Retry.withDefaults(250*time.Millisecond, 5*time.Second)
	log := cfg.Log.With("consumer", cfg.Name)
	sess, err := kgo.NewGroupTransactSession(append(append(clientOpts(cfg.Brokers, log), []kgo.Opt{
		kgo.TransactionalID(cfg.TransactionalID),
		kgo.TransactionTimeout(TransactionTimeout),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(cfg.Topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	}...), cfg.Opts...)...)
	if err != nil {
		return fmt.Errorf("kafka: %s: transact session: %w", cfg.Name, err)
	}
	defer sess.Close()
	fail := func(err error) error { return fmt.Errorf("kafka: consumer %s: %w", cfg.Name, err) }

	adm := kadm.NewClient(sess.Client())
	fetch := newFetchWatch(cfg.Loops, cfg.Name, log)
	handling := cfg.Loops.Loop(cfg.Name, log)
	backoff := cfg.Retry.loop().New()
	var lastCommit time.Time
	failures := 0
	for {
		fs := sess.PollRecords(ctx, cfg.MaxRecords)
		if ctx.Err() != nil || fs.IsClientClosed() {
			return nil
		}
		pause, err := fetch.check(fs)
		if err != nil {
			log.Error("consumer stopping: fetch", "err", err)
			return fail(err)
		}
		recs := fs.Records()
		if len(recs) == 0 {
			if pause > 0 && !sleep(ctx, pause) {
				return nil
			}
			continue
		}
		if cfg.Linger > 0 && len(recs) < cfg.MaxRecords && failures == 0 {
			if recs, err = gatherMore(ctx, sess, fetch, recs, cfg.MaxRecords, cfg.Linger); err != nil {
				log.Error("consumer stopping: fetch", "err", err)
				return fail(err)
			}
			if ctx.Err() != nil {
				return nil
			}
		}
		if failures == 0 {
			cfg.Metrics.ages(cfg.Name, recs...)
		}
		if err := sess.Begin(); err != nil {
			return fail(fmt.Errorf("begin: %w", err))
		}
		b := &TxBatch{Records: recs}
		err = handleBatch(ctx, cfg.Name, log, cfg.Metrics, recs, func(ctx context.Context) error { return handle(ctx, b) })
		if err != nil {
			// Abort: the session rewinds to the committed offsets and the
			// batch is fetched again after the backoff.
			if _, aerr := sess.End(context.WithoutCancel(ctx), kgo.TryAbort); aerr != nil {
				return fail(fmt.Errorf("abort: %w (after %w)", aerr, err))
			}
			// The session rewinds only partitions with a committed offset:
			// rewind every partition of the batch to its first record, so
			// one never committed (a new group) is not skipped either.
			rewind(sess.Client(), recs)
			if ctx.Err() != nil {
				return nil
			}
			failures++
			handling.Report(err)
			if errors.Is(err, ErrFatal) || (cfg.Retry.Attempts > 0 && failures >= cfg.Retry.Attempts) {
				cfg.Metrics.count(cfg.Name, "fatal", len(recs))
				log.Error("consumer stopping: batch failed", "records", len(recs), "attempts", failures, "err", err)
				return fail(err)
			}
			cfg.Metrics.count(cfg.Name, "retry", len(recs))
			wait := backoff.NextBackOff()
			log.Warn("batch failed, transaction aborted; retrying", "records", len(recs), "attempt", failures, "backoff", wait, "err", err)
			if !sleep(ctx, wait) {
				return nil
			}
			continue
		}
		if time.Since(lastCommit) < TransactionTimeout {
			// The handler ran while the last commit's markers were written;
			// what is left of that is waited for here (awaitPreviousTransaction).
			awaitPreviousTransaction(ctx, adm, cfg.TransactionalID, log)
		}
		// A failed produce does not stop End from committing (franz-go
		// commits what the broker took and the input offsets; tested with a
		// produce the broker refused): the outputs' results are checked
		// after a flush, and any failure aborts the transaction instead.
		var produceMu sync.Mutex
		var produceErrs []error
		for _, r := range b.out {
			sess.Produce(ctx, r, func(r *kgo.Record, err error) {
				if err != nil {
					produceMu.Lock()
					produceErrs = append(produceErrs, fmt.Errorf("produce to %s: %w", r.Topic, err))
					produceMu.Unlock()
				}
			})
		}
		ending := time.Now()
		if err := sess.Client().Flush(ctx); err != nil {
			return nil // ctx ended: the transaction is abandoned, its records come again
		}
		end := kgo.TryCommit
		produceMu.Lock()
		produceErr := errors.Join(produceErrs...)
		produceMu.Unlock()
		if produceErr != nil {
			end = kgo.TryAbort
		}
		committed, err := sess.End(ctx, end)
		cfg.Metrics.committed(cfg.Name, ending)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fail(fmt.Errorf("end transaction: %w", errors.Join(err, produceErr)))
		}
		if !committed {
			// A rebalance or a failed produce: the session rewound, the
			// records come again after a backoff (a produce that keeps
			// failing must not spin), counted as the loop's failure.
			rewind(sess.Client(), recs)
			failures++
			cfg.Metrics.count(cfg.Name, "retry", len(recs))
			why := produceErr
			if why == nil {
				why = errors.New("rebalance")
			}
			handling.Report(fmt.Errorf("transaction aborted at commit: %w", why))
			wait := backoff.NextBackOff()
			log.Warn("transaction aborted at commit; records will be processed again", "attempt", failures, "backoff", wait, "err", why)
			if !sleep(ctx, wait) {
				return nil
			}
			continue
		}
		if failures > 0 {
			backoff.Reset()
		}
		failures = 0
		handling.Succeeded()
		lastCommit = time.Now()
		cfg.Metrics.count(cfg.Name, "ok", len(recs))
		for _, f := range b.after {
			f(context.WithoutCancel(ctx))
		}
	}
}

// rewind sets each partition of recs back to its first record in recs.
func rewind(cl *kgo.Client, recs []*kgo.Record) {
	first := map[string]map[int32]kgo.EpochOffset{}
	for _, r := range recs {
		if first[r.Topic] == nil {
			first[r.Topic] = map[int32]kgo.EpochOffset{}
		}
		if _, ok := first[r.Topic][r.Partition]; !ok {
			first[r.Topic][r.Partition] = kgo.EpochOffset{Epoch: r.LeaderEpoch, Offset: r.Offset}
		}
	}
	cl.SetOffsets(first)
}

// awaitPreviousTransaction waits until the transaction coordinator has
// finished the transactional id's last transaction (its markers written),
// at most TransactionTimeout.
//
// Why: Apache Kafka 4.x runs transactions at transaction.version 2
// (KIP-890), where the first write of a transaction to a partition and its
// offset commit are answered CONCURRENT_TRANSACTIONS while the previous
// transaction's markers are still being written (tens of milliseconds on a
// three-broker cluster, more under load). franz-go 1.22 aborts the
// transaction when its offset commit gets that answer, so a batch without
// outputs begun right after a commit was aborted and handled twice; and it
// retries a produce that gets it after its retry backoff (250 ms, growing
// to 2.5 s), so a batch with outputs waited seconds. Measured on the local
// cluster, ten events a second through back-to-back transactions: a
// transaction took 190 ms at p50 and 4.6 s at p90 without this wait, 84 ms
// and 183 ms with it. kfake finishes a transaction before answering its
// commit, so there this is one request. A failed describe is logged and
// ignored: the transaction then goes on as it would have.
func awaitPreviousTransaction(ctx context.Context, adm *kadm.Client, txnID string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, TransactionTimeout)
	defer cancel()
	poll := loop.Backoff{Initial: 2 * time.Millisecond, Max: 50 * time.Millisecond}.New()
	for {
		described, err := adm.DescribeTransactions(ctx, txnID)
		if err == nil {
			err = described[txnID].Err
		}
		if err != nil {
			log.Debug("describe the previous transaction", "err", err)
			return
		}
		switch described[txnID].State {
		case "PrepareCommit", "PrepareAbort", "PrepareEpochFence":
		default:
			return
		}
		if !sleep(ctx, poll.NextBackOff()) {
			return
		}
	}
}
