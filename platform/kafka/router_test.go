package kafka_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// A route runs with what the router owns: the namespace's topics and
// group, the dead-letter topic's name on the cluster with the route's name
// as dlq-stage, and the router's metrics.
func TestRouterRunsARouteWithItsNamespaceDeadLettersAndMetrics(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	produceN(t, testenv.KafkaClient(t, kc.Brokers), kc.Topic(schemas.TopicCarrierRaw), 3)
	reg := prometheus.NewRegistry()
	m, err := kafka.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	rt := kafka.NewRouter(kafka.RouterConfig{Brokers: kc.Brokers, Namespace: kc.NS, Log: testenv.Log(t), Metrics: m})
	route := kafka.Route{Name: "routed", Mode: kafka.ModeRecord, Group: "test-router", Inputs: []string{schemas.TopicCarrierRaw},
		DeadLetter: schemas.TopicNormalizeDeadLetters}
	if err := rt.Register("test", route); err != nil {
		t.Fatal(err)
	}
	var ok collector
	testenv.RunStage(t, "routed", func(ctx context.Context) error {
		return rt.Consume(ctx, route, kafka.ConsumerConfig{}, func(_ context.Context, r *kgo.Record) error {
			if string(r.Value) == "1" {
				return kafka.Permanent(errors.New("poison"))
			}
			ok.add(string(r.Value))
			return nil
		})
	})
	testkit.Eventually(t, 10*time.Second, "the good records", func() bool { return ok.count() == 2 })
	if n := rt.Running("routed"); n != 1 {
		t.Errorf("Running(routed) = %d, want 1", n)
	}
	dlq := testenv.KafkaClient(t, kc.Brokers, kgo.ConsumeTopics(kc.Topic(schemas.TopicNormalizeDeadLetters)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
	defer cancel()
	recs := dlq.PollFetches(ctx).Records()
	if len(recs) != 1 {
		t.Fatalf("dead letters = %d, want 1", len(recs))
	}
	if got := kafka.Header(recs[0], schemas.HeaderDLQStage); got != "routed" {
		t.Errorf("dlq-stage = %q, want routed", got)
	}
	testkit.Eventually(t, 10*time.Second, "records counted on the router's metrics", func() bool {
		return testkit.Counter(t, reg, "contrack_stream_records_total", map[string]string{"consumer": "routed", "outcome": "ok"}) == 2
	})
}

// What runs is what was registered: a route run in another mode, or with
// other topics than its stage registered, is refused before it reads.
func TestRouterRefusesARouteOtherThanRegistered(t *testing.T) {
	rt := kafka.NewRouter(kafka.RouterConfig{Brokers: []string{"127.0.0.1:1"}, Log: testenv.Log(t)})
	route := kafka.Route{Name: "declared", Mode: kafka.ModeBatch, Group: "g", Inputs: []string{schemas.TopicEvents}}
	if err := rt.Register("stage", route); err != nil {
		t.Fatal(err)
	}
	if err := rt.Register("other", route); err == nil {
		t.Error("a route registered twice was accepted")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := rt.Consume(ctx, route, kafka.ConsumerConfig{}, nil); err == nil || !strings.Contains(err.Error(), "declared batch, run as per-record") {
		t.Errorf("a batch route run per record: %v", err)
	}
	other := route
	other.Inputs = []string{schemas.TopicAlerts}
	if err := rt.ConsumeBatches(ctx, other, kafka.BatchConfig{}, nil); err == nil || !strings.Contains(err.Error(), "other topics") {
		t.Errorf("a route run with other topics: %v", err)
	}
	if err := rt.Register("stage", kafka.Route{Name: "x", Mode: kafka.ModeRecord, Inputs: []string{schemas.TopicEvents}}); err == nil {
		t.Error("a per-record route without a group was accepted")
	}
	if got := rt.Routes(); len(got) != 1 || got[0].Stage != "stage" || got[0].Name != "declared" {
		t.Errorf("Routes() = %+v", got)
	}
}

// Offset commits of the per-record mode used to fail only into the log:
// now each is counted, and a run of them turns /readyz red naming the
// consumer's commit loop, green again once commits are taken.
func TestPerRecordCommitFailuresAreCountedAndTurnReadinessRed(t *testing.T) {
	brokers, fail, refused := failingCommits(t)
	produceN(t, testenv.KafkaClient(t, brokers), schemas.TopicPollAttempts, 5)
	reg := prometheus.NewRegistry()
	health := httpapi.NewHealth(nil, 0, testenv.Log(t))
	loops, err := loop.New(loop.Config{UnreadyAfter: 2}, reg, health, testenv.Log(t))
	if err != nil {
		t.Fatal(err)
	}
	m, err := kafka.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	rt := kafka.NewRouter(kafka.RouterConfig{Brokers: brokers, Log: testenv.Log(t), Metrics: m, Loops: loops})
	route := kafka.Route{Name: "committing", Mode: kafka.ModeRecord, Group: "test-commit-fail", Inputs: []string{schemas.TopicPollAttempts}}
	var (
		mu   sync.Mutex
		sent int
	)
	prod := testenv.KafkaClient(t, brokers)
	testenv.RunStage(t, "committing", func(ctx context.Context) error {
		return rt.Consume(ctx, route, kafka.ConsumerConfig{}, func(context.Context, *kgo.Record) error { return nil })
	})
	// Records keep coming, so commits keep being tried.
	more := func() {
		mu.Lock()
		defer mu.Unlock()
		sent++
		produceN(t, prod, schemas.TopicPollAttempts, 1)
	}
	testkit.Eventually(t, 20*time.Second, "/readyz 503 naming committing/commit", func() bool {
		more()
		code, body := readyz(health)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "committing/commit failing")
	})
	if refused.Load() == 0 {
		t.Fatal("no commit reached the broker")
	}
	if n := testkit.Counter(t, reg, "contrack_stream_commit_failures_total", map[string]string{"consumer": "committing"}); n < 2 {
		t.Fatalf("commit failures counted %v, want at least 2", n)
	}
	fail.Store(false)
	testkit.Eventually(t, 20*time.Second, "/readyz 200 once commits are taken", func() bool {
		more()
		code, _ := readyz(health)
		return code == http.StatusOK
	})
}

// A handler panic is logged through the consumer's logger (the
// process's), not Go's default logger.
func TestRecoverLogsThroughTheConsumersLogger(t *testing.T) {
	var mine, def syncBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&def, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	h := kafka.Recover(slog.New(slog.NewTextHandler(&mine, nil)))(func(context.Context, *kgo.Record) error { panic("boom") })
	err := h(context.Background(), &kgo.Record{})
	if !errors.Is(err, kafka.ErrPermanent) {
		t.Fatalf("a panic returned %v, want a permanent error", err)
	}
	if !strings.Contains(mine.String(), "handler panic") || !strings.Contains(mine.String(), "boom") {
		t.Errorf("the consumer's logger got %q, want the panic", mine.String())
	}
	if def.String() != "" {
		t.Errorf("the default logger got %q", def.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
