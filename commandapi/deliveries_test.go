package commandapi

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/google/uuid"

	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas/deliveries"
)

// A receiver down for the whole (short) schedule: the delivery ends DEAD;
// POST /webhook/deliveries/{id}/retry delivers it once the receiver is back,
// with the same webhook-id. Unknown, malformed and foreign ids are 404;
// a delivery that is not dead is 400.
func TestRetryDeadDelivery(t *testing.T) {
	db := testenv.Postgres(t)
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		a, err := newAPI(Config{}, Deps{Pool: db.Pool})
		if err != nil {
			t.Fatal(err)
		}
		registerDeliveries(s, a)
	})
	key, k, err := api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	otherKey := api.Key(auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})

	h := dt.NewOn(t, db, false)
	rc := dt.NewReceiver(t, func(int, *http.Request) int { return http.StatusServiceUnavailable })
	h.Webhook(k.Account.ID, rc.URL, true)
	s := h.Subscribe(k.Account.ID, "ref-dead")
	cfg := dt.Config()
	cfg.Schedule = []time.Duration{10 * time.Millisecond, 10 * time.Millisecond}
	h.Start(cfg)
	h.Produce(s, "e1")
	testkit.Eventually(t, 15*time.Second, "the delivery dead-lettered", func() bool {
		d := h.Deliveries(s.ID)
		return len(d) == 1 && d[0].Status == deliveries.StatusDead
	})
	id := h.Deliveries(s.ID)[0].ID
	if n := len(rc.Requests()); n != 3 {
		t.Fatalf("%d attempts before dead-lettering, want 3", n)
	}

	for _, c := range []struct{ name, key, id string }{
		{"unknown id", key, uuid.NewString()},
		{"malformed id", key, "not-a-delivery"},
		{"another account's delivery", otherKey, id},
	} {
		r := api.Do("POST", "/webhook/deliveries/"+c.id+"/retry", c.key, nil)
		if r.Status != 404 || r.Message() != "Delivery not found" {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Raw)
		}
	}
	if r := api.Do("POST", "/webhook/deliveries/"+id+"/retry", "", nil); r.Status != 403 || r.Message() != "Forbidden" {
		t.Errorf("no key: %d %s", r.Status, r.Raw)
	}
	if len(rc.Requests()) != 3 {
		t.Fatal("a refused retry sent the delivery")
	}

	rc.SetAnswer(nil) // the receiver is back
	r := api.Do("POST", "/webhook/deliveries/"+id+"/retry", key, nil)
	if r.Status != 200 || r.Message() != "Delivery queued for retry" || r.JSON["id"] != id || r.JSON["status"] != "PENDING" {
		t.Fatalf("retry: %d %s", r.Status, r.Raw)
	}
	testkit.Eventually(t, 15*time.Second, "the replayed delivery", func() bool { return len(rc.Acked()) == 1 })
	got := rc.Acked()[0]
	if got.WebhookID() != id || string(got.Body) != string(rc.Requests()[0].Body) {
		t.Errorf("replay sent webhook-id %s body %s; first attempt %s %s", got.WebhookID(), got.Body, id, rc.Requests()[0].Body)
	}
	testkit.Eventually(t, 5*time.Second, "the replay recorded", func() bool { return h.Deliveries(s.ID)[0].Status == deliveries.StatusDelivered })
	if d := h.Deliveries(s.ID)[0]; d.Attempts != 4 {
		t.Errorf("attempts %d, want 4 (3 before dead-lettering, kept)", d.Attempts)
	}
	if r := api.Do("POST", "/webhook/deliveries/"+id+"/retry", key, nil); r.Status != 400 || r.Message() != "Delivery is not dead-lettered" {
		t.Errorf("retrying a delivered delivery: %d %s", r.Status, r.Raw)
	}
}
