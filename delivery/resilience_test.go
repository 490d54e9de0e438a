package delivery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/delivery"
	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/deliveries"
)

// A slow endpoint (3 s per answer) with a backlog does not delay another
// endpoint's deliveries: the fast one's events arrive within a few
// milliseconds of being produced.
func TestSlowEndpointDoesNotDelayOthers(t *testing.T) {
	h := dt.New(t, false)
	slow := dt.NewReceiver(t, func(int, *http.Request) int { time.Sleep(3 * time.Second); return 200 }) // the slow endpoint under test
	fast := dt.NewReceiver(t, nil)
	slowAcct, fastAcct := h.Account("sandbox"), h.Account("sandbox")
	h.Webhook(slowAcct, slow.URL, true)
	h.Webhook(fastAcct, fast.URL, true)
	var slowSubs, fastSubs []dt.Sub
	for i := 0; i < 20; i++ {
		slowSubs = append(slowSubs, h.Subscribe(slowAcct, "slow-"+strconv.Itoa(i)))
		fastSubs = append(fastSubs, h.Subscribe(fastAcct, "fast-"+strconv.Itoa(i)))
	}
	cfg := dt.Config()
	cfg.Workers, cfg.EndpointConcurrency = 8, 4
	cfg.PollInterval = time.Second // only signals wake the claimer quickly
	h.Start(cfg)
	// Warm up (group join), then load the slow endpoint: 20 deliveries, 4 at a time.
	h.Produce(fastSubs[0], "warm")
	testkit.Eventually(t, 15*time.Second, "warm-up", func() bool { return len(fast.Acked()) == 1 })
	for _, s := range slowSubs {
		h.Produce(s, "slow-ev")
	}
	testkit.Eventually(t, 5*time.Second, "the slow endpoint busy", func() bool { return len(slow.Requests()) == 4 })

	var lat []time.Duration
	for i, s := range fastSubs[1:] {
		start := time.Now()
		h.Produce(s, "fast-ev")
		testkit.Eventually(t, 5*time.Second, "fast delivery", func() bool { return len(fast.Acked()) == i+2 })
		lat = append(lat, fast.Acked()[i+1].At.Sub(start))
	}
	slices.Sort(lat)
	t.Logf("fast endpoint, produce → received while the slow one is saturated: p50 %s, max %s", lat[len(lat)/2], lat[len(lat)-1])
	if lat[len(lat)-1] > 500*time.Millisecond {
		t.Errorf("a fast delivery took %s behind a slow endpoint", lat[len(lat)-1])
	}
	if n := len(slow.Requests()); n > 8 {
		t.Errorf("slow endpoint got %d requests in ~3 s with 4 in flight at most", n)
	}
}

// A failing endpoint's breaker opens after BreakerFailures failures:
// requests stop reaching it and no attempts are spent; after the breaker's
// timeout a probe goes through, and once the endpoint recovers the
// breaker closes and the waiting deliveries go out.
func TestBreakerOpensAndCloses(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, func(int, *http.Request) int { return 500 })
	acct := h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	var subs []dt.Sub
	for i := 0; i < 5; i++ {
		subs = append(subs, h.Subscribe(acct, "b"+strconv.Itoa(i)))
	}
	cfg := dt.Config()
	cfg.EndpointConcurrency = 1
	cfg.Schedule = slices.Repeat([]time.Duration{10 * time.Millisecond}, 50)
	cfg.BreakerFailures = 3
	cfg.BreakerTimeout = 800 * time.Millisecond
	h.Start(cfg)
	for _, s := range subs {
		h.Produce(s, "ev")
	}
	testkit.Eventually(t, 15*time.Second, "the breaker open", func() bool { return h.Metrics.Breakers("open") == 1 })
	opened := time.Now()
	n := len(rc.Requests())
	if n != 3 {
		t.Errorf("%d requests before the breaker opened, want 3", n)
	}
	rc.SetAnswer(nil) // recovered
	testkit.Eventually(t, 15*time.Second, "every delivery after recovery", func() bool { return len(rc.Acked()) == len(subs) })
	// Nothing reached the endpoint while its breaker was open: the first
	// request after the n that opened it is the probe, a breaker timeout
	// (800 ms) later; a request let through while open would come within
	// the 10 ms retry schedule.
	reqs := rc.Requests()
	if gap := reqs[n].At.Sub(opened); gap < 300*time.Millisecond {
		t.Errorf("request %d came %s after opening, before the breaker timeout: the open breaker let it through", n+1, gap)
	}
	if o, ho := h.Metrics.Breakers("open"), h.Metrics.Breakers("half_open"); o != 0 || ho != 0 {
		t.Errorf("%v open and %v half-open breakers after recovery, want none", o, ho)
	}
	testkit.Eventually(t, 5*time.Second, "every delivery recorded", func() bool {
		return h.Count(`SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'`) == len(subs)
	})
	// Every attempt recorded is a request made: none was spent while open.
	if a, made := h.Count(`SELECT coalesce(sum(attempts), 0) FROM deliveries`), len(rc.Requests()); a != made {
		t.Errorf("%d attempts recorded, %d requests made: attempts were spent while open", a, made)
	}
	for _, s := range subs {
		if d := h.Deliveries(s.ID); len(d) != 1 || d[0].Status != deliveries.StatusDelivered {
			t.Errorf("subscription %s: %+v", s.Ref, d)
		}
	}
}

// A receiver down for the whole schedule: the delivery ends DEAD, is
// published on the dead-letter topic, the subscription's next events go
// out after it, and Replay sends it again (same webhook-id and body).
func TestDeadLetterAndReplay(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, func(int, *http.Request) int { return 503 })
	acct := h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	s := h.Subscribe(acct, "dead")
	cfg := dt.Config()
	cfg.Schedule = []time.Duration{10 * time.Millisecond, 10 * time.Millisecond}
	h.Start(cfg)
	h.Produce(s, "d1")
	testkit.Eventually(t, 15*time.Second, "the delivery dead", func() bool {
		d := h.Deliveries(s.ID)
		return len(d) == 1 && d[0].Status == deliveries.StatusDead
	})
	if n := len(rc.Requests()); n != 3 {
		t.Errorf("%d attempts, want 3 (1 + 2 retries)", n)
	}
	dead := h.Deliveries(s.ID)[0]

	// On the dead-letter topic.
	cl := testenv.KafkaClient(t, h.Brokers(), kgo.ConsumeTopics(h.Kafka().Topic(schemas.TopicDeliveryDeadLetters)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
	defer cancel()
	var rec *kgo.Record
	for rec == nil && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { rec = r })
	}
	if rec == nil {
		t.Fatal("no dead letter published")
	}
	var dl struct {
		ID        string          `json:"id"`
		Reference string          `json:"subscriptionReference"`
		Attempts  int             `json:"attempts"`
		LastCode  int             `json:"lastHttpCode"`
		Payload   json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(rec.Value, &dl); err != nil {
		t.Fatal(err)
	}
	if dl.ID != dead.ID || dl.Reference != "dead" || dl.Attempts != 3 || dl.LastCode != 503 ||
		kafka.Header(rec, schemas.HeaderType) != delivery.TypeDeadDelivery || !strings.Contains(string(dl.Payload), `"d1"`) {
		t.Errorf("dead letter %s headers %v", rec.Value, rec.Headers)
	}

	// The ordered stream moves on past the dead delivery.
	rc.SetAnswer(nil)
	h.Produce(s, "d2")
	testkit.Eventually(t, 15*time.Second, "the next event", func() bool { return slices.Equal(rc.AckedEvents(t), []string{"d2"}) })

	// Replay: sent again with the same id and body, attempts continue.
	if err := deliveries.Replay(context.Background(), h.DB.Pool, acct, dead.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 15*time.Second, "the replayed delivery", func() bool { return len(rc.Acked()) == 2 })
	reqs := rc.Requests()
	last := rc.Acked()[1]
	if last.WebhookID() != dead.ID || string(last.Body) != string(reqs[0].Body) {
		t.Errorf("replay sent %s %s, want %s %s", last.WebhookID(), last.Body, dead.ID, reqs[0].Body)
	}
	testkit.Eventually(t, 5*time.Second, "the replay recorded", func() bool { return h.Deliveries(s.ID)[0].Status == deliveries.StatusDelivered })
	d := h.Deliveries(s.ID)[0]
	if d.Attempts != 4 || !d.Replayed {
		t.Errorf("replayed delivery %+v, want DELIVERED after 4 attempts", d)
	}
	if err := deliveries.Replay(context.Background(), h.DB.Pool, acct, dead.ID, time.Now()); err != deliveries.ErrNotDead {
		t.Errorf("replaying a delivered delivery: %v", err)
	}
	if err := deliveries.Replay(context.Background(), h.DB.Pool, h.Account("sandbox"), dead.ID, time.Now()); err != deliveries.ErrNotFound {
		t.Errorf("replaying another account's delivery: %v", err)
	}
	if err := deliveries.Replay(context.Background(), h.DB.Pool, acct, "not-a-uuid", time.Now()); err != deliveries.ErrNotFound {
		t.Errorf("replaying a malformed id: %v", err)
	}
}

// Stopping the stage mid-delivery and starting it again, repeatedly, while
// events keep coming: every event is acknowledged, in order per
// subscription, and the only duplicates are whole deliveries sent again
// with the same webhook-id and body (at least once).
func TestRestartLosesNothing(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, func(n int, _ *http.Request) int {
		time.Sleep(150 * time.Millisecond) // a slow endpoint: stops catch attempts in flight
		if n%7 == 3 {
			return 500
		}
		return 200
	})
	acct := h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	var subs []dt.Sub
	for i := 0; i < 6; i++ {
		subs = append(subs, h.Subscribe(acct, "r"+strconv.Itoa(i)))
	}
	cfg := dt.Config()
	cfg.ShutdownGrace = 50 * time.Millisecond // most stops abandon attempts in flight
	want := map[string][]string{}
	var produced sync.WaitGroup
	produced.Add(1)
	go func() {
		defer produced.Done()
		for round := 0; round < 10; round++ {
			for _, s := range subs {
				id := fmt.Sprintf("%s-%02d", s.Ref, round)
				h.Produce(s, id)
				want[s.Ref] = append(want[s.Ref], id)
			}
			time.Sleep(60 * time.Millisecond) // events keep coming across the restarts
		}
	}()
	for cycle := 0; cycle < 4; cycle++ {
		stop := h.Start(cfg)
		time.Sleep(time.Duration(400+150*cycle) * time.Millisecond) // run for a while, then stop mid-delivery
		stop()
	}
	produced.Wait()
	h.Start(cfg)
	testkit.Eventually(t, 30*time.Second, "every event acknowledged", func() bool {
		got := map[string]bool{}
		for _, r := range rc.Acked() {
			for _, id := range r.EventIDs(t) {
				got[id] = true
			}
		}
		return len(got) == 60
	})
	// Nothing more may come: a sentinel event per subscription, delivered
	// in order after its events, shows no repeat was still on its way.
	for _, s := range subs {
		h.Produce(s, s.Ref+"-sentinel")
		want[s.Ref] = append(want[s.Ref], s.Ref+"-sentinel")
	}
	testkit.Eventually(t, 30*time.Second, "every sentinel acknowledged", func() bool {
		n := 0
		for _, r := range rc.Acked() {
			for _, id := range r.EventIDs(t) {
				if strings.HasSuffix(id, "-sentinel") {
					n++
				}
			}
		}
		return n >= len(subs)
	})

	bodyOf := map[string]string{}     // webhook-id → body
	deliveryOf := map[string]string{} // event → webhook-id
	perRef := map[string][]string{}
	seenAck := map[string]bool{}
	dups := 0
	for _, r := range rc.Requests() {
		id := r.WebhookID()
		if b, ok := bodyOf[id]; ok && b != string(r.Body) {
			t.Errorf("webhook-id %s sent with different bodies", id)
		}
		bodyOf[id] = string(r.Body)
		for _, ev := range r.EventIDs(t) {
			if w, ok := deliveryOf[ev]; ok && w != id {
				t.Errorf("event %s in deliveries %s and %s", ev, w, id)
			}
			deliveryOf[ev] = id
		}
		if r.Status != 200 {
			continue
		}
		if seenAck[id] {
			dups++
			continue
		}
		seenAck[id] = true
		p := r.Payload(t)
		perRef[p.References.SubscriptionReference] = append(perRef[p.References.SubscriptionReference], r.EventIDs(t)...)
	}
	for ref, ids := range want {
		if !slices.Equal(perRef[ref], ids) {
			t.Errorf("subscription %s acknowledged %v, want %v", ref, perRef[ref], ids)
		}
	}
	t.Logf("%d requests, %d deliveries acknowledged, %d acknowledged twice (same webhook-id)", len(rc.Requests()), len(seenAck), dups)
	// The receiver answers before the stage records the answer.
	testkit.Eventually(t, 15*time.Second, "every delivery recorded as delivered", func() bool {
		return h.Count(`SELECT count(*) FROM deliveries WHERE status <> 'DELIVERED'`) == 0
	})
}

// A 429 with Retry-After pushes the next attempt back past the (shorter)
// schedule wait; the attempt still counts.
func TestRetryAfterHonoured(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, func(n int, _ *http.Request) int {
		if n == 0 {
			return http.StatusTooManyRequests
		}
		return 200
	})
	rc.SetHeader("Retry-After", "1")
	acct := h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	s := h.Subscribe(acct, "busy")
	h.Start(dt.Config()) // schedule: 20 ms
	h.Produce(s, "ra")
	testkit.Eventually(t, 15*time.Second, "the retry", func() bool { return len(rc.Acked()) == 1 })
	reqs := rc.Requests()
	if gap := reqs[1].At.Sub(reqs[0].At); gap < 900*time.Millisecond || gap > 3*time.Second {
		t.Errorf("retried %s after a 429 with Retry-After: 1", gap)
	}
}

// A delivery leased by a process that crashed (its lease never released)
// is sent once the lease expires, with its webhook-id.
func TestExpiredLeaseIsSentAgain(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, nil)
	acct := h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	s := h.Subscribe(acct, "crashed")
	id := "7b1f3f0e-6a3e-4d55-9a53-0e2f5d7c9b11"
	// What a crashed sender leaves: a delivery leased for another second.
	h.Exec(`WITH q AS (
			INSERT INTO delivery_queue (subscription_id, event_count, bytes, enqueued_at, event_ids, content_hashes, emitted_at, events, traceparents)
			VALUES ($3, 1, octet_length($4), now(), '{lost}', '{h1}', ARRAY[now()], ARRAY[$4::bytea], '{""}') RETURNING id)
		INSERT INTO deliveries (id, account_id, subscription_id, status, event_count, queue_from, queue_to, next_attempt_at,
			lease_until, lease_token, created_at, updated_at)
		SELECT $1, $2, $3, 'PENDING', 1, q.id, q.id, now(), now() + interval '1 second', gen_random_uuid(), now(), now() FROM q`,
		id, acct, s.ID, []byte(dt.Event("lost", s.Container)))
	start := time.Now()
	h.Start(dt.Config())
	testkit.Eventually(t, 15*time.Second, "the delivery sent again", func() bool { return len(rc.Acked()) == 1 })
	r := rc.Acked()[0]
	if r.WebhookID() != id || !slices.Equal(r.EventIDs(t), []string{"lost"}) {
		t.Errorf("sent %s %v", r.WebhookID(), r.EventIDs(t))
	}
	if waited := r.At.Sub(start); waited < 700*time.Millisecond {
		t.Errorf("sent %s after start, before the lease expired", waited)
	}
}
