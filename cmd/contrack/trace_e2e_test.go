package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/platform/tracing"
	"github.com/contrack/contrack/platform/tracing/tracingtest"
)

// activatedHook configures a new receiver as consumer's webhook and
// activates it with the secret its verification brought.
func activatedHook(t *testing.T, s *system, consumer string) *hookReceiver {
	t.Helper()
	hook := newHookReceiver(t)
	if code, body := s.do("POST", "/webhook/configure", consumer, `{"targetUrl":"`+hook.srv.URL+`/hook"}`); code != 200 {
		t.Fatalf("configure: %d %v", code, body)
	}
	var v struct{ Secret string }
	if err := json.Unmarshal(hook.waitFor(t, "webhook.verification", 10*time.Second).body, &v); err != nil {
		t.Fatal(err)
	}
	if code, body := s.do("POST", "/webhook/activate", consumer, `{"secret":"`+v.Secret+`"}`); code != 200 {
		t.Fatalf("activate: %d %v", code, body)
	}
	return hook
}

// hookReceiver is a webhook target that records each POST's body and the
// span context of its traceparent header (invalid when tracing is off).
type hookReceiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []hookHit
}

type hookHit struct {
	body   []byte
	sc     trace.SpanContext
	header http.Header
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sc := trace.SpanContextFromContext(tracing.Propagator.Extract(context.Background(), propagation.HeaderCarrier(r.Header)))
		h.mu.Lock()
		h.hits = append(h.hits, hookHit{b, sc, r.Header.Clone()})
		h.mu.Unlock()
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// waitFor returns the first POST whose body contains marker, failing after d.
func (h *hookReceiver) waitFor(t *testing.T, marker string, d time.Duration) hookHit {
	t.Helper()
	var found hookHit
	testkit.Eventually(t, d, fmt.Sprintf("a webhook body with %q", marker), func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, hit := range h.hits {
			if bytes.Contains(hit.body, []byte(marker)) {
				found = hit
				return true
			}
		}
		return false
	})
	return found
}

func (h *hookReceiver) has(marker string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, hit := range h.hits {
		if bytes.Contains(hit.body, []byte(marker)) {
			return true
		}
	}
	return false
}

// waitSpan returns the span of the trace called name whose span id is id
// (any, when id is invalid), once it has ended, failing after d.
func waitSpan(t *testing.T, exp *tracetest.InMemoryExporter, tid trace.TraceID, name string, id trace.SpanID, d time.Duration) tracetest.SpanStub {
	t.Helper()
	var found tracetest.SpanStub
	defer func() { // also when Eventually fails: what the trace does have
		if found.Name == "" {
			t.Logf("trace %v has: %v", tid, spanNames(tracingtest.Trace(exp, tid)))
		}
	}()
	testkit.Eventually(t, d, fmt.Sprintf("a %q span (id %v) in trace %v", name, id, tid), func() bool {
		for _, s := range tracingtest.Named(tracingtest.Trace(exp, tid), name) {
			if !id.IsValid() || s.SpanContext.SpanID() == id {
				found = s
				return true
			}
		}
		return false
	})
	return found
}

func spanNames(ss tracetest.SpanStubs) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

// One trace follows an event end to end over `contrack all`, on an
// in-memory exporter: POST /events (a new root, linked to the caller's own
// traceparent) → normalise (a child, through the carrier-raw record's
// traceparent header) → delivery fan-out (a child, through the events
// record's) → the webhook POST (a child), whose traceparent header the
// receiver gets. A polled event does the same from its poll span.
func TestEndToEndTraceFromPushAndPollToWebhook(t *testing.T) {
	exp := tracingtest.Install(t)
	s := startSystem(t)
	store := auth.NewStore(s.db.Pool)
	ctx := context.Background()
	consumer, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	// A push-only carrier (not in the registry): its tracking is never
	// polled, so the pushed event's delivery carries no polled event.
	pusher, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "xyz-lines", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "XYZQ"})
	if err != nil {
		t.Fatal(err)
	}
	hook := activatedHook(t, s, consumer)
	const pushBox = "CSQU3054383"
	if code, body := s.do("POST", "/subscription/equipment", consumer, `{"scacCode":"XYZQ","containerNumber":"`+pushBox+`","subscriptionReference":"xyzq-1"}`); code != 200 {
		t.Fatalf("subscribe XYZQ: %d %v", code, body)
	}
	// The routing index learns the subscription through the outbox relay:
	// a warm-up event delivered says it has (one pushed before matches
	// nothing and is pushed again).
	var lastPush time.Time
	testkit.Eventually(t, 30*time.Second, "a warm-up event delivered", func() bool {
		if hook.has("warm-up") {
			return true
		}
		if time.Since(lastPush) > 2*time.Second { // matched nothing yet: push again
			if code, body := s.do("POST", "/events", pusher, pushedEvent(pushBox, "warm-up")); code != 200 {
				t.Fatalf("warm-up push: %d %v", code, body)
			}
			lastPush = time.Now()
		}
		return false
	})

	// The traced push, sent with the carrier's own trace context.
	callerTrace, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	callerSpan, _ := trace.SpanIDFromHex("b7ad6b7169203331")
	req, _ := http.NewRequest("POST", "http://"+s.cfg.HTTPAddr+"/events", strings.NewReader(pushedEvent(pushBox, "traced-push")))
	req.Header.Set("x-api-key", pusher)
	req.Header.Set("traceparent", "00-"+callerTrace.String()+"-"+callerSpan.String()+"-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("traced push: %d", resp.StatusCode)
	}
	hit := hook.waitFor(t, "traced-push", 30*time.Second)
	if !hit.sc.IsValid() {
		t.Fatal("the webhook request has no valid traceparent")
	}
	tid := hit.sc.TraceID()
	if tid == callerTrace {
		t.Fatal("POST /events continued the caller's trace; it must start its own and link to the caller's")
	}
	attempt := waitSpan(t, exp, tid, "webhook POST", hit.sc.SpanID(), 10*time.Second)
	fanout := waitSpan(t, exp, tid, "delivery fan-out", attempt.Parent.SpanID(), 10*time.Second)
	norm := waitSpan(t, exp, tid, "normalize", fanout.Parent.SpanID(), 10*time.Second)
	post := waitSpan(t, exp, tid, "POST /events", norm.Parent.SpanID(), 10*time.Second)
	if post.Parent.IsValid() || post.SpanKind != trace.SpanKindServer {
		t.Errorf("POST /events span: parent %v kind %v; want a server span at the root", post.Parent, post.SpanKind)
	}
	if len(post.Links) != 1 || post.Links[0].SpanContext.TraceID() != callerTrace || post.Links[0].SpanContext.SpanID() != callerSpan {
		t.Errorf("POST /events links %+v; want the caller's span", post.Links)
	}
	if attempt.SpanKind != trace.SpanKindClient || len(attempt.Links) == 0 || attempt.Links[0].SpanContext.SpanID() != fanout.SpanContext.SpanID() {
		t.Errorf("webhook POST span: kind %v links %+v; want a client span linked to its events' fan-out", attempt.SpanKind, attempt.Links)
	}

	// A polled event: the sandbox MAEU carrier, polled with credentials.
	const pollBox = "MSKU9070323"
	if code, body := s.do("POST", "/carrier/credentials", consumer, `{"MAEU":{"apiKey":"any"}}`); code != 200 {
		t.Fatalf("credentials: %d %v", code, body)
	}
	if code, body := s.do("POST", "/subscription/equipment", consumer, `{"scacCode":"MAEU","containerNumber":"`+pollBox+`","subscriptionReference":"maeu-1"}`); code != 200 {
		t.Fatalf("subscribe MAEU: %d %v", code, body)
	}
	hit = hook.waitFor(t, `"subscriptionReference":"maeu-1"`, 30*time.Second)
	if !hit.sc.IsValid() {
		t.Fatal("the polled event's webhook request has no valid traceparent")
	}
	tid = hit.sc.TraceID()
	attempt = waitSpan(t, exp, tid, "webhook POST", hit.sc.SpanID(), 10*time.Second)
	fanout = waitSpan(t, exp, tid, "delivery fan-out", attempt.Parent.SpanID(), 10*time.Second)
	norm = waitSpan(t, exp, tid, "normalize", fanout.Parent.SpanID(), 10*time.Second)
	poll := waitSpan(t, exp, tid, "poll", norm.Parent.SpanID(), 10*time.Second)
	if poll.Parent.IsValid() {
		t.Errorf("poll span has parent %v; want the root", poll.Parent)
	}
}
