package poller_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/commandapi/lifecycle"
	"github.com/contrack/contrack/commandapi/relay"
	"github.com/contrack/contrack/commandapi/subscription"
	"github.com/contrack/contrack/ingest/poller"
	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/tnt22"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas/carriers"
)

// pipeline is the command side (API, outbox relay, subscription lifecycle)
// and the poller over one Postgres and a one-partition subscriptions topic,
// so subscription changes reach the poller in commit order.
type pipeline struct {
	*world
	api *testenv.API
	key string
	sim *sim
}

func newPipeline(t *testing.T) *pipeline { return newPipelineWith(t, sandbox.Config{}) }

// newPipelineWith is newPipeline with the sandbox carriers configured as cfg.
func newPipelineWith(t *testing.T, cfg sandbox.Config) *pipeline {
	w := newWorld(t, 1)
	s := newSimWith(t, cfg)
	api := testenv.NewAPI(t, w.db.Pool, func(srv *fuego.Server) {
		commandapi.Register(srv, commandapi.Config{}, commandapi.Deps{Pool: w.db.Pool, Box: w.box, Log: testenv.Log(t)})
	})
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"}) // the world's account
	w.credentials(t, "MAEU", map[string]string{"apiKey": "k"})
	ctx, cancel := context.WithCancel(context.Background())
	relayDone, lifeDone := make(chan error, 1), make(chan error, 1)
	go func() {
		relayDone <- relay.Run(ctx, relay.Config{Idle: 50 * time.Millisecond},
			relay.Deps{Pool: w.db.Pool, Producer: w.prod, Namespace: w.kc.NS, Log: testenv.Log(t)})
	}()
	go func() {
		lifeDone <- lifecycle.Run(ctx, lifecycle.Config{Every: 100 * time.Millisecond},
			lifecycle.Deps{Pool: w.db.Pool, Log: testenv.Log(t)})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-relayDone; err != nil {
			t.Errorf("relay: %v", err)
		}
		if err := <-lifeDone; err != nil {
			t.Errorf("lifecycle: %v", err)
		}
	})
	p := &pipeline{world: w, api: api, key: key, sim: s}
	pcfg := fastConfig()
	pcfg.Interval = map[string]time.Duration{"sandbox": 300 * time.Millisecond}
	pcfg.MinInterval = 100 * time.Millisecond // the parsers bring polls forward no sooner
	runWith(t, w, s, pcfg, func(d *poller.Deps) {
		d.Parsers = map[carriers.Format]normalize.Parser{carriers.FormatTNT22: tnt22.Parse}
	})
	return p
}

func (p *pipeline) subscribe(t *testing.T, ref, container string) {
	t.Helper()
	r := p.api.Do(http.MethodPost, "/subscription/equipment", p.key, map[string]string{
		"scacCode": "MAEU", "containerNumber": container, "subscriptionReference": ref})
	if r.Status != 200 {
		t.Fatalf("subscribe %s: %d %s", ref, r.Status, r.Raw)
	}
}

func (p *pipeline) subscription(t *testing.T, ref string) (status, reason string) {
	t.Helper()
	var r *string
	if err := p.db.Pool.QueryRow(context.Background(), `SELECT status, closed_reason FROM subscriptions WHERE reference = $1`, ref).Scan(&status, &r); err != nil {
		t.Fatal(err)
	}
	if r != nil {
		reason = *r
	}
	return status, reason
}

// assertPollingStopped proves the closed tracking of container is no longer
// polled: a sentinel subscription made after the close reaches the poller
// after it (one partition, commit order), and while the sentinel is polled
// several more times the closed container gets no further request.
func (p *pipeline) assertPollingStopped(t *testing.T, container, sentinel string) {
	t.Helper()
	p.subscribe(t, "sentinel-"+sentinel, sentinel)
	testkit.Wait(t, 20*time.Second, "the sentinel's second poll", func() (bool, any) {
		n := p.sim.count(sentinel)
		return n >= 2, fmt.Sprintf("%d polls of %s", n, sentinel)
	})
	before, sentinelBefore := p.sim.count(container), p.sim.count(sentinel)
	testkit.Eventually(t, 20*time.Second, "three more polls of the sentinel", func() bool { return p.sim.count(sentinel) >= sentinelBefore+3 })
	if after := p.sim.count(container); after != before {
		t.Fatalf("closed tracking %s polled %d more times", container, after-before)
	}
	t.Logf("%s: %d polls in all, none while the sentinel was polled %d more times", container, before, p.sim.count(sentinel)-sentinelBefore)
}

// At subscriptionExpiryDate a subscription closes (CLOSED, reason EXPIRED)
// through the same outbox change as DELETE, and polling stops.
func TestExpiryClosesSubscriptionAndStopsPolling(t *testing.T) {
	p := newPipeline(t)
	// Under way, so that only its expiry closes it.
	c := underWay(t, "EXPU")
	p.subscribe(t, "expiring", c)
	// Its subscriptionExpiryDate comes in a second (the others' in 90 days).
	if _, err := p.db.Pool.Exec(context.Background(), `UPDATE subscriptions SET expires_at = now() + interval '1 second' WHERE reference = 'expiring'`); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, "a poll before expiry", func() bool { return p.sim.count(c) >= 1 })
	testkit.Eventually(t, 20*time.Second, "the subscription to close at its expiry", func() bool {
		st, _ := p.subscription(t, "expiring")
		return st == "CLOSED"
	})
	if st, reason := p.subscription(t, "expiring"); st != "CLOSED" || reason != subscription.ClosedExpired {
		t.Fatalf("status %s reason %s", st, reason)
	}
	var open int
	if err := p.db.Pool.QueryRow(context.Background(), `SELECT open_subscriptions FROM trackings WHERE identifier = $1`, c).Scan(&open); err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Fatalf("tracking still counts %d open subscriptions", open)
	}
	p.assertPollingStopped(t, c, underWay(t, "SNTU"))
}

// journeyEnded says whether MAEU's sandbox journey of container c has ended
// at at: every event actual, the last one the empty return.
func journeyEnded(c string, at time.Time) bool {
	j := journey.Generate("MAEU", journey.KindContainer, c, at)
	if len(j.Events) == 0 {
		return false
	}
	last := j.Events[len(j.Events)-1]
	for _, e := range j.Events {
		if e.Classifier != journey.ACT {
			return false
		}
	}
	return last.Code == journey.CodeGateIn && last.Empty
}

// underWayAt says whether MAEU's sandbox journey of container c is still
// travelling at at: not yet discharged at its port of discharge.
func underWayAt(c string, at time.Time) bool {
	for _, e := range journey.Generate("MAEU", journey.KindContainer, c, at).Events {
		if e.Code == journey.CodeDischarge && e.Classifier != journey.ACT {
			return true
		}
	}
	return false
}

// underWay finds a MAEU sandbox container with owner prefix (four letters
// ending in U) that is travelling now and still is a day later, so its
// subscription stays open and it keeps being polled however long the test
// takes.
func underWay(t *testing.T, prefix string) string {
	t.Helper()
	now := time.Now()
	for i := 0; i < 5000; i++ {
		c := journey.CompleteContainer(fmt.Sprintf("%s%06d", prefix, i))
		if underWayAt(c, now) && underWayAt(c, now.Add(24*time.Hour)) {
			return c
		}
	}
	t.Fatalf("no %s sandbox container under way at %s", prefix, now)
	return ""
}

// journeyAt is MAEU's sandbox journey of container c at journey time at.
func journeyAt(c string, at time.Time) journey.Journey {
	return journey.Generate("MAEU", journey.KindContainer, c, at)
}

// firstContainer is the first MAEU sandbox container of owner prefix whose
// journeys fit.
func firstContainer(t *testing.T, prefix, what string, fit func(c string) bool) string {
	t.Helper()
	for i := 0; i < 20000; i++ {
		if c := journey.CompleteContainer(fmt.Sprintf("%s%06d", prefix, i)); fit(c) {
			return c
		}
	}
	t.Fatalf("no %s sandbox container %s", prefix, what)
	return ""
}

// A subscription closes when its journey ends (JOURNEY_ENDED: every
// container returned empty after discharge) after it was made, and polling
// stops. A journey that had ended before the subscription was made does not
// close it (it waits for the number's next journey), nor does one still
// under way. The sandbox runs 1,800 times faster than real time from the
// test's start, so a journey ends within seconds.
func TestJourneyEndClosesSubscriptionAndStopsPolling(t *testing.T) {
	start := time.Now()
	ending := firstContainer(t, "JRNU", "returned empty within 5 journey hours", func(c string) bool {
		return !journeyEnded(c, start.Add(10*time.Minute)) && journeyEnded(c, start.Add(5*time.Hour)) && journeyEnded(c, start.Add(48*time.Hour))
	})
	delivered := firstContainer(t, "DLVU", "returned empty before the test", func(c string) bool {
		return journeyEnded(c, start) && journeyEnded(c, start.Add(48*time.Hour))
	})
	p := newPipelineWith(t, sandbox.Config{Accelerate: 1800, Epoch: start})
	p.subscribe(t, "ending", ending)
	p.subscribe(t, "delivered", delivered)
	travelling := underWay(t, "JRNU")
	p.subscribe(t, "under-way", travelling)
	testkit.Wait(t, 30*time.Second, "the ended journey's subscription to close", func() (bool, any) {
		st, reason := p.subscription(t, "ending")
		return st == "CLOSED", st + " " + reason
	})
	if _, reason := p.subscription(t, "ending"); reason != subscription.ClosedJourneyEnded {
		t.Fatalf("closed for %s", reason)
	}
	var endedAt time.Time
	if err := p.db.Pool.QueryRow(context.Background(), `SELECT journey_ended_at FROM trackings WHERE identifier = $1`, ending).Scan(&endedAt); err != nil {
		t.Fatal(err)
	}
	var ret time.Time
	for _, e := range journeyAt(ending, start.Add(48*time.Hour)).Events {
		if e.Code == journey.CodeGateIn && e.Empty && e.Classifier == journey.ACT {
			ret = e.Time
		}
	}
	if !endedAt.Equal(ret.Truncate(time.Second)) {
		t.Errorf("journey_ended_at %s, want the empty return's time %s", endedAt, ret)
	}
	p.assertPollingStopped(t, ending, underWay(t, "SNTU"))
	for _, ref := range []string{"delivered", "under-way"} {
		if st, reason := p.subscription(t, ref); st != "OPEN" {
			t.Errorf("the %s subscription is %s (%s)", ref, st, reason)
		}
	}
	if p.sim.count(delivered) < 2 {
		t.Errorf("the delivered container was polled %d times: its open subscription must keep it polled", p.sim.count(delivered))
	}
	var changed *time.Time
	if err := p.db.Pool.QueryRow(context.Background(), `SELECT events_changed_at FROM trackings WHERE identifier = $1`, travelling).Scan(&changed); err != nil {
		t.Fatal(err)
	}
	if changed == nil {
		t.Fatal("no events_changed_at recorded for a polled tracking")
	}
}
