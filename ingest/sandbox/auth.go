package sandbox

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"hash"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// authFunc checks a request's credentials: nil lets it through.
type authFunc func(r *http.Request) *failure

func randomKey() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return k
}

// headerAuth requires every named header (API keys, client id and secret).
func (s *server) headerAuth(names ...string) authFunc {
	return func(r *http.Request) *failure {
		vals := make([]string, len(names))
		for i, n := range names {
			vals[i] = r.Header.Get(n)
		}
		return credentialFailure(vals...)
	}
}

// bearerAuth requires an unexpired access token issued by this sandbox for scac.
func (s *server) bearerAuth(scac string) authFunc {
	return func(r *http.Request) *failure {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || !s.validToken(scac, strings.TrimSpace(tok)) {
			return &failure{status: http.StatusUnauthorized, reason: "invalidToken", message: "The access token is missing, invalid or expired"}
		}
		return nil
	}
}

// Tokens are stateless: "sbx.<base64url(scac|expiry unix|clientId)>.<base64url(HMAC)>",
// keyed with a random per-sandbox key, so a restarted sandbox rejects old
// tokens (as a carrier may) and adapters must fetch a new one on 401.
func (s *server) issueToken(scac, clientID string) (string, time.Duration) {
	exp := s.cfg.Clock().Add(s.cfg.TokenTTL).Unix()
	payload := base64.RawURLEncoding.EncodeToString([]byte(scac + "|" + strconv.FormatInt(exp, 10) + "|" + clientID))
	return "sbx." + payload + "." + s.tokenMAC(payload), s.cfg.TokenTTL
}

func (s *server) tokenMAC(payload string) string {
	m := hmac.New(sha256.New, s.tokenKey)
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *server) validToken(scac, tok string) bool {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || parts[0] != "sbx" || !hmac.Equal([]byte(parts[2]), []byte(s.tokenMAC(parts[1]))) {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return false
	}
	f := strings.SplitN(string(raw), "|", 3)
	if len(f) != 3 || f[0] != scac {
		return false
	}
	exp, err := strconv.ParseInt(f[1], 10, 64)
	return err == nil && s.cfg.Clock().Unix() < exp
}

// oauth2Token is an RFC 6749 §4.4 client credentials token endpoint: form
// body grant_type=client_credentials, the client authenticated with HTTP
// Basic (§2.3.1) or client_id/client_secret form fields; errors per §5.2.
func (s *server) oauth2Token(scac string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		oauthErr := func(status int, code, desc string) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Basic realm="`+strings.ToLower(scac)+`"`)
			}
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
		}
		if err := r.ParseForm(); err != nil {
			oauthErr(http.StatusBadRequest, "invalid_request", "malformed form body")
			return
		}
		if gt := r.PostForm.Get("grant_type"); gt != "client_credentials" {
			oauthErr(http.StatusBadRequest, "unsupported_grant_type", "only client_credentials is supported")
			return
		}
		id, secret, basic := r.BasicAuth()
		if basic {
			// §2.3.1: the id and secret are form-encoded before Basic encoding.
			if v, err := url.QueryUnescape(id); err == nil {
				id = v
			}
			if v, err := url.QueryUnescape(secret); err == nil {
				secret = v
			}
		} else {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if f := credentialFailure(id, secret); f != nil {
			if f.status == http.StatusServiceUnavailable {
				writeRetryAfter(w, f)
				http.Error(w, f.message, f.status)
				return
			}
			oauthErr(http.StatusUnauthorized, "invalid_client", "client authentication failed")
			return
		}
		tok, ttl := s.issueToken(scac, id)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"access_token": tok, "token_type": "Bearer", "expires_in": int(ttl.Seconds()), "scope": "tnt.events.read",
		})
	})
}

// evergreenToken is Evergreen's own token exchange: POST a JSON body
// {"clientId","clientSecret"}, get {"token","tokenType","expiresIn"} back.
func (s *server) evergreenToken(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ClientID     string `json:"clientId"`
		ClientSecret string `json:"clientSecret"`
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&body); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"code": "BAD_REQUEST", "message": "malformed JSON body"})
		return
	}
	if f := credentialFailure(body.ClientID, body.ClientSecret); f != nil {
		writeRetryAfter(w, f)
		code := "AUTH_FAILED"
		if f.status == http.StatusServiceUnavailable {
			code = "SERVICE_UNAVAILABLE"
		}
		w.WriteHeader(f.status)
		_ = json.NewEncoder(w).Encode(map[string]string{"code": code, "message": f.message})
		return
	}
	tok, ttl := s.issueToken("EGLV", body.ClientID)
	_ = json.NewEncoder(w).Encode(map[string]any{"token": tok, "tokenType": "Bearer", "expiresIn": int(ttl.Seconds())})
}

func writeRetryAfter(w http.ResponseWriter, f *failure) {
	if f.retryAfter != "" {
		w.Header().Set("Retry-After", f.retryAfter)
	}
}

// COSCO request signing, as the sandbox verifies it (see docs/sandbox.md):
//
//	X-Coscon-Date:        RFC 1123 date in GMT (http.TimeFormat), within 15 minutes of the server clock
//	X-Coscon-Content-Md5: base64 of the MD5 of the request body (of "" for GET)
//	Authorization:        hmac username="<clientId>", algorithm="hmac-sha256",
//	                      headers="x-coscon-date x-coscon-content-md5 request-line",
//	                      signature="<base64 HMAC of the signing string, keyed with clientSecret>"
//
// The signing string joins, with "\n", for each name in headers: "request-line"
// → "<METHOD> <request URI> HTTP/1.1", any other name → "<lower-case name>: <value>".
// algorithm may also be hmac-sha1.
const coscoSkew = 15 * time.Minute

// coscoAuth verifies a COSCO HMAC-signed request.
func (s *server) coscoAuth(r *http.Request, body []byte) *failure {
	bad := func(msg string) *failure {
		return &failure{status: http.StatusUnauthorized, reason: "unauthorized", message: msg}
	}
	params, ok := parseHMACAuthorization(r.Header.Get("Authorization"))
	if !ok {
		return bad("missing or malformed hmac Authorization header")
	}
	user := params["username"]
	if f := credentialFailure(user); f != nil {
		return f
	}
	var newHash func() hash.Hash
	switch params["algorithm"] {
	case "hmac-sha256":
		newHash = sha256.New
	case "hmac-sha1":
		newHash = sha1.New
	default:
		return bad("unsupported algorithm")
	}
	signed := strings.Fields(strings.ToLower(params["headers"]))
	for _, need := range []string{"x-coscon-date", "x-coscon-content-md5", "request-line"} {
		if !containsString(signed, need) {
			return bad("signature must cover " + need)
		}
	}
	date, err := http.ParseTime(r.Header.Get("X-Coscon-Date"))
	if err != nil {
		return bad("missing or malformed X-Coscon-Date")
	}
	if d := s.cfg.Clock().Sub(date); d > coscoSkew || d < -coscoSkew {
		return bad("X-Coscon-Date is more than 15 minutes off")
	}
	sum := md5.Sum(body)
	if r.Header.Get("X-Coscon-Content-Md5") != base64.StdEncoding.EncodeToString(sum[:]) {
		return bad("X-Coscon-Content-Md5 does not match the body")
	}
	sig, err := base64.StdEncoding.DecodeString(params["signature"])
	if err != nil || len(sig) != newHash().Size() {
		return bad("malformed signature")
	}
	if secret, known := s.cfg.CoscoClients[user]; known {
		lines := make([]string, 0, len(signed))
		for _, h := range signed {
			if h == "request-line" {
				lines = append(lines, r.Method+" "+r.URL.RequestURI()+" HTTP/1.1")
			} else {
				lines = append(lines, h+": "+r.Header.Get(h))
			}
		}
		m := hmac.New(newHash, []byte(secret))
		m.Write([]byte(strings.Join(lines, "\n")))
		if subtle.ConstantTimeCompare(m.Sum(nil), sig) != 1 {
			return bad("signature mismatch")
		}
	}
	return nil
}

// parseHMACAuthorization parses `hmac k="v", k="v"`.
func parseHMACAuthorization(h string) (map[string]string, bool) {
	rest, ok := strings.CutPrefix(h, "hmac ")
	if !ok {
		return nil, false
	}
	out := map[string]string{}
	for _, part := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, false
		}
		out[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
	}
	return out, out["username"] != "" && out["signature"] != ""
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
