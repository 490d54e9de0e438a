// Package contrack is the Go client of the contrack container-tracking API.
//
// Every operation of the API is a method generated from its OpenAPI document
// (api.gen.go): c.GetAccountWithResponse, c.CreateSubscriptionWithResponse,
// c.GetJourneysWithResponse, … This package adds what a generator cannot:
// the API key on every request, errors as *APIError carrying the API's
// message, retries of 429 and 503 that honour Retry-After, and helpers for
// paging (Subscriptions), the event feed (Feed), bulk subscribe
// (SubscribeBulk) and webhook signatures (Webhook).
package contrack

import (
	"errors"
	"net/http"
	"strings"
	"time"
)

// Client calls the contrack API with one API key. It is safe for
// concurrent use.
type Client struct {
	*ClientWithResponses
	server string
	doer   *transport
}

// Option changes how New builds a Client.
type Option func(*transport)

// WithHTTP sends requests with h instead of a client without a timeout.
// The feed long-polls for up to 20 s: a timeout must be longer.
func WithHTTP(h *http.Client) Option {
	return func(t *transport) { t.http = h }
}

// WithRetry replaces the retry policy (DefaultRetry).
func WithRetry(p RetryPolicy) Option {
	return func(t *transport) { t.retry = p }
}

// WithUserAgent sets the User-Agent header of every request.
func WithUserAgent(ua string) Option {
	return func(t *transport) { t.userAgent = ua }
}

// New returns a client of the API at server (e.g. "http://127.0.0.1:8080")
// authenticating with apiKey.
func New(server, apiKey string, opts ...Option) (*Client, error) {
	if apiKey == "" {
		return nil, errors.New("contrack: an API key is required")
	}
	t := &transport{http: &http.Client{}, key: apiKey, retry: DefaultRetry, userAgent: "contrack-go"}
	for _, o := range opts {
		o(t)
	}
	server = strings.TrimRight(server, "/")
	gen, err := NewClientWithResponses(server, WithHTTPClient(t))
	if err != nil {
		return nil, err
	}
	return &Client{ClientWithResponses: gen, server: server, doer: t}, nil
}

// RetryPolicy says how 429 (rate limited) and 503 (a store briefly out of
// reach; nothing was recorded) answers are retried. Both mean the request
// was not carried out, so every method is retried.
type RetryPolicy struct {
	// MaxRetries is how many times one request is sent again; 0 never.
	MaxRetries int
	// BaseDelay is the first backoff when the answer says nothing about
	// when to come back; it doubles per retry, with full jitter.
	BaseDelay time.Duration
	// MaxDelay caps that backoff.
	MaxDelay time.Duration
	// MaxWait is the longest Retry-After (or RateLimit-Reset) honoured:
	// a longer one (a used-up daily quota) returns the *APIError at once,
	// its RetryAfter saying when to come back.
	MaxWait time.Duration
}

// DefaultRetry retries four times, backing off from 500 ms up to 30 s, and
// honours a Retry-After of up to a minute.
var DefaultRetry = RetryPolicy{MaxRetries: 4, BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second, MaxWait: time.Minute}

// Ptr returns a pointer to v, for the optional parameters of the
// generated calls: &ListSubscriptionsParams{Limit: contrack.Ptr(50)}.
func Ptr[T any](v T) *T { return &v }
