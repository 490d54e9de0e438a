package stage_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/normalize/tnt3"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// tnt3Event is a 3.0 equipment event of ZCSU8823456 on booking ZIMU12345.
func tnt3Event(id, code string) string {
	return `{"eventID":"` + id + `","eventDateTime":"2026-03-02T08:15:00Z","eventLocation":{"UNLocationCode":"NLRTM"},
	 "eventClassification":{"eventTypeCode":"EQUIPMENT","eventClassifierCode":"ACT","equipmentEventTypeCode":"` + code + `"},
	 "shipmentDetails":{"documentReference":{"typeCode":"BKG","reference":"ZIMU12345"}},
	 "equipmentDetails":{"equipmentReference":"ZCSU8823456","emptyIndicatorCode":"LADEN"}}`
}

func tnt3Retraction(id string) string { return `{"eventID":"` + id + `","isRetracted":true}` }

func tnt3Body(evs ...string) []byte { return []byte(`{"events":[` + strings.Join(evs, ",") + `]}`) }

// A withdrawn event reaches every tracking that got it, as a retraction
// record (type event.retracted, content hash "retracted", the event only
// {"eventID"}), in order after it: pushed ones by where the event went
// (both accounts following the container and the booking), polled ones on
// the tracking polled. A retraction repeated, of an event never emitted, or
// from another carrier's key, emits nothing.
func TestRetractionsReachWhereTheEventWent(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 3)
	prod := testenv.KafkaClient(t, kc.Brokers)
	produce := func(topic string, key string, v any) {
		t.Helper()
		b, _ := json.Marshal(v)
		if err := kafka.ProduceSync(context.Background(), prod, &kgo.Record{Topic: kc.Topic(topic), Key: []byte(key), Value: b}); err != nil {
			t.Fatal(err)
		}
	}
	subscribe := func(tracking, account, kind, value string) {
		produce(schemas.TopicSubscriptions, tracking, schemas.SubscriptionChanged{ID: uuid.NewString(), AccountID: account, Env: "sandbox",
			TrackingID: tracking, SCAC: "ZIMU", IdentifierKind: kind, Identifier: value, Status: "OPEN", TrackingOpen: true, OccurredAt: time.Now()})
	}
	subscribe("trk-container", "acct-1", "container", "ZCSU8823456")
	subscribe("trk-booking", "acct-2", "booking", "ZIMU12345")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- stage.Run(ctx, stage.Config{RoutingWait: 5 * time.Second}, stage.Deps{
			Brokers: kc.Brokers, Namespace: kc.NS, Pool: db.Pool, Log: testenv.Log(t),
			Parsers: map[carriers.Format]normalize.Parser{carriers.FormatTNT3: tnt3.Parse, carriers.FormatPushedTNT3: tnt3.ParsePushed},
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("stage shutdown: %v", err)
		}
	})
	push := func(scac string, body []byte) {
		produce(schemas.TopicCarrierRaw, scac+"/sandbox", schemas.CarrierRaw{ID: uuid.NewString(), Format: string(carriers.FormatPushedTNT3),
			SCAC: scac, Env: "sandbox", ReceivedAt: time.Now().UTC(), Payload: body, CarrierKeyID: "key-" + scac})
	}
	poll := func(tracking string, body []byte) {
		produce(schemas.TopicCarrierRaw, tracking, schemas.CarrierRaw{ID: uuid.NewString(), Format: string(carriers.FormatTNT3),
			SCAC: "ZIMU", Env: "sandbox", AccountID: "acct-3", TrackingID: tracking, ReceivedAt: time.Now().UTC(), Payload: body})
	}

	push("ZIMU", tnt3Body(tnt3Event("ev-1", "LOAD")))
	push("ZIMU", tnt3Body(tnt3Retraction("ev-1")))
	push("ZIMU", tnt3Body(tnt3Retraction("ev-1")))                            // a repeat
	push("ZIMU", tnt3Body(tnt3Retraction("never-sent")))                      // nothing to withdraw
	push("MAEU", tnt3Body(tnt3Retraction("ev-1")))                            // another carrier's event of that name
	push("ZIMU", tnt3Body(tnt3Event("ev-2", "GTIN"), tnt3Retraction("ev-2"))) // both in one body
	poll("trk-polled", tnt3Body(tnt3Event("ev-3", "DISC")))
	poll("trk-polled", tnt3Body(tnt3Retraction("ev-3")))
	poll("trk-polled", tnt3Body(tnt3Retraction("ev-1"))) // never on this tracking
	push("ZIMU", tnt3Body(tnt3Event("sentinel", "GTOT")))
	poll("trk-polled", tnt3Body(tnt3Event("sentinel", "GTOT")))

	id := func(src string) string { return identity.EventID("ZIMU", src) }
	var got []string
	sentinels := 0
	collectUntil(t, kc.Brokers, kc.Topic(schemas.TopicEvents), func(r *kgo.Record) bool {
		var rec schemas.EventRecord
		if err := json.Unmarshal(r.Value, &rec); err != nil {
			t.Fatal(err)
		}
		typ := kafka.Header(r, schemas.HeaderType)
		if rec.EventID == id("sentinel") {
			sentinels++
			return sentinels == 3
		}
		if rec.Retraction() != (typ == schemas.TypeEventRetracted) {
			t.Errorf("record type %q with content hash %q", typ, rec.ContentHash)
		}
		if rec.Retraction() && string(rec.Event) != `{"eventID":"`+rec.EventID+`"}` {
			t.Errorf("retraction event %s", rec.Event)
		}
		what := "event"
		if rec.Retraction() {
			what = "retraction"
		}
		got = append(got, rec.TrackingID+" "+what+" "+rec.EventID)
		return false
	})
	// Per tracking, in order (trackings interleave across partitions).
	want := map[string][]string{
		"trk-container": {"event " + id("ev-1"), "retraction " + id("ev-1"), "event " + id("ev-2"), "retraction " + id("ev-2")},
		"trk-booking":   {"event " + id("ev-1"), "retraction " + id("ev-1"), "event " + id("ev-2"), "retraction " + id("ev-2")},
		"trk-polled":    {"event " + id("ev-3"), "retraction " + id("ev-3")},
	}
	by := map[string][]string{}
	for _, g := range got {
		tracking, rest, _ := strings.Cut(g, " ")
		by[tracking] = append(by[tracking], rest)
	}
	for tracking, w := range want {
		if strings.Join(by[tracking], "; ") != strings.Join(w, "; ") {
			t.Errorf("%s:\n got  %v\n want %v", tracking, by[tracking], w)
		}
	}
	if len(by) != len(want) {
		t.Errorf("records for %d trackings, want %d: %v", len(by), len(want), got)
	}
}
