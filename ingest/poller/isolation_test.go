package poller_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/ingest/poller"
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/platform/testkit"
)

// addAccount creates another sandbox account and makes it the world's current one.
func (w *world) addAccount(t *testing.T, slug string) string {
	t.Helper()
	if err := w.db.Pool.QueryRow(context.Background(), `INSERT INTO accounts (id, client_slug, env, display_name) VALUES (gen_random_uuid(), $1, 'sandbox', $1) RETURNING id`, slug).Scan(&w.account); err != nil {
		t.Fatal(err)
	}
	return w.account
}

// breakers records carrier breaker transitions.
type breakers struct {
	mu     sync.Mutex
	states []string
}

func (b *breakers) observe(name, state string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.states = append(b.states, name+" "+state)
}

func (b *breakers) opened() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.states {
		if strings.HasSuffix(s, " open") {
			return true
		}
	}
	return false
}

func meanInterval(ts []time.Time) time.Duration {
	if len(ts) < 2 {
		return 0
	}
	return ts[len(ts)-1].Sub(ts[0]) / time.Duration(len(ts)-1)
}

// isolationConfig shares a small carrier cap between accounts.
func isolationConfig() poller.Config {
	return poller.Config{
		Interval: map[string]time.Duration{"sandbox": 300 * time.Millisecond}, FirstPoll: 20 * time.Millisecond,
		RetryBase: 100 * time.Millisecond, Workers: 16, CarrierConcurrency: 8, CarrierRate: map[string]float64{"sandbox/MAEU": 200},
		AccountConcurrency: 2, AccountFailures: 3, AccountBackoffMax: 2 * time.Second,
		BreakerFailures: 3, BreakerTimeout: time.Hour, Refresh: 100 * time.Millisecond,
	}
}

// No noisy neighbour on a carrier: an account whose credentials are refused
// (sandbox `invalid`), one whose key is rate limited (429, LMTU numbers)
// and one whose shipments make the carrier fail (500/503, ERRU/DWNU
// numbers) pause themselves only; the carrier breaker stays closed and a
// quiet account on the same carrier keeps its poll cadence. Its mean poll
// interval alone and beside the noisy accounts is printed; the assertions
// are conditions: the breaker never opened, the quiet account got its
// polls, and while it did the noisy accounts made a bounded number of
// calls (without the per-account pauses they would call every interval).
func TestNoisyAccountsDoNotChangeAnotherAccountsCadence(t *testing.T) {
	w := newWorld(t, 2)
	s := newSim(t)
	quiet := journey.CompleteContainer("QUIU000001")
	w.credentials(t, "MAEU", map[string]string{"apiKey": "quiet-key"})
	w.track(t, "MAEU", quiet, true, "")
	var br breakers
	cfg := isolationConfig()
	runWith(t, w, s, cfg, func(d *poller.Deps) { d.OnBreaker = br.observe })

	const polls = 8
	testkit.Eventually(t, 20*time.Second, "the quiet account's polls alone", func() bool { return s.count(quiet) >= polls })
	alone := s.pollTimes(quiet)[:polls]

	type noisy struct {
		slug, key string
		prefix    []string
		ids       []string
	}
	neighbours := []*noisy{
		{slug: "refused", key: "invalid", prefix: []string{"REFU"}},
		{slug: "throttled", key: "k", prefix: []string{"LMTU"}},
		{slug: "failing", key: "k", prefix: []string{"ERRU", "DWNU"}},
	}
	for _, n := range neighbours {
		w.addAccount(t, n.slug)
		w.credentials(t, "MAEU", map[string]string{"apiKey": n.key})
		for i := 0; i < 30; i++ {
			c := journey.CompleteContainer(fmt.Sprintf("%s%06d", n.prefix[i%len(n.prefix)], i))
			n.ids = append(n.ids, c)
			w.track(t, "MAEU", c, true, "")
		}
	}
	calls := func(n *noisy) int {
		total := 0
		for _, c := range n.ids {
			total += s.count(c)
		}
		return total
	}
	testkit.Eventually(t, 20*time.Second, "every noisy account to reach its pause", func() bool {
		for _, n := range neighbours {
			if calls(n) < cfg.AccountFailures {
				return false
			}
		}
		return true
	})
	start := s.count(quiet)
	before := map[string]int{}
	for _, n := range neighbours {
		before[n.slug] = calls(n)
	}
	testkit.Eventually(t, 30*time.Second, "the quiet account's polls beside the noisy ones", func() bool { return s.count(quiet) >= start+polls })
	beside := s.pollTimes(quiet)[start : start+polls]
	t.Logf("quiet account mean poll interval: %v alone, %v beside the noisy accounts (configured %v ±10%%)",
		meanInterval(alone).Round(time.Millisecond), meanInterval(beside).Round(time.Millisecond), cfg.Interval["sandbox"])
	for _, n := range neighbours {
		made := calls(n) - before[n.slug]
		t.Logf("%s account (%d trackings): %d calls while the quiet account was polled %d times (%d without pauses)",
			n.slug, len(n.ids), made, polls, len(n.ids)*polls)
		if made > polls {
			t.Errorf("%s account made %d calls during %d quiet polls: not paused", n.slug, made, polls)
		}
	}
	if br.opened() {
		t.Fatalf("one account's faults opened the carrier breaker: %v", br.states)
	}
}

// A carrier-wide storm still opens the carrier breaker: every account's
// polls of the carrier answer 503, the breaker opens after its threshold,
// and no further call reaches the carrier while another carrier is polled
// on as usual.
func TestCarrierWideStormOpensBreaker(t *testing.T) {
	w := newWorld(t, 2)
	s := newSim(t)
	var mu sync.Mutex
	downCalls := 0
	down := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		downCalls++
		mu.Unlock()
		rw.Header().Set("Retry-After", "120")
		http.Error(rw, `{"message":"down"}`, http.StatusServiceUnavailable)
	}))
	defer down.Close()
	calls := func() int {
		mu.Lock()
		defer mu.Unlock()
		return downCalls
	}
	sentinel := journey.CompleteContainer("SNTU000009")
	for i := 0; i < 3; i++ {
		w.addAccount(t, fmt.Sprintf("acct%d", i))
		w.credentials(t, "MAEU", map[string]string{"apiKey": "k"})
		for j := 0; j < 10; j++ {
			w.track(t, "MAEU", journey.CompleteContainer(fmt.Sprintf("STMU%03d%03d", i, j)), true, "")
		}
	}
	w.credentials(t, "HLCU", map[string]string{"clientId": "c", "clientSecret": "s"})
	w.track(t, "HLCU", sentinel, true, "")
	var br breakers
	sandboxAdapters := poller.SandboxAdapters(s.srv.URL, func(string) string { return "" })
	runWith(t, w, s, isolationConfig(), func(d *poller.Deps) {
		d.OnBreaker = br.observe
		d.Adapters = func(env, scac string) (carrier.Adapter, error) {
			if scac == "MAEU" {
				return carrier.New(scac, down.URL+"/maeu", nil)
			}
			return sandboxAdapters(env, scac)
		}
	})
	testkit.Eventually(t, 20*time.Second, "the carrier breaker to open", br.opened)
	// Polls of the down carrier admitted before the breaker opened may
	// still be on their way to it: they have landed once the other
	// carrier has been polled again after the opening.
	opened := s.count(sentinel)
	testkit.Eventually(t, 20*time.Second, "a sentinel poll on another carrier after the opening", func() bool { return s.count(sentinel) >= opened+1 })
	atOpen, sent := calls(), s.count(sentinel)
	testkit.Eventually(t, 20*time.Second, "several more sentinel polls", func() bool { return s.count(sentinel) >= sent+4 })
	t.Logf("carrier-wide 503s: breaker %v after %d calls; %d calls while the other carrier was polled 4 more times", br.states, atOpen, calls()-atOpen)
	if calls() != atOpen {
		t.Fatalf("%d calls reached the down carrier after its breaker opened", calls()-atOpen)
	}
}
