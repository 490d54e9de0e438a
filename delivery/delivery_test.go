package delivery_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/reference"
	"github.com/contrack/contrack/schemas/deliveries"

	"github.com/contrack/contrack/delivery"
	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/signature"
)

// The body is exactly the spec's payload, and both signatures verify in the
// receiver, which sees the headers a Standard Webhooks library expects.
func TestPayloadShapeAndSignatures(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, nil)
	acct := h.Account("sandbox")
	secret := h.Webhook(acct, rc.URL+"/hooks", true)
	s := h.Subscribe(acct, "ref-1")
	h.Start(dt.Config())
	h.Produce(s, "ev-1")

	testkit.Eventually(t, 15*time.Second, "a delivery", func() bool { return len(rc.Acked()) == 1 })
	r := rc.Requests()[0]
	want := `{"references":{"subscriptionReference":"ref-1","equipmentNumber":"` + s.Container + `","billNumber":"","bookingNumber":"","scacCode":"MAEU"},` +
		`"events":[` + string(dt.Event("ev-1", s.Container)) + `]}`
	if string(r.Body) != want {
		t.Fatalf("body\n got %s\nwant %s", r.Body, want)
	}
	if err := dt.Verify(secret, r.Header, r.Body); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 5*time.Second, "the delivery recorded", func() bool {
		d := h.Deliveries(s.ID)
		return len(d) == 1 && d[0].Status == deliveries.StatusDelivered
	})
	d := h.Deliveries(s.ID)
	if len(d) != 1 || d[0].Attempts != 1 || d[0].Events != 1 {
		t.Fatalf("deliveries %+v", d)
	}
	if r.WebhookID() != d[0].ID {
		t.Errorf("webhook-id %q, want the delivery id %q", r.WebhookID(), d[0].ID)
	}
	if got := r.Header.Get("User-Agent"); got != "contrack-webhooks/test" {
		t.Errorf("User-Agent %q", got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
}

// Our payload encoding reproduces the shared Standard Webhooks vector's body
// byte for byte from its parts, and signing it gives the vector's two
// signatures: a receiver verifying with the Standard Webhooks library
// accepts what we send.
func TestStandardWebhooksVector(t *testing.T) {
	raw, err := os.ReadFile(reference.StandardWebhooksVector())
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Secret    string `json:"secret"`
		ID        string `json:"webhook-id"`
		Timestamp string `json:"webhook-timestamp"`
		Body      string `json:"body"`
		Signature string `json:"webhook-signature"`
		Hook      string `json:"X-Hook-Signature"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var p deliveries.Payload
	if err := json.Unmarshal([]byte(v.Body), &p); err != nil {
		t.Fatal(err)
	}
	body, err := deliveries.EncodePayload(p.References, p.Events)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != v.Body {
		t.Fatalf("encoded payload\n got %s\nwant %s", body, v.Body)
	}
	sec, _ := strconv.ParseInt(v.Timestamp, 10, 64)
	hdr, err := signature.Headers(v.Secret, v.ID, time.Unix(sec, 0), body)
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Get("webhook-signature") != v.Signature || hdr.Get("X-Hook-Signature") != v.Hook {
		t.Fatalf("signatures %q %q, want %q %q", hdr.Get("webhook-signature"), hdr.Get("X-Hook-Signature"), v.Signature, v.Hook)
	}
	// And the test's own verifier (the receivers' check) agrees with the vector.
	hdr.Set("webhook-timestamp", strconv.FormatInt(time.Now().Unix(), 10))
	std, _ := signature.StandardSignature(v.Secret, v.ID, time.Now(), body)
	hdr.Set("webhook-signature", std)
	if err := dt.Verify(v.Secret, hdr, body); err != nil {
		t.Fatal(err)
	}
}

// A receiver failing three times then succeeding gets every event once
// acknowledged, in order; every attempt of a delivery carries the same
// webhook-id and body; every attempt is in the ClickHouse log.
func TestRetriesUntilAcknowledged(t *testing.T) {
	h := dt.New(t, true)
	rc := dt.NewReceiver(t, func(n int, _ *http.Request) int {
		if n < 3 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	acct := h.Account("sandbox")
	secret := h.Webhook(acct, rc.URL, true)
	s := h.Subscribe(acct, "ref-retry")
	cfg := dt.Config()
	cfg.Schedule = []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}
	h.Start(cfg)
	h.Produce(s, "e1", "e2", "e3")

	testkit.Eventually(t, 15*time.Second, "all events acknowledged", func() bool { return len(rc.AckedEvents(t)) >= 3 })
	// Nothing more may come: a sentinel event after them, delivered in order,
	// shows that no repeat of e1..e3 was still on its way.
	h.Produce(s, "sentinel")
	testkit.Eventually(t, 15*time.Second, "the sentinel acknowledged", func() bool { return slices.Contains(rc.AckedEvents(t), "sentinel") })
	if got := rc.AckedEvents(t); !slices.Equal(got, []string{"e1", "e2", "e3", "sentinel"}) {
		t.Fatalf("acknowledged events %v, want [e1 e2 e3 sentinel] once each, in order", got)
	}
	reqs := rc.Requests()
	bodies := map[string]string{}
	for i, r := range reqs {
		if err := dt.Verify(secret, r.Header, r.Body); err != nil {
			t.Errorf("request %d: %v", i, err)
		}
		if b, ok := bodies[r.WebhookID()]; ok && b != string(r.Body) {
			t.Errorf("webhook-id %s sent with two bodies", r.WebhookID())
		}
		bodies[r.WebhookID()] = string(r.Body)
	}
	// The first three attempts failed: they and the fourth are one delivery.
	for i := 1; i <= 3; i++ {
		if reqs[i].WebhookID() != reqs[0].WebhookID() {
			t.Errorf("attempt %d has webhook-id %s, attempt 1 %s", i+1, reqs[i].WebhookID(), reqs[0].WebhookID())
		}
	}
	// The receiver answers before the stage records the answer.
	testkit.Eventually(t, 15*time.Second, "every delivery recorded as delivered", func() bool {
		for _, d := range h.Deliveries(s.ID) {
			if d.Status != deliveries.StatusDelivered {
				return false
			}
		}
		return true
	})
	ds := h.Deliveries(s.ID)
	attempts := 0
	for _, d := range ds {
		if d.Status != deliveries.StatusDelivered {
			t.Errorf("delivery %+v not delivered", d)
		}
		attempts += d.Attempts
	}
	if ds[0].Attempts != 4 || *ds[0].LastCode != 200 {
		t.Errorf("first delivery %+v, want 4 attempts, last 200", ds[0])
	}
	if attempts != len(reqs) {
		t.Errorf("%d attempts recorded, %d requests received", attempts, len(reqs))
	}

	// The ClickHouse log has one row per attempt.
	type logRow struct {
		ID      string
		Attempt uint16
		Code    uint16
		Outcome string
	}
	var got []logRow
	testkit.Eventually(t, 10*time.Second, "attempts in clickhouse", func() bool {
		rows, err := h.CH.Conn.Query(context.Background(),
			`SELECT delivery_id, attempt, status_code, outcome FROM delivery_attempts FINAL WHERE account_id = ? ORDER BY at, delivery_id, attempt`, acct)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		got = got[:0]
		for rows.Next() {
			var r logRow
			if err := rows.Scan(&r.ID, &r.Attempt, &r.Code, &r.Outcome); err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		return len(got) == len(reqs)
	})
	for i := 0; i < 4; i++ {
		want := logRow{ID: ds[0].ID, Attempt: uint16(i + 1), Code: 500, Outcome: delivery.OutcomeHTTPError}
		if i == 3 {
			want.Code, want.Outcome = 200, delivery.OutcomeDelivered
		}
		if !slices.Contains(got, want) {
			t.Errorf("attempt log %+v lacks %+v", got, want)
		}
	}
	// The metrics, as Prometheus scrapes them.
	srv := httptest.NewServer(h.Metrics.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	exposition, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`contrack_delivery_attempts_total{outcome="http_error"} 3`,
		`contrack_delivery_attempts_total{outcome="delivered"} ` + strconv.Itoa(len(ds)),
		`contrack_delivery_deliveries_total{status="DELIVERED"} ` + strconv.Itoa(len(ds)),
		`contrack_delivery_attempt_duration_seconds_count ` + strconv.Itoa(len(reqs)),
		`contrack_delivery_breakers{state="open"} 0`,
		`contrack_delivery_breakers{state="half_open"} 0`,
		`contrack_delivery_slow_attempts 0`,
		`contrack_delivery_queue_depth{state="pending"}`,
	} {
		if !strings.Contains(string(exposition), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// No label names a tenant: neither the webhook's host nor the account.
	host := strings.TrimPrefix(rc.URL, "http://")
	for _, secret := range []string{host, "127.0.0.1", acct} {
		if strings.Contains(string(exposition), secret) {
			t.Errorf("metrics expose %q", secret)
		}
	}
}

// Events are queued once per subscription however often the record comes;
// an update (same event id, new content hash) is delivered again; accounts
// whose webhook is not activated, and closed subscriptions, get nothing.
func TestFanOut(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, nil)
	other := dt.NewReceiver(t, nil)
	acct := h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	inactive := h.Account("sandbox")
	h.Webhook(inactive, other.URL, false)
	noHook := h.Account("sandbox")

	a := h.Subscribe(acct, "a")
	b := dt.Sub{ID: "00000000-0000-4000-8000-00000000000b", Tracking: a.Tracking, Account: acct, Ref: "b", Container: a.Container}
	h.SubscribeTracking(b) // a second subscription on the same tracking
	closed := dt.Sub{ID: "00000000-0000-4000-8000-00000000000c", Tracking: a.Tracking, Account: acct, Ref: "c", Container: a.Container}
	h.SubscribeTracking(closed)
	h.Exec(`UPDATE subscriptions SET status = 'CLOSED' WHERE id = $1`, closed.ID)
	i := h.Subscribe(inactive, "i")
	n := h.Subscribe(noHook, "n")

	h.Partitions = 1 // one partition: the sentinel comes after every record before it
	h.Start(dt.Config())
	h.Produce(a, "x", "x", "y")
	h.Produce(a, "x")       // redelivered
	h.Produce(a, "x#h2")    // updated
	h.Produce(i, "z", "z2") // not activated
	h.Produce(n, "w")       // no webhook
	h.Produce(a, "sentinel")

	// Once the sentinel reached both subscriptions, every record before it
	// was handled: what has not come by then was not sent.
	testkit.Eventually(t, 15*time.Second, "deliveries to both subscriptions", func() bool { return len(rc.AckedEvents(t)) >= 8 })
	perRef := map[string][]string{}
	for _, r := range rc.Acked() {
		ref := r.Payload(t).References.SubscriptionReference
		perRef[ref] = append(perRef[ref], r.EventIDs(t)...)
	}
	for _, ref := range []string{"a", "b"} {
		if !slices.Equal(perRef[ref], []string{"x", "y", "x", "sentinel"}) {
			t.Errorf("subscription %s got %v, want [x y x sentinel] (x, y, then x's update)", ref, perRef[ref])
		}
	}
	if len(perRef) != 2 {
		t.Errorf("deliveries for %v, want only a and b", perRef)
	}
	if len(other.Requests()) != 0 {
		t.Errorf("the inactive webhook got %d requests", len(other.Requests()))
	}
	if q := h.Count(`SELECT count(*) FROM delivery_queue_events WHERE subscription_id = ANY($1::uuid[])`, []string{closed.ID, i.ID, n.ID}); q != 0 {
		t.Errorf("%d events queued for subscriptions that get no pushes", q)
	}
}

// Events that pile up while a delivery is in flight go out batched, at most
// MaxBatchEvents and MaxBatchBytes per delivery, in order.
func TestBatching(t *testing.T) {
	h := dt.New(t, false)
	release := make(chan struct{})
	rc := dt.NewReceiver(t, func(n int, _ *http.Request) int {
		if n == 0 {
			<-release
		}
		return 200
	})
	acct := h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	s := h.Subscribe(acct, "batch")
	cfg := dt.Config()
	cfg.MaxBatchEvents = 10
	cfg.MaxBatchBytes = 6 * len(dt.Event("e000", s.Container)) // six events by size
	h.Start(cfg)
	h.Produce(s, "e000")
	testkit.Eventually(t, 15*time.Second, "the first delivery in flight", func() bool { return len(rc.Requests()) == 1 })
	var ids []string
	for i := 1; i <= 30; i++ {
		ids = append(ids, "e"+strings.Repeat("0", 3-len(strconv.Itoa(i)))+strconv.Itoa(i))
	}
	h.Produce(s, ids...)
	testkit.Eventually(t, 15*time.Second, "events queued", func() bool {
		return h.Count(`SELECT count(*) FROM delivery_queue_events WHERE subscription_id = $1`, s.ID) == 31
	})
	testkit.Eventually(t, 5*time.Second, "the queue depth gauges", func() bool {
		return h.Metrics.QueueDepth("queued_events") == 30 && h.Metrics.QueueDepth("pending") == 1
	})
	close(release)
	testkit.Eventually(t, 15*time.Second, "every event delivered", func() bool { return len(rc.AckedEvents(t)) == 31 })
	if got := rc.AckedEvents(t); !slices.Equal(got, append([]string{"e000"}, ids...)) {
		t.Fatalf("events out of order: %v", got)
	}
	// What the contract promises, whatever the scheduler made of it: the
	// waiting events go out batched, none over the size limit.
	var sizes []int
	for _, r := range rc.Acked() {
		sizes = append(sizes, len(r.EventIDs(t)))
	}
	if sizes[0] != 1 || slices.Max(sizes[1:]) > 6 || slices.Max(sizes[1:]) < 2 {
		t.Errorf("batch sizes %v, want the first alone, then batches of 2 to 6 events (MaxBatchBytes)", sizes)
	}

	// By count.
	h2 := dt.New(t, false)
	release2 := make(chan struct{})
	rc2 := dt.NewReceiver(t, func(n int, _ *http.Request) int {
		if n == 0 {
			<-release2
		}
		return 200
	})
	acct2 := h2.Account("sandbox")
	h2.Webhook(acct2, rc2.URL, true)
	s2 := h2.Subscribe(acct2, "batch2")
	cfg.MaxBatchBytes = 0
	h2.Start(cfg)
	h2.Produce(s2, ids...)
	testkit.Eventually(t, 15*time.Second, "events queued", func() bool {
		return h2.Count(`SELECT count(*) FROM delivery_queue_events WHERE subscription_id = $1`, s2.ID) == 30
	})
	close(release2)
	testkit.Eventually(t, 15*time.Second, "every event delivered", func() bool { return len(rc2.AckedEvents(t)) == 30 })
	if got := rc2.AckedEvents(t); !slices.Equal(got, ids) {
		t.Fatalf("events out of order: %v", got)
	}
	sizes = sizes[:0]
	for _, r := range rc2.Acked() {
		sizes = append(sizes, len(r.EventIDs(t)))
	}
	// Thirty events waited: they go out batched, none over MaxBatchEvents.
	if slices.Max(sizes) > 10 || slices.Max(sizes) < 2 {
		t.Errorf("batch sizes %v, want batches of 2 to 10 events (MaxBatchEvents)", sizes)
	}
}

// A 410 Gone deactivates the webhook: nothing more is sent or queued until
// it is activated again, and then the parked delivery goes out.
func TestGoneDeactivatesWebhook(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, func(int, *http.Request) int { return http.StatusGone })
	acct := h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	s := h.Subscribe(acct, "gone")
	sentinelRC := dt.NewReceiver(t, nil)
	other := h.Account("sandbox")
	h.Webhook(other, sentinelRC.URL, true)
	sentinel := h.Subscribe(other, "sentinel")
	h.Partitions = 1 // one partition: the sentinel comes after g2
	h.Start(dt.Config())
	h.Produce(s, "g1")
	testkit.Eventually(t, 15*time.Second, "the webhook deactivated", func() bool {
		return h.Count(`SELECT count(*) FROM webhooks WHERE account_id = $1 AND NOT activated`, acct) == 1
	})
	h.Produce(s, "g2")
	// A sentinel for another account after g2, on the one partition: once it
	// is delivered, g2 was handled too.
	h.Produce(sentinel, "sentinel")
	testkit.Eventually(t, 15*time.Second, "the sentinel delivered", func() bool { return len(sentinelRC.Acked()) == 1 })
	if n := len(rc.Requests()); n != 1 {
		t.Fatalf("%d requests after 410, want 1", n)
	}
	d := h.Deliveries(s.ID)
	if len(d) != 1 || d[0].Status != deliveries.StatusFailed || *d[0].LastCode != 410 {
		t.Fatalf("deliveries %+v, want one parked FAILED with 410", d)
	}
	if q := h.Count(`SELECT count(*) FROM delivery_queue_events WHERE subscription_id = $1`, s.ID); q != 1 {
		t.Errorf("%d events queued, want only g1 (g2 came while deactivated)", q)
	}
	// Re-activated (POST /webhook/activate): the parked delivery goes out.
	rc.SetAnswer(nil)
	h.Exec(`UPDATE webhooks SET activated = true WHERE account_id = $1`, acct)
	testkit.Eventually(t, 15*time.Second, "the parked delivery", func() bool { return len(rc.Acked()) == 1 })
	if got := rc.AckedEvents(t); !slices.Equal(got, []string{"g1"}) {
		t.Errorf("acknowledged %v", got)
	}
}
