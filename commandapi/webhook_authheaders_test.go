package commandapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/queryapi"
)

// authHeadersAPI is webhookAPI with the query API's logger set.
func authHeadersAPI(t *testing.T) (*testenv.API, testenv.PGDatabase) {
	db := testenv.Postgres(t)
	h := deliverytest.NewOn(t, db, false)
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, Box: h.Box, TokenKey: []byte("k"), Log: testenv.Log(t)})
		commandapi.Register(s, commandapi.Config{AllowPrivateWebhooks: true}, commandapi.Deps{Pool: db.Pool, Box: h.Box, Log: testenv.Log(t)})
	})
	h.Start(deliverytest.Config())
	return api, db
}

func TestWebhookAuthHeadersRefused(t *testing.T) {
	api, _ := authHeadersAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	const target = "http://127.0.0.1:9/hook"
	const p = "Invalid authHeaders: "
	long := strings.Repeat("k", 4097)
	for _, c := range []struct {
		name    string
		headers map[string]string
		msg     string
	}{
		{"too many", map[string]string{"A": "1", "B": "2", "C": "3", "D": "4", "E": "5", "F": "6"}, p + "'authHeaders' has 6 headers: at most 5"},
		{"not a token", map[string]string{"X Key": "v"}, p + `'authHeaders' has "X Key", which is not a header name (an RFC 7230 token: letters, digits and !#$%&'*+-.^_` + "`|~)"},
		{"empty name", map[string]string{"": "v"}, p + `'authHeaders' has "", which is not a header name (an RFC 7230 token: letters, digits and !#$%&'*+-.^_` + "`|~)"},
		{"long name", map[string]string{strings.Repeat("N", 65): "v"}, p + `'authHeaders' has a name longer than 64 characters ("NNNNNNNNNNNNNNNNNNNN"…)`},
		{"Connection", map[string]string{"Connection": "close"}, p + "'authHeaders.Connection' is a hop-by-hop or framing header: it cannot be set for the receiver"},
		{"Keep-Alive", map[string]string{"keep-alive": "1"}, p + "'authHeaders.keep-alive' is a hop-by-hop or framing header: it cannot be set for the receiver"},
		{"Proxy-Authorization", map[string]string{"Proxy-Authorization": "Basic dTpw"}, p + "'authHeaders.Proxy-Authorization' is a hop-by-hop or framing header: it cannot be set for the receiver"},
		{"Proxy-anything", map[string]string{"proxy-token": "x"}, p + "'authHeaders.proxy-token' is a hop-by-hop or framing header: it cannot be set for the receiver"},
		{"TE", map[string]string{"TE": "trailers"}, p + "'authHeaders.TE' is a hop-by-hop or framing header: it cannot be set for the receiver"},
		{"Trailer", map[string]string{"Trailer": "x"}, p + "'authHeaders.Trailer' is a hop-by-hop or framing header: it cannot be set for the receiver"},
		{"Transfer-Encoding", map[string]string{"Transfer-Encoding": "chunked"}, p + "'authHeaders.Transfer-Encoding' is a hop-by-hop or framing header: it cannot be set for the receiver"},
		{"Upgrade", map[string]string{"Upgrade": "h2c"}, p + "'authHeaders.Upgrade' is a hop-by-hop or framing header: it cannot be set for the receiver"},
		{"Host", map[string]string{"Host": "example.com"}, p + "'authHeaders.Host' is a hop-by-hop or framing header: it cannot be set for the receiver"},
		{"Content-Length", map[string]string{"Content-Length": "1"}, p + "'authHeaders.Content-Length' is a hop-by-hop or framing header: it cannot be set for the receiver"},
		{"Content-Type", map[string]string{"content-type": "text/plain"}, p + "'authHeaders.content-type' is a hop-by-hop or framing header: it cannot be set for the receiver"},
		{"X-Hook-Signature", map[string]string{"X-Hook-Signature": "00"}, p + "'authHeaders.X-Hook-Signature' is a header contrack sets on every delivery"},
		{"webhook-id", map[string]string{"webhook-id": "x"}, p + "'authHeaders.webhook-id' is a header contrack sets on every delivery"},
		{"webhook-timestamp", map[string]string{"Webhook-Timestamp": "1"}, p + "'authHeaders.Webhook-Timestamp' is a header contrack sets on every delivery"},
		{"webhook-signature", map[string]string{"webhook-signature": "v1,x"}, p + "'authHeaders.webhook-signature' is a header contrack sets on every delivery"},
		{"User-Agent", map[string]string{"User-Agent": "x"}, p + "'authHeaders.User-Agent' is a header contrack sets on every delivery"},
		{"API-Version", map[string]string{"API-Version": "3.0.0"}, p + "'authHeaders.API-Version' is a header contrack sets on every delivery"},
		{"traceparent", map[string]string{"traceparent": "00-x"}, p + "'authHeaders.traceparent' is a header contrack sets on every delivery"},
		{"repeated name", map[string]string{"X-API-Key": "secret-a", "x-api-key": "secret-b"}, p + `'authHeaders.x-api-key' repeats "X-API-Key" (header names are case-insensitive)`},
		{"empty value", map[string]string{"X-API-Key": "  "}, p + "'authHeaders.X-API-Key' has an empty value"},
		{"CR LF", map[string]string{"X-API-Key": "secret-crlf\r\nX-Injected: 1"}, p + "'authHeaders.X-API-Key' has a line break or another control character in its value"},
		{"LF", map[string]string{"X-API-Key": "secret-lf\nmore"}, p + "'authHeaders.X-API-Key' has a line break or another control character in its value"},
		// Other control characters are refused by the JSON reader already.
		{"DEL", map[string]string{"X-API-Key": "secret-del\x7f"}, "Invalid character in JSON body: strings must be valid UTF-8 without control characters"},
		{"long value", map[string]string{"X-API-Key": long}, p + "'authHeaders.X-API-Key' has a value over 4096 bytes"},
		{"other scheme", map[string]string{"Authorization": "Token secret-token"}, p + `'authHeaders.Authorization' must be "Bearer <token>" or "Basic <base64 of user:password>"`},
		{"bearer alone", map[string]string{"Authorization": "Bearer"}, p + `'authHeaders.Authorization' must be "Bearer <token>" or "Basic <base64 of user:password>"`},
		{"basic not base64", map[string]string{"Authorization": "Basic secret-not-base64!"}, p + `'authHeaders.Authorization' must be "Bearer <token>" or "Basic <base64 of user:password>"`},
		{"basic without colon", map[string]string{"authorization": "Basic c2VjcmV0"}, p + `'authHeaders.authorization' must be "Bearer <token>" or "Basic <base64 of user:password>"`},
		{"every problem named", map[string]string{"Host": "h", "X-Key": "", "Api-Key": "ok-value"},
			p + "'authHeaders.Host' is a hop-by-hop or framing header: it cannot be set for the receiver; 'authHeaders.X-Key' has an empty value"},
	} {
		r := api.Do("POST", "/webhook/configure", key, map[string]any{"targetUrl": target, "authHeaders": c.headers})
		if r.Status != 400 || r.Message() != c.msg {
			t.Errorf("%s: got %d %s\nwant 400 %q", c.name, r.Status, r.Raw, c.msg)
		}
		for _, v := range c.headers {
			if len(v) > 6 && strings.Contains(string(r.Raw), v[:7]) {
				t.Errorf("%s: the answer shows the header's value: %s", c.name, r.Raw)
			}
		}
	}
	if g := api.Do("GET", "/webhook/configure", key, nil); g.JSON["targetUrl"] != "" {
		t.Fatalf("a refused configure stored the webhook: %s", g.Raw)
	}
	// A value that is not a string is malformed JSON for the field.
	if r := api.Do("POST", "/webhook/configure", key, `{"targetUrl":"`+target+`","authHeaders":{"X-API-Key":5}}`); r.Status != 400 {
		t.Errorf("a number as a header value: %d %s", r.Status, r.Raw)
	}
}

// verificationHeaders waits for the n-th verification message and returns
// its request headers.
func verificationHeaders(t *testing.T, rcv *deliverytest.Receiver, n int) map[string][]string {
	t.Helper()
	var out map[string][]string
	testkit.Eventually(t, 10*time.Second, "verification message", func() bool {
		seen := 0
		for _, r := range rcv.Acked() {
			var msg commandapi.VerificationMessage
			if json.Unmarshal(r.Body, &msg) == nil && msg.Type == "webhook.verification" {
				if seen++; seen == n {
					out = r.Header
					return true
				}
			}
		}
		return false
	})
	return out
}

func TestWebhookAuthHeaders(t *testing.T) {
	api, db := authHeadersAPI(t)
	rcv := deliverytest.NewReceiver(t, nil)
	other := deliverytest.NewReceiver(t, nil)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	const apiKey, token = "key-0123456789-abcd", "tok-secret-value-wxyz"
	expect := func(r testenv.Response, status int, msg string) {
		t.Helper()
		if r.Status != status || r.Message() != msg {
			t.Fatalf("got %d %s, want %d %q", r.Status, r.Raw, status, msg)
		}
	}
	getHeaders := func() string {
		t.Helper()
		g := api.Do("GET", "/webhook/configure", key, nil)
		b, _ := json.Marshal(g.JSON["authHeaders"])
		if strings.Contains(string(g.Raw), apiKey) || strings.Contains(string(g.Raw), token) {
			t.Fatalf("GET shows a header value: %s", g.Raw)
		}
		return string(b)
	}

	expect(api.Do("POST", "/webhook/configure", key, map[string]any{"targetUrl": rcv.URL + "/hook",
		"authHeaders": map[string]string{"X-API-Key": apiKey, "Authorization": " Bearer " + token + " "}}), 200, "Successful Configuration")
	// The verification message carries them, under the names as given.
	h := verificationHeaders(t, rcv, 1)
	if got := h["X-Api-Key"]; len(got) != 1 || got[0] != apiKey {
		t.Errorf("verification X-API-Key: %q", got)
	}
	if got := h["Authorization"]; len(got) != 1 || got[0] != "Bearer "+token {
		t.Errorf("verification Authorization: %q", got)
	}
	if got := getHeaders(); got != `{"Authorization":"Bearer ****wxyz","X-API-Key":"****abcd"}` {
		t.Errorf("GET authHeaders: %s", got)
	}
	// Encrypted at rest: nothing of the webhook row holds a value.
	var row string
	if err := db.Pool.QueryRow(context.Background(), `SELECT row_to_json(w)::text || encode(w.auth_headers_enc, 'escape') FROM webhooks w`).Scan(&row); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(row, apiKey) || strings.Contains(row, token) || strings.Contains(row, "X-API-Key") || !strings.Contains(row, "auth_headers_enc") {
		t.Fatalf("webhook row holds an auth header in clear: %s", row)
	}

	// Configuring again without authHeaders keeps them (same host).
	expect(api.Do("POST", "/webhook/configure", key, map[string]string{"targetUrl": rcv.URL + "/hook2"}), 200, "Successful Configuration")
	if h := verificationHeaders(t, rcv, 2); len(h["X-Api-Key"]) != 1 || h["X-Api-Key"][0] != apiKey {
		t.Errorf("kept headers not sent with the second verification: %v", h)
	}
	if got := getHeaders(); got != `{"Authorization":"Bearer ****wxyz","X-API-Key":"****abcd"}` {
		t.Errorf("GET authHeaders after a configure without: %s", got)
	}
	// ... but never to another host: refused, nothing changed.
	expect(api.Do("POST", "/webhook/configure", key, map[string]string{"targetUrl": other.URL + "/hook"}), 400,
		"Invalid authHeaders: targetUrl moves to another host, and the stored headers are not sent there: send authHeaders again ({} for none)")
	if g := api.Do("GET", "/webhook/configure", key, nil); g.JSON["targetUrl"] != rcv.URL+"/hook2" {
		t.Fatalf("a refused configure changed the webhook: %s", g.Raw)
	}
	// Sent again, they replace the stored ones.
	expect(api.Do("POST", "/webhook/configure", key, map[string]any{"targetUrl": other.URL + "/hook",
		"authHeaders": map[string]string{"Api-Key": "second-api-key-9876"}}), 200, "Successful Configuration")
	if got := getHeaders(); got != `{"Api-Key":"****9876"}` {
		t.Errorf("GET authHeaders after replacing: %s", got)
	}
	if h := verificationHeaders(t, other, 1); len(h["Api-Key"]) != 1 || h["Authorization"] != nil || h["X-Api-Key"] != nil {
		t.Errorf("replaced headers: %v", h)
	}
	// {} clears them; then another host needs nothing.
	expect(api.Do("POST", "/webhook/configure", key, map[string]any{"targetUrl": other.URL + "/hook", "authHeaders": map[string]string{}}), 200, "Successful Configuration")
	if got := getHeaders(); got != `{}` {
		t.Errorf("GET authHeaders after {}: %s", got)
	}
	expect(api.Do("POST", "/webhook/configure", key, map[string]string{"targetUrl": rcv.URL + "/hook3"}), 200, "Successful Configuration")
	if h := verificationHeaders(t, rcv, 3); h["Api-Key"] != nil || h["X-Api-Key"] != nil {
		t.Errorf("cleared headers still sent: %v", h)
	}
}
