package kafka

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/loop"
)

// FollowConfig configures Follow, the table-follower mode.
type FollowConfig struct {
	Brokers []string
	Topics  []string
	// Name labels the follower in logs and metrics.
	Name string
	Log  *slog.Logger
	// Metrics, if set, counts records (the role's registry).
	Metrics *Metrics
	// Loops, if set, supervises the follower: fetch errors are the loop
	// "<Name>/fetch"'s failures; a run of them turns /readyz red.
	Loops *loop.Supervisor
	// FromEnd starts at the topics' ends as of the start (a cache that only
	// needs changes from now on) instead of their start.
	FromEnd bool
	// Group, if set, shares the partitions among the group's members
	// (each reads only its own, from the start; nothing is ever committed).
	// Empty: every partition is read, no group.
	Group string
	// OnRevoked, with Group, runs when partitions are revoked or lost.
	OnRevoked func(map[string][]int32)
	// ReadCommitted skips records of aborted transactions.
	ReadCommitted bool
	// PollTimeout > 0 calls the handler at least this often, with no
	// records when none came (for periodic work beside the follow).
	PollTimeout time.Duration
	// Started, if set, is called once the start positions are fixed
	// (FromEnd: every record after it is read).
	Started func()
	// CaughtUp, if set (no Group, not FromEnd), is called once every
	// partition has been read up to the end it had at the start.
	CaughtUp func()
}

// FollowHandler applies the records of one poll (b.Records) to state; a
// record it cannot apply it passes over with b.Skip (logged and counted).
// An error stops the follower and Follow returns it: a table that cannot
// be applied is not followed silently.
type FollowHandler func(ctx context.Context, b *Batch) error

// Follow reads the topics, without committing, until ctx ends (nil) or
// something fails: the end offsets that define "caught up" cannot be read,
// or the handler returns an error.
func Follow(ctx context.Context, cfg FollowConfig, handle FollowHandler) error {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	log := cfg.Log.With("follower", cfg.Name)
	fail := func(err error) error { return fmt.Errorf("kafka: follower %s: %w", cfg.Name, err) }
	fetch := newFetchWatch(cfg.Loops, cfg.Name, log)
	var opts []kgo.Opt
	if cfg.ReadCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	var ends map[string]map[int32]int64
	if cfg.FromEnd || (cfg.CaughtUp != nil && cfg.Group == "") {
		var err error
		if ends, err = endOffsets(ctx, cfg.Brokers, log, cfg.Topics); err != nil {
			return fail(err)
		}
	}
	switch {
	case cfg.FromEnd:
		from := map[string]map[int32]kgo.Offset{}
		for t, ps := range ends {
			from[t] = map[int32]kgo.Offset{}
			for p, o := range ps {
				from[t][p] = kgo.NewOffset().At(o)
			}
		}
		opts = append(opts, kgo.ConsumePartitions(from))
	case cfg.Group != "":
		opts = append(opts, kgo.ConsumerGroup(cfg.Group), kgo.ConsumeTopics(cfg.Topics...),
			// State is rebuilt from the start of each partition: never committed.
			kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		if cfg.OnRevoked != nil {
			drop := func(_ context.Context, _ *kgo.Client, m map[string][]int32) { cfg.OnRevoked(m) }
			opts = append(opts, kgo.OnPartitionsRevoked(drop), kgo.OnPartitionsLost(drop))
		}
	default:
		opts = append(opts, kgo.ConsumeTopics(cfg.Topics...), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	}
	cl, err := NewClient(cfg.Brokers, log, opts...)
	if err != nil {
		return fail(err)
	}
	defer cl.Close()
	if cfg.Started != nil {
		cfg.Started()
	}
	if cfg.Group != "" {
		defer func() {
			if err := cl.LeaveGroupContext(context.WithoutCancel(ctx)); err != nil {
				// Its partitions move once the session times out instead of at once.
				log.Warn("leave the consumer group", "group", cfg.Group, "err", err)
			}
		}()
	}

	// Caught up: every partition read up to the end it had at the start.
	caughtUp := cfg.CaughtUp
	seen := map[string]map[int32]int64{}
	checkCaughtUp := func() {
		if caughtUp == nil || cfg.FromEnd || cfg.Group != "" {
			return
		}
		for t, ps := range ends {
			for p, end := range ps {
				if seen[t][p] < end {
					return
				}
			}
		}
		caughtUp()
		caughtUp = nil
	}
	checkCaughtUp()
	for {
		pollCtx, cancel := ctx, context.CancelFunc(func() {})
		if cfg.PollTimeout > 0 {
			pollCtx, cancel = context.WithTimeout(ctx, cfg.PollTimeout)
		}
		fs := cl.PollFetches(pollCtx)
		cancel()
		if ctx.Err() != nil || fs.IsClientClosed() {
			return nil
		}
		pause, err := fetch.check(fs)
		if err != nil {
			log.Error("follower stopping: fetch", "err", err)
			return fail(err)
		}
		recs := fs.Records()
		if len(recs) == 0 && pause > 0 && !sleep(ctx, pause) {
			return nil
		}
		if len(recs) == 0 && cfg.PollTimeout <= 0 {
			continue
		}
		cfg.Metrics.ages(cfg.Name, recs...)
		b := &Batch{Records: recs, cl: cl, log: log}
		err = handleBatch(ctx, cfg.Name, log, cfg.Metrics, recs, func(ctx context.Context) error { return handle(ctx, b) })
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			cfg.Metrics.count(cfg.Name, "fatal", len(recs))
			log.Error("follower stopping", "err", err)
			return fail(err)
		}
		cfg.Metrics.count(cfg.Name, "ok", len(recs)-b.skipped)
		cfg.Metrics.count(cfg.Name, "skipped", b.skipped)
		for _, r := range recs {
			if seen[r.Topic] == nil {
				seen[r.Topic] = map[int32]int64{}
			}
			seen[r.Topic][r.Partition] = r.Offset + 1
		}
		checkCaughtUp()
	}
}

// endOffsetsPatience bounds how long endOffsets waits for a topic's
// partitions to be served: on a cluster of several brokers a topic just
// created is known to the controller (and to the broker that answered the
// metadata) a moment before its leaders serve it.
const endOffsetsPatience = 15 * time.Second

// endOffsets lists the topics' end offsets. A retriable answer (a leader
// that does not host the partition yet, a leader moving) is asked again
// for up to endOffsetsPatience; a topic with no partitions then, or any
// other error, is an error.
func endOffsets(ctx context.Context, brokers []string, log *slog.Logger, topics []string) (map[string]map[int32]int64, error) {
	cl, err := NewClient(brokers, log)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	list := func() (map[string]map[int32]int64, error) {
		listed, err := adm.ListEndOffsets(ctx, topics...)
		if err == nil {
			err = listed.Error()
		}
		if err != nil {
			err = fmt.Errorf("list end offsets: %w", err)
			if !kerr.IsRetriable(err) {
				return nil, backoff.Permanent(err)
			}
			return nil, err
		}
		out := map[string]map[int32]int64{}
		listed.Each(func(o kadm.ListedOffset) {
			if out[o.Topic] == nil {
				out[o.Topic] = map[int32]int64{}
			}
			out[o.Topic][o.Partition] = o.Offset
		})
		for _, t := range topics {
			if len(out[t]) == 0 {
				return nil, fmt.Errorf("list end offsets: topic %s has no partitions (does it exist?)", t)
			}
		}
		return out, nil
	}
	out, err := backoff.Retry(ctx, list,
		backoff.WithBackOff(&backoff.ExponentialBackOff{
			InitialInterval: 20 * time.Millisecond, RandomizationFactor: 0.2,
			Multiplier: 2, MaxInterval: time.Second,
		}),
		backoff.WithMaxElapsedTime(endOffsetsPatience),
		backoff.WithNotify(func(err error, wait time.Duration) {
			log.Debug("end offsets not served yet, asking again", "err", err, "wait", wait)
		}))
	if err != nil {
		return nil, err
	}
	return out, nil
}
