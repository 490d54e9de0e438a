package carrier

import (
	"bytes"
	"container/list"
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contrack/contrack/schemas/carriers"
)

// authenticator puts credentials on a request.
type authenticator interface {
	// authorize authenticates req; refresh asks for fresh credentials
	// (a new token) after the carrier answered 401.
	authorize(ctx context.Context, req *http.Request, creds Credentials, refresh bool) *failure
	// refreshable reports whether a 401 is worth one retry with fresh credentials.
	refreshable() bool
}

// headerAuth sends credential fields as headers: header name → field name.
// The name goes on the wire as spelled, not canonicalised: some producers
// match it case-sensitively (DCSA's Conformance Gateway wants
// dcsa-conformance-api-key, and answers Dcsa-Conformance-Api-Key 403).
type headerAuth map[string]string

func (h headerAuth) authorize(_ context.Context, req *http.Request, creds Credentials, _ bool) *failure {
	for header, field := range h {
		req.Header.Del(header)
		req.Header[header] = []string{creds[field]}
	}
	return nil
}

func (headerAuth) refreshable() bool { return false }

// tokenFetcher obtains an access token and its lifetime for creds.
type tokenFetcher func(ctx context.Context, creds Credentials) (token string, ttl time.Duration, f *failure)

// bearerAuth sends a cached access token as "Authorization: Bearer". Tokens
// are cached per (clientId, clientSecret) and renewed shortly before they
// expire, or after a 401. The cache holds at most options.maxTokens clients
// (the least recently used is forgotten first, and a client whose token is
// past its renewal time goes before that): credentials come and go with
// accounts, and a poller must not keep every token it ever fetched.
type bearerAuth struct {
	fetch tokenFetcher
	clock func() time.Time
	max   int

	mu    sync.Mutex
	cache map[[32]byte]*list.Element // values are *cachedToken
	lru   *list.List                 // front: most recently used
}

type cachedToken struct {
	key     [32]byte
	mu      sync.Mutex // serialises fetches for one client
	token   string
	refresh time.Time // renew at or after this instant
	// expires mirrors refresh for eviction, read without ct.mu.
	expires atomic.Int64 // refresh as Unix nanoseconds; 0: no token
}

func newBearerAuth(b base, fetch tokenFetcher) *bearerAuth {
	return &bearerAuth{fetch: fetch, clock: b.opts.clock, max: b.opts.maxTokens,
		cache: map[[32]byte]*list.Element{}, lru: list.New()}
}

func (a *bearerAuth) refreshable() bool { return true }

// entry returns the cache entry of a client, made (and the cache trimmed to
// its bound) on first use.
func (a *bearerAuth) entry(key [32]byte) *cachedToken {
	a.mu.Lock()
	defer a.mu.Unlock()
	if el, ok := a.cache[key]; ok {
		a.lru.MoveToFront(el)
		return el.Value.(*cachedToken)
	}
	for a.lru.Len() >= a.max {
		victim := a.lru.Back()
		// Prefer a client whose token is due anyway, among the oldest few.
		now := a.clock().UnixNano()
		for el, i := a.lru.Back(), 0; el != nil && i < 8; el, i = el.Prev(), i+1 {
			if e := el.Value.(*cachedToken).expires.Load(); e == 0 || e <= now {
				victim = el
				break
			}
		}
		delete(a.cache, victim.Value.(*cachedToken).key)
		a.lru.Remove(victim)
	}
	ct := &cachedToken{key: key}
	a.cache[key] = a.lru.PushFront(ct)
	return ct
}

func (a *bearerAuth) authorize(ctx context.Context, req *http.Request, creds Credentials, refresh bool) *failure {
	ct := a.entry(sha256.Sum256([]byte(creds[carriers.FieldClientID] + "\x00" + creds[carriers.FieldClientSecret])))
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if refresh || ct.token == "" || !a.clock().Before(ct.refresh) {
		tok, ttl, f := a.fetch(ctx, creds)
		if f != nil {
			ct.token = ""
			ct.expires.Store(0)
			return f
		}
		// Renew a minute early, or at 90% of short lifetimes.
		margin := min(time.Minute, ttl/10)
		ct.token, ct.refresh = tok, a.clock().Add(ttl-margin)
		ct.expires.Store(ct.refresh.UnixNano())
	}
	req.Header.Set("Authorization", "Bearer "+ct.token)
	return nil
}

// tokenFailure maps a token endpoint's non-2xx status: a rejected client
// (401, 403, or RFC 6749's 400 invalid_client) is unauthorized.
func tokenFailure(resp response) *failure {
	if resp.status == http.StatusBadRequest {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(resp.body, &e) == nil && (e.Error == "invalid_client" || e.Error == "unauthorized_client") {
			return &failure{outcome: OutcomeUnauthorized, code: resp.status, reason: "token endpoint: " + e.Error}
		}
	}
	f := statusFailure(resp.status)
	if f.outcome == OutcomeNoData {
		f.outcome = OutcomeError // a missing token endpoint is a carrier/config problem
	}
	f.reason = "token endpoint: " + f.reason
	return f
}

// oauth2Token is the RFC 6749 §4.4 client credentials grant: a form POST of
// grant_type=client_credentials to path, the client authenticated with HTTP
// Basic (id and secret form-encoded first, §2.3.1); the answer carries
// access_token, token_type (Bearer) and expires_in.
func oauth2Token(b base, path string) tokenFetcher {
	return oauth2TokenAt(b, b.baseURL+path, "")
}

// oauth2TokenAt is oauth2Token at an absolute token URL, asking for scope
// when it is set.
func oauth2TokenAt(b base, tokenURL, scope string) tokenFetcher {
	form := url.Values{"grant_type": {"client_credentials"}}
	if scope != "" {
		form.Set("scope", scope)
	}
	return func(ctx context.Context, creds Credentials) (string, time.Duration, *failure) {
		req, err := http.NewRequest(http.MethodPost, tokenURL, strings.NewReader(form.Encode()))
		if err != nil {
			return "", 0, &failure{outcome: OutcomeError, reason: "building token request: " + err.Error()}
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		req.SetBasicAuth(url.QueryEscape(creds[carriers.FieldClientID]), url.QueryEscape(creds[carriers.FieldClientSecret]))
		resp, f := b.send(ctx, req)
		if f != nil {
			return "", 0, f
		}
		if !isSuccess(resp.status) {
			return "", 0, tokenFailure(resp)
		}
		var t struct {
			AccessToken string `json:"access_token"`
			TokenType   string `json:"token_type"`
			ExpiresIn   int64  `json:"expires_in"`
		}
		if err := json.Unmarshal(resp.body, &t); err != nil || t.AccessToken == "" || !strings.EqualFold(t.TokenType, "bearer") {
			return "", 0, &failure{outcome: OutcomeError, code: resp.status, reason: "token endpoint: malformed token response"}
		}
		return t.AccessToken, lifetime(t.ExpiresIn), nil
	}
}

// evergreenToken is Evergreen's own exchange: POST {"clientId","clientSecret"}
// as JSON to path, answered by {"token","tokenType","expiresIn"}.
func evergreenToken(b base, path string) tokenFetcher {
	return func(ctx context.Context, creds Credentials) (string, time.Duration, *failure) {
		body, _ := json.Marshal(map[string]string{
			"clientId": creds[carriers.FieldClientID], "clientSecret": creds[carriers.FieldClientSecret],
		})
		req, err := http.NewRequest(http.MethodPost, b.baseURL+path, bytes.NewReader(body))
		if err != nil {
			return "", 0, &failure{outcome: OutcomeError, reason: "building token request: " + err.Error()}
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		resp, f := b.send(ctx, req)
		if f != nil {
			return "", 0, f
		}
		if !isSuccess(resp.status) {
			return "", 0, tokenFailure(resp)
		}
		var t struct {
			Token     string `json:"token"`
			ExpiresIn int64  `json:"expiresIn"`
		}
		if err := json.Unmarshal(resp.body, &t); err != nil || t.Token == "" {
			return "", 0, &failure{outcome: OutcomeError, code: resp.status, reason: "token endpoint: malformed token response"}
		}
		return t.Token, lifetime(t.ExpiresIn), nil
	}
}

// lifetime reads expires_in; a missing or silly value counts as five minutes.
func lifetime(seconds int64) time.Duration {
	if seconds <= 0 || seconds > 7*24*3600 {
		return 5 * time.Minute
	}
	return time.Duration(seconds) * time.Second
}

// basicAuth sends HTTP Basic with a user and password (RFC 7617).
type basicAuth struct{ user string }

func (basicAuth) refreshable() bool { return false }

func (b basicAuth) authorize(_ context.Context, req *http.Request, creds Credentials, _ bool) *failure {
	req.SetBasicAuth(b.user, creds[fieldPassword])
	return nil
}

// hmacAuth signs COSCO requests:
//
//	X-Coscon-Date:        now, RFC 1123 GMT (COSCO rejects more than 15 minutes of skew)
//	X-Coscon-Content-Md5: base64(MD5(body)); GET bodies are empty
//	Authorization:        hmac username="<clientId>", algorithm="hmac-sha256",
//	                      headers="x-coscon-date x-coscon-content-md5 request-line",
//	                      signature="<base64(HMAC-SHA256(clientSecret, signing string))>"
//
// The signing string is "x-coscon-date: <date>\nx-coscon-content-md5: <md5>\n
// <METHOD> <request URI> HTTP/1.1". The secret never travels.
type hmacAuth struct{ clock func() time.Time }

func (hmacAuth) refreshable() bool { return false }

func (h hmacAuth) authorize(_ context.Context, req *http.Request, creds Credentials, _ bool) *failure {
	date := h.clock().UTC().Format(http.TimeFormat)
	sum := md5.Sum(nil)
	md := base64.StdEncoding.EncodeToString(sum[:])
	req.Header.Set("X-Coscon-Date", date)
	req.Header.Set("X-Coscon-Content-Md5", md)
	signing := "x-coscon-date: " + date + "\nx-coscon-content-md5: " + md + "\n" +
		req.Method + " " + req.URL.RequestURI() + " HTTP/1.1"
	m := hmac.New(sha256.New, []byte(creds[carriers.FieldClientSecret]))
	m.Write([]byte(signing))
	req.Header.Set("Authorization", `hmac username="`+creds[carriers.FieldClientID]+
		`", algorithm="hmac-sha256", headers="x-coscon-date x-coscon-content-md5 request-line", signature="`+
		base64.StdEncoding.EncodeToString(m.Sum(nil))+`"`)
	return nil
}
