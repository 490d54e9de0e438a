package ingest_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/ingest"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/signature"
	"github.com/contrack/contrack/platform/testenv"
)

// clock is a settable time for the API's handlers.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// swHeaders signs body the Standard Webhooks way for secret.
func swHeaders(secret, id string, ts time.Time, body string) map[string]string {
	mac := hmac.New(sha256.New, signature.StandardKey(secret))
	mac.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "." + body))
	return map[string]string{
		"webhook-id":        id,
		"webhook-timestamp": strconv.FormatInt(ts.Unix(), 10),
		"webhook-signature": "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)),
	}
}

func legacyHeader(secret, body string) map[string]string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	return map[string]string{"Notification-Signature": "sha256=" + hex.EncodeToString(mac.Sum(nil))}
}

// TestPostEventsTimestampedSignature: carrier pushes signed with the
// Standard Webhooks headers are accepted within 5 minutes of their
// timestamp and once per webhook-id (a replay — to this API process or
// another — is acknowledged and not processed again, for 10 minutes); a
// timestamp farther off, a wrong signature, or the body-only header on a
// key that requires the timestamped one is 403. The body-only
// Notification-Signature still works on other keys. A live carrier key
// must have a secret: unsigned pushes of one without are 403, and its
// secret cannot be cleared.
func TestPostEventsTimestampedSignature(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 1)
	box, _ := secretbox.New("test")
	secrets := &ingest.SigningSecretStore{Pool: db.Pool, Box: box}
	producer := testenv.KafkaClient(t, kc.Brokers)
	clk := &clock{t: time.Now().UTC()}
	serve := func() *testenv.API {
		return testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
			ingest.RegisterEvents(s, ingest.EventsDeps{Producer: producer, Namespace: kc.NS, Secrets: secrets, PushIDs: &ingest.PushIDStore{Pool: db.Pool},
				Log: testenv.Log(t), Check: pushed.Check, Now: clk.now})
		})
	}
	api, other := serve(), serve() // two API processes on one database
	ctx := context.Background()
	key, k, err := api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "hapag", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "HLCU"})
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := signature.NewSecret()
	if err := secrets.SetSigningSecret(ctx, k.ID, secret); err != nil {
		t.Fatal(err)
	}
	post := func(api *testenv.API, key string, hdr map[string]string) testenv.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", api.URL+"/events", strings.NewReader(equipmentEvent))
		req.Header.Set("x-api-key", key)
		for h, v := range hdr {
			req.Header.Set(h, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		r := testenv.Response{Status: resp.StatusCode, Raw: raw}
		if err := json.Unmarshal(raw, &r.JSON); err != nil {
			t.Fatal(err)
		}
		return r
	}
	stored := 0
	expectStored := func(what string, n int) {
		t.Helper()
		stored += n
		if got := len(rawRecords(t, kc)); got != stored {
			t.Fatalf("%s: %d records on carrier-raw, want %d", what, got, stored)
		}
	}

	now := clk.now()
	signed := swHeaders(secret, "msg_1", now, equipmentEvent)
	if r := post(api, key, signed); r.Status != 200 || r.Message() != "Successfully Added Event" {
		t.Fatalf("signed push: %d %s", r.Status, r.Raw)
	}
	expectStored("signed push", 1)
	// The same push again, here or to another process: acknowledged, not processed.
	for _, to := range []*testenv.API{api, other} {
		if r := post(to, key, signed); r.Status != 200 || r.Message() != "Successfully Added Event" {
			t.Fatalf("replay: %d %s", r.Status, r.Raw)
		}
	}
	expectStored("replays", 0)

	for name, c := range map[string]struct {
		hdr  map[string]string
		want string
	}{
		"6 minutes old":        {swHeaders(secret, "msg_2", now.Add(-6*time.Minute), equipmentEvent), ingest.MsgBadTimestamp},
		"6 minutes ahead":      {swHeaders(secret, "msg_3", now.Add(6*time.Minute), equipmentEvent), ingest.MsgBadTimestamp},
		"another body":         {swHeaders(secret, "msg_4", now, equipmentEvent+" "), ingest.MsgBadStandardSignature},
		"another secret":       {swHeaders("whsec_b3RoZXItc2VjcmV0LW9mLWFub3RoZXI=", "msg_5", now, equipmentEvent), ingest.MsgBadStandardSignature},
		"no signature":         {map[string]string{"webhook-id": "msg_6", "webhook-timestamp": strconv.FormatInt(now.Unix(), 10)}, ingest.MsgBadStandardSignature},
		"nothing signed":       {nil, ingest.MsgBadSignature},
		"id of another body":   {map[string]string{"webhook-id": "msg_1", "webhook-timestamp": signed["webhook-timestamp"], "webhook-signature": swHeaders(secret, "msg_7", now, equipmentEvent)["webhook-signature"]}, ingest.MsgBadStandardSignature},
		"legacy, wrong secret": {legacyHeader("nope", equipmentEvent), ingest.MsgBadSignature},
	} {
		if r := post(api, key, c.hdr); r.Status != 403 || r.Message() != c.want {
			t.Errorf("%s: %d %s, want 403 %q", name, r.Status, r.Raw, c.want)
		}
	}
	expectStored("refused pushes", 0)
	// Within the tolerance either side, a new id is accepted.
	if r := post(api, key, swHeaders(secret, "msg_8", now.Add(-4*time.Minute), equipmentEvent)); r.Status != 200 {
		t.Fatalf("4 minutes old: %d %s", r.Status, r.Raw)
	}
	// The body-only header, for compatibility.
	if r := post(api, key, legacyHeader(secret, equipmentEvent)); r.Status != 200 {
		t.Fatalf("Notification-Signature: %d %s", r.Status, r.Raw)
	}
	expectStored("in tolerance and legacy", 2)

	// Past the replay window (10 minutes) the id is new again.
	clk.advance(11 * time.Minute)
	if r := post(api, key, swHeaders(secret, "msg_1", clk.now(), equipmentEvent)); r.Status != 200 {
		t.Fatalf("msg_1 after the window: %d %s", r.Status, r.Raw)
	}
	expectStored("an id after the window", 1)

	// A key that requires the timestamped scheme refuses the body-only one.
	if err := secrets.SetSigningPolicy(ctx, k.ID, secret, true); err != nil {
		t.Fatal(err)
	}
	if r := post(api, key, legacyHeader(secret, equipmentEvent)); r.Status != 403 || r.Message() != ingest.MsgTimestampRequired {
		t.Fatalf("body-only signature on a timestamped-only key: %d %s", r.Status, r.Raw)
	}
	if r := post(api, key, swHeaders(secret, "msg_9", clk.now(), equipmentEvent)); r.Status != 200 {
		t.Fatalf("timestamped-only key, signed: %d %s", r.Status, r.Raw)
	}
	expectStored("timestamped-only", 1)

	// A live carrier key without a secret (made before secrets were
	// mandatory) pushes nothing, and a live key's secret cannot be cleared.
	liveKey, live, err := api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "msc", Env: "live", Role: auth.RoleCarrier, SCAC: "MSCU"})
	if err != nil {
		t.Fatal(err)
	}
	if r := post(api, liveKey, nil); r.Status != 403 || r.Message() != ingest.MsgSecretRequired {
		t.Fatalf("live key without a secret: %d %s", r.Status, r.Raw)
	}
	expectStored("live key without a secret", 0)
	if err := secrets.SetSigningSecret(ctx, live.ID, secret); err != nil {
		t.Fatal(err)
	}
	if err := secrets.SetSigningSecret(ctx, live.ID, ""); !errors.Is(err, ingest.ErrLiveKeyNeedsSecret) {
		t.Fatalf("a live key's secret cleared: %v", err)
	}
	if err := secrets.SetSigningSecret(ctx, k.ID, ""); err != nil {
		t.Fatalf("a sandbox key's secret: %v", err)
	}
}
