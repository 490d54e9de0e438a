package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// heldProducer is a real Kafka producer whose first hold produces wait for
// release, as slow broker round trips would.
type heldProducer struct {
	Producer
	hold    int32
	release chan struct{}
	calls   atomic.Int32
}

func (p *heldProducer) ProduceSync(ctx context.Context, rs ...*kgo.Record) kgo.ProduceResults {
	if p.calls.Add(1) <= p.hold {
		<-p.release
	}
	return p.Producer.ProduceSync(ctx, rs...)
}

// Pushes made while a carrier key's record is being produced (one at a
// time here) gather into its next record, and none is answered before the
// broker has the record that carries it; each push is in exactly one
// record, the parts counted. Another key's pushes never join them.
func TestCombinerGathersPushesWhileAProduceIsUnderWay(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	prod := &heldProducer{Producer: testenv.KafkaClient(t, kc.Brokers), hold: 1, release: make(chan struct{})}
	h := eventsHandler{deps: EventsDeps{Producer: prod, Namespace: kc.NS}}
	c := newCombiner(prod, 0, h.combined)
	c.inflight = 1
	key := auth.Key{ID: "key-1", SCAC: "MAEU", Account: auth.Account{Env: "sandbox"}}
	other := auth.Key{ID: "key-2", SCAC: "MAEU", Account: auth.Account{Env: "sandbox"}}
	body := func(i int) []byte { return []byte(fmt.Sprintf(`{"eventID":"e-%d"}`, i)) }

	const n = 40
	var answered atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, n+1)
	push := func(k auth.Key, i int) {
		defer wg.Done()
		_, _, err := c.push(context.Background(), k, fmt.Sprint("req-", i), body(i), time.Now())
		answered.Add(1)
		errs <- err
	}
	wg.Add(1)
	go push(key, 0)
	testkit.Eventually(t, 5*time.Second, "the first produce did not start", func() bool { return prod.calls.Load() == 1 })
	for i := 1; i < n; i++ {
		wg.Add(1)
		go push(key, i)
	}
	wg.Add(1)
	go push(other, n)
	testkit.Eventually(t, 5*time.Second, "the pushes did not gather behind the held produce", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		q, o := c.queues[key.ID+"/sandbox"], c.queues[other.ID+"/sandbox"]
		return q != nil && len(q.groups) == 1 && len(q.groups[0].parts) == n-1 && o == nil
	})
	if a := answered.Load(); a > 1 {
		// The other key's push went on its own; this key's wait.
		t.Fatalf("%d pushes answered while their records were not produced", a)
	}
	close(prod.release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := prod.calls.Load(); got != 3 {
		t.Fatalf("%d produces for %d pushes of two keys, want 3", got, n+1)
	}

	cl := testenv.KafkaClient(t, kc.Brokers, kgo.ConsumeTopics(kc.Topic(schemas.TopicCarrierRaw)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	seen := map[string]int{}
	var records []schemas.CarrierRaw
	testkit.Eventually(t, 10*time.Second, "records did not arrive", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var raw schemas.CarrierRaw
			if err := schemas.DecodeCarrierRaw(r.Value, &raw); err != nil {
				t.Fatal(err)
			}
			records = append(records, raw)
		})
		return len(records) == 3
	})
	for _, raw := range records {
		var parts []json.RawMessage
		if raw.Parts == 0 {
			parts = []json.RawMessage{raw.Payload}
		} else if err := json.Unmarshal(raw.Payload, &parts); err != nil || len(parts) != raw.Parts {
			t.Fatalf("record of %d parts holds %d (%v): %s", raw.Parts, len(parts), err, raw.Payload)
		}
		if raw.Format != "dcsa-pushed" || raw.SCAC != "MAEU" || raw.RequestID == "" || raw.ReceivedAt.IsZero() || raw.CarrierKeyID == "" {
			t.Fatalf("envelope %+v", raw)
		}
		for _, p := range parts {
			var ev struct{ EventID string }
			if err := json.Unmarshal(p, &ev); err != nil {
				t.Fatal(err)
			}
			seen[ev.EventID]++
			if (ev.EventID == fmt.Sprint("e-", n)) != (raw.CarrierKeyID == other.ID) {
				t.Fatalf("%s in a record of key %s", ev.EventID, raw.CarrierKeyID)
			}
		}
	}
	for i := 0; i <= n; i++ {
		if seen[fmt.Sprint("e-", i)] != 1 {
			t.Fatalf("push %d in %d records", i, seen[fmt.Sprint("e-", i)])
		}
	}
}

// A record is bounded: pushes beyond maxParts gather into the next one.
func TestCombinerBoundsARecord(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	prod := &heldProducer{Producer: testenv.KafkaClient(t, kc.Brokers), hold: 1, release: make(chan struct{})}
	h := eventsHandler{deps: EventsDeps{Producer: prod, Namespace: kc.NS}}
	c := newCombiner(prod, 0, h.combined)
	c.maxParts, c.inflight = 4, 1
	key := auth.Key{ID: "key-1", SCAC: "MAEU", Account: auth.Account{Env: "sandbox"}}
	var wg sync.WaitGroup
	for i := range 11 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := c.push(context.Background(), key, "r", []byte(fmt.Sprintf(`{"eventID":"e-%d"}`, i)), time.Now()); err != nil {
				t.Error(err)
			}
		}()
		if i == 0 {
			testkit.Eventually(t, 5*time.Second, "the first produce did not start", func() bool { return prod.calls.Load() == 1 })
		}
	}
	testkit.Eventually(t, 5*time.Second, "ten waiting pushes are not in records of 4, 4 and 2", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		q := c.queues[key.ID+"/sandbox"]
		return q != nil && len(q.groups) == 3 && len(q.groups[0].parts) == 4 && len(q.groups[1].parts) == 4 && len(q.groups[2].parts) == 2
	})
	close(prod.release)
	wg.Wait()
	if got := prod.calls.Load(); got != 4 {
		t.Fatalf("%d produces, want 4", got)
	}
}

// A key has up to inflight records produced at once: the first pushes go
// at once, each alone, and only those that find every slot taken gather;
// none is answered before its record is acknowledged.
func TestCombinerProducesSeveralRecordsAtOnce(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	const inflight, more = 3, 7
	prod := &heldProducer{Producer: testenv.KafkaClient(t, kc.Brokers), hold: inflight, release: make(chan struct{})}
	h := eventsHandler{deps: EventsDeps{Producer: prod, Namespace: kc.NS}}
	c := newCombiner(prod, 0, h.combined)
	c.inflight = inflight
	key := auth.Key{ID: "key-1", SCAC: "MAEU", Account: auth.Account{Env: "sandbox"}}
	var answered atomic.Int32
	var wg sync.WaitGroup
	push := func(i int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := c.push(context.Background(), key, "r", []byte(fmt.Sprintf(`{"eventID":"e-%d"}`, i)), time.Now()); err != nil {
				t.Error(err)
			}
			answered.Add(1)
		}()
	}
	for i := range inflight {
		push(i)
		testkit.Eventually(t, 5*time.Second, "a free slot did not produce at once", func() bool { return prod.calls.Load() == int32(i+1) })
	}
	for i := range more {
		push(inflight + i)
	}
	testkit.Eventually(t, 5*time.Second, "the pushes that found every slot taken did not gather into one record", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		q := c.queues[key.ID+"/sandbox"]
		return q != nil && len(q.groups) == 1 && len(q.groups[0].parts) == more && q.senders == inflight
	})
	if a := answered.Load(); a != 0 || prod.calls.Load() != inflight {
		t.Fatalf("%d answered and %d produces while the first %d records were held", a, prod.calls.Load(), inflight)
	}
	close(prod.release)
	wg.Wait()
	if got := prod.calls.Load(); got != inflight+1 {
		t.Fatalf("%d produces for %d pushes, want %d", got, inflight+more, inflight+1)
	}
	testkit.Eventually(t, 5*time.Second, "the key's queue stayed after its senders ended", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.queues) == 0
	})
}

// Linger holds only a busy key's next record: a push to an idle key is
// produced at once, however long the linger.
func TestCombinerLingersOnlyWhenBusy(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	prod := &heldProducer{Producer: testenv.KafkaClient(t, kc.Brokers), release: make(chan struct{})}
	h := eventsHandler{deps: EventsDeps{Producer: prod, Namespace: kc.NS}}
	c := newCombiner(prod, time.Hour, h.combined)
	key := auth.Key{ID: "key-1", SCAC: "MAEU", Account: auth.Account{Env: "sandbox"}}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
	defer cancel()
	if _, parts, err := c.push(ctx, key, "r", []byte(`{"eventID":"e-1"}`), time.Now()); err != nil || parts != 1 {
		t.Fatalf("a push to an idle key: %d parts, %v", parts, err)
	}
}
