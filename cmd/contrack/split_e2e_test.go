package main

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/contrack/contrack/cmd/contrack/roles"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// TestSplitDeploymentRunsEveryStage runs the split deployment in one test
// process: every role a deployment runs (the role table's) started as
// `contrack <role>` starts it — its needs from the table, its own admin
// listener — on one broker, one Postgres and one ClickHouse, without
// CONTRACK_SECRET_KEY (each role needing it reads the key generated once
// into the shared data directory). Every role turns ready, and a sandbox
// subscription's events reach the pull API (projector), its webhook
// (delivery) and the account feed (`GET /subscriptions/events`, the feed
// role) with its ship's positions (the vessels role), and the alerts role
// sweeps: with no feed role, the feed stays empty.
func TestSplitDeploymentRunsEveryStage(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 3)
	base := Config{
		PGURL: db.URL, ClickHouseAddr: ch.Addr, ClickHouseDB: ch.Name, DataDir: t.TempDir(),
		KafkaBrokers: kc.Brokers, KafkaNamespace: kc.NS, KafkaPartitions: 3, AllowPrivateWebhooks: true,
		HTTPAddr: freeAddr(t), SandboxAddr: freeAddr(t), SubscriptionLifetime: 90 * 24 * time.Hour,
		CarrierURLs: map[string]string{}, PGMaxConns: 4, PGAPIMaxConns: 4,
	}
	// As TestFeedVesselPositions: the sandbox 60 times faster than the wall
	// clock from now, the ships reporting every second.
	base.Sandbox.Accelerate, base.Sandbox.Epoch = 60, time.Now().UTC()
	base.Vessels.Interval, base.Vessels.SandboxRefresh = time.Second, time.Second
	base.Feed.PositionsRefresh = time.Second
	base.Alerts.SweepInterval = time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	errs := map[string]error{}
	var mu sync.Mutex
	admins := map[string]string{}
	for _, r := range roles.Deployed() {
		cfg, err := roleConfig(base, r)
		if err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		if r.SecretKey && cfg.SecretKey == "" {
			t.Fatalf("%s: no secret key", r.Name)
		}
		cfg.AdminAddr = freeAddr(t)
		admins[r.Name] = cfg.AdminAddr
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := runRole(ctx, cfg, testenv.Log(t).With("role", r.Name), r)
			mu.Lock()
			errs[r.Name] = err
			mu.Unlock()
		}()
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatal("the roles did not stop within 60 s")
		}
		for name, err := range errs {
			if err != nil {
				t.Errorf("contrack %s: %v", name, err)
			}
		}
	}
	defer stop()
	for name, admin := range admins {
		testkit.Eventually(t, 60*time.Second, "contrack "+name+" ready", func() bool {
			resp, err := http.Get("http://" + admin + "/readyz")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == 200
		})
	}

	s := &system{t: t, cfg: base, db: db, ch: ch, brokers: kc.Brokers}
	sea := atSeaContainers(t, "MAEU", "MSKU", sandboxConfig(base).WithDefaults().JourneyNow(), 24*time.Hour, 1)[0]
	container := sea.number
	key, _, err := auth.NewStore(db.Pool).CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	hook := newActivatedHook(t, s, key, `{"targetUrl":"URL"}`) // delivery's verification message
	if code, body := s.do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"any"}}`); code != 200 {
		t.Fatalf("credentials: %d %v", code, body)
	}
	if code, body := s.do("POST", "/subscription/equipment", key, `{"scacCode":"MAEU","containerNumber":"`+container+`","subscriptionReference":"split-1"}`); code != 200 {
		t.Fatalf("subscribe: %d %v", code, body)
	}
	if code, body := s.do("PUT", "/subscription/split-1/vessel-positions", key, `{}`); code != 200 {
		t.Fatalf("vessel positions opt-in: %d %v", code, body)
	}
	// Pull: the journey with its events (api → relay → poller → sandbox →
	// normalize → projector).
	testkit.Eventually(t, 60*time.Second, "the journey with source events", func() bool {
		code, body := s.do("GET", "/subscription/equipment?equipmentNumber="+container, key, "")
		if code != 200 {
			t.Fatalf("pull: %d %v", code, body)
		}
		results, _ := body["results"].([]any)
		if len(results) != 1 {
			return false
		}
		src, _ := results[0].(map[string]any)["sourceEvents"].([]any)
		return len(src) > 0
	})
	// The account feed (the feed role): the subscription's events, and its
	// ship's positions (the vessels role); each look long-polls.
	var items []feedItem
	cursor := ""
	testkit.Eventually(t, 60*time.Second, "feed events and a VESSEL_POSITION item of the subscription", func() bool {
		more, next := s.readFeed(key, cursor, 1)
		items, cursor = append(items, more...), next
		events := slices.ContainsFunc(items, func(it feedItem) bool { return it.Type != schemas.FeedKindVesselPosition })
		return events && len(positionsOf(items, "split-1")) > 0
	})
	for _, it := range items {
		if it.References["subscriptionReference"] != "split-1" || it.References["equipmentNumber"] != container {
			t.Errorf("feed item of another subscription: %+v", it)
		}
		if v := it.VesselPosition; it.Type == schemas.FeedKindVesselPosition && (v == nil || v.Vessel.IMO != sea.leg.Vessel.IMO) {
			t.Errorf("position of another ship: %+v, want IMO %s", v, sea.leg.Vessel.IMO)
		}
	}
	// Push: the subscription's events delivered to its webhook (delivery).
	testkit.Eventually(t, 30*time.Second, "a webhook delivery of the subscription's events", func() bool {
		hook.mu.Lock()
		defer hook.mu.Unlock()
		return slices.ContainsFunc(hook.payloads, func(p alertPayload) bool {
			return p.Type == "" && p.References["subscriptionReference"] == "split-1" && len(p.Events) > 0
		})
	})
	// The alerts role sweeps the stores: its loop's successful rounds, on
	// its own admin listener.
	sweep := regexp.MustCompile(`(?m)^contrack_loop_last_success_timestamp_seconds\{loop="alerts-sweep"\} [1-9]`)
	testkit.Eventually(t, 30*time.Second, "a successful alerts sweep on contrack alerts' /metrics", func() bool {
		return sweep.MatchString(get(admins["alerts"] + "/metrics"))
	})
	stop()
}
