package commandapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/signature"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas/deliveries"
)

// receiver is a consumer's webhook endpoint: it verifies both signatures of
// every message it gets and keeps the secrets they carried.
type receiver struct {
	t        *testing.T
	srv      *httptest.Server
	mu       sync.Mutex
	secrets  []string
	failNext int
	hits     int
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.hits++
		if r.failNext > 0 {
			r.failNext--
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var msg commandapi.VerificationMessage
		if err := json.Unmarshal(body, &msg); err != nil || msg.Type != "webhook.verification" || msg.Secret == "" {
			t.Errorf("verification message: %s", body)
		}
		if got := req.Header.Get("X-Hook-Signature"); got != signature.HookSignature(msg.Secret, body) {
			t.Errorf("X-Hook-Signature %q does not verify", got)
		}
		ts, _ := strconv.ParseInt(req.Header.Get("webhook-timestamp"), 10, 64)
		if want, _ := signature.StandardSignature(msg.Secret, req.Header.Get("webhook-id"), time.Unix(ts, 0), body); req.Header.Get("webhook-signature") != want {
			t.Errorf("webhook-signature %q does not verify", req.Header.Get("webhook-signature"))
		}
		r.secrets = append(r.secrets, msg.Secret)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// secret waits for the n-th verification secret.
func (r *receiver) secret(n int) string {
	r.t.Helper()
	var secret string
	testkit.Eventually(r.t, 5*time.Second, fmt.Sprintf("verification message %d", n), func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.secrets) < n {
			return false
		}
		secret = r.secrets[n-1]
		return true
	})
	return secret
}

// webhookAPI is the API with the delivery stage running on its database:
// the stage sends verification messages (and test deliveries).
func webhookAPI(t *testing.T, allowPrivate bool) (*testenv.API, testenv.PGDatabase) {
	api, db, h := webhookAPIHarness(t, allowPrivate)
	h.Start(deliverytest.Config())
	return api, db
}

// webhookAPIHarness is webhookAPI with the delivery stage not started.
func webhookAPIHarness(t *testing.T, allowPrivate bool) (*testenv.API, testenv.PGDatabase, *deliverytest.Harness) {
	db := testenv.Postgres(t)
	h := deliverytest.NewOn(t, db, false)
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, Box: h.Box, TokenKey: []byte("k")})
		commandapi.Register(s, commandapi.Config{AllowPrivateWebhooks: allowPrivate}, commandapi.Deps{Pool: db.Pool, Box: h.Box, Log: testenv.Log(t)})
	})
	return api, db, h
}

func TestWebhookLifecycle(t *testing.T) {
	api, db := webhookAPI(t, true)
	rcv := newReceiver(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	other := api.Key(auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	expect := func(r testenv.Response, status int, msg string) {
		t.Helper()
		if r.Status != status || r.Message() != msg {
			t.Fatalf("got %d %s, want %d %q", r.Status, r.Raw, status, msg)
		}
	}
	expect(api.Do("POST", "/webhook/activate", key, `{"secret":"whsec_x"}`), 400, "No Web-hook Configured")
	expect(api.Do("POST", "/webhook/configure", key, `{}`), 400, "Missing Parameter 'targetUrl'")
	expect(api.Do("POST", "/webhook/configure", key, `{"targetUrl":"not a url"}`), 400, "Invalid 'targetUrl': must be an absolute http or https URL")
	if g := api.Do("GET", "/webhook/configure", key, nil); norm(t, g.Raw) != `{"activated":false,"authHeaders":{},"env":"sandbox","eventFormat":"EVENT_DOMAIN_2.0.2","filters":{"alertTypes":[],"classifiers":null,"eventTypes":null,"milestonesOnly":false},"targetUrl":""}` {
		t.Fatalf("GET before configure: %s", g.Raw)
	}

	expect(api.Do("POST", "/webhook/configure", key, map[string]string{"targetUrl": rcv.srv.URL + "/hook"}), 200, "Successful Configuration")
	first := rcv.secret(1)
	if g := api.Do("GET", "/webhook/configure", key, nil); norm(t, g.Raw) != `{"activated":false,"authHeaders":{},"env":"sandbox","eventFormat":"EVENT_DOMAIN_2.0.2","filters":{"alertTypes":[],"classifiers":null,"eventTypes":null,"milestonesOnly":false},"targetUrl":"`+rcv.srv.URL+`/hook"}` {
		t.Fatalf("GET after configure: %s", g.Raw)
	}
	expect(api.Do("POST", "/webhook/activate", key, `{}`), 400, "Missing Parameter 'secret'")
	expect(api.Do("POST", "/webhook/activate", key, `{"secret":"   "}`), 400, "Missing Parameter 'secret'")
	expect(api.Do("POST", "/webhook/activate", key, `{"secret":"whsec_wrong"}`), 400, "Incorrect Secret")
	// Isolation: the other account sees nothing and cannot activate with A's secret.
	if g := api.Do("GET", "/webhook/configure", other, nil); norm(t, g.Raw) != `{"activated":false,"authHeaders":{},"env":"sandbox","eventFormat":"EVENT_DOMAIN_2.0.2","filters":{"alertTypes":[],"classifiers":null,"eventTypes":null,"milestonesOnly":false},"targetUrl":""}` {
		t.Fatalf("other account sees: %s", g.Raw)
	}
	expect(api.Do("POST", "/webhook/activate", other, map[string]string{"secret": first}), 400, "No Web-hook Configured")

	expect(api.Do("POST", "/webhook/activate", key, map[string]string{"secret": first}), 200, "Successful Activation")
	expect(api.Do("POST", "/webhook/activate", key, map[string]string{"secret": first}), 200, "Webhook already activated")
	if g := api.Do("GET", "/webhook/configure", key, nil); g.JSON["activated"] != true {
		t.Fatalf("not activated: %s", g.Raw)
	}
	// Re-configuring deactivates and re-issues: the old secret is now wrong.
	expect(api.Do("POST", "/webhook/configure", key, map[string]string{"targetUrl": rcv.srv.URL + "/hook2"}), 200, "Successful Configuration")
	second := rcv.secret(2)
	if second == first {
		t.Fatal("secret not re-issued")
	}
	if g := api.Do("GET", "/webhook/configure", key, nil); g.JSON["activated"] != false {
		t.Fatalf("re-configure kept activation: %s", g.Raw)
	}
	expect(api.Do("POST", "/webhook/activate", key, map[string]string{"secret": first}), 400, "Incorrect Secret")
	expect(api.Do("POST", "/webhook/activate", key, map[string]string{"secret": second}), 200, "Successful Activation")

	// The event format: TNT 3.0 on request (any case), back to the default
	// when configured without; anything else refused, nothing changed.
	expect(api.Do("POST", "/webhook/configure", key, map[string]string{"targetUrl": rcv.srv.URL + "/hook3", "eventFormat": "tnt_3.0.0"}), 200, "Successful Configuration")
	if g := api.Do("GET", "/webhook/configure", key, nil); g.JSON["eventFormat"] != "TNT_3.0.0" {
		t.Fatalf("eventFormat: %s", g.Raw)
	}
	expect(api.Do("POST", "/webhook/configure", key, map[string]string{"targetUrl": rcv.srv.URL + "/hook4", "eventFormat": "3.0"}), 400,
		"Invalid 'eventFormat': use EVENT_DOMAIN_2.0.2 (the default) or TNT_3.0.0")
	if g := api.Do("GET", "/webhook/configure", key, nil); g.JSON["eventFormat"] != "TNT_3.0.0" || g.JSON["targetUrl"] != rcv.srv.URL+"/hook3" {
		t.Fatalf("a refused configure changed the webhook: %s", g.Raw)
	}
	expect(api.Do("POST", "/webhook/configure", key, map[string]string{"targetUrl": rcv.srv.URL + "/hook5"}), 200, "Successful Configuration")
	if g := api.Do("GET", "/webhook/configure", key, nil); g.JSON["eventFormat"] != "EVENT_DOMAIN_2.0.2" {
		t.Fatalf("eventFormat after a configure without: %s", g.Raw)
	}

	// Filters: stored in their canonical form, returned, replaced by the
	// next configure; every wrong value named at once, nothing changed.
	expect(api.Do("POST", "/webhook/configure", key, `{"targetUrl":"`+rcv.srv.URL+`/hook6","filters":{"eventTypes":["transport"," DISCHARGE_POD","TRANSPORT"],"classifiers":["act"],"milestonesOnly":true,"alertTypes":["HOLD_PLACED","ETA_CHANGED"]}}`),
		200, "Successful Configuration")
	if g := api.Do("GET", "/webhook/configure", key, nil); !strings.Contains(norm(t, g.Raw), `"filters":{"alertTypes":["ETA_CHANGED","HOLD_PLACED"],"classifiers":["ACT"],"eventTypes":["TRANSPORT","DISCHARGE_POD"],"milestonesOnly":true}`) {
		t.Fatalf("filters: %s", g.Raw)
	}
	expect(api.Do("POST", "/webhook/configure", key, `{"targetUrl":"`+rcv.srv.URL+`/hook7","filters":{"eventTypes":["SHIPMENT"],"classifiers":[],"alertTypes":["LATE"]}}`), 400,
		"Invalid filters: 'filters.eventTypes' has \"SHIPMENT\": use EQUIPMENT, TRANSPORT, ATD_POL, TRANSSHIPMENT, ETA_REVISION, ETA_POD, ATA_POD, DISCHARGE_POD, GATE_OUT_FULL_DESTINATION, EMPTY_RETURN; "+
			"'filters.classifiers' is empty: list at least one of ACT, PLN, EST, or leave it out for all; "+
			"'filters.alertTypes' has \"LATE\": use ETA_CHANGED, ROLLED, ARRIVED, AVAILABLE_FOR_PICKUP, HOLD_PLACED, HOLD_RELEASED, LFD_APPROACHING, DEMURRAGE_STARTED")
	if g := api.Do("GET", "/webhook/configure", key, nil); g.JSON["targetUrl"] != rcv.srv.URL+"/hook6" {
		t.Fatalf("a refused configure changed the webhook: %s", g.Raw)
	}
	// An empty eventTypes list is kept (alerts only), not read as "all".
	expect(api.Do("POST", "/webhook/configure", key, `{"targetUrl":"`+rcv.srv.URL+`/hook8","filters":{"eventTypes":[],"alertTypes":["ARRIVED"]}}`), 200, "Successful Configuration")
	if g := api.Do("GET", "/webhook/configure", key, nil); !strings.Contains(norm(t, g.Raw), `"filters":{"alertTypes":["ARRIVED"],"classifiers":null,"eventTypes":[],"milestonesOnly":false}`) {
		t.Fatalf("alerts-only filters: %s", g.Raw)
	}
	expect(api.Do("POST", "/webhook/configure", key, map[string]string{"targetUrl": rcv.srv.URL + "/hook9"}), 200, "Successful Configuration")
	if g := api.Do("GET", "/webhook/configure", key, nil); !strings.Contains(norm(t, g.Raw), `"filters":{"alertTypes":[],"classifiers":null,"eventTypes":null,"milestonesOnly":false}`) {
		t.Fatalf("filters after a configure without: %s", g.Raw)
	}

	var enc []byte
	if err := db.Pool.QueryRow(context.Background(), `SELECT secret_enc FROM webhooks`).Scan(&enc); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(enc, []byte(second)) || bytes.Contains(enc, []byte(second[6:20])) {
		t.Fatal("webhook secret stored in plaintext")
	}
}

func TestVerificationIsRetried(t *testing.T) {
	api, _ := webhookAPI(t, true)
	rcv := newReceiver(t)
	rcv.failNext = 2
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if r := api.Do("POST", "/webhook/configure", key, map[string]string{"targetUrl": rcv.srv.URL}); r.Status != 200 {
		t.Fatal(r.Status)
	}
	secret := rcv.secret(1)
	rcv.mu.Lock()
	hits := rcv.hits
	rcv.mu.Unlock()
	if hits != 3 {
		t.Fatalf("verification sent %d times, want 3 (two failures, then success)", hits)
	}
	if r := api.Do("POST", "/webhook/activate", key, map[string]string{"secret": secret}); r.Message() != "Successful Activation" {
		t.Fatalf("activate: %s", r.Raw)
	}
}

func TestWebhookTargetRules(t *testing.T) {
	api, _ := webhookAPI(t, false)
	sandbox := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	live := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "live"})
	for _, c := range []struct{ key, url, msg string }{
		{sandbox, "http://127.0.0.1:8080/hook", "Invalid 'targetUrl': loopback, private and link-local addresses are not allowed (for a local receiver in development, the operator sets CONTRACK_ALLOW_PRIVATE_WEBHOOKS=true)"},
		{sandbox, "http://10.0.0.5/hook", "Invalid 'targetUrl': loopback, private and link-local addresses are not allowed (for a local receiver in development, the operator sets CONTRACK_ALLOW_PRIVATE_WEBHOOKS=true)"},
		{live, "http://8.8.8.8/hook", "Invalid 'targetUrl': live webhooks must use https"},
	} {
		r := api.Do("POST", "/webhook/configure", c.key, map[string]string{"targetUrl": c.url})
		if r.Status != 400 || r.Message() != c.msg {
			t.Errorf("%s: %d %s", c.url, r.Status, r.Raw)
		}
		if g := api.Do("GET", "/webhook/configure", c.key, nil); g.JSON["targetUrl"] != "" {
			t.Errorf("refused target stored: %s", g.Raw)
		}
	}
}

// POST /webhook/test queues a signed test delivery that the delivery stage
// sends and GET /webhook/deliveries lists; it is per account: another
// account can neither trigger, see nor replay it, and each has its own rate
// limit.
func TestTestDelivery(t *testing.T) {
	api, _, h := webhookAPIHarness(t, true)
	cfg := deliverytest.Config()
	h.Start(cfg)
	rcv := deliverytest.NewReceiver(t, nil)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	other := api.Key(auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	expect := func(r testenv.Response, status int, msg string) {
		t.Helper()
		if r.Status != status || r.Message() != msg {
			t.Fatalf("got %d %s, want %d %q", r.Status, r.Raw, status, msg)
		}
	}
	expect(api.Do("POST", "/webhook/test", key, nil), 400, "No Web-hook Configured")
	expect(api.Do("POST", "/webhook/configure", key, map[string]string{"targetUrl": rcv.URL + "/hook"}), 200, "Successful Configuration")
	expect(api.Do("POST", "/webhook/test", key, nil), 400, "Webhook not activated")
	var secret string
	testkit.Eventually(t, 10*time.Second, "the verification", func() bool {
		for _, r := range rcv.Acked() {
			var msg commandapi.VerificationMessage
			if json.Unmarshal(r.Body, &msg) == nil && msg.Type == "webhook.verification" {
				secret = msg.Secret
			}
		}
		return secret != ""
	})
	expect(api.Do("POST", "/webhook/activate", key, map[string]string{"secret": secret}), 200, "Successful Activation")

	r := api.Do("POST", "/webhook/test", key, nil)
	expect(r, 200, "Test delivery queued")
	id, _ := r.JSON["id"].(string)
	if id == "" || r.JSON["status"] != "PENDING" {
		t.Fatalf("POST /webhook/test: %s", r.Raw)
	}
	var got deliverytest.Received
	testkit.Eventually(t, 10*time.Second, "the test delivery", func() bool {
		for _, r := range rcv.Acked() {
			if r.WebhookID() == id {
				got = r
				return true
			}
		}
		return false
	})
	if err := deliverytest.Verify(secret, got.Header, got.Body); err != nil {
		t.Errorf("test delivery signature: %v", err)
	}
	var msg struct{ Type, TargetURL, Env string }
	if err := json.Unmarshal(got.Body, &msg); err != nil || msg.Type != "webhook.test" || msg.TargetURL != rcv.URL+"/hook" || msg.Env != "sandbox" {
		t.Errorf("test delivery body %s", got.Body)
	}
	// Listed with its outcome; the verification is not listed.
	testkit.Eventually(t, 10*time.Second, "the test delivery listed as delivered", func() bool {
		l := api.Do("GET", "/webhook/deliveries", key, nil)
		ds, _ := l.JSON["deliveries"].([]any)
		if len(ds) != 1 {
			return false
		}
		d := ds[0].(map[string]any)
		return d["id"] == id && d["test"] == true && d["status"] == "DELIVERED" && d["attempts"] == float64(1) &&
			d["lastHttpCode"] == float64(200) && d["subscriptionReference"] == ""
	})
	// Isolation: the other account sees none of it and cannot replay it.
	if l := api.Do("GET", "/webhook/deliveries", other, nil); norm(t, l.Raw) != `{"deliveries":[]}` {
		t.Errorf("other account lists: %s", l.Raw)
	}
	expect(api.Do("POST", "/webhook/deliveries/"+id+"/retry", other, nil), 404, "Delivery not found")
	expect(api.Do("POST", "/webhook/test", other, nil), 400, "No Web-hook Configured")

	// The limit: five a minute per account, then 429 with Retry-After.
	for i := 2; i <= 5; i++ {
		expect(api.Do("POST", "/webhook/test", key, nil), 200, "Test delivery queued")
	}
	limited := api.Do("POST", "/webhook/test", key, nil)
	expect(limited, 429, "Too many test deliveries: at most 5 a minute")
	if ra, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
		t.Errorf("Retry-After %q, want 1-60 s", limited.Header.Get("Retry-After"))
	}
	// Another account's limit is its own.
	rcv2 := deliverytest.NewReceiver(t, nil)
	acct2 := h.Account("sandbox")
	h.Webhook(acct2, rcv2.URL, true)
	if _, _, err := deliveries.QueueTest(context.Background(), h.DB.Pool, h.Box, acct2, time.Now()); err != nil {
		t.Errorf("another account's test delivery refused: %v", err)
	}
	testkit.Eventually(t, 10*time.Second, "every test delivery", func() bool {
		return len(rcv.Acked()) == 1+5 && len(rcv2.Acked()) == 1
	})
}
