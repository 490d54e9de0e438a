package delivery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/propagation"

	"github.com/contrack/contrack/platform/signature"
	"github.com/contrack/contrack/platform/tracing"
	"github.com/contrack/contrack/schemas/deliveries"
	"github.com/contrack/contrack/schemas/tnt3"
)

// Attempt outcomes, as logged in ClickHouse and counted in metrics.
const (
	OutcomeDelivered       = "delivered"        // 2xx
	OutcomeHTTPError       = "http_error"       // any other status (3xx included: redirects are not followed)
	OutcomeGone            = "gone"             // 410: the webhook is deactivated
	OutcomeTimeout         = "timeout"          // no complete answer within Config.Timeout
	OutcomeConnectionError = "connection_error" // DNS, refused, reset, TLS, or a private address refused at dial time
	OutcomeRejectedTarget  = "rejected_target"  // the target URL fails the target rules at send time
	OutcomeSecretError     = "secret_error"     // the webhook secret cannot be opened (CONTRACK_SECRET_KEY changed?)
)

// attempt is the result of one POST.
type attempt struct {
	Outcome    string
	HTTPCode   int
	Error      string
	Latency    time.Duration
	RetryAfter time.Duration // from a 429 or 503 answer
}

func (a attempt) ok() bool { return a.Outcome == OutcomeDelivered }

// endpointKey is what breakers, concurrency limits and claims are kept per:
// the account and its target URL's host[:port], lower-cased
// ("<account id>|<host>"). Per account, never per host alone: two tenants
// whose webhooks share a host never share a breaker or a slot, so one
// account's hanging or failing endpoint cannot stall another's deliveries.
func endpointKey(accountID, rawURL string) string {
	return accountID + "|" + endpointHost(rawURL)
}

// endpointHost is a target URL's host[:port], lower-cased ("" if it does
// not parse): what the attempt log records as the endpoint.
func endpointHost(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// sender makes signed POSTs.
type sender struct {
	client    *http.Client
	timeout   time.Duration
	userAgent string
	limit     int64
	now       func() time.Time
}

// send POSTs body to c's target, signed with secret, with the receiver's
// auth headers, and classifies the answer.
func (s *sender) send(ctx context.Context, c *claimed, secret string, authHeaders []deliveries.AuthHeader) attempt {
	ts := s.now()
	h, err := signature.Headers(secret, c.ID, ts, c.Body)
	if err != nil {
		return attempt{Outcome: OutcomeSecretError, Error: "webhook secret is malformed"}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.TargetURL, bytes.NewReader(c.Body))
	if err != nil {
		return attempt{Outcome: OutcomeRejectedTarget, Error: "invalid target URL"}
	}
	// The receiver's auth headers first, under the names as given; contrack's
	// own headers (which configure refuses as auth header names) are set
	// after them, so none of them can be replaced.
	for _, ah := range authHeaders {
		req.Header[ah.Name] = []string{ah.Value}
	}
	for name, v := range h {
		req.Header[name] = v
	}
	req.Header.Set("User-Agent", s.userAgent)
	if c.APIVersion != "" {
		req.Header.Set(tnt3.HeaderAPIVersion, c.APIVersion) // a TNT 3.0 body: what 3.0 requires of every request
	}
	// traceparent: the attempt's span (nothing when tracing is off).
	tracing.Propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	// Latency is elapsed real time (the monotonic clock), not the injected
	// clock, which stamps the signature and judges Retry-After dates.
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		a := attempt{Latency: time.Since(start), Outcome: OutcomeConnectionError, Error: errorText(err)}
		if isTimeout(ctx, err) {
			a.Outcome, a.Error = OutcomeTimeout, fmt.Sprintf("no answer within %s", s.timeout)
		}
		return a
	}
	snippet, readErr := io.ReadAll(io.LimitReader(resp.Body, s.limit))
	resp.Body.Close()
	a := attempt{Latency: time.Since(start), HTTPCode: resp.StatusCode}
	switch {
	case readErr != nil && isTimeout(ctx, readErr):
		a.Outcome, a.Error = OutcomeTimeout, fmt.Sprintf("HTTP %d, body not read within %s", resp.StatusCode, s.timeout)
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		a.Outcome = OutcomeDelivered
	case resp.StatusCode == http.StatusGone:
		a.Outcome, a.Error = OutcomeGone, "HTTP 410 Gone: webhook deactivated"
	default:
		a.Outcome = OutcomeHTTPError
		a.Error = "HTTP " + strconv.Itoa(resp.StatusCode) + bodyText(snippet)
		if loc := resp.Header.Get("Location"); loc != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
			a.Error += " (redirect to " + clip(loc, 200) + " not followed)"
		}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			a.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), s.now())
		}
	}
	return a
}

func isTimeout(ctx context.Context, err error) bool {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// errorText describes a transport error without the request URL (which
// may carry credentials in its query string).
func errorText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return clip(err.Error(), 300)
}

// bodyText is a printable excerpt of a response body for last_error.
func bodyText(b []byte) string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(b), "�"))
	if s == "" {
		return ""
	}
	return ": " + clip(s, 200)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent or invalid.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(1<<33))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// nextAttempt is when the next attempt of a delivery that has just made its
// roundAttempts-th failed attempt is due, or ok=false when it gets no more.
func (c Config) nextAttempt(roundAttempts int, retryAfter time.Duration, now time.Time, rnd func() float64) (time.Time, bool) {
	if roundAttempts >= c.attempts() {
		return time.Time{}, false
	}
	wait := c.Schedule[roundAttempts-1]
	if c.Jitter > 0 {
		wait = time.Duration(float64(wait) * (1 - c.Jitter + 2*c.Jitter*rnd()))
	}
	if retryAfter > 0 {
		wait = max(wait, min(retryAfter, c.MaxRetryAfter))
	}
	return now.Add(wait), true
}
