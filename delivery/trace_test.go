package delivery_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/platform/tracing"
	"github.com/contrack/contrack/platform/tracing/tracingtest"
	"github.com/contrack/contrack/schemas"
)

// A retry sent by another delivery process than the one that queued the
// event and made the first attempt still joins the event's trace: the
// trace context travels with the queued event in Postgres, not in the
// first process's memory.
func TestRetryByAnotherInstanceJoinsTheEventsTrace(t *testing.T) {
	exp := tracingtest.Install(t)
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, func(n int, _ *http.Request) int {
		if n == 0 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	acct := h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	s := h.Subscribe(acct, "ref-trace")

	// The first process retries only after 2 s: it is stopped before then.
	first := dt.Config()
	first.Schedule = []time.Duration{2 * time.Second, 20 * time.Millisecond}
	stopFirst := h.Start(first)

	// The event record carries the normaliser's trace, as in production.
	ctx, parent := tracing.Tracer().Start(context.Background(), "normalise (test)")
	traceID := parent.SpanContext().TraceID()
	v, err := json.Marshal(h.Record(s, "e1", "h1"))
	if err != nil {
		t.Fatal(err)
	}
	rec := &kgo.Record{Topic: h.Kafka().Topic(schemas.TopicEvents), Key: []byte(s.Tracking), Value: v, Headers: []kgo.RecordHeader{
		{Key: schemas.HeaderType, Value: []byte(schemas.TypeEvent)},
		{Key: schemas.HeaderID, Value: []byte("e1/h1")},
	}}
	tracing.Inject(ctx, rec)
	parent.End()
	if err := kafka.ProduceSync(context.Background(), testenv.KafkaClient(t, h.Brokers()), rec); err != nil {
		t.Fatal(err)
	}

	testkit.Eventually(t, 15*time.Second, "the first attempt", func() bool { return len(rc.Requests()) >= 1 })
	stopFirst()
	if n := h.Count(`SELECT count(*) FROM deliveries WHERE subscription_id = $1 AND status = 'FAILED' AND attempts = 1`, s.ID); n != 1 {
		t.Fatalf("after the first process stopped: %d failed deliveries with one attempt, want 1", n)
	}
	if got := len(rc.Requests()); got != 1 {
		t.Fatalf("the first process sent %d requests, want only the failed first attempt", got)
	}

	// A second process, which never saw the event, sends the retry.
	h.Start(dt.Config())
	testkit.Eventually(t, 15*time.Second, "the retry acknowledged", func() bool { return len(rc.Acked()) == 1 })

	reqs := rc.Requests()
	for i, r := range reqs {
		if got := tracing.ParseTraceparent(r.Header.Get("traceparent")).TraceID(); got != traceID {
			t.Errorf("request %d (attempt %d) traceparent %q: trace %v, want the event's %v", i, i+1, r.Header.Get("traceparent"), got, traceID)
		}
	}
	// The retry's span ends just after the receiver answered.
	testkit.Eventually(t, 5*time.Second, "both attempt spans", func() bool {
		return len(tracingtest.Named(tracingtest.Trace(exp, traceID), "webhook POST")) >= 2
	})
	inTrace := tracingtest.Trace(exp, traceID)
	fanOut := tracingtest.Named(inTrace, "delivery fan-out")
	if len(fanOut) != 1 {
		t.Fatalf("fan-out spans in the event's trace: %d, want 1 (trace: %v)", len(fanOut), spanNames(inTrace))
	}
	attempts := map[int64]bool{}
	for _, sp := range tracingtest.Named(inTrace, "webhook POST") {
		if sp.Parent.SpanID() != fanOut[0].SpanContext.SpanID() {
			t.Errorf("attempt span %v: parent %v, want the fan-out span %v", sp.SpanContext.SpanID(), sp.Parent.SpanID(), fanOut[0].SpanContext.SpanID())
		}
		for _, a := range sp.Attributes {
			if a.Key == attribute.Key("contrack.attempt") {
				attempts[a.Value.AsInt64()] = true
			}
		}
	}
	if !attempts[1] || !attempts[2] || len(attempts) != 2 {
		t.Fatalf("attempt spans in the event's trace: attempts %v, want 1 and 2 (trace: %v)", attempts, spanNames(inTrace))
	}
}

func spanNames(ss tracetest.SpanStubs) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name
	}
	return out
}
