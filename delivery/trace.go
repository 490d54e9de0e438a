package delivery

import (
	"context"
	"encoding/json"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/contrack/contrack/platform/tracing"
)

// traceIndexCap bounds the event trace contexts remembered (about 10 MB).
const traceIndexCap = 50_000

// traceKey names one event of one tracking. Keyed by tracking, not event id
// alone: two trackings of the same container (different accounts) emit the
// same event id from different polls, and one account's webhook must never
// carry the trace of work done for another's tracking.
type traceKey struct{ tracking, event string }

// traceIndex remembers the trace context of each event record this process
// fanned out, so the attempts that deliver it continue its trace. It lives
// in memory only (the queue in Postgres does not store it): a delivery
// claimed by another process, after a restart or once its events were
// evicted (oldest first, past traceIndexCap) starts a new trace instead.
// It stays empty while tracing is off (no span is sampled then). A nil
// index remembers nothing.
type traceIndex struct {
	mu    sync.Mutex
	m     map[traceKey]trace.SpanContext
	order []traceKey // ring, oldest at next
	next  int
}

func newTraceIndex() *traceIndex {
	return &traceIndex{m: map[traceKey]trace.SpanContext{}}
}

func (x *traceIndex) put(tracking, event string, sc trace.SpanContext) {
	if x == nil || !sc.IsSampled() {
		return
	}
	k := traceKey{tracking, event}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.m[k]; !ok {
		if len(x.order) < traceIndexCap {
			x.order = append(x.order, k)
		} else {
			delete(x.m, x.order[x.next])
			x.order[x.next] = k
			x.next = (x.next + 1) % traceIndexCap
		}
	}
	x.m[k] = sc
}

// contexts returns the remembered contexts of a delivery's events, in body
// order; nil without reading the body when the index is empty.
func (x *traceIndex) contexts(tracking string, body []byte) []trace.SpanContext {
	if x == nil {
		return nil
	}
	x.mu.Lock()
	empty := len(x.m) == 0
	x.mu.Unlock()
	if empty || tracking == "" {
		return nil
	}
	var p struct {
		Events []struct {
			EventID string `json:"eventID"`
		} `json:"events"`
	}
	if json.Unmarshal(body, &p) != nil {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []trace.SpanContext
	for _, e := range p.Events {
		if sc, ok := x.m[traceKey{tracking, e.EventID}]; ok {
			out = append(out, sc)
		}
	}
	return out
}

// startAttempt starts the client span of one POST of c. A delivery batches
// several events, each with its own trace: the span is a child of the first
// event's context (so the webhook's traceparent continues that trace) and
// links to every event's context, the first included.
func (x *traceIndex) startAttempt(ctx context.Context, c *claimed) (context.Context, trace.Span) {
	scs := x.contexts(c.TrackingID, c.Body)
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
