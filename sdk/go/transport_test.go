package contrack

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// script is an HTTP server answering each request with the next of its
// answers (the last one repeats) and recording what it received.
type script struct {
	mu       sync.Mutex
	answers  []func(w http.ResponseWriter)
	received []received
}

type received struct {
	at   time.Time
	key  string
	body string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.received)
	s.received = append(s.received, received{time.Now(), r.Header.Get("x-api-key"), string(body)})
	answer := s.answers[min(n, len(s.answers)-1)]
	s.mu.Unlock()
	answer(w)
}

func answer(status int, body string, header ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func serve(t *testing.T, answers ...func(w http.ResponseWriter)) (*Client, *script) {
	t.Helper()
	s := &script{answers: answers}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	c, err := New(ts.URL, "key-1", WithRetry(RetryPolicy{MaxRetries: 3, BaseDelay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond, MaxWait: 5 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

const accountJSON = `{"clientName":"acme","displayName":"Acme","environment":"sandbox","authMethod":"api-key","usagePlan":null}`

// A 429 is sent again after its Retry-After, with the same body and key.
func TestRetriesTooManyRequestsAfterRetryAfter(t *testing.T) {
	c, s := serve(t,
		answer(429, `{"message":"Too Many Requests"}`, "Retry-After", "1"),
		answer(200, `{"message":"Successfully Subscribed","subscriptionReference":"r1","dateOfRequest":"2026-11-22T20:13:50.870Z"}`))
	resp, err := c.CreateSubscriptionWithResponse(context.Background(), CreateSubscriptionBody{ScacCode: "MAEU", ContainerNumber: "MSKU9070323", SubscriptionReference: "r1"})
	if err != nil || resp.JSON200 == nil || resp.JSON200.SubscriptionReference != "r1" {
		t.Fatalf("after a 429: %+v, %v", resp, err)
	}
	if len(s.received) != 2 {
		t.Fatalf("%d requests, want 2", len(s.received))
	}
	first, second := s.received[0], s.received[1]
	if gap := second.at.Sub(first.at); gap < time.Second {
		t.Errorf("sent again after %s; Retry-After said 1 s", gap)
	}
	if second.body != first.body || second.body == "" || second.key != "key-1" {
		t.Errorf("retry sent %q with key %q; first was %q", second.body, second.key, first.body)
	}
}

// Without Retry-After, a 429 that says no request is left waits for RateLimit-Reset.
func TestRetryHonoursRateLimitReset(t *testing.T) {
	c, s := serve(t,
		answer(429, `{"message":"Too Many Requests"}`, "RateLimit-Limit", "1", "RateLimit-Remaining", "0", "RateLimit-Reset", "1"),
		answer(200, accountJSON))
	if _, err := c.GetAccountWithResponse(context.Background()); err != nil {
		t.Fatal(err)
	}
	if gap := s.received[1].at.Sub(s.received[0].at); gap < time.Second {
		t.Errorf("sent again after %s; RateLimit-Reset said 1 s", gap)
	}
}

// A 503 (a store out of reach; nothing recorded) is retried with backoff.
func TestRetriesServiceUnavailable(t *testing.T) {
	c, s := serve(t, answer(503, `{"message":"Service Unavailable"}`), answer(503, `{"message":"Service Unavailable"}`), answer(200, accountJSON))
	resp, err := c.GetAccountWithResponse(context.Background())
	if err != nil || resp.JSON200.Environment != "sandbox" || len(s.received) != 3 {
		t.Fatalf("%v after %d requests", err, len(s.received))
	}
}

// Retries end: after MaxRetries, and at once when Retry-After is beyond
// MaxWait (a used-up daily quota); the error says when to come back.
func TestRetriesGiveUpWithTypedError(t *testing.T) {
	c, s := serve(t, answer(429, `{"message":"Too Many Requests"}`, "Retry-After", "3600"))
	_, err := c.GetAccountWithResponse(context.Background())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Message != "Too Many Requests" || apiErr.RetryAfter != time.Hour {
		t.Fatalf("got %#v", err)
	}
	if len(s.received) != 1 {
		t.Errorf("%d requests for a Retry-After of an hour, want 1", len(s.received))
	}

	c, s = serve(t, answer(503, `{"message":"Service Unavailable"}`))
	if _, err := c.GetAccountWithResponse(context.Background()); !errors.As(err, &apiErr) || apiErr.StatusCode != 503 {
		t.Fatalf("got %v", err)
	}
	if len(s.received) != 4 {
		t.Errorf("%d requests, want 1 + MaxRetries (3)", len(s.received))
	}
}

// Errors other than 429 and 503 are not retried and carry the API's message.
func TestAPIErrorCarriesMessage(t *testing.T) {
	c, s := serve(t, answer(404, `{"message":"Subscription not found","dateOfRequest":"2026-11-22T20:13:50.870Z"}`, "X-Request-Id", "req-7"))
	_, err := c.DeleteSubscriptionWithResponse(context.Background(), "nope")
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("got %v", err)
	}
	want := time.Date(2026, 11, 22, 20, 13, 50, 870e6, time.UTC)
	if apiErr.StatusCode != 404 || apiErr.Message != "Subscription not found" || !apiErr.DateOfRequest.Equal(want) || apiErr.RequestID != "req-7" || apiErr.Method != "DELETE" {
		t.Errorf("got %+v", apiErr)
	}
	if len(s.received) != 1 {
		t.Errorf("%d requests, want 1", len(s.received))
	}
	// An answer that is not the API's own keeps its status text.
	c, _ = serve(t, func(w http.ResponseWriter) { w.WriteHeader(502); io.WriteString(w, "<html>bad gateway</html>") })
	if _, err := c.GetAccountWithResponse(context.Background()); !errors.As(err, &apiErr) || apiErr.Message != "Bad Gateway: <html>bad gateway</html>" {
		t.Errorf("got %v", err)
	}
}

func TestRetryAfterAsHTTPDate(t *testing.T) {
	now := time.Date(2026, 11, 22, 20, 0, 0, 0, time.UTC)
	if d := parseRetryAfter(now.Add(90*time.Second).Format(http.TimeFormat), now); d != 90*time.Second {
		t.Errorf("HTTP date: %s", d)
	}
	if d := parseRetryAfter("7", now); d != 7*time.Second {
		t.Errorf("seconds: %s", d)
	}
}
