package contrack

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// APIError is an answer of the API with a status of 400 or more. Message
// is the API's own "message", word for word (e.g. "Subscription not found").
type APIError struct {
	StatusCode int
	Message    string
	// DateOfRequest is the answer's dateOfRequest, zero when it has none.
	DateOfRequest time.Time
	// RetryAfter is the answer's Retry-After (429, 503), zero when absent.
	RetryAfter time.Duration
	// RequestID is the X-Request-Id the API answered, for support.
	RequestID string
	Method    string
	URL       string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("contrack: %s %s: %d %s", e.Method, e.URL, e.StatusCode, e.Message)
}

// transport is the generated client's request doer: it adds the key,
// turns answers of 400 and more into *APIError and retries 429 and 503.
type transport struct {
	http      *http.Client
	key       string
	retry     RetryPolicy
	userAgent string
}

func (t *transport) Do(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		r := req.Clone(req.Context())
		if attempt > 0 && req.Body != nil {
			if req.GetBody == nil {
				return nil, fmt.Errorf("contrack: %s %s: cannot send the body again", req.Method, req.URL.Path)
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		r.Header.Set("x-api-key", t.key)
		if t.userAgent != "" {
			r.Header.Set("User-Agent", t.userAgent)
		}
		resp, err := t.http.Do(r)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 400 {
			return resp, nil
		}
		apiErr := readAPIError(resp)
		if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
			return nil, apiErr
		}
		if attempt >= t.retry.MaxRetries {
			return nil, apiErr
		}
		wait, ok := t.retry.wait(attempt, resp.Header, apiErr.RetryAfter)
		if !ok {
			return nil, apiErr
		}
		if err := sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// wait is how long to wait before retry number attempt+1: the answer's
// Retry-After, else its RateLimit-Reset when no request is left, else an
// exponential backoff with full jitter. ok is false when the answer asks
// for more than MaxWait.
func (p RetryPolicy) wait(attempt int, h http.Header, retryAfter time.Duration) (time.Duration, bool) {
	d := retryAfter
	if d == 0 && strings.TrimSpace(h.Get("RateLimit-Remaining")) == "0" {
		if s, err := strconv.Atoi(strings.TrimSpace(h.Get("RateLimit-Reset"))); err == nil && s > 0 {
			d = time.Duration(s) * time.Second
		}
	}
	if d > 0 {
		return d, d <= p.MaxWait
	}
	backoff := p.BaseDelay << attempt
	if backoff <= 0 || backoff > p.MaxDelay {
		backoff = p.MaxDelay
	}
	if backoff <= 0 {
		return 0, true
	}
	return rand.N(backoff) + time.Millisecond, true
}

// parseRetryAfter reads Retry-After in seconds or as an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(s, 0)) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return at.Sub(now)
	}
	return 0
}

// readAPIError reads and closes an error answer.
func readAPIError(resp *http.Response) *APIError {
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &APIError{
		StatusCode: resp.StatusCode,
		RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
		RequestID:  resp.Header.Get("X-Request-Id"),
		Method:     resp.Request.Method,
		URL:        resp.Request.URL.Path,
	}
	var body struct {
		Message       string    `json:"message"`
		DateOfRequest time.Time `json:"dateOfRequest"`
	}
	if json.Unmarshal(raw, &body) == nil && body.Message != "" {
		e.Message, e.DateOfRequest = body.Message, body.DateOfRequest
	} else {
		// Not the API's own answer (a proxy's page, say): keep a little of it.
		e.Message = http.StatusText(resp.StatusCode)
		if text := strings.TrimSpace(string(raw)); text != "" {
			e.Message += ": " + truncate(text, 200)
		}
	}
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
