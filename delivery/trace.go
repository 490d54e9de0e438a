package delivery

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/contrack/contrack/platform/tracing"
)

// The trace context of each queued event (its fan-out span) is stored with
// its queue row (delivery_queue.traceparent) and read back with the body
// whenever a delivery is claimed, so the attempts of any process — the one
// that queued it, another after a restart or a takeover, a retry hours
// later — continue the events' traces. Rows are per subscription, so an
// attempt only ever carries its own account's traces. Nothing is stored
// while tracing is off or for traces not sampled.

// eventContexts are the valid stored contexts of c's events, in body order.
func eventContexts(c *claimed) []trace.SpanContext {
	var out []trace.SpanContext
	for _, v := range c.Traceparents {
		if sc := tracing.ParseTraceparent(v); sc.IsValid() {
			out = append(out, sc)
		}
	}
	return out
}

// startAttempt starts the client span of one POST of c. A delivery batches
// several events, each with its own trace: the span is a child of the first
// event's context (so the webhook's traceparent continues that trace) and
// links to every event's context, the first included.
func startAttempt(ctx context.Context, c *claimed) (context.Context, trace.Span) {
	scs := eventContexts(c)
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("contrack.delivery_id", c.ID), attribute.String("contrack.subscription_id", c.SubscriptionID),
		attribute.Int("contrack.attempt", c.Attempts+1), attribute.Int("contrack.event_count", c.EventCount),
		attribute.String("server.address", endpointHost(c.TargetURL)), attribute.String("http.request.method", "POST"))}
	if len(scs) > 0 {
		ctx = trace.ContextWithRemoteSpanContext(ctx, scs[0])
		links := make([]trace.Link, len(scs))
		for i, sc := range scs {
			links[i] = trace.Link{SpanContext: sc}
		}
		opts = append(opts, trace.WithLinks(links...))
	} else {
		ctx = trace.ContextWithSpanContext(ctx, trace.SpanContext{}) // no parent: a new trace
	}
	return tracing.Tracer().Start(ctx, "webhook POST", opts...)
}

// endAttempt ends an attempt's span with its outcome.
func endAttempt(span trace.Span, a attempt) {
	span.SetAttributes(attribute.String("contrack.outcome", a.Outcome))
	if a.HTTPCode != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", a.HTTPCode))
	}
	if !a.ok() {
		span.SetStatus(codes.Error, a.Outcome)
	}
	span.End()
}
