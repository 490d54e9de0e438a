package carrier_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contrack/contrack/schemas/carriers"
)

// fakeProducer is a DCSA Track & Trace producer (2.2 or 3.0) for the
// connector's tests: GET /api/events with the standard's filters and
// cursor pages, behind one auth scheme, and an OAuth2 token endpoint at
// /oauth/token. It records every events request it is sent.
type fakeProducer struct {
	t       *testing.T
	srv     *httptest.Server
	version string // "2.2" or "3.0"
	auth    carriers.ConnectorAuth
	secret  string
	// tokenTTL is the expires_in of issued tokens (seconds).
	tokenTTL int

	mu       sync.Mutex
	events   []fakeEvent
	asked    []*http.Request
	tokens   []string // issued, in order
	revoked  map[string]bool
	tokenReq int
}

type fakeEvent struct {
	id, kind, booking, bill, container string
	updated                            time.Time
}

func newFakeProducer(t *testing.T, version string, auth carriers.ConnectorAuth, secret string) *fakeProducer {
	f := &fakeProducer{t: t, version: version, auth: auth, secret: secret, tokenTTL: 3600, revoked: map[string]bool{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeProducer) baseURL() string  { return f.srv.URL + "/api" }
func (f *fakeProducer) tokenURL() string { return f.srv.URL + "/oauth/token" }

func (f *fakeProducer) add(evs ...fakeEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, evs...)
}

func (f *fakeProducer) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.asked...)
}

func (f *fakeProducer) revoke() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, tok := range f.tokens {
		f.revoked[tok] = true
	}
}

func (f *fakeProducer) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.URL.Path == "/oauth/token" {
		f.tokenReq++
		id, secret, ok := r.BasicAuth()
		if !ok || r.Method != http.MethodPost || r.FormValue("grant_type") != "client_credentials" ||
			id != f.auth.ClientID || secret != f.secret {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		tok := fmt.Sprintf("tok-%d", len(f.tokens)+1)
		f.tokens = append(f.tokens, tok)
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":%d}`, tok, f.tokenTTL)
		return
	}
	if r.URL.Path != "/api/events" || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	f.asked = append(f.asked, r.Clone(r.Context()))
	if !f.authorized(r) {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	q := r.URL.Query()
	var types []string
	minKey, maxKey, typeKey := "eventUpdatedDateTimeMin", "eventUpdatedDateTimeMax", "eventTypes"
	if f.version == "2.2" {
		minKey, maxKey, typeKey = "eventCreatedDateTime:gte", "eventCreatedDateTime:lte", "eventType"
	}
	if v := q.Get(typeKey); v != "" {
		types = strings.Split(v, ",")
	}
	var lo, hi time.Time
	if v := q.Get(minKey); v != "" {
		lo, _ = time.Parse(time.RFC3339Nano, v)
	}
	if v := q.Get(maxKey); v != "" {
		hi, _ = time.Parse(time.RFC3339Nano, v)
	}
	var match []fakeEvent
	for _, ev := range f.events {
		switch {
		case q.Get("carrierBookingReference") != "" && q.Get("carrierBookingReference") != ev.booking,
			q.Get("transportDocumentReference") != "" && q.Get("transportDocumentReference") != ev.bill,
			q.Get("equipmentReference") != "" && q.Get("equipmentReference") != ev.container,
			len(types) > 0 && !contains(types, ev.kind),
			!lo.IsZero() && ev.updated.Before(lo),
			!hi.IsZero() && ev.updated.After(hi):
			continue
		}
		match = append(match, ev)
	}
	offset, _ := strconv.Atoi(q.Get("cursor"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 {
		limit = len(match) + 1
	}
	end := min(offset+limit, len(match))
	page := match[min(offset, len(match)):end]
	if end < len(match) {
		if f.version == "3.0" {
			w.Header().Set("Next-Page-Cursor", strconv.Itoa(end))
		} else {
			next := url.Values{}
			for k, v := range q {
				next[k] = v
			}
			next.Set("cursor", strconv.Itoa(end))
			w.Header().Set("Next-Page", f.srv.URL+"/api/events?"+next.Encode())
		}
	}
	out := make([]map[string]any, 0, len(page))
	for _, ev := range page {
		out = append(out, map[string]any{"eventID": ev.id, "eventType": ev.kind, "eventUpdatedDateTime": ev.updated.Format(time.RFC3339)})
	}
	var body []byte
	if f.version == "3.0" {
		w.Header().Set("API-Version", "3.0.0")
		body, _ = json.Marshal(map[string]any{"events": out})
	} else {
		body, _ = json.Marshal(out)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (f *fakeProducer) authorized(r *http.Request) bool {
	switch f.auth.Scheme {
	case carriers.AuthAPIKey:
		return len(r.Header.Values(f.auth.HeaderName)) == 1 && r.Header.Get(f.auth.HeaderName) == f.secret
	case carriers.AuthBasic:
		u, p, ok := r.BasicAuth()
		return ok && u == f.auth.Username && p == f.secret
	case carriers.AuthOAuth2:
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		return ok && contains(f.tokens, tok) && !f.revoked[tok]
	}
	return r.Header.Get("Authorization") == ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
