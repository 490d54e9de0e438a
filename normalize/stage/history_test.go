package stage_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// rawFor produces a polled page of tracking that is the history of the
// subscriptions in history (schemas.HeaderHistoryFor), as the poller does.
func (h harness) rawFor(tracking, history string, payload []byte) {
	env := schemas.CarrierRaw{ID: uuid.NewString(), Format: string(carriers.FormatTNT22), SCAC: "MAEU", Env: "sandbox",
		AccountID: "acct-1", TrackingID: tracking, ReceivedAt: time.Now().UTC(), Payload: payload}
	v, _ := json.Marshal(env)
	if err := kafka.ProduceSync(context.Background(), h.prod, &kgo.Record{Topic: h.kc.Topic(schemas.TopicCarrierRaw), Key: []byte(tracking), Value: v,
		Headers: schemas.Headers{Type: schemas.TypeCarrierRaw, ID: env.ID, Extra: []schemas.Header{{Key: schemas.HeaderHistoryFor, Value: history}}}.Kafka()}); err != nil {
		h.t.Fatal(err)
	}
}

// A page polled as the history of subscriptions gives them every event of
// the page, the seen ones too, in order, marked for them only; what is new
// in it goes to everyone else after, marked to skip them.
func TestStageEmitsHistoryForSubscriptions(t *testing.T) {
	h := start(t, 1)
	payload := sample(t)
	h.raw(carriers.FormatTNT22, "trk-1", payload) // the first poll: 4 events
	h.rawFor("trk-1", "sub-b", payload)           // sub-b's history: the 4 again, for sub-b
	h.raw(carriers.FormatTNT22, "trk-1", payload) // polled again: nothing new
	at := strings.Index(string(payload), `"3cecb101-7a1a-43a4-9d62-e88a131651e4"`)
	moved := string(payload[:at]) + strings.Replace(string(payload[at:]), `"eventDateTime": "2019-11-12T07:41:00+08:30"`, `"eventDateTime": "2019-11-13T09:00:00+08:30"`, 1)
	if at < 0 || moved == string(payload) {
		t.Fatal("fixture edit did not apply")
	}
	h.rawFor("trk-1", "sub-c,sub-d", []byte(moved)) // history for two, with an estimate moved
	const sentinelAt = `"eventDateTime": "2019-11-14T09:00:00+08:30"`
	h.raw(carriers.FormatTNT22, "trk-1", []byte(strings.Replace(moved, `"eventDateTime": "2019-11-13T09:00:00+08:30"`, sentinelAt, 1)))

	recs := collectUntil(t, h.brokers, h.kc.Topic(schemas.TopicEvents), func(r *kgo.Record) bool {
		_, ev := decode(t, r)
		return ev.EventDateTime == "2019-11-14T09:00:00+08:30"
	})
	type seen struct{ id, hash, historyFor, except string }
	var got []seen
	for _, r := range recs[:len(recs)-1] {
		rec, ev := decode(t, r)
		if ev.EventID != rec.EventID || rec.TrackingID != "trk-1" {
			t.Fatalf("record %+v", rec)
		}
		got = append(got, seen{rec.EventID, rec.ContentHash, kafka.Header(r, schemas.HeaderHistoryFor), kafka.Header(r, schemas.HeaderHistoryExcept)})
	}
	// 4 for everyone, 4 for sub-b, 4 for sub-c and sub-d, then the moved
	// estimate for everyone but them.
	if len(got) != 13 {
		t.Fatalf("%d records before the sentinel, want 13: %+v", len(got), got)
	}
	for i := range 4 {
		first, b, cd := got[i], got[4+i], got[8+i]
		if first.historyFor != "" || first.except != "" || b.historyFor != "sub-b" || b.except != "" || cd.historyFor != "sub-c,sub-d" || cd.except != "" {
			t.Errorf("event %d: %+v, %+v, %+v", i, first, b, cd)
		}
		if b.id != first.id || b.hash != first.hash || cd.id != first.id {
			t.Errorf("history out of the page's order: %+v, %+v, %+v", first, b, cd)
		}
	}
	moves := 0
	for i := range 4 {
		if got[8+i].hash != got[i].hash {
			moves++
			if u := got[12]; u.id != got[i].id || u.hash != got[8+i].hash || u.historyFor != "" || u.except != "sub-c,sub-d" {
				t.Errorf("the moved estimate for the others: %+v, history %+v", u, got[8+i])
			}
		}
	}
	if moves != 1 {
		t.Errorf("%d events of sub-c's history moved, want 1", moves)
	}
}
