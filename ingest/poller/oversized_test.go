package poller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/ingest/poller"
	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// A carrier page too large for one Kafka record is dead-lettered to the
// carrier-raw DLQ with its reason, the poll still counts (attempt
// "success"), and the tracking keeps its normal interval: it is polled no
// more often than a normal tracking beside it, not retried at RetryBase.
//
// Twice: caught by Config.MaxRecordBytes before producing, and (with the
// limit set above what Kafka takes) refused by Kafka with MESSAGE_TOO_LARGE.
func TestOversizedCarrierPageIsDeadLetteredAndKeepsTheInterval(t *testing.T) {
	for name, c := range map[string]struct {
		limit  int
		reason string
	}{
		"record limit":  {0, "over the 1000000-byte limit"},
		"kafka's limit": {10_000_000, "refused by the broker"},
	} {
		t.Run(name, func(t *testing.T) { testOversized(t, c.limit, c.reason) })
	}
}

func testOversized(t *testing.T, limit int, reason string) {
	w := newWorld(t, 2)
	s := newSim(t)
	big := journey.CompleteContainer("BIGU000001")
	normal := journey.CompleteContainer("NRMU000001")
	var mu sync.Mutex
	count := map[string]int{}
	// ~900 KB of JSON: a 1.2 MB record once base64-wrapped in the envelope.
	page := fmt.Sprintf(`[{"eventID":"e1","eventType":"EQUIPMENT","padding":%q}]`, strings.Repeat("x", 900_000))
	h := sandbox.NewHandler(sandbox.Config{})
	stub := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("equipmentReference")
		mu.Lock()
		count[id]++
		mu.Unlock()
		if id == big {
			rw.Header().Set("Content-Type", "application/json")
			_, _ = rw.Write([]byte(page))
			return
		}
		h.ServeHTTP(rw, r)
	}))
	defer stub.Close()
	polls := func(id string) int {
		mu.Lock()
		defer mu.Unlock()
		return count[id]
	}
	w.credentials(t, "MAEU", map[string]string{"apiKey": "k"})
	bigID := w.track(t, "MAEU", big, true, "")
	w.track(t, "MAEU", normal, true, "")
	cfg := fastConfig()
	cfg.MaxRecordBytes = limit
	runWith(t, w, s, cfg, func(d *poller.Deps) {
		d.Adapters = func(env, scac string) (carrier.Adapter, error) { return carrier.New(scac, stub.URL+"/maeu", nil) }
	})

	dlq := testenv.KafkaClient(t, w.brokers, kgo.ConsumeTopics(w.kc.Topic(schemas.TopicNormalizeDeadLetters)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var dead *kgo.Record
	testkit.Eventually(t, 20*time.Second, "the oversized page in the carrier-raw DLQ", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		dlq.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			if dead == nil {
				dead = r
			}
		})
		return dead != nil
	})
	headers := map[string]string{}
	for _, h := range dead.Headers {
		headers[h.Key] = string(h.Value)
	}
	t.Logf("dead letter: %d-byte value, headers %v", len(dead.Value), headers)
	if string(dead.Key) != bigID || !strings.Contains(headers[schemas.HeaderDLQReason], reason) ||
		headers["payload-bytes"] != fmt.Sprint(len(page)) || headers[schemas.HeaderDLQTopic] != w.kc.Topic(schemas.TopicCarrierRaw) || headers["truncated"] != "true" {
		t.Fatalf("dead letter key %s headers %v", dead.Key, headers)
	}
	// Same cadence as the normal tracking: several intervals' worth of polls.
	testkit.Eventually(t, 20*time.Second, "six polls of the normal tracking", func() bool { return polls(normal) >= 6 })
	b, n := polls(big), polls(normal)
	t.Logf("polls: oversized %d, normal %d (interval %v, retry base %v)", b, n, cfg.Interval["sandbox"], cfg.RetryBase)
	if b > n+2 || b < n-2 {
		t.Fatalf("oversized tracking polled %d times beside %d normal polls: not on its normal interval", b, n)
	}
	// Its attempts count as successes, never errors.
	att := testenv.KafkaClient(t, w.brokers, kgo.ConsumeTopics(w.kc.Topic(schemas.TopicPollAttempts)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	outcomes := map[string]int{}
	for ctx.Err() == nil {
		att.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var a schemas.PollAttempt
			if err := json.Unmarshal(r.Value, &a); err != nil {
				t.Fatal(err)
			}
			if a.TrackingID == bigID {
				outcomes[a.Outcome]++
			}
		})
	}
	if outcomes["success"] == 0 || outcomes["error"] != 0 {
		t.Fatalf("oversized tracking's attempts: %v", outcomes)
	}
}
