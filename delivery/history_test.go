package delivery_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// A history record goes to the subscriptions it names only, and the new
// events beside it to every other; the repeat rule keeps a subscription
// that had an event already from getting it again as history.
func TestHistoryFansOutOnlyToItsSubscriptions(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, nil)
	acct := h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	a := h.Subscribe(acct, "a")
	b, c := a, a
	b.ID, b.Ref, c.ID, c.Ref = uuid.NewString(), "b", uuid.NewString(), "c"
	h.SubscribeTracking(b)
	h.SubscribeTracking(c)
	h.Start(dt.Config())

	prod := testenv.KafkaClient(t, h.Brokers())
	bc := b.ID + "," + c.ID
	var recs []*kgo.Record
	for _, e := range []struct{ id, historyFor, except string }{
		{"e1", "", ""},   // everyone's (b and c open already)
		{"e1", bc, ""},   // b's and c's history: e1, which they have, then e2
		{"e2", bc, ""},   //
		{"e3", "", bc},   // new beside their history: everyone else's
		{"e4", "", ""},   // after: everyone's
		{"e5", a.ID, ""}, // a's alone
	} {
		v, _ := json.Marshal(h.Record(a, e.id, "h-"+e.id))
		var extra []schemas.Header
		if e.historyFor != "" {
			extra = append(extra, schemas.Header{Key: schemas.HeaderHistoryFor, Value: e.historyFor})
		}
		if e.except != "" {
			extra = append(extra, schemas.Header{Key: schemas.HeaderHistoryExcept, Value: e.except})
		}
		recs = append(recs, &kgo.Record{Topic: h.Kafka().Topic(schemas.TopicEvents), Key: []byte(a.Tracking), Value: v,
			Headers: schemas.Headers{Type: schemas.TypeEvent, ID: e.id + "/h-" + e.id, Extra: extra}.Kafka()})
	}
	if err := kafka.ProduceSync(context.Background(), prod, recs...); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"a": {"e1", "e3", "e4", "e5"}, "b": {"e1", "e2", "e4"}, "c": {"e1", "e2", "e4"}}
	got := func() map[string][]string {
		out := map[string][]string{}
		for _, r := range rc.Acked() {
			ref := r.Payload(t).References.SubscriptionReference
			out[ref] = append(out[ref], r.EventIDs(t)...)
		}
		return out
	}
	// Each subscription's events come in order: once its last is there,
	// anything more would be before it.
	testkit.Wait(t, 20*time.Second, "each subscription's last event", func() (bool, any) {
		g := got()
		for ref, w := range want {
			if n := len(g[ref]); n == 0 || g[ref][n-1] != w[len(w)-1] {
				return false, g
			}
		}
		return true, g
	})
	g := got()
	for ref, w := range want {
		if !slices.Equal(g[ref], w) {
			t.Errorf("%s got %v, want %v", ref, g[ref], w)
		}
	}
}
