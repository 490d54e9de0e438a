// Package tracing sets up OpenTelemetry tracing and carries W3C trace
// context (traceparent, tracestate) across Kafka records, so one trace
// follows an event from POST /events or a poll through normalisation to
// every webhook delivery attempt.
//
// Stages take their tracer from the OpenTelemetry global provider (Tracer),
// which Setup installs in cmd/contrack: the library's own convention, so no
// stage's Deps changes. Until Setup (or a test) installs one, the global
// provider is a no-op: spans cost a few nanoseconds and record nothing.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Instrumentation scope of every contrack span.
const scope = "github.com/contrack/contrack"

// Config says where spans go. The OTLP exporter reads the rest of the
// standard OTEL_EXPORTER_OTLP_* variables (headers, timeout, protocol
// paths) itself; cmd/contrack passes the two that switch tracing on and
// name the process.
type Config struct {
	// Endpoint is OTEL_EXPORTER_OTLP_ENDPOINT: an OTLP/HTTP collector base
	// URL such as http://otel-collector:4318; spans are POSTed to its
	// /v1/traces. Empty (the default) installs a no-op provider: nothing is
	// recorded or sent.
	Endpoint string
	// ServiceName is service.name on every span (default "contrack-<role>").
	ServiceName string
	// Version is service.version (the binary's stamped version).
	Version string
	// SampleRatio is the share of new traces recorded, 0 < r <= 1
	// (default 1); a trace continued from a sampled parent is always kept.
	SampleRatio float64
}

// Validate reports every problem of c.
func (c Config) Validate() error {
	var errs []error
	if c.Endpoint != "" {
		if u, err := url.Parse(c.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, errors.New("tracing: OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL"))
		}
	}
	if c.SampleRatio < 0 || c.SampleRatio > 1 {
		errs = append(errs, fmt.Errorf("tracing: sample ratio %v is not within (0, 1]", c.SampleRatio))
	}
	return errors.Join(errs...)
}

// Propagator is the W3C trace-context propagator used on HTTP and Kafka.
var Propagator propagation.TextMapPropagator = propagation.TraceContext{}

// Setup installs the global tracer provider and propagator: an OTLP/HTTP
// exporter with batching when cfg.Endpoint is set, a no-op provider
// otherwise. The returned shutdown flushes pending spans (bounded by its
// ctx); call it after the stages have stopped.
func Setup(ctx context.Context, cfg Config) (enabled bool, shutdown func(context.Context) error, err error) {
	if err := cfg.Validate(); err != nil {
		return false, nil, err
	}
	otel.SetTextMapPropagator(Propagator)
	if cfg.Endpoint == "" {
		otel.SetTracerProvider(noop.NewTracerProvider())
		return false, func(context.Context) error { return nil }, nil
	}
	// The base URL's signal path, as the OTLP specification has it for
	// OTEL_EXPORTER_OTLP_ENDPOINT. The exporter still reads the optional
	// OTEL_EXPORTER_OTLP_HEADERS / _TIMEOUT / _CERTIFICATE itself.
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(strings.TrimSuffix(cfg.Endpoint, "/")+"/v1/traces"))
	if err != nil {
		return false, nil, fmt.Errorf("tracing: otlp exporter: %w", err)
	}
	ratio := cfg.SampleRatio
	if ratio == 0 {
		ratio = 1
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		attribute.String("service.name", cfg.ServiceName), attribute.String("service.version", cfg.Version)))
	if err != nil {
		return false, nil, fmt.Errorf("tracing: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(5*time.Second)),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))),
	)
	otel.SetTracerProvider(tp)
	return true, func(ctx context.Context) error {
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("tracing: flush spans: %w", err)
		}
		return nil
	}, nil
}

// Tracer is contrack's tracer from the global provider, looked up on each
// call so a provider installed later (Setup, a test) is used.
func Tracer() trace.Tracer { return otel.GetTracerProvider().Tracer(scope) }

// HeaderCarrier adapts Kafka record headers to the propagation API. Set
// replaces an existing header of the same key, so a record passed on keeps
// one traceparent.
type HeaderCarrier struct{ Headers *[]kgo.RecordHeader }

var _ propagation.TextMapCarrier = HeaderCarrier{}

// Get returns the first value of key, "" if absent.
func (c HeaderCarrier) Get(key string) string {
	for _, h := range *c.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// Set sets key to value.
func (c HeaderCarrier) Set(key, value string) {
	for i, h := range *c.Headers {
		if h.Key == key {
			(*c.Headers)[i].Value = []byte(value)
			return
		}
	}
	*c.Headers = append(*c.Headers, kgo.RecordHeader{Key: key, Value: []byte(value)})
}

// Keys lists the header keys.
func (c HeaderCarrier) Keys() []string {
	ks := make([]string, len(*c.Headers))
	for i, h := range *c.Headers {
		ks[i] = h.Key
	}
	return ks
}

// Inject writes ctx's span context (traceparent, tracestate) into the
// headers of each record; nothing when ctx carries no valid span context.
func Inject(ctx context.Context, recs ...*kgo.Record) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	for _, r := range recs {
		Propagator.Inject(ctx, HeaderCarrier{&r.Headers})
	}
}

// Extract returns ctx with the remote span context of r's headers, if any.
func Extract(ctx context.Context, r *kgo.Record) context.Context {
	return Propagator.Extract(ctx, HeaderCarrier{&r.Headers})
}

// RecordContext is the span context r's headers carry (invalid if none).
func RecordContext(r *kgo.Record) trace.SpanContext {
	return trace.SpanContextFromContext(Extract(context.Background(), r))
}

// Traceparent is sc as a W3C traceparent value, for storing with work that
// another process may resume; "" when sc is invalid or not sampled (tracing
// off, or the trace not kept), so nothing is stored for it.
func Traceparent(sc trace.SpanContext) string {
	if !sc.IsValid() || !sc.IsSampled() {
		return ""
	}
	c := propagation.MapCarrier{}
	Propagator.Inject(trace.ContextWithSpanContext(context.Background(), sc), c)
	return c.Get("traceparent")
}

// ParseTraceparent is the remote span context a Traceparent value names
// (invalid for "" or a malformed value).
func ParseTraceparent(v string) trace.SpanContext {
	if v == "" {
		return trace.SpanContext{}
	}
	ctx := Propagator.Extract(context.Background(), propagation.MapCarrier{"traceparent": v})
	return trace.SpanContextFromContext(ctx)
}

// End ends span, recording err (if any) as its status.
func End(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// StartPublic starts the server span of a request to a public endpoint
// (POST /events): a new trace, linked to (not continuing) a traceparent the
// caller sent, so an outside client can neither pick our trace ids nor
// force sampling, while its own trace stays one click away.
func StartPublic(ctx context.Context, h http.Header, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	opts := []trace.SpanStartOption{trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...)}
	if remote := trace.SpanContextFromContext(Propagator.Extract(context.Background(), propagation.HeaderCarrier(h))); remote.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: remote}))
	}
	return Tracer().Start(ctx, name, opts...)
}

// Poll is the attributes of a poll span.
func Poll(scac, env, trackingID string) []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("contrack.scac", scac), attribute.String("contrack.env", env),
		attribute.String("contrack.tracking_id", trackingID)}
}
