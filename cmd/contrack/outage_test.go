package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
)

// Postgres gone from under a running `contrack all` — the outbox relay,
// delivery's claim loop and the rest — used to leave /readyz green while
// every loop logged and retried. Now each loop counts its failures
// (contrack_loop_failures_total), /readyz turns 503 naming the failing
// loops within a bound, the process keeps running, and once Postgres is
// back every loop succeeds again and /readyz is 200.
//
// Postgres is made unreachable for this process alone: its URL points at a
// proxy the test cuts (other tests share the server).
func TestPostgresOutageTurnsReadinessRedAndBack(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 1)
	pcfg, err := pgxpool.ParseConfig(db.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := testkit.NewProxy(t, pcfg.ConnConfig.Host+":"+strconv.Itoa(int(pcfg.ConnConfig.Port)))
	viaProxy := strings.Replace(db.URL, pcfg.ConnConfig.Host+":"+strconv.Itoa(int(pcfg.ConnConfig.Port)), proxy.Addr(), 1)
	if viaProxy == db.URL {
		t.Fatalf("cannot point %s at the proxy", db.URL)
	}
	cfg := Config{
		HTTPAddr: freeAddr(t), AdminAddr: freeAddr(t),
		PGURL: viaProxy + "&connect_timeout=2", ClickHouseAddr: ch.Addr, ClickHouseDB: ch.Name,
		KafkaBrokers: kc.Brokers, KafkaNamespace: kc.NS, KafkaPartitions: 1, SecretKey: "outage-test", AllowPrivateWebhooks: true,
		SandboxAddr: freeAddr(t), SubscriptionLifetime: time.Hour, Sandbox: sandbox.Config{Accelerate: 1},
		CarrierURLs: map[string]string{}, PGMaxConns: 10, PGAPIMaxConns: 10,
		Loops: loop.Config{UnreadyAfter: 3, Backoff: loop.Backoff{Initial: 50 * time.Millisecond, Max: time.Second}},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runAll(ctx, cfg, testenv.Log(t)) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runAll: %v", err)
		}
	}()
	admin := "http://" + cfg.AdminAddr
	get := func(path string) (int, string) {
		resp, err := http.Get(admin + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	failures := func(loopName string) float64 {
		_, body := get("/metrics")
		m := regexp.MustCompile(`(?m)^contrack_loop_failures_total\{loop="` + regexp.QuoteMeta(loopName) + `"\} (\S+)$`).FindStringSubmatch(body)
		if m == nil {
			return 0
		}
		n, _ := strconv.ParseFloat(m[1], 64)
		return n
	}
	testkit.Eventually(t, 60*time.Second, "/readyz 200 once every stage runs", func() bool { code, _ := get("/readyz"); return code == 200 })
	lastSuccess := regexp.MustCompile(`(?m)^contrack_loop_last_success_timestamp_seconds\{loop="(outbox-relay|delivery-claim)"\} [1-9]`)
	testkit.Eventually(t, 30*time.Second, "the relay and the claim loop running", func() bool {
		_, body := get("/metrics")
		return len(lastSuccess.FindAllString(body, -1)) == 2
	})

	proxy.Cut()
	cut := time.Now()
	var body string
	testkit.Eventually(t, 30*time.Second, "/readyz 503 naming the relay and the claim loop", func() bool {
		var code int
		code, body = get("/readyz")
		return code == 503 && strings.Contains(body, "outbox-relay") && strings.Contains(body, "delivery-claim")
	})
	t.Logf("red %s after the cut: %s", time.Since(cut).Round(100*time.Millisecond), body)
	for _, l := range []string{"outbox-relay", "delivery-claim"} {
		if n := failures(l); n < 3 {
			t.Errorf("contrack_loop_failures_total{loop=%q} = %v, want at least 3", l, n)
		}
	}
	proxy.Restore()
	back := time.Now()
	testkit.Eventually(t, 60*time.Second, "/readyz 200 once Postgres is back", func() bool { var code int; code, body = get("/readyz"); return code == 200 })
	t.Logf("green %s after Postgres came back", time.Since(back).Round(100*time.Millisecond))
	select {
	case err := <-done:
		t.Fatalf("contrack all stopped during the outage: %v", err)
	default:
	}
}
