package delivery_test

import (
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/testkit"
)

// sharedHost is one webhook server (one host:port) for several accounts:
// requests to /hang/... hang until the client gives up (its timeout) or the
// test ends; anything else is answered 200 at once.
type sharedHost struct {
	*dt.Receiver
	hanging atomic.Int64 // hanging requests received
	ended   atomic.Int64 // hanging requests that ended (the sender timed out)
}

func newSharedHost(t *testing.T) *sharedHost {
	sh := &sharedHost{}
	release := make(chan struct{})
	sh.Receiver = dt.NewReceiver(t, func(_ int, r *http.Request) int {
		if len(r.URL.Path) < 6 || r.URL.Path[:6] != "/hang/" {
			return 200
		}
		sh.hanging.Add(1)
		defer sh.ended.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
		return 200
	})
	t.Cleanup(func() { close(release) }) // before the server closes
	return sh
}

// latencies produces one event on each of subs in turn and measures
// produce → receipt of each; every one must be acknowledged while cond
// holds.
func latencies(t *testing.T, h *dt.Harness, rc *dt.Receiver, subs []dt.Sub, cond func() bool, what string) []time.Duration {
	t.Helper()
	var lat []time.Duration
	for i, s := range subs {
		before := len(rc.Acked())
		start := time.Now()
		h.Produce(s, "ev-"+strconv.Itoa(i))
		testkit.Eventually(t, 30*time.Second, what, func() bool { return len(rc.Acked()) > before })
		if !cond() {
			t.Fatalf("%s: delivery %d arrived only after a hanging request ended (timed out)", what, i)
		}
		lat = append(lat, rc.Acked()[before].At.Sub(start))
	}
	slices.Sort(lat)
	return lat
}

// Two accounts whose webhooks are on the same host:port: account 1's
// endpoint hangs on every request (16 subscriptions with events, so its
// endpoint is at its concurrency cap), account 2's deliveries still arrive
// promptly — every one before any of account 1's requests has timed out.
// The latencies with and without the hanging neighbour are logged.
func TestHangingNeighbourOnSameHostDoesNotDelayAnother(t *testing.T) {
	h := dt.New(t, false)
	sh := newSharedHost(t)
	hangAcct, okAcct := h.Account("sandbox"), h.Account("sandbox")
	h.Webhook(hangAcct, sh.URL+"/hang/1", true)
	h.Webhook(okAcct, sh.URL+"/ok/2", true)
	var hangSubs, okSubs []dt.Sub
	for i := range 16 {
		hangSubs = append(hangSubs, h.Subscribe(hangAcct, "hang-"+strconv.Itoa(i)))
	}
	for i := range 20 {
		okSubs = append(okSubs, h.Subscribe(okAcct, "ok-"+strconv.Itoa(i)))
	}
	cfg := dt.Config()
	cfg.Workers, cfg.EndpointConcurrency = 16, 8
	cfg.Timeout = 10 * time.Second
	cfg.PollInterval = time.Second // only signals wake the claimer quickly
	h.Start(cfg)
	// Warm up (group join), then the quiet figure.
	h.Produce(okSubs[0], "warm")
	testkit.Eventually(t, 15*time.Second, "warm-up", func() bool { return len(sh.Acked()) == 1 })
	quiet := latencies(t, h, sh.Receiver, okSubs[1:10], func() bool { return true }, "account 2, quiet")

	for _, s := range hangSubs {
		h.Produce(s, "hang-ev")
	}
	testkit.Eventually(t, 10*time.Second, "account 1's endpoint at its cap", func() bool { return sh.hanging.Load() == int64(cfg.EndpointConcurrency) })
	noTimeout := func() bool { return sh.ended.Load() == 0 }
	loaded := latencies(t, h, sh.Receiver, okSubs[10:], noTimeout, "account 2 beside the hanging account 1")
	t.Logf("account 2, produce → received: quiet p50 %s max %s; with account 1 hanging on the same host:port (%d requests hanging, timeout %s): p50 %s max %s",
		quiet[len(quiet)/2], quiet[len(quiet)-1], sh.hanging.Load(), cfg.Timeout, loaded[len(loaded)/2], loaded[len(loaded)-1])
	if n := sh.hanging.Load(); n != int64(cfg.EndpointConcurrency) {
		t.Errorf("%d requests hanging on account 1's endpoint, want its cap %d", n, cfg.EndpointConcurrency)
	}
}

// Many accounts' endpoints hanging at once — more hanging attempts than
// there are workers — do not starve a healthy account: a hanging attempt
// holds a shared worker only for SlowAfter, so the healthy account's
// deliveries arrive while every hanging request is still hanging (before
// any times out). With SlowAfter at the timeout (no hand-back) this test
// fails: the pool stays full of hanging requests until they time out.
func TestManyHangingAccountsDoNotStarveThePool(t *testing.T) {
	h := dt.New(t, false)
	sh := newSharedHost(t)
	cfg := dt.Config()
	cfg.Workers, cfg.EndpointConcurrency = 8, 4
	cfg.Timeout = 10 * time.Second
	cfg.SlowAfter = 300 * time.Millisecond
	cfg.PollInterval = time.Second
	const hangingAccounts = 6 // 24 hanging attempts wanted, 8 workers
	var hangSubs []dt.Sub
	for a := range hangingAccounts {
		acct := h.Account("sandbox")
		h.Webhook(acct, sh.URL+"/hang/"+strconv.Itoa(a), true)
		for i := range cfg.EndpointConcurrency {
			hangSubs = append(hangSubs, h.Subscribe(acct, "hang-"+strconv.Itoa(a)+"-"+strconv.Itoa(i)))
		}
	}
	okAcct := h.Account("sandbox")
	h.Webhook(okAcct, sh.URL+"/ok", true)
	var okSubs []dt.Sub
	for i := range 6 {
		okSubs = append(okSubs, h.Subscribe(okAcct, "ok-"+strconv.Itoa(i)))
	}
	h.Start(cfg)
	h.Produce(okSubs[0], "warm")
	testkit.Eventually(t, 15*time.Second, "warm-up", func() bool { return len(sh.Acked()) == 1 })

	for _, s := range hangSubs {
		h.Produce(s, "hang-ev")
	}
	testkit.Eventually(t, 8*time.Second, "as many hanging requests as workers", func() bool { return sh.hanging.Load() >= int64(cfg.Workers) })
	noTimeout := func() bool { return sh.ended.Load() == 0 }
	lat := latencies(t, h, sh.Receiver, okSubs[1:], noTimeout, "the healthy account beside 6 hanging ones")
	t.Logf("healthy account, produce → received, beside %d hanging accounts (%d requests hanging, %d workers, SlowAfter %s, timeout %s): p50 %s max %s",
		hangingAccounts, sh.hanging.Load(), cfg.Workers, cfg.SlowAfter, cfg.Timeout, lat[len(lat)/2], lat[len(lat)-1])
	if n := h.Metrics.SlowAttempts(); n == 0 {
		t.Errorf("no slow attempts counted while %d requests hang", sh.hanging.Load())
	}
}

// One account's open breaker does not touch another account's endpoint on
// the same host:port: the failing account's breaker opens (its requests
// stop), the other account's deliveries go through on the first attempt,
// and exactly one breaker is open.
func TestBreakerIsPerAccount(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, func(_ int, r *http.Request) int {
		if r.URL.Path == "/fail" {
			return 500
		}
		return 200
	})
	failAcct, okAcct := h.Account("sandbox"), h.Account("sandbox")
	h.Webhook(failAcct, rc.URL+"/fail", true)
	h.Webhook(okAcct, rc.URL+"/ok", true)
	var failSubs, okSubs []dt.Sub
	for i := range 5 {
		failSubs = append(failSubs, h.Subscribe(failAcct, "f"+strconv.Itoa(i)))
		okSubs = append(okSubs, h.Subscribe(okAcct, "o"+strconv.Itoa(i)))
	}
	cfg := dt.Config()
	cfg.EndpointConcurrency = 1
	cfg.Schedule = slices.Repeat([]time.Duration{10 * time.Millisecond}, 50)
	cfg.BreakerFailures = 3
	cfg.BreakerTimeout = time.Minute // stays open for the whole test
	h.Start(cfg)
	for _, s := range failSubs {
		h.Produce(s, "ev")
	}
	testkit.Eventually(t, 15*time.Second, "account 1's breaker open", func() bool { return h.Metrics.Breakers("open") == 1 })
	failed := func() int {
		n := 0
		for _, r := range rc.Requests() {
			if r.Status == 500 {
				n++
			}
		}
		return n
	}
	before := failed()
	for _, s := range okSubs {
		h.Produce(s, "ok")
	}
	testkit.Eventually(t, 15*time.Second, "account 2's deliveries", func() bool { return len(rc.Acked()) == len(okSubs) })
	testkit.Eventually(t, 5*time.Second, "account 2's deliveries recorded", func() bool {
		return h.Count(`SELECT count(*) FROM deliveries WHERE account_id = $1 AND status = 'DELIVERED'`, okAcct) == len(okSubs)
	})
	if n := h.Count(`SELECT count(*) FROM deliveries WHERE account_id = $1 AND attempts <> 1`, okAcct); n != 0 {
		t.Errorf("%d of account 2's deliveries needed more than one attempt", n)
	}
	if o := h.Metrics.Breakers("open"); o != 1 {
		t.Errorf("%v breakers open, want 1 (account 1's)", o)
	}
	if n := failed(); n != before || n != int(cfg.BreakerFailures) {
		t.Errorf("account 1's endpoint got %d failing requests (%d before account 2's events), want %d: its breaker is not open", n, before, cfg.BreakerFailures)
	}
}
