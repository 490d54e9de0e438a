package tracing

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/contrack/contrack/schemas"
)

// restoreGlobal puts back the global provider a test's Setup replaced.
func restoreGlobal(t *testing.T) {
	prev := otel.GetTracerProvider()
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
}

func TestHeaderNamesAreTheSchemasConstants(t *testing.T) {
	fields := Propagator.Fields()
	slices.Sort(fields)
	if want := []string{schemas.HeaderTraceparent, schemas.HeaderTracestate}; !slices.Equal(fields, want) {
		t.Fatalf("propagator fields %v, schemas headers %v", fields, want)
	}
}

func TestInjectExtractThroughRecordHeaders(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ts, _ := trace.ParseTraceState("vendor=x")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, TraceState: ts})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)

	r := &kgo.Record{Headers: []kgo.RecordHeader{{Key: schemas.HeaderType, Value: []byte("event")},
		{Key: schemas.HeaderTraceparent, Value: []byte("00-11111111111111111111111111111111-2222222222222222-01")}}}
	Inject(ctx, r)
	if got := (HeaderCarrier{&r.Headers}).Get(schemas.HeaderTraceparent); got != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" {
		t.Fatalf("traceparent %q", got)
	}
	n := 0
	for _, h := range r.Headers {
		if h.Key == schemas.HeaderTraceparent {
			n++
		}
	}
	if n != 1 || len(r.Headers) != 3 {
		t.Fatalf("headers %v: want the old traceparent replaced and tracestate added", r.Headers)
	}
	got := RecordContext(r)
	if !got.IsRemote() || got.TraceID() != tid || got.SpanID() != sid || !got.IsSampled() || got.TraceState().Get("vendor") != "x" {
		t.Fatalf("extracted %+v", got)
	}

	plain := &kgo.Record{}
	Inject(context.Background(), plain)
	if len(plain.Headers) != 0 || RecordContext(plain).IsValid() {
		t.Fatalf("a context without a span wrote headers %v", plain.Headers)
	}
}

func TestNoEndpointIsANoOp(t *testing.T) {
	restoreGlobal(t)
	on, shutdown, err := Setup(context.Background(), Config{ServiceName: "contrack-test"})
	if err != nil || on {
		t.Fatalf("Setup: on=%v err=%v", on, err)
	}
	_, span := Tracer().Start(context.Background(), "nothing")
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Fatalf("span without an endpoint: recording=%v context=%+v", span.IsRecording(), span.SpanContext())
	}
	span.End()
	r := &kgo.Record{}
	Inject(trace.ContextWithSpan(context.Background(), span), r)
	if len(r.Headers) != 0 {
		t.Fatalf("no-op span wrote headers %v", r.Headers)
	}
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// With an endpoint, spans reach an OTLP/HTTP collector at /v1/traces.
func TestEndpointExportsOverOTLPHTTP(t *testing.T) {
	restoreGlobal(t)
	var mu sync.Mutex
	var paths []string
	var bodies int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		if len(b) > 0 {
			bodies++
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	on, shutdown, err := Setup(context.Background(), Config{Endpoint: srv.URL + "/", ServiceName: "contrack-test", Version: "t"})
	if err != nil || !on {
		t.Fatalf("Setup: on=%v err=%v", on, err)
	}
	_, span := Tracer().Start(context.Background(), "exported")
	if !span.IsRecording() {
		t.Fatal("span not recording with an endpoint")
	}
	span.End()
	if err := shutdown(context.Background()); err != nil { // flushes
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) == 0 || paths[0] != "POST /v1/traces application/x-protobuf" || bodies == 0 {
		t.Fatalf("collector saw %v (%d bodies)", paths, bodies)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []Config{{Endpoint: "otel-collector:4318"}, {Endpoint: "ftp://x"}, {SampleRatio: 2}} {
		if c.Validate() == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	for _, c := range []Config{{}, {Endpoint: "http://otel-collector:4318"}, {Endpoint: "https://c.example/otlp", SampleRatio: 0.5}} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// A sampled span context survives Traceparent and ParseTraceparent; an
// unsampled or invalid one is not stored.
func TestTraceparentRoundTrip(t *testing.T) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5}, TraceFlags: trace.FlagsSampled})
	v := Traceparent(sc)
	if v != "00-01020300000000000000000000000000-0405000000000000-01" {
		t.Fatalf("traceparent %q", v)
	}
	got := ParseTraceparent(v)
	if got.TraceID() != sc.TraceID() || got.SpanID() != sc.SpanID() || !got.IsSampled() || !got.IsRemote() {
		t.Fatalf("parsed %v, want %v", got, sc)
	}
	unsampled := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}})
	if v := Traceparent(unsampled); v != "" {
		t.Fatalf("unsampled context stored as %q", v)
	}
	if v := Traceparent(trace.SpanContext{}); v != "" {
		t.Fatalf("invalid context stored as %q", v)
	}
	if ParseTraceparent("").IsValid() || ParseTraceparent("00-zz").IsValid() {
		t.Fatal("an empty or malformed value parsed as valid")
	}
}
