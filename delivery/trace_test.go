package delivery

import (
	"testing"

	"go.opentelemetry.io/otel/trace"
)

func spanCtx(b byte, sampled bool) trace.SpanContext {
	c := trace.SpanContextConfig{TraceID: trace.TraceID{1, b}, SpanID: trace.SpanID{2, b}}
	if sampled {
		c.TraceFlags = trace.FlagsSampled
	}
	return trace.NewSpanContext(c)
}

// An attempt finds the contexts of its own tracking's events, in body
// order, and never another tracking's (another account's poll of the same
// container emits the same event id).
func TestTraceIndexIsScopedByTracking(t *testing.T) {
	x := newTraceIndex()
	body := []byte(`{"subscriptionReference":"r","events":[{"eventID":"e2"},{"eventID":"e1"},{"eventID":"e3"}]}`)
	if x.contexts("t1", body) != nil {
		t.Fatal("an empty index found contexts")
	}
	x.put("t1", "e1", spanCtx(1, true))
	x.put("t1", "e2", spanCtx(2, true))
	x.put("t2", "e3", spanCtx(3, true))
	x.put("t1", "e3", spanCtx(4, false)) // not sampled: tracing off, not kept
	got := x.contexts("t1", body)
	if len(got) != 2 || !got[0].Equal(spanCtx(2, true)) || !got[1].Equal(spanCtx(1, true)) {
		t.Fatalf("contexts of t1: %v", got)
	}
	if got := x.contexts("t3", body); got != nil {
		t.Fatalf("another tracking's contexts: %v", got)
	}
	var nilIndex *traceIndex
	nilIndex.put("t1", "e1", spanCtx(1, true))
	if nilIndex.contexts("t1", body) != nil {
		t.Fatal("a nil index found contexts")
	}
}

// The index forgets the oldest events past its bound.
func TestTraceIndexIsBounded(t *testing.T) {
	x := newTraceIndex()
	for i := range traceIndexCap + 10 {
		x.put("t", string(rune('a'+i%26))+string(rune(i)), spanCtx(byte(i), true))
	}
	if len(x.m) != traceIndexCap || len(x.order) != traceIndexCap {
		t.Fatalf("index holds %d (%d in order), bound %d", len(x.m), len(x.order), traceIndexCap)
	}
	if _, ok := x.m[traceKey{"t", "a" + string(rune(0))}]; ok {
		t.Fatal("the oldest entry was kept")
	}
}
