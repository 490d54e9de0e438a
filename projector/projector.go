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
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/schemas"
)

// Config tunes the projector.
type Config struct {
	// MaxBatch bounds rows per insert (default 20,000: a projection behind
	// catches up in fewer, larger inserts, fewer parts for ClickHouse to
	// merge); MaxWait bounds how long a partial batch waits (default 1 s).
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
	// JourneyStateBytes bounds the journey states kept in memory, by an
	// estimate of their bytes (default 256 MiB): beyond it the states least
	// recently used are dropped and read again from ClickHouse when their
	// tracking next changes. A tracking with about a dozen events holds
	// some 30 KB (its events' JSON and what is parsed of them), so the
	// default keeps about 8,000 busy trackings; the rest cost a point read
	// when they change.
	JourneyStateBytes int64
	// Retry is the backoff of a failed batch (an insert ClickHouse
	// refused): default 100 ms doubling to 10 s, 8 attempts (about 40 s),
	// then the projector stops with the error.
	Retry kafka.Backoff
}

// WithDefaults returns c with every zero field set to its documented default;
// Run applies it after Validate, so a zero Config is a valid one.
func (c Config) WithDefaults() Config {
	if c.MaxBatch <= 0 {
		c.MaxBatch = 20000
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
	if c.JourneyStateBytes <= 0 {
		c.JourneyStateBytes = 256 << 20
	}
	if c.Retry.Initial <= 0 {
		c.Retry.Initial = 100 * time.Millisecond
	}
	if c.Retry.Max <= 0 {
		c.Retry.Max = 10 * time.Second
	}
	if c.Retry.Attempts <= 0 {
		c.Retry.Attempts = 8
	}
	return c
}

// Validate reports settings that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.MaxBatch < 0 || c.MaxWait < 0 || c.JourneyMaxWait < 0 || c.GenerationCheck < 0 || c.JourneyStateBytes < 0 {
		errs = append(errs, errors.New("projector: negative batch size or durations"))
	}
	return errors.Join(errs...)
}

// Deps are the projector's connections.
type Deps struct {
	Brokers []string
	// Namespace prefixes the Kafka topics and groups of this deployment
	// (CONTRACK_KAFKA_NAMESPACE); empty: the names as they are.
	Namespace schemas.Namespace
	CH        driver.Conn
	Log       *slog.Logger
	// Metrics, if set, are the stream runtime's collectors on the role's registry.
	Metrics *kafka.Metrics
	// Loops, if set, supervises the projections' consumers and loops (the
	// role's): failures counted, /readyz red after a run of them.
	Loops *loop.Supervisor
	// Router is the process's stream runtime, which runs Routes; nil: a
	// router of the stage's own over Brokers and Namespace (tests, the
	// rebuild command).
	Router *kafka.Router
}

// router is the process's router, or one of the stage's own.
func (d Deps) router() *kafka.Router {
	return kafka.RouterOr(d.Router, kafka.RouterConfig{Brokers: d.Brokers, Namespace: d.Namespace, Log: d.Log,
		Metrics: d.Metrics, Loops: d.Loops})
}

// route is the batch route of a view: its topic into its table, malformed
// records on the projector's dead-letter topic.
func (v view) route() kafka.Route {
	return kafka.Route{Name: "projector-" + v.table, Mode: kafka.ModeBatch, Group: v.group, Inputs: []string{v.topic},
		DeadLetter: schemas.TopicProjectorDeadLetters}
}

// JourneysRoute is the journey projection (batch mode; its group is
// GroupJourneys with the generation's "-g<N>"): events and subscription
// changes into the journeys, a change noted on the journeys topic and the
// alerts a journey change raises on the alerts topic.
var JourneysRoute = kafka.Route{Name: "projector-journeys", Mode: kafka.ModeBatch, Group: schemas.GroupJourneys,
	Inputs: []string{schemas.TopicEvents, schemas.TopicSubscriptions}, Outputs: []string{schemas.TopicJourneys, schemas.TopicAlerts},
	DeadLetter: schemas.TopicProjectorDeadLetters}

// Routes are the stage's routes, registered with the process's router.
var Routes = []kafka.Route{attemptsView.route(), eventsView.route(), positionsView.route(), alertsView.route(), JourneysRoute}

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
	for _, v := range []view{attemptsView, eventsView, positionsView, alertsView} {
		supervise(v.table, func(ctx context.Context) error { return project(ctx, cfg, deps, v) })
	}
	supervise("journeys", func(ctx context.Context) error { return runJourneys(ctx, cfg, deps) })
	return g.Wait()
}

// view is one projection: a topic read by its own consumer group into a table.
type view struct {
	group, topic, table string
	columns             []string
	// row turns a record into a row; ok=false for a malformed record,
	// which goes to the projector's dead-letter topic.
	row func(r *kgo.Record) (row []any, ok bool)
}

// project inserts each batch, then commits it (the runtime's batch mode):
// a failed insert is retried, never skipped, and stops the projector with
// the error once the retries are spent — except while ClickHouse is
// unreachable, which is waited out, logged at every retry; a crash after the insert
// re-inserts, and the table's ReplacingMergeTree key folds the repeat.
func project(ctx context.Context, cfg Config, deps Deps, v view) error {
	log := deps.Log.With("stage", "projector", "table", v.table)
	return deps.router().ConsumeBatches(ctx, v.route(), kafka.BatchConfig{
		// ClickHouse down is waited out (readiness is red meanwhile: its check fails).
		Transient: clickhouse.Unreachable,
		Log:       log,
		// A batch is MaxBatch records or what arrived within MaxWait of its
		// first: each insert is a part ClickHouse merges later, so records
		// trickling in are not inserted one poll at a time.
		MaxBatch: cfg.MaxBatch, MaxWait: cfg.MaxWait, Retry: cfg.Retry,
		Opts: []kgo.Opt{kgo.FetchIsolationLevel(kgo.ReadCommitted())},
	}, func(ctx context.Context, b *kafka.Batch) error {
		rows := make([][]any, 0, len(b.Records))
		for _, r := range b.Records {
			if isHistory(r) {
				continue
			}
			row, ok := v.row(r)
			if !ok {
				b.DeadLetter(r, fmt.Errorf("malformed record: not a row of %s", v.table))
				continue
			}
			rows = append(rows, row)
		}
		if len(rows) == 0 {
			return nil
		}
		// In blocks: a retried batch inserts every row again, and the
		// table's key folds the repeats.
		return clickhouse.InsertInBlocks(ctx, deps.CH, v.table, v.columns, clickhouse.BlockBytes, rows...)
	})
}

// day is the UTC date of t.
func day(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }

// isHistory says whether r is a history record (schemas.HeaderHistoryFor):
// a shipment's existing events emitted again for subscriptions made later.
// The read models took each of those events from its own emission, and a
// history record may carry a version older than one emitted since, so they
// pass it over: it is for those subscriptions' feeds and webhooks alone.
func isHistory(r *kgo.Record) bool { return kafka.Header(r, schemas.HeaderHistoryFor) != "" }
