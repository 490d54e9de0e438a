package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/contrack/contrack/platform/tracing"
	"github.com/contrack/contrack/schemas"
)

// The stream runtime: every stage consumes Kafka through one of four modes
// (Consume: per record; ConsumeBatches: batches; ConsumeTransactional:
// read-process-write in Kafka transactions; Follow: a table read from the
// start) and the same middleware (Recover, Trace, Measure), retry policy
// and dead letters. No other package polls Kafka (arch_test.go).

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
// path does not stop the stage.
func Recover(next Handler) Handler {
	return func(ctx context.Context, r *kgo.Record) error {
		if err := recoverFunc(func() error { return next(ctx, r) }); err != nil {
			if errors.Is(err, errPanic) {
				return Permanent(err)
			}
			return err
		}
		return nil
	}
}

var errPanic = errors.New("panic")

// recoverFunc runs f, turning a panic into an error (errPanic, its stack
// logged by the caller's log line, not carried in headers).
func recoverFunc(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			slog.Error("handler panic", "panic", v, "stack", string(debug.Stack()))
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

// Metrics are the runtime's collectors, registered on the registry of the
// role that runs the stage (no global registry). Labels take a small fixed
// set of values: the consumer's name and an outcome.
type Metrics struct {
	records  *prometheus.CounterVec   // by consumer, outcome (ok, retry, dead_letter, fatal)
	duration *prometheus.HistogramVec // handler duration by consumer
	paused   *prometheus.GaugeVec     // partitions paused for a retry, by consumer
	age      *prometheus.HistogramVec // record age when first handed to a handler, by consumer
	commit   *prometheus.HistogramVec // a transaction's end (flush, offsets, markers), by consumer
}

// NewMetrics registers the runtime's collectors on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		records: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contrack_stream_records_total",
			Help: "Records handled by the stream runtime, by consumer and outcome (ok, retry, dead_letter, fatal).",
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
	}
	// Several stages of one process share its registry: the second one to
	// ask gets the collectors the first registered.
	var err error
	if m.records, err = register(reg, m.records); err != nil {
		return nil, err
	}
	if m.duration, err = register(reg, m.duration); err != nil {
		return nil, err
	}
	if m.paused, err = register(reg, m.paused); err != nil {
		return nil, err
	}
	if m.age, err = register(reg, m.age); err != nil {
		return nil, err
	}
	if m.commit, err = register(reg, m.commit); err != nil {
		return nil, err
	}
	return m, nil
}

// register registers c, or returns the same collector already registered.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing, nil
			}
		}
		return c, fmt.Errorf("kafka: register metrics: %w", err)
	}
	return c, nil
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

// Backoff is a retry policy: waits from Initial doubling up to Max.
// Attempts > 0 bounds the tries, after which the error is fatal.
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

// wait is the pause before try n+1 (n ≥ 1).
func (b Backoff) wait(n int) time.Duration {
	d := b.Initial
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

// sleep waits d or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
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

// produce sends dead letters, retrying a failed produce a bounded number
// of times; then the error is Fatal. With no topic, records are logged and
// skipped.
func (d *deadLetterer) produce(ctx context.Context, recs []*kgo.Record, causes []error) error {
	for i, r := range recs {
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
	backoff := Backoff{Initial: d.backoff, Max: 5 * time.Second}.withDefaults(200*time.Millisecond, 5*time.Second)
	var err error
	for n := 1; n <= attempts; n++ {
		if err = d.cl.ProduceSync(ctx, dls...).FirstErr(); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		d.log.Error("dead-letter produce failed", "topic", d.topic, "attempt", n, "of", attempts, "err", err)
		if n < attempts && !sleep(ctx, backoff.wait(n)) {
			return ctx.Err()
		}
	}
	return Fatal(fmt.Errorf("kafka: dead-letter produce to %s failed %d times: %w", d.topic, attempts, err))
}
