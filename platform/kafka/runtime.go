package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/metrics"
	"github.com/contrack/contrack/platform/tracing"
	"github.com/contrack/contrack/schemas"
)

// The stream runtime: every stage consumes Kafka through one of four modes
// (Consume: per record; ConsumeBatches: batches; ConsumeTransactional:
// read-process-write in Kafka transactions; Follow: a table read from the
// start) and the same middleware (panic recovery with the stack logged, a
// consumer span, the handler's duration and outcome counted), retry policy,
// supervision (platform/loop: fetch errors and failed handling counted,
// /readyz red after a run of them) and dead letters. No other package polls
// Kafka (arch_test.go).

// Handler processes one record. Returning an error wrapped with Permanent
// sends the record to the dead-letter topic; Fatal stops the consumer with
// the error; any other error is transient (a store is down): the partition
// is paused and the record retried with backoff, so an outage pauses the
// partition instead of losing records.
type Handler func(ctx context.Context, r *kgo.Record) error

// Middleware wraps a handler (panic recovery, tracing, metrics).
type Middleware func(Handler) Handler

// Chain wraps h in mws, the first outermost.
func Chain(h Handler, mws ...Middleware) Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// ErrPermanent marks an error that retrying cannot fix (a poison record).
var ErrPermanent = errors.New("permanent")

// ErrFatal marks an error the consumer cannot go on after: it stops and
// returns it (the stage stops with the reason).
var ErrFatal = errors.New("fatal")

// Permanent wraps err so the runtime dead-letters the record.
func Permanent(err error) error { return fmt.Errorf("%w: %w", ErrPermanent, err) }

// Fatal wraps err so the runtime stops the consumer and returns it.
func Fatal(err error) error { return fmt.Errorf("%w: %w", ErrFatal, err) }

// Recover turns a handler panic into a permanent error (the record is
// dead-lettered with the panic as its reason), so a bug in one record's
// path does not stop the stage. The panic's stack is logged through log,
// the consumer's (the process's logger, with the stage's attributes).
func Recover(log *slog.Logger) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, r *kgo.Record) error {
			if err := recoverFunc(log, func() error { return next(ctx, r) }); err != nil {
				if errors.Is(err, errPanic) {
					return Permanent(err)
				}
				return err
			}
			return nil
		}
	}
}

var errPanic = errors.New("panic")

// recoverFunc runs f, turning a panic into an error (errPanic). The stack
// is logged here, with the panic, not carried in the error (it would end
// up in dead-letter headers).
func recoverFunc(log *slog.Logger, f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			log.Error("handler panic", "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("%w: %v", errPanic, v)
		}
	}()
	return f()
}

// Trace starts a consumer span per record, a child of the trace its
// traceparent header carries; the handler's context carries it.
func Trace(name string) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, r *kgo.Record) error {
			ctx, span := tracing.Tracer().Start(tracing.Extract(ctx, r), name, trace.WithSpanKind(trace.SpanKindConsumer),
				trace.WithAttributes(attribute.String("messaging.destination.name", r.Topic),
					attribute.Int("messaging.destination.partition.id", int(r.Partition)),
					attribute.Int64("messaging.kafka.offset", r.Offset)))
			err := next(ctx, r)
			tracing.End(span, err)
			return err
		}
	}
}

// maxSpanLinks bounds the links of a batch's span: a 20,000-record batch
// links the first records' traces, not every one.
const maxSpanLinks = 128

// handleBatch runs f over recs with the middleware every mode shares: a
// consumer span (linking the traces the records' headers carry, as a batch
// has no one parent), panic recovery (the stack logged, the panic an
// error), and the handler's duration. The per-record mode gets the same
// through Recover and Trace.
func handleBatch(ctx context.Context, name string, log *slog.Logger, m *Metrics, recs []*kgo.Record, f func(context.Context) error) error {
	links := make([]trace.Link, 0, min(len(recs), maxSpanLinks))
	for _, r := range recs[:min(len(recs), maxSpanLinks)] {
		if sc := trace.SpanContextFromContext(tracing.Extract(context.Background(), r)); sc.IsValid() {
			links = append(links, trace.Link{SpanContext: sc})
		}
	}
	ctx, span := tracing.Tracer().Start(ctx, name, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithLinks(links...),
		trace.WithAttributes(attribute.Int("messaging.batch.message_count", len(recs))))
	start := time.Now()
	err := recoverFunc(log, func() error { return f(ctx) })
	m.observe(name, start)
	tracing.End(span, err)
	return err
}

// Metrics are the runtime's collectors, registered on the registry of the
// role that runs the stage (no global registry). Labels take a small fixed
// set of values: the consumer's name and an outcome.
type Metrics struct {
	records  *prometheus.CounterVec   // by consumer, outcome (ok, retry, dead_letter, skipped, fatal)
	duration *prometheus.HistogramVec // handler duration by consumer
	paused   *prometheus.GaugeVec     // partitions paused for a retry, by consumer
	age      *prometheus.HistogramVec // record age when first handed to a handler, by consumer
	commit   *prometheus.HistogramVec // a transaction's end (flush, offsets, markers), by consumer
	// commitFailures counts offset commits the broker did not take, by
	// consumer (the records are handled again after a restart or a
	// rebalance; a run of them turns /readyz red through "<consumer>/commit").
	commitFailures *prometheus.CounterVec
}

// NewMetrics registers the runtime's collectors on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		records: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contrack_stream_records_total",
			Help: "Records handled by the stream runtime, by consumer and outcome (ok, retry, dead_letter, skipped: refused without a dead-letter topic, fatal).",
		}, []string{"consumer", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "contrack_stream_handle_seconds",
			Help:    "Duration of one handler call (a record or a batch), by consumer.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10),
		}, []string{"consumer"}),
		paused: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "contrack_stream_paused_partitions",
			Help: "Partitions paused while a failed record waits for its retry, by consumer.",
		}, []string{"consumer"}),
		// The time a record spent between its produce (its timestamp) and
		// the handler: per consumer, the pipeline's latency hop by hop.
		age: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "contrack_stream_record_age_seconds",
			Help:    "Age of a record (now minus its timestamp) when first handed to a handler, by consumer.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"consumer"}),
		commit: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "contrack_stream_commit_seconds",
			Help:    "Duration of a transactional consumer's commit (its outputs flushed, its offsets and markers written), by consumer.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"consumer"}),
		commitFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contrack_stream_commit_failures_total",
			Help: "Offset commits that failed (their records are handled again by the partition's next owner), by consumer.",
		}, []string{"consumer"}),
	}
	// Several stages of one process share its registry: the second one to
	// ask gets the collectors the first registered.
	var err error
	if m.records, err = metrics.Register(reg, m.records); err != nil {
		return nil, err
	}
	if m.duration, err = metrics.Register(reg, m.duration); err != nil {
		return nil, err
	}
	if m.paused, err = metrics.Register(reg, m.paused); err != nil {
		return nil, err
	}
	if m.age, err = metrics.Register(reg, m.age); err != nil {
		return nil, err
	}
	if m.commit, err = metrics.Register(reg, m.commit); err != nil {
		return nil, err
	}
	if m.commitFailures, err = metrics.Register(reg, m.commitFailures); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Metrics) count(consumer, outcome string, n int) {
	if m != nil && n > 0 {
		m.records.WithLabelValues(consumer, outcome).Add(float64(n))
	}
}

func (m *Metrics) observe(consumer string, since time.Time) {
	if m != nil {
		m.duration.WithLabelValues(consumer).Observe(time.Since(since).Seconds())
	}
}

func (m *Metrics) commitFailed(consumer string) {
	if m != nil {
		m.commitFailures.WithLabelValues(consumer).Inc()
	}
}

func (m *Metrics) committed(consumer string, since time.Time) {
	if m != nil {
		m.commit.WithLabelValues(consumer).Observe(time.Since(since).Seconds())
	}
}

// ages observes the age of records about to be handled the first time.
func (m *Metrics) ages(consumer string, recs ...*kgo.Record) {
	if m == nil || len(recs) == 0 {
		return
	}
	now, h := time.Now(), m.age.WithLabelValues(consumer)
	for _, r := range recs {
		if !r.Timestamp.IsZero() {
			h.Observe(max(0, now.Sub(r.Timestamp).Seconds()))
		}
	}
}

func (m *Metrics) pausedAdd(consumer string, d float64) {
	if m != nil {
		m.paused.WithLabelValues(consumer).Add(d)
	}
}

// outcome names err for the records counter.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrFatal):
		return "fatal"
	case errors.Is(err, ErrPermanent):
		return "dead_letter"
	}
	return "retry"
}

// Backoff is a retry policy: waits from Initial doubling up to Max (each
// within ±20%, platform/loop's backoff). Attempts > 0 bounds the tries,
// after which the error is fatal.
type Backoff struct {
	Initial, Max time.Duration
	Attempts     int
}

func (b Backoff) withDefaults(initial, maxWait time.Duration) Backoff {
	if b.Initial <= 0 {
		b.Initial = initial
	}
	if b.Max <= 0 {
		b.Max = maxWait
	}
	return b
}

// loop is b as platform/loop's backoff.
func (b Backoff) loop() loop.Backoff { return loop.Backoff{Initial: b.Initial, Max: b.Max} }

// sleep waits d or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool { return loop.Sleep(ctx, d) }

// fetchWatch supervises a consumer's polls as a loop of its own,
// "<consumer>/fetch": a poll that brought fetch errors is a failed round
// (counted, and a run of them turns /readyz red), one without a success.
// franz-go retries what it can itself and returns the rest; without this
// they were only logged while readiness stayed green.
type fetchWatch struct {
	l   *loop.Loop
	log *slog.Logger
}

func newFetchWatch(sup *loop.Supervisor, name string, log *slog.Logger) *fetchWatch {
	return &fetchWatch{l: sup.Loop(name+"/fetch", log), log: log}
}

// check reports fs. It returns how long to wait before the next poll (a
// poll of nothing but errors: the loop's backoff, so a broker that answers
// every fetch with an error is not asked in a tight loop), and an error
// for fetch errors retrying cannot fix (the client is not authorised for
// the topic or group), which the mode returns.
func (w *fetchWatch) check(fs kgo.Fetches) (time.Duration, error) {
	var errs []error
	fs.EachError(func(t string, p int32, err error) {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || errors.Is(err, kgo.ErrClientClosed) {
			return // a poll's own timeout or the end
		}
		w.log.Error("fetch", "topic", t, "partition", p, "err", err)
		errs = append(errs, fmt.Errorf("fetch %s[%d]: %w", t, p, err))
	})
	if len(errs) == 0 {
		w.l.Succeeded()
		return 0, nil
	}
	err := errors.Join(errs...)
	wait := w.l.Failed(err)
	if unauthorised(err) {
		return 0, Fatal(err)
	}
	if fs.NumRecords() > 0 {
		return 0, nil // what came is handled at once; the errors are counted
	}
	return wait, nil
}

// unauthorised reports whether err says the client may not read or join
// what it was configured for: no retry fixes that, an operator must.
func unauthorised(err error) bool {
	return errors.Is(err, kerr.TopicAuthorizationFailed) || errors.Is(err, kerr.GroupAuthorizationFailed) ||
		errors.Is(err, kerr.ClusterAuthorizationFailed) || errors.Is(err, kerr.TransactionalIDAuthorizationFailed)
}

// DeadLetterProduceAttempts bounds the tries of a dead-letter produce:
// after them the consumer stops with the error rather than retrying a
// broken dead-letter topic for ever (the record stays uncommitted).
const DeadLetterProduceAttempts = 5

// deadLetterer produces dead letters with reason headers.
type deadLetterer struct {
	cl       *kgo.Client
	topic    string
	stage    string
	log      *slog.Logger
	attempts int
	backoff  time.Duration
}

// record is r's dead letter: r's key, value and headers plus the reason headers.
func (d *deadLetterer) record(r *kgo.Record, cause error) *kgo.Record {
	hs := append([]kgo.RecordHeader{}, r.Headers...)
	hs = append(hs, schemas.Headers{DeadLetter: schemas.DeadLetterOf(r, d.stage, cause.Error())}.Kafka()...)
	return &kgo.Record{Topic: d.topic, Key: r.Key, Value: r.Value, Headers: hs}
}

// outcome names what becomes of a refused record: dead_letter, or
// skipped when the consumer has no dead-letter topic (counted either way).
func (d *deadLetterer) outcome() string {
	if d.topic == "" {
		return "skipped"
	}
	return "dead_letter"
}

// produce sends dead letters, retrying a failed produce a bounded number
// of times; then the error is Fatal. With no topic, records are logged and
// skipped (the callers count them as skipped).
func (d *deadLetterer) produce(ctx context.Context, recs []*kgo.Record, causes []error) error {
	for i, r := range recs {
		if d.topic == "" {
			d.log.Warn("skipping record refused by the handler (no dead-letter topic)", "topic", r.Topic, "partition", r.Partition, "offset", r.Offset, "err", causes[i])
			continue
		}
		d.log.Warn("dead-lettering record", "topic", r.Topic, "partition", r.Partition, "offset", r.Offset, "err", causes[i])
	}
	if d.topic == "" || len(recs) == 0 {
		return nil
	}
	dls := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		dls[i] = d.record(r, causes[i])
	}
	attempts := d.attempts
	if attempts <= 0 {
		attempts = DeadLetterProduceAttempts
	}
	backoff := loop.Backoff{Initial: d.backoff, Max: 5 * time.Second}.WithDefaults(200*time.Millisecond, 5*time.Second).New()
	var err error
	for n := 1; n <= attempts; n++ {
		if err = d.cl.ProduceSync(ctx, dls...).FirstErr(); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		d.log.Error("dead-letter produce failed", "topic", d.topic, "attempt", n, "of", attempts, "err", err)
		if n < attempts && !sleep(ctx, backoff.NextBackOff()) {
			return ctx.Err()
		}
	}
	return Fatal(fmt.Errorf("kafka: dead-letter produce to %s failed %d times: %w", d.topic, attempts, err))
}
