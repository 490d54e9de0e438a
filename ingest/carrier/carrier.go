// Package carrier holds one small adapter per carrier in the registry
// (schemas/carriers), selected by SCAC: it authenticates the way that
// carrier documents, fetches the events of one container, booking or bill of
// lading, follows pagination, and returns the raw bytes of every page
// unchanged, with an Outcome the poller records. Parsing is the normaliser's
// job, not the adapter's: an adapter only counts events.
//
// Carrier problems are never Go errors: a rejected key is OutcomeUnauthorized,
// a 5xx is OutcomeError, a connection failure OutcomeUnreachable (HTTPCode 0).
// Fetch and Probe return an error only for a bad Query or a cancelled context.
//
// Base URLs are configuration. The sandbox (package ingest/sandbox) serves
// every carrier at http://<sandbox>/<scac in lower case>, so
// New("MAEU", "http://127.0.0.1:8090/maeu", client) talks to the simulation.
// The paths and authentication per carrier are in docs/sandbox.md.
package carrier

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/contrack/contrack/schemas/carriers"
)

// IdentifierKind is what a tracking follows.
type IdentifierKind string

// Identifier kinds, as in the subscription records.
const (
	KindContainer IdentifierKind = "container"
	KindBooking   IdentifierKind = "booking"
	KindBill      IdentifierKind = "bill"
)

// Query names one shipment.
type Query struct {
	Kind  IdentifierKind
	Value string
	// Since, if set, asks only for the events updated since then; only a
	// Connector reads it (the registry's adapters always ask for all).
	Since time.Time
}

// ErrBadQuery is wrapped by the error Fetch returns for an unknown kind or an empty value.
var ErrBadQuery = errors.New("carrier: bad query")

// Validate checks the kind and that the value is not blank.
func (q Query) Validate() error {
	switch q.Kind {
	case KindContainer, KindBooking, KindBill:
	default:
		return fmt.Errorf("%w: unknown identifier kind %q", ErrBadQuery, q.Kind)
	}
	if strings.TrimSpace(q.Value) == "" {
		return fmt.Errorf("%w: empty identifier", ErrBadQuery)
	}
	return nil
}

// Credentials maps credential field names (carriers.FieldAPIKey, …) to values,
// as the registry's RequiredFields name them.
type Credentials map[string]string

// Outcome classifies one fetch.
type Outcome string

// Outcomes. The poll.attempts record stores success, noData and error;
// unauthorized and unreachable are finer kinds of error.
const (
	// OutcomeSuccess: a 2xx with at least one event.
	OutcomeSuccess Outcome = "success"
	// OutcomeNoData: a 2xx with no events, or 404 for the reference.
	OutcomeNoData Outcome = "noData"
	// OutcomeUnauthorized: 401 or 403 (from the API or its token endpoint),
	// or a required credential field missing (HTTPCode 0).
	OutcomeUnauthorized Outcome = "unauthorized"
	// OutcomeError: the carrier answered with anything else (5xx, 429, 400,
	// a malformed body).
	OutcomeError Outcome = "error"
	// OutcomeUnreachable: nothing answered (connection refused, DNS, TLS,
	// timeout); HTTPCode is 0.
	OutcomeUnreachable Outcome = "unreachable"
)

// Result is what one Fetch saw.
type Result struct {
	Outcome Outcome
	// HTTPCode is the status of the last response; 0 when nothing answered.
	HTTPCode int
	// Format is the carrier's source format, for the normaliser.
	Format carriers.Format
	// Pages holds the raw body of every page, unchanged, in order. Only a
	// success carries pages: a failure on a later page discards the earlier
	// ones (the poller retries the whole fetch).
	Pages [][]byte
	// EventCount counts events over all pages: array elements (DCSA), STS
	// segments (IFTSTA), container events (COSCO).
	EventCount int
	// Latency is the wall time of the whole fetch, token requests included.
	Latency time.Duration
	// Truncated is set when pagination stopped at the page limit or on a
	// repeated cursor; Pages then holds what was fetched.
	Truncated bool
	// Reason says briefly why a non-success happened (never a secret).
	Reason string
	// RateLimited is set when the carrier refused for quota (429, in the
	// status or, for COSCO, the body): a fault of the key, not the carrier.
	RateLimited bool
	// RetryAfter is the carrier's Retry-After on a non-success (seconds or
	// an HTTP date), 0 when absent or unreadable.
	RetryAfter time.Duration
	// Requests are the URLs a DCSA fetch asked for, in order, up to its
	// last page or its failure (they carry no credentials).
	Requests []string
	// NextCursor is the DCSA cursor (3.0's Next-Page-Cursor, 2.2's
	// Next-Page) of the page a fetch stopped before at its page bound.
	NextCursor string
}

// Health statuses for POST /carrier/health-check.
const (
	HealthOK           = "OK"
	HealthUnauthorized = "UNAUTHORIZED"
	HealthUnreachable  = "UNREACHABLE"
	HealthError        = "ERROR"
)

// Health is a carrier connectivity check.
type Health struct {
	Status string
	// HTTPCode is the status of the last response; 0 when nothing answered.
	HTTPCode int
}

// AsResult is the Result a check stands for, as far as whose fault a
// failure is: OK a success, UNAUTHORIZED the credentials', UNREACHABLE
// the carrier's, ERROR by its HTTP code (a 429 the key's quota).
func (h Health) AsResult() Result {
	r := Result{HTTPCode: h.HTTPCode, Reason: "health check: " + h.Status}
	switch h.Status {
	case HealthOK:
		r.Outcome = OutcomeSuccess
	case HealthUnauthorized:
		r.Outcome = OutcomeUnauthorized
	case HealthUnreachable:
		r.Outcome = OutcomeUnreachable
	default:
		r.Outcome = OutcomeError
		r.RateLimited = h.HTTPCode == http.StatusTooManyRequests
	}
	return r
}

// Adapter fetches one carrier's events. Adapters are safe for concurrent use;
// share one per carrier (token caches live in it).
type Adapter interface {
	SCAC() string
	// Fetch returns the carrier's events for q. The error is non-nil only
	// for an invalid q (ErrBadQuery) or a cancelled/expired ctx.
	Fetch(ctx context.Context, creds Credentials, q Query) (Result, error)
	// Probe checks that the carrier answers and accepts creds, with one
	// cheap request (a token request and one events page for a reference
	// that has no events). A 2xx or 404 is OK.
	Probe(ctx context.Context, creds Credentials) Health
}

// ProbeContainer is the ISO 6346-valid container number Probe asks for; the
// sandbox answers it as not found.
const ProbeContainer = "NOFU0000001"

// ErrUnsupported is returned by New for a SCAC without an adapter.
var ErrUnsupported = errors.New("carrier: unsupported carrier")

// Option tunes an adapter.
type Option func(*options)

type options struct {
	clock     func() time.Time
	maxPages  int
	maxTokens int
}

// DefaultMaxCachedTokens bounds the access tokens one adapter keeps (about
// 200 bytes each): one per (clientId, clientSecret) it has polled with.
const DefaultMaxCachedTokens = 10_000

// WithMaxCachedTokens bounds how many clients' access tokens the adapter
// caches (default DefaultMaxCachedTokens); beyond it the least recently
// used client's token is forgotten and fetched again when next needed.
func WithMaxCachedTokens(n int) Option { return func(o *options) { o.maxTokens = n } }

// WithClock sets the clock used for token expiry and request dates
// (default time.Now). Latency is always measured with the real clock.
func WithClock(now func() time.Time) Option { return func(o *options) { o.clock = now } }

// WithMaxPages bounds how many pages one Fetch follows (default 50).
func WithMaxPages(n int) Option { return func(o *options) { o.maxPages = n } }

// maxBody bounds one response body.
const maxBody = 16 << 20

// New returns the adapter for scac talking to baseURL (scheme and host, plus
// any path prefix, without the carrier's API path). client defaults to one
// with a 30 s timeout.
func New(scac, baseURL string, client *http.Client, opts ...Option) (Adapter, error) {
	c, ok := carriers.Lookup(scac)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnsupported, scac)
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("carrier %s: base URL must be an absolute http(s) URL, got %q", scac, baseURL)
	}
	o := options{clock: time.Now, maxPages: 50, maxTokens: DefaultMaxCachedTokens}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxPages < 1 {
		return nil, fmt.Errorf("carrier %s: max pages must be at least 1", scac)
	}
	if o.maxTokens < 1 {
		return nil, fmt.Errorf("carrier %s: max cached tokens must be at least 1", scac)
	}
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	client = sameOriginClient(client)
	b := base{carrier: c, baseURL: strings.TrimRight(baseURL, "/"), client: client, opts: o}
	build, ok := adapters[scac]
	if !ok {
		return nil, fmt.Errorf("%w: %q has no adapter", ErrUnsupported, scac)
	}
	return build(b), nil
}

// adapters builds each carrier's adapter. Paths are the carriers' documented API paths.
var adapters = map[string]func(base) Adapter{
	"MAEU": func(b base) Adapter {
		return &dcsaAdapter{base: b, path: "/track-and-trace-private/events", version: tnt22,
			auth: headerAuth{"Consumer-Key": carriers.FieldAPIKey}}
	},
	"HLCU": func(b base) Adapter {
		return &dcsaAdapter{base: b, path: "/hlag/external/v2/events", version: tnt22,
			auth: headerAuth{"X-IBM-Client-Id": carriers.FieldClientID, "X-IBM-Client-Secret": carriers.FieldClientSecret}}
	},
	"CMDU": func(b base) Adapter {
		return &dcsaAdapter{base: b, path: "/operation/trackandtrace/v1/events", version: tnt22,
			auth: headerAuth{"KeyId": carriers.FieldAPIKey}}
	},
	"EGLV": func(b base) Adapter {
		return &dcsaAdapter{base: b, path: "/api/tnt/v2/events", version: tnt22,
			auth: newBearerAuth(b, evergreenToken(b, "/api/v1/auth/token"))}
	},
	"MSCU": func(b base) Adapter {
		return &dcsaAdapter{base: b, path: "/track-and-trace/v2/events", version: tnt22,
			auth: newBearerAuth(b, oauth2Token(b, "/oauth2/token"))}
	},
	"HDMU": func(b base) Adapter {
		return &dcsaAdapter{base: b, path: "/tnt/v2/events", version: tnt22,
			auth: headerAuth{"x-api-key": carriers.FieldAPIKey}}
	},
	"ONEY": func(b base) Adapter {
		return &dcsaAdapter{base: b, path: "/tnt/v1/events", version: tnt12,
			auth: newBearerAuth(b, oauth2Token(b, "/oauth/token"))}
	},
	"OOLU": func(b base) Adapter {
		return &iftstaAdapter{base: b, path: "/edi/mailbox/iftsta", auth: headerAuth{"apiKey": carriers.FieldAPIKey}}
	},
	"COSU": func(b base) Adapter {
		return &coscoAdapter{base: b, path: "/tracking/v1/cargoTracking", auth: hmacAuth{clock: b.opts.clock}}
	},
	// A DCSA Track & Trace 3.0 producer serves GET /events under its base
	// URL (the standard's path); authentication is outside the standard,
	// ZIM's is OAuth2 client credentials.
	"ZIMU": func(b base) Adapter {
		return &dcsaAdapter{base: b, path: "/events", version: tnt3,
			auth: newBearerAuth(b, oauth2Token(b, "/oauth2/token"))}
	},
}

// base is what every adapter shares.
type base struct {
	carrier carriers.Carrier
	baseURL string
	client  *http.Client
	opts    options
}

func (b base) SCAC() string { return b.carrier.SCAC }

// failure is a non-success exchange: an Outcome to report, or ctxErr when
// the caller's context ended (then Fetch returns it as an error).
type failure struct {
	outcome     Outcome
	code        int
	reason      string
	ctxErr      error
	rateLimited bool
	retryAfter  time.Duration
}

// response is one completed HTTP exchange.
type response struct {
	status int
	header http.Header
	body   []byte
}

// missingField reports the first required credential field absent from creds.
func (b base) missingField(creds Credentials) *failure {
	for _, f := range b.carrier.RequiredFields {
		if creds[f] == "" {
			return &failure{outcome: OutcomeUnauthorized, reason: "missing credential field " + f}
		}
	}
	return nil
}

// send performs one request, returning a failure only when nothing usable
// came back (no answer, a cancelled context, an unreadable body).
func (b base) send(ctx context.Context, req *http.Request) (response, *failure) {
	resp, err := b.client.Do(req.WithContext(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return response{}, &failure{ctxErr: ctx.Err()}
		}
		if errors.Is(err, ErrOtherOrigin) {
			// The carrier answered, with a redirect we will not follow.
			return response{}, &failure{outcome: OutcomeError, reason: redactURL(err)}
		}
		return response{}, &failure{outcome: OutcomeUnreachable, reason: "no answer: " + redactURL(err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		if ctx.Err() != nil {
			return response{}, &failure{ctxErr: ctx.Err()}
		}
		return response{}, &failure{outcome: OutcomeError, code: resp.StatusCode, reason: "reading body: " + redactURL(err)}
	}
	if len(body) > maxBody {
		return response{}, &failure{outcome: OutcomeError, code: resp.StatusCode, reason: "body larger than 16 MiB"}
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// redactURL keeps a transport error's kind but drops its URL, whose query
// names the shipment (not secret, but noisy) — credentials never travel in URLs.
func redactURL(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// statusFailure maps a non-2xx status to its outcome.
func statusFailure(status int) *failure {
	switch {
	case status == http.StatusNotFound:
		return &failure{outcome: OutcomeNoData, code: status, reason: "not found"}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &failure{outcome: OutcomeUnauthorized, code: status, reason: "rejected credentials"}
	case status == http.StatusTooManyRequests:
		return &failure{outcome: OutcomeError, code: status, reason: "rate limited", rateLimited: true}
	default:
		return &failure{outcome: OutcomeError, code: status, reason: "carrier answered " + http.StatusText(status)}
	}
}

// responseFailure is statusFailure for a received answer, with its Retry-After.
func responseFailure(resp response, now time.Time) *failure {
	f := statusFailure(resp.status)
	f.retryAfter = retryAfter(resp.header.Get("Retry-After"), now)
	return f
}

// retryAfter reads a Retry-After value: delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func isSuccess(status int) bool { return status >= 200 && status < 300 }

// call sends a GET built by newReq, authorised by auth, retrying once with
// fresh credentials (a new token) when the carrier answers 401.
func (b base) call(ctx context.Context, auth authenticator, creds Credentials, newReq func() (*http.Request, error)) (response, *failure) {
	for attempt := 0; ; attempt++ {
		req, err := newReq()
		if err != nil {
			return response{}, &failure{outcome: OutcomeError, reason: "building request: " + err.Error()}
		}
		if f := auth.authorize(ctx, req, creds, attempt > 0); f != nil {
			return response{}, f
		}
		resp, f := b.send(ctx, req)
		if f != nil {
			return response{}, f
		}
		if resp.status == http.StatusUnauthorized && attempt == 0 && auth.refreshable() {
			continue
		}
		return resp, nil
	}
}

// finish turns a failure or a counted set of pages into a Result.
func (b base) finish(start time.Time, f *failure, pages [][]byte, count, code int) (Result, error) {
	r := Result{Format: b.carrier.Format, Latency: time.Since(start)}
	if f != nil {
		if f.ctxErr != nil {
			return Result{}, fmt.Errorf("carrier %s: %w", b.carrier.SCAC, f.ctxErr)
		}
		r.Outcome, r.HTTPCode, r.Reason = f.outcome, f.code, f.reason
		r.RateLimited, r.RetryAfter = f.rateLimited, f.retryAfter
		return r, nil
	}
	r.HTTPCode, r.EventCount = code, count
	if count == 0 {
		r.Outcome, r.Reason = OutcomeNoData, "no events"
		return r, nil
	}
	r.Outcome, r.Pages = OutcomeSuccess, pages
	return r, nil
}

// health maps a probe's Result (or error) to a Health.
func health(r Result, err error) Health {
	if err != nil {
		return Health{Status: HealthUnreachable}
	}
	switch r.Outcome {
	case OutcomeSuccess, OutcomeNoData:
		return Health{Status: HealthOK, HTTPCode: r.HTTPCode}
	case OutcomeUnauthorized:
		return Health{Status: HealthUnauthorized, HTTPCode: r.HTTPCode}
	case OutcomeUnreachable:
		return Health{Status: HealthUnreachable}
	}
	return Health{Status: HealthError, HTTPCode: r.HTTPCode}
}
