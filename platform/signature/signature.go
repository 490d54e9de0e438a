// Package signature signs webhook deliveries two ways at once: the public
// interface's X-Hook-Signature (lowercase hex HMAC-SHA256 of the body, keyed
// with the secret string as issued) and the Standard Webhooks headers
// (webhook-id, webhook-timestamp, webhook-signature "v1,<base64 HMAC-SHA256
// of id.timestamp.body>", keyed with the decoded bytes after "whsec_"), so
// receivers can verify with the Standard Webhooks libraries unchanged.
package signature

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Prefix starts every secret, as Standard Webhooks issues them.
const Prefix = "whsec_"

// ErrBadSecret is returned for a secret not of the form whsec_<base64>.
var ErrBadSecret = errors.New("signature: secret is not whsec_<base64>")

// NewSecret returns a new secret: whsec_ and 32 random bytes in base64.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return Prefix + base64.StdEncoding.EncodeToString(b), nil
}

// HookSignature is the X-Hook-Signature of body.
func HookSignature(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// StandardSignature is the webhook-signature of a message.
func StandardSignature(secret, msgID string, ts time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, Prefix))
	if err != nil || !strings.HasPrefix(secret, Prefix) {
		return "", ErrBadSecret
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msgID + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Headers returns every signing header of a delivery attempt, with
// Content-Type application/json.
func Headers(secret, msgID string, ts time.Time, body []byte) (http.Header, error) {
	std, err := StandardSignature(secret, msgID, ts, body)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Hook-Signature", HookSignature(secret, body))
	h.Set("webhook-id", msgID)
	h.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	h.Set("webhook-signature", std)
	return h, nil
}
