package projector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sync/errgroup"

	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/kafka"
)

// Config tunes the projector.
type Config struct {
	// MaxBatch bounds rows per insert (default 5,000); MaxWait bounds how
	// long a partial batch waits (default 1 s).
	MaxBatch int
	MaxWait  time.Duration
	// JourneyMaxWait bounds how long the journey projection batches
	// (default 250 ms): a pull is fresh this long after the event plus an
	// insert, so it is short; each batch is a part ClickHouse merges (and
	// point reads consult until then), so it is not shorter.
	JourneyMaxWait time.Duration
	// GenerationCheck is how often the journey projection looks for a
	// rebuilt generation (default 5 s).
	GenerationCheck time.Duration
}

// WithDefaults returns c with every zero field set to its documented default;
// Run applies it after Validate, so a zero Config is a valid one.
func (c Config) WithDefaults() Config {
	if c.MaxBatch <= 0 {
		c.MaxBatch = 5000
	}
	if c.MaxWait <= 0 {
		c.MaxWait = time.Second
	}
	if c.JourneyMaxWait <= 0 {
		c.JourneyMaxWait = 250 * time.Millisecond
	}
	if c.GenerationCheck <= 0 {
		c.GenerationCheck = 5 * time.Second
	}
	return c
}

// Validate reports settings that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.MaxBatch < 0 || c.MaxWait < 0 || c.JourneyMaxWait < 0 || c.GenerationCheck < 0 {
		errs = append(errs, errors.New("projector: negative batch size or durations"))
	}
	return errors.Join(errs...)
}

// Deps are the projector's connections.
type Deps struct {
	Brokers []string
	CH      driver.Conn
	Log     *slog.Logger
}

// Run runs every projection until ctx ends; nil on a clean shutdown: poll
// attempts and events for analysts, and the journey read model. They run
// under one errgroup: one that fails — or stops while ctx is live — stops
// the others and Run returns its reason, so a view never stalls unseen.
func Run(ctx context.Context, cfg Config, deps Deps) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.WithDefaults()
	g, gctx := errgroup.WithContext(ctx)
	supervise := func(name string, run func(context.Context) error) {
		g.Go(func() error {
			err := run(gctx)
			if err == nil && gctx.Err() == nil {
				err = errors.New("stopped without being asked to")
			}
			if err != nil {
				return fmt.Errorf("projector: %s: %w", name, err)
			}
			return nil
		})
	}
	for _, v := range []view{attemptsView, eventsView} {
		supervise(v.table, func(ctx context.Context) error { return project(ctx, cfg, deps, v) })
	}
	supervise("journeys", func(ctx context.Context) error { return runJourneys(ctx, cfg, deps) })
	return g.Wait()
}

// view is one projection: a topic read by its own consumer group into a table.
type view struct {
	group, topic, table string
	columns             []string
	// row turns a record into a row; ok=false skips a malformed record.
	row func(r *kgo.Record) (row []any, ok bool)
}

// project inserts each fetched batch, then commits it: a failed insert is
// retried, never skipped; a crash after the insert re-inserts, and the
// table's ReplacingMergeTree key folds the repeat.
func project(ctx context.Context, cfg Config, deps Deps, v view) error {
	log := deps.Log.With("stage", "projector", "table", v.table)
	cl, err := kafka.NewClient(deps.Brokers, log,
		kgo.ConsumerGroup(v.group),
		kgo.ConsumeTopics(v.topic),
		kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
	)
	if err != nil {
		return err
	}
	defer cl.Close()
	for {
		// A batch is MaxBatch records or what arrived within MaxWait of its
		// first: each insert is a part ClickHouse merges later, so records
		// trickling in are not inserted one poll at a time.
		var recs []*kgo.Record
		var deadline time.Time
		for len(recs) < cfg.MaxBatch {
			wait := cfg.MaxWait
			if len(recs) > 0 {
				if wait = time.Until(deadline); wait <= 0 {
					break
				}
			}
			pollCtx, cancel := context.WithTimeout(ctx, wait)
			fs := cl.PollRecords(pollCtx, cfg.MaxBatch-len(recs))
			cancel()
			if ctx.Err() != nil || fs.IsClientClosed() {
				return nil
			}
			fs.EachError(func(t string, p int32, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					log.Error("fetch", "topic", t, "partition", p, "err", err)
				}
			})
			got := fs.Records()
			if len(recs) == 0 && len(got) > 0 {
				deadline = time.Now().Add(cfg.MaxWait)
			}
			recs = append(recs, got...)
		}
		if len(recs) == 0 {
			continue
		}
		rows := make([][]any, 0, len(recs))
		for _, r := range recs {
			row, ok := v.row(r)
			if !ok {
				log.Error("skipping malformed record", "partition", r.Partition, "offset", r.Offset)
				continue
			}
			rows = append(rows, row)
		}
		for len(rows) > 0 {
			err := clickhouse.Insert(ctx, deps.CH, v.table, v.columns, rows...)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return nil
			}
			log.Error("insert, retrying", "rows", len(rows), "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(2 * time.Second):
			}
		}
		if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
			return fmt.Errorf("projector %s: commit: %w", v.table, err)
		}
	}
}

// day is the UTC date of t.
func day(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
