package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/queryapi"
)

// planServer is the API as `contrack serve` builds it: keys cached (with
// the revocation listener), plans' rates and daily quotas enforced.
func planServer(t *testing.T, ctx context.Context, store *auth.Store, usage *auth.DailyUsage) (*auth.CachedAuthenticator, string) {
	t.Helper()
	cache := auth.NewCachedAuthenticator(store, time.Hour, testenv.Log(t))
	testenv.RunStage(t, "api-key-cache", cache.Run)
	limiter := httpapi.NewRateLimiter()
	if usage != nil {
		limiter.WithQuota(usage)
	}
	srv := httpapi.New(httpapi.Config{Version: "test", Log: testenv.Log(t), Auth: cache, Limiter: limiter})
	register(srv.Fuego)
	queryapi.Register(srv.Fuego, queryapi.Deps{})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	testkit.Eventually(t, 10*time.Second, "key cache listening", cache.Listening)
	return cache, ts.URL
}

func getKey(t *testing.T, url, path, key string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url+path, nil)
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func rateHeaders(h http.Header) [3]string {
	return [3]string{h.Get("RateLimit-Limit"), h.Get("RateLimit-Remaining"), h.Get("RateLimit-Reset")}
}

func TestPlanChangesReachALiveKeyWithinSeconds(t *testing.T) {
	db := testenv.Postgres(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := auth.NewStore(db.Pool)
	// One token per 100 s: nothing refills while the test runs.
	if _, err := store.CreatePlan(ctx, auth.Plan{Name: "tiny", RatePerSecond: 0.01, Burst: 3}); err != nil {
		t.Fatal(err)
	}
	key, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "live", Plan: "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	cache, url := planServer(t, ctx, store, nil)

	// The bucket: limit = burst, remaining = whole tokens left, reset =
	// seconds until full again ((3-remaining) tokens at 0.01/s).
	for i, want := range [][3]string{{"3", "2", "100"}, {"3", "1", "200"}, {"3", "0", "300"}} {
		resp, _ := getKey(t, url, "/account", key)
		if resp.StatusCode != 200 || rateHeaders(resp.Header) != want {
			t.Fatalf("request %d: %d %v, want 200 %v", i, resp.StatusCode, rateHeaders(resp.Header), want)
		}
	}
	resp, body := getKey(t, url, "/account", key)
	if resp.StatusCode != 429 || string(body) != `{"message":"Too Many Requests"}` || resp.Header.Get("Retry-After") != "100" ||
		rateHeaders(resp.Header) != [3]string{"3", "0", "300"} {
		t.Fatalf("over the burst: %d %s Retry-After=%q %v", resp.StatusCode, body, resp.Header.Get("Retry-After"), rateHeaders(resp.Header))
	}
	if !cache.Listening() {
		t.Fatal("key cache bypassed: the test would prove nothing")
	}

	// `contrack admin plan update tiny --burst 50`, from another process.
	burst := 50
	if _, err := auth.NewStore(db.Pool).UpdatePlan(ctx, "tiny", auth.PlanUpdate{Burst: &burst}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "plan update applied", func() bool {
		resp, _ := getKey(t, url, "/account", key)
		return resp.StatusCode == 200 && resp.Header.Get("RateLimit-Limit") == "50"
	})

	// `contrack admin set-plan acme live roomy`.
	if _, err := store.CreatePlan(ctx, auth.Plan{Name: "roomy", DisplayName: "Roomy", RatePerSecond: 0.01, Burst: 70}); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.NewStore(db.Pool).SetPlan(ctx, "acme", "live", "roomy"); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "set-plan applied", func() bool {
		resp, _ := getKey(t, url, "/account", key)
		return resp.StatusCode == 200 && resp.Header.Get("RateLimit-Limit") == "70"
	})
	_, body = getKey(t, url, "/account", key)
	var acct struct{ UsagePlan map[string]string }
	if err := json.Unmarshal(body, &acct); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"id": "plan-roomy", "name": "roomy", "displayName": "Roomy"}; len(acct.UsagePlan) != 3 ||
		acct.UsagePlan["id"] != want["id"] || acct.UsagePlan["name"] != want["name"] || acct.UsagePlan["displayName"] != want["displayName"] {
		t.Fatalf("GET /account usagePlan %v, want %v", acct.UsagePlan, want)
	}

	// set-plan none: the built-in fallback (20/s, burst 40) and usagePlan null.
	if _, err := store.SetPlan(ctx, "acme", "live", auth.PlanNone); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "set-plan none applied", func() bool {
		resp, _ := getKey(t, url, "/account", key)
		return resp.StatusCode == 200 && resp.Header.Get("RateLimit-Limit") == "40"
	})
	if _, body := getKey(t, url, "/account", key); !json.Valid(body) || !containsNull(body) {
		t.Fatalf("no plan: %s", body)
	}
}

func containsNull(body []byte) bool {
	var v map[string]any
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	p, ok := v["usagePlan"]
	return ok && p == nil
}

func TestDailyQuotaIsPerAccountAndRefusesUntilUTCMidnight(t *testing.T) {
	db := testenv.Postgres(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := auth.NewStore(db.Pool)
	if _, err := store.CreatePlan(ctx, auth.Plan{Name: "metered", RatePerSecond: 1000, Burst: 1000, DailyQuota: 5}); err != nil {
		t.Fatal(err)
	}
	newKey := func(client string) string {
		k, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: client, Env: "live", Plan: "metered"})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	a1, a2, other := newKey("acme"), newKey("acme"), newKey("globex")
	usage := auth.NewDailyUsage(db.Pool, time.Hour, testenv.Log(t)) // flushed by hand below
	_, url := planServer(t, ctx, store, usage)

	untilMidnight := func() int { return int(time.Until(auth.Day(time.Now()).Add(24*time.Hour)).Seconds() + 0.999) }
	near := func(got string, want int) bool {
		n, err := strconv.Atoi(got)
		return err == nil && n >= want-2 && n <= want+2
	}
	// Both keys of the account draw on one quota; the headers show the
	// quota once it is nearer exhaustion than the key's bucket.
	for i, key := range []string{a1, a2, a1, a2, a1} {
		resp, _ := getKey(t, url, "/account", key)
		h := rateHeaders(resp.Header)
		if resp.StatusCode != 200 || h[0] != "5" || h[1] != strconv.Itoa(4-i) || !near(h[2], untilMidnight()) {
			t.Fatalf("request %d: %d %v", i, resp.StatusCode, h)
		}
	}
	for _, key := range []string{a1, a2} {
		resp, body := getKey(t, url, "/account", key)
		if resp.StatusCode != 429 || string(body) != `{"message":"Too Many Requests"}` ||
			!near(resp.Header.Get("Retry-After"), untilMidnight()) || resp.Header.Get("RateLimit-Remaining") != "0" {
			t.Fatalf("over the quota: %d %s Retry-After=%q %v", resp.StatusCode, body, resp.Header.Get("Retry-After"), rateHeaders(resp.Header))
		}
	}
	if resp, _ := getKey(t, url, "/account", other); resp.StatusCode != 200 || resp.Header.Get("RateLimit-Remaining") != "4" {
		t.Fatalf("another account: %d %v", resp.StatusCode, rateHeaders(resp.Header))
	}

	// Counted in Postgres: refusals not counted, another process (a second
	// replica, or this one restarted) refuses the account too.
	if err := usage.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.Pool.QueryRow(ctx, `SELECT u.requests FROM usage_daily u JOIN accounts a ON a.id = u.account_id
		WHERE a.client_slug = 'acme' AND u.day = $1`, auth.Day(time.Now())).Scan(&n); err != nil || n != 5 {
		t.Fatalf("usage_daily: %d %v, want 5", n, err)
	}
	_, url2 := planServer(t, ctx, store, auth.NewDailyUsage(db.Pool, time.Hour, testenv.Log(t)))
	if resp, _ := getKey(t, url2, "/account", a2); resp.StatusCode != 429 {
		t.Fatalf("second process: %d, want 429", resp.StatusCode)
	}
	if resp, _ := getKey(t, url2, "/account", other); resp.StatusCode != 200 || resp.Header.Get("RateLimit-Remaining") != "3" {
		t.Fatalf("second process, another account: %d %v", resp.StatusCode, rateHeaders(resp.Header))
	}

	// Raising the quota lets the account on at once.
	quota := int64(10)
	if _, err := store.UpdatePlan(ctx, "metered", auth.PlanUpdate{DailyQuota: &quota}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "raised quota applied", func() bool {
		resp, _ := getKey(t, url, "/account", a1)
		return resp.StatusCode == 200 && resp.Header.Get("RateLimit-Limit") == "10"
	})
}

// The carrier, streaming 500 events/s one per request: on the
// seeded carrier plan none is refused; on sandbox (100/s) most were.
func TestCarrierPlanTakesAStreamingCarrier(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	store := auth.NewStore(db.Pool)
	refused := func(planName string) int {
		p, err := store.LookupPlan(ctx, planName)
		if err != nil {
			t.Fatal(err)
		}
		l := httpapi.NewRateLimiter()
		clock := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
		l.SetClock(func() time.Time { return clock })
		k := auth.Key{ID: "k", Role: auth.RoleCarrier, Account: auth.Account{ID: "a", Plan: p.Name, UsagePlan: &p}}
		n := 0
		for range 500 * 60 { // a minute at 500/s
			if !l.Allow(ctx, k).OK {
				n++
			}
			clock = clock.Add(2 * time.Millisecond)
		}
		return n
	}
	if n := refused("carrier"); n != 0 {
		t.Errorf("carrier plan refused %d of 30000", n)
	}
	if n := refused("sandbox"); n < 20000 {
		t.Errorf("sandbox plan refused only %d of 30000: the test would not see the issue's refusals", n)
	}
}
