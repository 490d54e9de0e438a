package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/reference"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// Postgres gone from under a running `contrack all` — the outbox relay,
// delivery's claim loop, normalize's dedupe saver and the rest — used to
// leave /readyz green while every loop logged and retried. Now each loop
// counts its failures (contrack_loop_failures_total), /readyz turns 503
// naming the failing loops within outageBound, the process keeps running,
// and once Postgres is back every loop succeeds again, the state kept
// meanwhile is saved and /readyz is 200.
//
// Postgres is made unreachable for this process alone: its URL points at a
// proxy the test cuts (other tests share the server, and the test reads
// it directly).
func TestPostgresOutageTurnsReadinessRedAndBack(t *testing.T) {
	// outageBound is how long /readyz may stay green once Postgres is gone:
	// UnreadyAfter (3) failed rounds, each at most the connect timeout (2 s)
	// plus a backoff of at most 1 s, with room for a loaded machine.
	const outageBound = 30 * time.Second
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

	// The saver has work only when a transaction commits: a tracking's
	// events normalised once (their state saved, and cached) and then again
	// with one changed during the outage, which needs no Postgres read.
	prod := testenv.KafkaClient(t, kc.Brokers)
	sample, err := os.ReadFile(reference.Path("dcsa", "samples", "tnt-220-response.json"))
	if err != nil {
		t.Fatal(err)
	}
	const tracking = "trk-outage"
	raw := func(payload []byte) {
		t.Helper()
		v, err := schemas.EncodeCarrierRaw(&schemas.CarrierRaw{ID: uuid.NewString(), Format: string(carriers.FormatTNT22), SCAC: "MAEU",
			Env: "sandbox", AccountID: "acct-outage", TrackingID: tracking, ReceivedAt: time.Now().UTC(), Payload: payload})
		if err != nil {
			t.Fatal(err)
		}
		if err := kafka.ProduceSync(context.Background(), prod, &kgo.Record{Topic: kc.NS.Topic(schemas.TopicCarrierRaw), Key: []byte(tracking), Value: v}); err != nil {
			t.Fatal(err)
		}
	}
	seenHashes := func() map[string]string {
		rows, err := db.Pool.Query(context.Background(), `SELECT event_id, content_hash FROM normalize_seen WHERE tracking_id = $1`, tracking)
		if err != nil {
			t.Fatal(err)
		}
		hashes := map[string]string{}
		var id, hash string
		if _, err := pgx.ForEachRow(rows, []any{&id, &hash}, func() error { hashes[id] = hash; return nil }); err != nil {
			t.Fatal(err)
		}
		return hashes
	}
	raw(sample)
	testkit.Eventually(t, 30*time.Second, "the tracking's events normalised and their state saved", func() bool { return len(seenHashes()) > 0 })
	before := seenHashes()
	changed := bytes.Replace(sample, []byte(`"changeRemark": "Bad weather"`), []byte(`"changeRemark": "Worse weather"`), 1)
	if bytes.Equal(changed, sample) {
		t.Fatal("the sample has no changeRemark to change")
	}
	stateChanged := func() bool {
		now := seenHashes()
		for id, h := range now {
			if before[id] != h {
				return true
			}
		}
		return false
	}

	proxy.Cut()
	cut := time.Now()
	raw(changed)
	var body string
	testkit.Wait(t, outageBound, "/readyz 503 naming the relay, the claim loop, the dedupe saver and the poller", func() (bool, any) {
		var code int
		code, body = get("/readyz")
		return code == 503 && strings.Contains(body, "outbox-relay") && strings.Contains(body, "delivery-claim") &&
			strings.Contains(body, "normalize-dedupe-saver") && strings.Contains(body, "poller-refresh"), fmt.Sprint(code, " ", body)
	})
	t.Logf("red %s after the cut: %s", time.Since(cut).Round(100*time.Millisecond), body)
	for _, l := range []string{"outbox-relay", "delivery-claim", "normalize-dedupe-saver", "poller-refresh"} {
		if n := failures(l); n < 3 {
			t.Errorf("contrack_loop_failures_total{loop=%q} = %v, want at least 3", l, n)
		}
	}
	if stateChanged() {
		t.Fatal("dedupe state saved while Postgres was out of reach")
	}
	proxy.Restore()
	back := time.Now()
	testkit.Eventually(t, 60*time.Second, "/readyz 200 once Postgres is back", func() bool { var code int; code, body = get("/readyz"); return code == 200 })
	t.Logf("green %s after Postgres came back", time.Since(back).Round(100*time.Millisecond))
	testkit.Eventually(t, 30*time.Second, "the state kept during the outage saved", stateChanged)
	select {
	case err := <-done:
		t.Fatalf("contrack all stopped during the outage: %v", err)
	default:
	}
}
