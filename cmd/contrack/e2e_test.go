package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/signature"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
)

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// system runs `contrack all` in-process over fresh stores and a broker.
type system struct {
	t       *testing.T
	cfg     Config
	db      testenv.PGDatabase
	ch      testenv.CHDatabase
	brokers []string
	done    chan error
	stop    context.CancelFunc
}

// startSystem runs contrack all; tweaks adjust its configuration first.
func startSystem(t *testing.T, tweaks ...func(*Config)) *system {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 3)
	brokers := kc.Brokers
	cfg := Config{
		HTTPAddr: freeAddr(t), PGURL: db.URL, ClickHouseAddr: ch.Addr, ClickHouseDB: ch.Name,
		KafkaBrokers: brokers, KafkaNamespace: kc.NS, KafkaPartitions: 3, SecretKey: "e2e-secret", AllowPrivateWebhooks: true,
		SandboxAddr: freeAddr(t), SubscriptionLifetime: 90 * 24 * time.Hour, Sandbox: sandbox.Config{Accelerate: 1},
		CarrierURLs: map[string]string{},
	}
	for _, tweak := range tweaks {
		tweak(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &system{t: t, cfg: cfg, db: db, ch: ch, brokers: brokers, done: make(chan error, 1), stop: cancel}
	go func() { s.done <- runAll(ctx, cfg, testenv.Log(t)) }()
	testkit.Eventually(t, 30*time.Second, "contrack all to be healthy", func() bool {
		resp, err := http.Get("http://" + cfg.HTTPAddr + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	t.Cleanup(func() {
		if err := s.shutdown(); err != nil {
			t.Errorf("contrack all: %v", err)
		}
	})
	return s
}

func (s *system) shutdown() error {
	if s.stop == nil {
		return nil
	}
	s.stop()
	s.stop = nil
	select {
	case err := <-s.done:
		return err
	case <-time.After(testkit.Scale(30 * time.Second)):
		s.t.Fatal("contrack all did not stop within 30 s")
		return nil
	}
}

func (s *system) do(method, path, key, body string) (int, map[string]any) {
	req, _ := http.NewRequest(method, "http://"+s.cfg.HTTPAddr+path, strings.NewReader(body))
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil && !errors.Is(err, io.EOF) { // EOF: no body
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, out
}

// Subscribing over HTTP, with nothing else done by hand, ends in DCSA
// 2.0.2 events for the subscription's tracking: outbox relay → poller →
// sandbox carrier → carrier-raw → normaliser → events.
func TestEndToEndSubscribeToEvents(t *testing.T) {
	s := startSystem(t)
	key, _, err := auth.NewStore(s.db.Pool).CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	if code, body := s.do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"any"}}`); code != 200 {
		t.Fatalf("credentials: %d %v", code, body)
	}
	if code, body := s.do("POST", "/subscription/equipment", key, `{"scacCode":"MAEU","containerNumber":"MSKU9070323","subscriptionReference":"e2e-1"}`); code != 200 {
		t.Fatalf("subscribe: %d %v", code, body)
	}
	cl := testenv.KafkaClient(t, s.brokers, kgo.ConsumeTopics(s.cfg.KafkaNamespace.Topic(schemas.TopicEvents)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	var events []dcsa.Event
	for len(events) == 0 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var rec schemas.EventRecord
			if err := json.Unmarshal(r.Value, &rec); err != nil {
				t.Fatal(err)
			}
			var ev dcsa.Event
			if err := json.Unmarshal(rec.Event, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.EquipmentReference != "" && ev.EquipmentReference != "MSKU9070323" {
				t.Errorf("event for another container: %+v", ev)
			}
			events = append(events, ev)
		})
	}
	if len(events) == 0 {
		t.Fatal("no events 30 s after subscribing")
	}
	// The poller marks the tracking connected right after its records are acknowledged.
	testkit.Eventually(t, 10*time.Second, "connectionStatus CONNECTED", func() bool {
		_, body := s.do("GET", "/subscription/e2e-1", key, "")
		return body["connectionStatus"] == "CONNECTED"
	})
	// Pull: the same events through GET /subscription/equipment (projector → ClickHouse).
	var journey map[string]any
	testkit.Eventually(t, 15*time.Second, "the journey with source events after the events", func() bool {
		code, body := s.do("GET", "/subscription/equipment?equipmentNumber=MSKU9070323", key, "")
		if code != 200 {
			t.Fatalf("pull: %d %v", code, body)
		}
		if results, _ := body["results"].([]any); len(results) == 1 {
			journey = results[0].(map[string]any)
			src, _ := journey["sourceEvents"].([]any)
			return len(src) > 0
		}
		return false
	})
	if journey["equipmentNumber"] != "MSKU9070323" || journey["scacCode"] != "MAEU" || journey["trackingStatus"] != "OPEN" ||
		journey["POL"] == "" || journey["POD"] == "" || journey["POL"] == journey["POD"] {
		t.Errorf("journey: %v", journey)
	}
	for _, e := range journey["sourceEvents"].([]any) {
		if ev := e.(map[string]any); ev["eventType"] != "EQUIPMENT" || ev["equipmentReference"] != "MSKU9070323" {
			t.Errorf("source event %v", ev)
		}
	}
	if code, body := s.do("GET", "/subscription/equipment", key, ""); code != 400 || body["message"] != "Must provide at least one of: equipmentNumber, bookingNumber, billNumber" || body["dateOfRequest"] == nil {
		t.Errorf("no identifier: %d %v", code, body)
	}
	if code, body := s.do("GET", "/subscription/equipment?bookingNumber=A&billNumber=B", key, ""); code != 400 || body["message"] != "Cannot provide both bookingNumber and billNumber please provide one" || body["dateOfRequest"] == nil {
		t.Errorf("booking and bill: %d %v", code, body)
	}
	// Pull: the account event feed (feed stage → Postgres), no webhook configured.
	// Each look long-polls (wait=1), so the condition paces itself.
	testkit.Eventually(t, 15*time.Second, "feed events after the events", func() bool {
		code, body := s.do("GET", "/subscriptions/events?wait=1", key, "")
		items, _ := body["items"].([]any)
		if code != 200 || body["nextCursor"] == nil {
			t.Fatalf("feed: %d %v", code, body)
		}
		if len(items) == 0 {
			return false
		}
		refs := items[0].(map[string]any)["references"].(map[string]any)
		if refs["subscriptionReference"] != "e2e-1" || refs["equipmentNumber"] != "MSKU9070323" {
			t.Errorf("feed references %v", refs)
		}
		return true
	})
	if err := s.shutdown(); err != nil {
		t.Fatalf("clean shutdown: %v", err)
	}
	t.Logf("%d events for the subscription", len(events))
}

// The push path end to end: configure and activate a webhook with the
// secret from its verification message, subscribe, and receive signed
// deliveries of DCSA events wrapped in the subscription's references.
func TestEndToEndWebhookPush(t *testing.T) {
	s := startSystem(t)
	key, _, err := auth.NewStore(s.db.Pool).CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		body []byte
		hdr  http.Header
	}
	received := make(chan got, 100)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		received <- got{b, r.Header.Clone()}
		w.WriteHeader(200)
	}))
	defer rcv.Close()
	if code, body := s.do("POST", "/webhook/configure", key, `{"targetUrl":"`+rcv.URL+`/hook"}`); code != 200 {
		t.Fatalf("configure: %d %v", code, body)
	}
	var secret string
	select {
	case g := <-received:
		var v struct{ Secret string }
		if err := json.Unmarshal(g.body, &v); err != nil {
			t.Fatal(err)
		}
		secret = v.Secret
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatal("no verification message")
	}
	if code, body := s.do("POST", "/webhook/activate", key, `{"secret":"`+secret+`"}`); code != 200 || body["message"] != "Successful Activation" {
		t.Fatalf("activate: %d %v", code, body)
	}
	s.do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"any"}}`)
	if code, body := s.do("POST", "/subscription/equipment", key, `{"scacCode":"MAEU","containerNumber":"MSKU9070323","subscriptionReference":"push-1"}`); code != 200 {
		t.Fatalf("subscribe: %d %v", code, body)
	}
	select {
	case g := <-received:
		if g.hdr.Get("X-Hook-Signature") != signature.HookSignature(secret, g.body) {
			t.Fatalf("X-Hook-Signature does not verify")
		}
		ts, _ := strconv.ParseInt(g.hdr.Get("webhook-timestamp"), 10, 64)
		if want, _ := signature.StandardSignature(secret, g.hdr.Get("webhook-id"), time.Unix(ts, 0), g.body); g.hdr.Get("webhook-signature") != want {
			t.Fatalf("webhook-signature does not verify")
		}
		var p struct {
			References map[string]string `json:"references"`
			Events     []dcsa.Event      `json:"events"`
		}
		if err := json.Unmarshal(g.body, &p); err != nil {
			t.Fatal(err)
		}
		if p.References["subscriptionReference"] != "push-1" || p.References["equipmentNumber"] != "MSKU9070323" || p.References["scacCode"] != "MAEU" || len(p.Events) == 0 {
			t.Fatalf("payload: %s", g.body)
		}
	case <-time.After(testkit.Scale(30 * time.Second)):
		t.Fatal("no delivery 30 s after subscribing")
	}
}
