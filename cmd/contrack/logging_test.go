package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/httpapi"
	"github.com/twmb/franz-go/plugin/kslog"
)

// The Kafka client's own records are held to CONTRACK_KAFKA_LOG_LEVEL
// (warn by default); the process's other records keep CONTRACK_LOG_LEVEL.
func TestKafkaClientLogsAtItsOwnLevel(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(newLogHandler(&buf, "info", "warn"))
	kafka := kslog.New(log.With("stage", "feed").With("component", "kafka"))
	if kafka.Level() != kgo.LogLevelWarn {
		t.Errorf("the Kafka client logs at %v, want warn", kafka.Level())
	}
	kafka.Log(kgo.LogLevelInfo, "beginning to manage the group lifecycle", "group", "feed")
	kafka.Log(kgo.LogLevelWarn, "unable to open connection to broker", "addr", "127.0.0.1:9092")
	log.With("stage", "feed").Info("stage started")
	out := buf.String()
	if strings.Contains(out, "manage the group") {
		t.Errorf("an info record of the Kafka client was written:\n%s", out)
	}
	for _, want := range []string{"unable to open connection", "stage started"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q missing from:\n%s", want, out)
		}
	}
	buf.Reset()
	kafka = kslog.New(slog.New(newLogHandler(&buf, "info", "debug")).With("component", "kafka"))
	kafka.Log(kgo.LogLevelInfo, "beginning to manage the group lifecycle")
	if !strings.Contains(buf.String(), "manage the group") {
		t.Errorf("CONTRACK_KAFKA_LOG_LEVEL=debug hid an info record: %q", buf.String())
	}
}

// The key hint comes once the process is ready, not before, and once.
func TestReadyHintComesOnceReady(t *testing.T) {
	health := httpapi.NewHealth(nil, 0, slog.New(slog.DiscardHandler))
	var logged, term syncBuffer
	log := slog.New(slog.NewJSONHandler(&logged, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	ticks := make(chan time.Time)
	go func() {
		announceReady(ctx, health, ticks, log, Config{HTTPAddr: "127.0.0.1:8080"}, &term)
		close(done)
	}()
	// looked is when announceReady has looked again: it takes a second tick
	// only after the look that followed the first.
	looked := func() { ticks <- time.Time{}; ticks <- time.Time{} }
	health.SetReady("normalize", true)
	health.SetReady("delivery", false)
	looked()
	if term.String() != "" {
		t.Fatalf("hint before the process is ready: %q", term.String())
	}
	health.SetReady("delivery", true)
	looked()
	if term.String() != "" {
		t.Fatalf("hint before the API listens: %q", term.String())
	}
	health.SetReady("http", true)
	select { // it may have seen the API ready already, at the look in flight
	case ticks <- time.Time{}:
		<-done
	case <-done:
	}
	for _, want := range []string{"contrack is ready on http://127.0.0.1:8080", "admin create-key --client acme --env sandbox", `curl -s 127.0.0.1:8080/account -H "x-api-key: $KEY"`} {
		if !strings.Contains(term.String(), want) {
			t.Errorf("hint lacks %q:\n%s", want, term.String())
		}
	}
	if !strings.Contains(logged.String(), `"msg":"contrack ready"`) {
		t.Errorf("no ready log line: %s", logged.String())
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
