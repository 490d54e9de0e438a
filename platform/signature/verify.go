package signature

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Errors of VerifyStandard.
var (
	// ErrNoStandardHeaders: none of webhook-id, webhook-timestamp and
	// webhook-signature is present (the sender did not use the scheme).
	ErrNoStandardHeaders = errors.New("signature: no Standard Webhooks headers")
	// ErrTimestamp: webhook-timestamp is missing, not a Unix time in
	// seconds, or farther from now than the tolerance.
	ErrTimestamp = errors.New("signature: webhook-timestamp missing or outside the tolerance")
	// ErrNoMatch: webhook-id is missing or no webhook-signature entry is the
	// message's signature.
	ErrNoMatch = errors.New("signature: no webhook-signature matches")
)

// MaxIDLength bounds a webhook-id VerifyStandard accepts.
const MaxIDLength = 256

// StandardKey is the HMAC key of a secret in the Standard Webhooks scheme:
// the base64-decoded bytes after "whsec_" for a secret of that form (as
// the scheme's libraries use it), else the secret's own bytes.
func StandardKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, Prefix); ok {
		if key, err := base64.StdEncoding.DecodeString(rest); err == nil {
			return key
		}
	}
	return []byte(secret)
}

// VerifyStandard checks a message signed in the Standard Webhooks scheme:
// webhook-signature holds, among its space-separated "v1,<base64>" entries,
// the HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" keyed with
// StandardKey(secret), compared in constant time, and webhook-timestamp is
// within tolerance of now (either side). It returns the webhook-id, which
// the receiver keeps for as long as the tolerance to refuse replays.
func VerifyStandard(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) (id string, err error) {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" && ts == "" && sigs == "" {
		return "", ErrNoStandardHeaders
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
	if err != nil {
		return "", ErrTimestamp
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return "", ErrTimestamp
	}
	if id == "" || len(id) > MaxIDLength {
		return "", ErrNoMatch
	}
	mac := hmac.New(sha256.New, StandardKey(secret))
	mac.Write([]byte(id + "." + strconv.FormatInt(sec, 10) + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, entry := range strings.Fields(sigs) {
		v, b64, ok := strings.Cut(entry, ",")
		if !ok || v != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return id, nil
		}
	}
	return "", ErrNoMatch
}
