package delivery_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contrack/contrack/delivery"
	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas/deliveries"
	"github.com/contrack/contrack/schemas/tnt3"
)

// logBuffer is a logger's output, read while the logger writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A webhook's auth headers reach its receiver on every attempt of every
// kind of delivery — the verification, events (a TNT 3.0 webhook's too),
// their retries, a replay of a dead delivery and a test delivery — beside
// contrack's own headers, which they never replace; and no value is logged.
func TestAuthHeadersOnEveryAttempt(t *testing.T) {
	h := dt.New(t, false)
	var failing atomic.Bool
	failing.Store(true)
	rc := dt.NewReceiver(t, func(_ int, r *http.Request) int {
		if failing.Load() && r.URL.Path == "/events" {
			return 503
		}
		return 200
	})
	const apiKey, token = "key-0123456789-abcd", "tok-secret-value-wxyz"
	auth := []deliveries.AuthHeader{{Name: "Authorization", Value: "Bearer " + token}, {Name: "X-API-Key", Value: apiKey}}

	// A webhook configured, not activated yet: its verification.
	verifying := h.Account("sandbox")
	vsecret := h.Webhook(verifying, rc.URL+"/verify", false)
	h.AuthHeaders(verifying, auth...)
	vid := queueVerification(t, h, verifying, rc.URL+"/verify", vsecret)

	// An activated TNT 3.0 webhook: events, retried until dead, replayed.
	acct := h.Account("sandbox")
	secret := h.Webhook(acct, rc.URL+"/events", true)
	h.Exec(`UPDATE webhooks SET event_format = 'TNT_3.0.0' WHERE account_id = $1`, acct)
	h.AuthHeaders(acct, auth...)
	s := h.Subscribe(acct, "ref-auth")

	logs := &logBuffer{}
	cfg := dt.Config()
	cfg.Schedule = []time.Duration{10 * time.Millisecond, 10 * time.Millisecond}
	deps := h.Deps()
	deps.Log = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	stop := testenv.RunStage(t, "Run", func(ctx context.Context) error { return delivery.Run(ctx, cfg, deps) })

	h.Produce(s, "ev-1")
	testkit.Eventually(t, 15*time.Second, "the delivery dead after its retries", func() bool {
		d := h.Deliveries(s.ID)
		return len(d) == 1 && d[0].Status == deliveries.StatusDead
	})
	failing.Store(false)
	if err := deliveries.Replay(context.Background(), h.DB.Pool, acct, h.Deliveries(s.ID)[0].ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	tid, _, err := deliveries.QueueTest(context.Background(), h.DB.Pool, h.Box, acct, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 15*time.Second, "the replay, the test delivery and the verification acknowledged", func() bool {
		return len(rc.Acked()) == 3
	})
	dead := h.Deliveries(s.ID)[0].ID
	kinds := map[string]int{}
	for _, r := range rc.Requests() {
		kind := map[string]string{dead: "events", tid: "test", vid: "verification"}[r.WebhookID()]
		kinds[kind]++
		if got := r.Header.Values("Authorization"); len(got) != 1 || got[0] != "Bearer "+token {
			t.Errorf("%s delivery: Authorization %q", kind, got)
		}
		if got := r.Header.Values("X-API-Key"); len(got) != 1 || got[0] != apiKey {
			t.Errorf("%s delivery: X-API-Key %q", kind, got)
		}
		sec := secret
		if kind == "verification" {
			sec = vsecret
		}
		if err := dt.Verify(sec, r.Header, r.Body); err != nil {
			t.Errorf("%s delivery: signature: %v", kind, err)
		}
		if kind == "events" && r.Header.Get("API-Version") != tnt3.Version {
			t.Errorf("TNT 3.0 delivery: API-Version %q", r.Header.Get("API-Version"))
		}
		// Every other header a receiver sees is one configure refuses as an
		// auth header: deliveries.DeliveryHeaders lists what contrack sets.
		for name := range r.Header {
			if name == "Authorization" || name == "X-Api-Key" {
				continue
			}
			if _, problems := deliveries.CheckAuthHeaders(map[string]string{name: "v"}); len(problems) == 0 {
				t.Errorf("contrack sends %s, which configure accepts as an auth header", name)
			}
		}
	}
	// 3 attempts of the event delivery (1 + 2 retries) and its replay.
	if kinds["events"] != 4 || kinds["test"] != 1 || kinds["verification"] != 1 || kinds[""] != 0 {
		t.Errorf("requests by kind %v, want events 4, test 1, verification 1", kinds)
	}

	stop()
	l := logs.String()
	if !strings.Contains(l, "delivery stopped") {
		t.Fatalf("the stage's log was not captured: %q", l)
	}
	for _, line := range strings.Split(l, "\n") {
		if strings.Contains(line, apiKey) || strings.Contains(line, token) {
			t.Errorf("an auth header value was logged: %s", line)
		}
	}
	var last string
	if err := h.DB.Pool.QueryRow(context.Background(), `SELECT string_agg(coalesce(last_error, ''), ' ') FROM deliveries`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(last, apiKey) || strings.Contains(last, token) {
		t.Errorf("an auth header value in last_error: %s", last)
	}
}

// Auth headers that cannot be opened (sealed for another account, or under
// another CONTRACK_SECRET_KEY) stop the attempt before anything is sent:
// a delivery never goes out without the receiver's credentials.
func TestUnreadableAuthHeadersSendNothing(t *testing.T) {
	h := dt.New(t, false)
	rc := dt.NewReceiver(t, nil)
	acct, other := h.Account("sandbox"), h.Account("sandbox")
	h.Webhook(acct, rc.URL, true)
	h.Webhook(other, rc.URL, false)
	h.AuthHeaders(other, deliveries.AuthHeader{Name: "X-API-Key", Value: "k-1"})
	h.Exec(`UPDATE webhooks SET auth_headers_enc = (SELECT auth_headers_enc FROM webhooks WHERE account_id = $2) WHERE account_id = $1`, acct, other)
	s := h.Subscribe(acct, "ref-x")
	h.Start(dt.Config())
	h.Produce(s, "ev-1")
	testkit.Eventually(t, 15*time.Second, "a failed attempt recorded", func() bool {
		d := h.Deliveries(s.ID)
		return len(d) == 1 && d[0].Attempts >= 1
	})
	d := h.Deliveries(s.ID)[0]
	if d.LastError != "webhook auth headers cannot be opened (was CONTRACK_SECRET_KEY changed?)" || d.Status == deliveries.StatusDelivered {
		t.Errorf("delivery %+v", d)
	}
	if n := len(rc.Requests()); n != 0 {
		t.Errorf("%d requests sent without their auth headers", n)
	}
}
