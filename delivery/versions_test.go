package delivery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// estimate is an estimated gate-out of container at the given time: the
// same event (its id does not depend on an estimate's time) in another
// version for each time.
func estimate(container, at string) string {
	return fmt.Sprintf(`{"eventType":"EQUIPMENT","eventClassifierCode":"EST","eventDateTime":%q,
		"eventCreatedDateTime":"2026-11-20T08:00:00Z","equipmentEventTypeCode":"GTOT","equipmentReference":%q,
		"emptyIndicatorCode":"LADEN","eventLocation":{"UNLocationCode":"NLRTM"}}`, at, container)
}

// versions are the eventDateTimes of every acknowledged event, in order.
func versions(t *testing.T, rc *dt.Receiver) []string {
	var out []string
	for _, r := range rc.Acked() {
		for _, e := range r.Payload(t).Events {
			var ev struct {
				EventDateTime string `json:"eventDateTime"`
			}
			if err := json.Unmarshal(e, &ev); err != nil {
				t.Fatal(err)
			}
			out = append(out, ev.EventDateTime)
		}
	}
	return out
}

// An estimate that moves A → B → A, through the real normaliser: the
// normaliser emits three versions and each reaches the webhook, in order.
// The first emission consumed again (a replayed Kafka record) and the same
// content polled again (which the normaliser drops) push nothing: a
// sentinel event sent after them is the next thing delivered.
func TestEveryVersionDeliveredThroughNormaliser(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, nil)
	acct := h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	s := h.Subscribe(acct, "abc")
	h.Start(dt.Config())

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- stage.Run(ctx, stage.Config{RoutingWait: time.Second}, stage.Deps{
			Brokers: h.Brokers(), Namespace: h.Kafka().NS, Pool: h.DB.Pool, Log: testenv.Log(t),
			Parsers: map[carriers.Format]normalize.Parser{carriers.FormatPushed: pushed.Parse},
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("normaliser: %v", err)
		}
	})
	prod := testenv.KafkaClient(t, h.Brokers())
	poll := func(payload string) {
		t.Helper()
		v, _ := json.Marshal(schemas.CarrierRaw{ID: uuid.NewString(), Format: string(carriers.FormatPushed), SCAC: "MAEU",
			Env: "sandbox", AccountID: acct, TrackingID: s.Tracking, ReceivedAt: time.Now().UTC(), Payload: []byte(payload)})
		if err := kafka.ProduceSync(context.Background(), prod, &kgo.Record{Topic: h.Kafka().Topic(schemas.TopicCarrierRaw), Key: []byte(s.Tracking), Value: v}); err != nil {
			t.Fatal(err)
		}
	}
	const a, b, c = "2026-12-01T10:00:00Z", "2026-12-02T10:00:00Z", "2026-12-03T10:00:00Z"
	for i, at := range []string{a, b, a} {
		poll(estimate("CSQU3054383", at))
		testkit.Eventually(t, 20*time.Second, "version "+at, func() bool { return len(rc.AckedEvents(t)) == i+1 })
	}
	poll(estimate("CSQU3054383", a)) // unchanged: the normaliser drops it

	// What the normaliser emitted: three versions of one event.
	cl := testenv.KafkaClient(t, h.Brokers(), kgo.ConsumeTopics(h.Kafka().Topic(schemas.TopicEvents)),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	var emitted []*kgo.Record
	rctx, rcancel := context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
	defer rcancel()
	for len(emitted) < 3 && rctx.Err() == nil {
		cl.PollFetches(rctx).EachRecord(func(r *kgo.Record) { emitted = append(emitted, r) })
	}
	if len(emitted) != 3 {
		t.Fatalf("normaliser emitted %d records, want 3", len(emitted))
	}
	var recs []schemas.EventRecord
	for _, r := range emitted {
		var rec schemas.EventRecord
		if err := json.Unmarshal(r.Value, &rec); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if recs[0].EventID != recs[2].EventID || recs[0].ContentHash != recs[2].ContentHash || recs[0].ContentHash == recs[1].ContentHash || !recs[2].Update {
		t.Fatalf("emitted %+v", recs)
	}

	// The first emission again, byte for byte, then a sentinel.
	if err := kafka.ProduceSync(context.Background(), prod, &kgo.Record{Topic: h.Kafka().Topic(schemas.TopicEvents), Key: emitted[0].Key,
		Value: emitted[0].Value, Headers: emitted[0].Headers}); err != nil {
		t.Fatal(err)
	}
	poll(estimate("CSQU3054383", c))
	testkit.Eventually(t, 20*time.Second, "the sentinel", func() bool { return slices.Contains(versions(t, rc), c) })
	if got, want := versions(t, rc), []string{a, b, a, c}; !slices.Equal(got, want) {
		t.Errorf("delivered versions %v, want %v", got, want)
	}
}

// A → B → A as event records: three deliveries in order. Every record
// consumed again (Kafka's at-least-once), and the last version emitted again
// unchanged (the normaliser after losing its dedupe state), queue nothing:
// a sentinel is the next delivery.
func TestEveryVersionDeliveredReplaysOnce(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, nil)
	acct := h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	s := h.Subscribe(acct, "abc")
	h.Start(dt.Config())

	emitted := time.Now().UTC()
	version := func(hash, at string) schemas.EventRecord {
		rec := h.Record(s, "ev-1", hash)
		rec.Event = json.RawMessage(fmt.Sprintf(`{"eventID":"ev-1","eventType":"EQUIPMENT","eventClassifierCode":"EST","eventDateTime":%q}`, at))
		emitted = emitted.Add(time.Millisecond) // distinct emittedAt, as distinct normaliser transactions have
		rec.EmittedAt = emitted
		return rec
	}
	const a, b, c = "2026-12-01T10:00:00Z", "2026-12-02T10:00:00Z", "2026-12-03T10:00:00Z"
	recs := []schemas.EventRecord{version("hA", a), version("hB", b), version("hA", a)}
	for i, rec := range recs {
		h.ProduceRecords(rec)
		testkit.Eventually(t, 15*time.Second, "version "+rec.ContentHash, func() bool { return len(rc.Acked()) == i+1 })
	}
	h.ProduceRecords(recs...)          // every record consumed again
	h.ProduceRecords(version("hA", a)) // the last version re-emitted unchanged
	h.ProduceRecords(version("hC", c)) // the sentinel
	testkit.Eventually(t, 15*time.Second, "the sentinel", func() bool { return slices.Contains(versions(t, rc), c) })
	if got, want := versions(t, rc), []string{a, b, a, c}; !slices.Equal(got, want) {
		t.Errorf("delivered versions %v, want %v", got, want)
	}
	if n := len(rc.Acked()); n != 4 {
		t.Errorf("%d deliveries, want 4 (A, B, A, then the sentinel)", n)
	}
	if q := h.Count(`SELECT count(*) FROM delivery_queue_events WHERE subscription_id = $1`, s.ID); q != 4 {
		t.Errorf("%d queue rows, want 4", q)
	}
}
