package contrack

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// These tests run against a real `contrack all` that `make sdk-test`
// starts (sdk/harness); without one they skip.

// container is a sandbox container (valid ISO 6346 check digit): the
// sandbox carriers give it a deterministic journey with past events.
const container = "MSKU9070323"

type server struct {
	url, bin string
}

func realServer(t *testing.T) server {
	t.Helper()
	s := server{url: os.Getenv("CONTRACK_SDK_TEST_URL"), bin: os.Getenv("CONTRACK_SDK_TEST_BIN")}
	if s.url == "" || s.bin == "" {
		t.Skip("CONTRACK_SDK_TEST_URL and CONTRACK_SDK_TEST_BIN are not set: make sdk-test runs this against a real contrack all")
	}
	return s
}

// admin runs `contrack admin args…` and returns the last line it printed
// (the key, for create-key).
func (s server) admin(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(s.bin, append([]string{"admin"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("contrack admin %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func unique(prefix string) string {
	b := make([]byte, 4)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// eventually polls cond every 200 ms until it holds, or fails the test.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// hookAPIKey is the header value the receiver authenticates contrack with
// (the webhook's authHeaders).
const hookAPIKey = "sdk-hook-key-1234"

// receiver is a webhook endpoint that verifies every delivery with the
// SDK (the verification message with the secret it carries, the others
// with the secret the test activated) and hands the verified ones over.
type receiver struct {
	url      string
	secret   atomic.Value // string
	messages chan *WebhookMessage
	refused  atomic.Int64
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{messages: make(chan *WebhookMessage, 1000)}
	r.secret.Store("")
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		msg, err := ParseWebhook(body)
		if err != nil {
			r.refused.Add(1)
			http.Error(w, "not a payload", http.StatusBadRequest)
			return
		}
		secret := r.secret.Load().(string)
		if msg.Type == WebhookVerification {
			secret = msg.Secret
		}
		// The receiver authenticates contrack with the header it was given.
		if req.Header.Get("X-API-Key") != hookAPIKey {
			r.refused.Add(1)
			http.Error(w, "no API key", http.StatusForbidden)
			return
		}
		// Both schemes must be there: Verify passes with either alone.
		if req.Header.Get("X-Hook-Signature") == "" || req.Header.Get("webhook-signature") == "" {
			r.refused.Add(1)
			http.Error(w, "a signature is missing", http.StatusUnauthorized)
			return
		}
		if err := (Webhook{Secret: secret}).Verify(req.Header, body); err != nil {
			r.refused.Add(1)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		r.messages <- msg
	}))
	t.Cleanup(ts.Close)
	r.url = ts.URL + "/hook"
	return r
}

// next waits for a verified message that match accepts.
func (r *receiver) next(t *testing.T, within time.Duration, what string, match func(*WebhookMessage) bool) *WebhookMessage {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case m := <-r.messages:
			if match(m) {
				return m
			}
		case <-deadline:
			t.Fatalf("no webhook %s within %s (%d deliveries refused)", what, within, r.refused.Load())
		}
	}
}

// The journey of a user: key, webhook configured and verified, credentials,
// subscriptions, paging, the journey pulled, the feed read and resumed, a
// delivered webhook verified, typed errors.
func TestAgainstServer(t *testing.T) {
	s := realServer(t)
	ctx := context.Background()
	key := s.admin(t, "create-key", "--client", unique("sdk-go-"), "--env", "sandbox")
	c, err := New(s.url, key)
	if err != nil {
		t.Fatal(err)
	}

	acct, err := c.GetAccountWithResponse(ctx)
	if err != nil || acct.JSON200.Environment != "sandbox" || acct.JSON200.AuthMethod != "api-key" {
		t.Fatalf("account: %+v, %v", acct, err)
	}

	// Typed errors carry the API's message.
	_, err = c.GetSubscriptionWithResponse(ctx, "no-such-reference", nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Message != "Subscription not found" {
		t.Fatalf("unknown subscription: %v", err)
	}
	bad, _ := New(s.url, "not-a-key")
	if _, err := bad.GetAccountWithResponse(ctx); !errors.As(err, &apiErr) || apiErr.StatusCode != 403 || apiErr.Message != "Forbidden" {
		t.Fatalf("bad key: %v", err)
	}

	// Webhook: configure, take the secret from the verification message, activate.
	recv := newReceiver(t)
	conf, err := c.ConfigureWebhookWithResponse(ctx, ConfigureWebhookBody{TargetUrl: recv.url, AuthHeaders: &map[string]string{"X-API-Key": hookAPIKey}})
	if err != nil || conf.JSON200.Message != "Successful Configuration" {
		t.Fatalf("configure: %+v, %v", conf, err)
	}
	if got, err := c.GetWebhookWithResponse(ctx); err != nil || got.JSON200.AuthHeaders["X-API-Key"] != "****1234" {
		t.Fatalf("webhook auth headers not masked: %+v, %v", got, err)
	}
	verification := recv.next(t, 30*time.Second, "verification message", func(m *WebhookMessage) bool { return m.Type == WebhookVerification })
	if !strings.HasPrefix(verification.Secret, "whsec_") || verification.TargetURL != recv.url {
		t.Fatalf("verification message %+v", verification)
	}
	recv.secret.Store(verification.Secret)
	act, err := c.ActivateWebhookWithResponse(ctx, ActivateWebhookBody{Secret: verification.Secret})
	if err != nil || act.JSON200.Message != "Successful Activation" {
		t.Fatalf("activate: %+v, %v", act, err)
	}

	if resp, err := c.StoreCarrierCredentialsWithResponse(ctx, StoreCarrierCredentialsJSONRequestBody{"MAEU": {"apiKey": "sandbox-any"}}); err != nil || resp.JSON200.Message != "Successful Configuration" {
		t.Fatalf("credentials: %+v, %v", resp, err)
	}

	// Five subscriptions on one container (they share its tracking).
	var refs []string
	for i := range 5 {
		ref := fmt.Sprintf("go-%d", i)
		resp, err := c.CreateSubscriptionWithResponse(ctx, CreateSubscriptionBody{ScacCode: "MAEU", ContainerNumber: container, SubscriptionReference: ref})
		if err != nil || resp.JSON200.Message != "Successfully Subscribed" {
			t.Fatalf("subscribe %s: %+v, %v", ref, resp, err)
		}
		refs = append(refs, ref)
	}
	_, err = c.CreateSubscriptionWithResponse(ctx, CreateSubscriptionBody{ScacCode: "MAEU", ContainerNumber: container, SubscriptionReference: "go-0"})
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Message != "Subscription Reference Already Exists" || apiErr.DateOfRequest.IsZero() {
		t.Fatalf("reference taken: %v", err)
	}

	// Paging: two a page is three pages, in creation order.
	var pages int
	var listed []string
	for page, err := range c.SubscriptionPages(ctx, ListSubscriptionsParams{Limit: Ptr(2)}) {
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, sub := range page.Subscriptions {
			listed = append(listed, sub.SubscriptionReference)
		}
	}
	if pages != 3 || strings.Join(listed, ",") != strings.Join(refs, ",") {
		t.Fatalf("%d pages listing %v, want 3 listing %v", pages, listed, refs)
	}
	listed = nil
	for sub, err := range c.Subscriptions(ctx, ListSubscriptionsParams{ReferencePrefix: Ptr("go-"), Limit: Ptr(3)}) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, sub.SubscriptionReference)
		if sub.SubscriptionStatus != "OPEN" || sub.EquipmentNumber != container {
			t.Errorf("subscription %+v", sub)
		}
	}
	if len(listed) != 5 {
		t.Fatalf("Subscriptions listed %v", listed)
	}

	// The journey, pulled: the sandbox carrier's events arrive within seconds.
	var journey *Result
	eventually(t, 60*time.Second, "a journey with events", func() bool {
		resp, err := c.GetJourneysWithResponse(ctx, &GetJourneysParams{EquipmentNumber: Ptr(container)})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.JSON200.Results) == 1 && len(resp.JSON200.Results[0].SourceEvents) > 0 {
			journey = &resp.JSON200.Results[0]
		}
		return journey != nil
	})
	if journey.EquipmentNumber != container || journey.ScacCode != "MAEU" {
		t.Fatalf("journey %+v", journey)
	}

	// The feed, read to the end, then resumed from a stored cursor.
	var all []FeedEvent
	eventually(t, 60*time.Second, "feed events of go-0", func() bool {
		all = nil
		for ev, err := range c.Feed(ctx, "", FeedOptions{Limit: 7, UntilCaughtUp: true}) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, ev)
		}
		return len(all) > 0 && countRef(all, "go-0") > 0
	})
	for _, ev := range all {
		var e struct {
			EventID            string `json:"eventID"`
			EquipmentReference string `json:"equipmentReference"`
		}
		if err := json.Unmarshal(ev.Event, &e); err != nil || e.EventID == "" || e.EquipmentReference != container {
			t.Fatalf("feed event %s: %v", ev.Event, err)
		}
	}
	if all[len(all)-1].Cursor == "" {
		t.Fatal("the last event read has no cursor to resume after it")
	}
	k := len(all) / 2
	var resumed []FeedEvent
	for ev, err := range c.Feed(ctx, all[k].Cursor, FeedOptions{Limit: 7, UntilCaughtUp: true}) {
		if err != nil {
			t.Fatal(err)
		}
		resumed = append(resumed, ev)
	}
	if !inOrder(all[k+1:], resumed) {
		t.Fatalf("resumed after event %d of %d: the %d events after it are not all there in order (got %d)", k, len(all), len(all)-k-1, len(resumed))
	}
	// Long-polling: the feed waits for an event and returns it.
	longCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	for ev, err := range c.Feed(longCtx, "", FeedOptions{Limit: 1, Wait: 2 * time.Second}) {
		if err != nil || len(ev.Event) == 0 {
			t.Fatalf("long-poll: %v", err)
		}
		break
	}
	cancel()
	for _, err := range c.Feed(ctx, "forged-cursor", FeedOptions{}) {
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Message != "Invalid cursor" {
			t.Fatalf("forged cursor: %v", err)
		}
	}

	// A delivered webhook, verified by the receiver with the SDK.
	delivered := recv.next(t, 60*time.Second, "event delivery", func(m *WebhookMessage) bool {
		return m.Type == "" && len(m.Events) > 0 && strings.HasPrefix(m.References.SubscriptionReference, "go-")
	})
	if delivered.References.EquipmentNumber != container || delivered.References.ScacCode != "MAEU" {
		t.Fatalf("delivery references %+v", delivered.References)
	}

	del, err := c.DeleteSubscriptionWithResponse(ctx, "go-4")
	if err != nil || del.JSON200.Message != "Subscription deleted" {
		t.Fatalf("delete: %+v, %v", del, err)
	}
}

func countRef(evs []FeedEvent, ref string) int {
	n := 0
	for _, ev := range evs {
		if ev.References.SubscriptionReference == ref {
			n++
		}
	}
	return n
}

// inOrder says whether want is a subsequence of got.
func inOrder(want, got []FeedEvent) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g.References == want[i].References && bytes.Equal(g.Event, want[i].Event) {
			i++
		}
	}
	return i == len(want)
}

// countingTransport counts the 429 answers it passes on.
type countingTransport struct{ tooMany atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		c.tooMany.Add(1)
	}
	return resp, err
}

// A key on a plan of one request a second: without retries the second
// call is a typed 429; with them every call succeeds, after waiting.
func TestRetriesAgainstServer(t *testing.T) {
	s := realServer(t)
	ctx := context.Background()
	plan := unique("sdkgo")
	s.admin(t, "plan", "create", plan, "--rate", "1", "--burst", "1")
	key := s.admin(t, "create-key", "--client", unique("sdk-go-slow-"), "--env", "sandbox", "--plan", plan)

	once, _ := New(s.url, key, WithRetry(RetryPolicy{}))
	var apiErr *APIError
	eventually(t, 10*time.Second, "a 429 from a plan of 1 request/s", func() bool {
		_, err := once.GetAccountWithResponse(ctx)
		if err != nil && !errors.As(err, &apiErr) {
			t.Fatal(err)
		}
		return err != nil && apiErr.StatusCode == 429
	})
	if apiErr.Message != "Too Many Requests" || apiErr.RetryAfter <= 0 {
		t.Fatalf("429 without its message or Retry-After: %+v", apiErr)
	}

	counter := &countingTransport{}
	c, _ := New(s.url, key, WithHTTP(&http.Client{Transport: counter}))
	for i := range 4 {
		if resp, err := c.GetAccountWithResponse(ctx); err != nil || resp.JSON200 == nil {
			t.Fatalf("call %d with retries: %v", i, err)
		}
	}
	if counter.tooMany.Load() == 0 {
		t.Fatal("four calls at once on a plan of 1/s met no 429: the retries were not exercised")
	}
}

// SubscribeBulk against POST /subscriptions/equipment: one result per
// item in order, EXISTS when sent again, and more than 1,000 items split
// over requests. It skips while the server has no such endpoint.
func TestSubscribeBulkAgainstServer(t *testing.T) {
	s := realServer(t)
	ctx := context.Background()
	c, _ := New(s.url, s.admin(t, "create-key", "--client", unique("sdk-go-bulk-"), "--env", "sandbox"))
	items := []CreateSubscriptionBody{
		{ScacCode: "MAEU", ContainerNumber: container, SubscriptionReference: "bulk-0"},
		{ScacCode: "MAEU", ContainerNumber: "MSKU9070324", SubscriptionReference: "bulk-1"}, // wrong check digit
		{ScacCode: "MAEU", BookingNumber: "BKG4711", SubscriptionReference: "bulk-2"},
	}
	results, err := c.SubscribeBulk(ctx, items)
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode == 404 && apiErr.Message == "Not Found" {
		t.Skip("this server has no POST /subscriptions/equipment (bulk subscribe, issue 29)")
	}
	if err != nil {
		t.Fatal(err)
	}
	summary := func(rs []BulkItemResult) string {
		var out []string
		for _, r := range rs {
			out = append(out, fmt.Sprintf("%d %s %s %s", r.Index, r.SubscriptionReference, r.Status, r.Message))
		}
		return strings.Join(out, "; ")
	}
	want := "0 bulk-0 CREATED Successfully Subscribed; 1 bulk-1 INVALID Invalid container number 'MSKU9070324': wrong check digit (the last digit is 4; ISO 6346 gives 3 for MSKU907032); 2 bulk-2 CREATED Successfully Subscribed"
	if got := summary(results); got != want {
		t.Fatalf("bulk results\n got %s\nwant %s", got, want)
	}
	if results[0].ScacCode != "MAEU" {
		t.Errorf("CREATED without its scacCode: %+v", results[0])
	}
	again, err := c.SubscribeBulk(ctx, items)
	if err != nil || again[0].Status != "EXISTS" || again[1].Status != "INVALID" || again[2].Status != "EXISTS" {
		t.Fatalf("sent again: %s, %v", summary(again), err)
	}
	// 1,001 items are two requests; every result keeps its index.
	many := make([]CreateSubscriptionBody, MaxBulkItems+1)
	for i := range many {
		many[i] = CreateSubscriptionBody{ScacCode: "MAEU", ContainerNumber: "MSKU9070324", SubscriptionReference: fmt.Sprintf("many-%d", i)}
	}
	results, err = c.SubscribeBulk(ctx, many)
	if err != nil || len(results) != len(many) {
		t.Fatalf("%d results for %d items: %v", len(results), len(many), err)
	}
	for i, r := range results {
		if r.Index != i || r.SubscriptionReference != fmt.Sprintf("many-%d", i) || r.Status != "INVALID" {
			t.Fatalf("result %d: %+v", i, r)
		}
	}
}
