package contrack

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Errors of webhook verification; Verify wraps them with the detail.
var (
	// ErrNoSignature: the request carries neither X-Hook-Signature nor
	// the Standard Webhooks headers.
	ErrNoSignature = errors.New("contrack: webhook has no signature")
	// ErrBadSignature: a signature does not match the body and secret.
	ErrBadSignature = errors.New("contrack: webhook signature does not match")
	// ErrStaleTimestamp: webhook-timestamp is further from now than the tolerance (a replay, or a clock off).
	ErrStaleTimestamp = errors.New("contrack: webhook timestamp outside the tolerance")
	// ErrBadSecret: the secret is not whsec_<base64>, as contrack issues them.
	ErrBadSecret = errors.New("contrack: webhook secret is not whsec_<base64>")
)

// DefaultWebhookTolerance is how far webhook-timestamp may be from now,
// as the Standard Webhooks libraries allow.
const DefaultWebhookTolerance = 5 * time.Minute

// Webhook verifies the deliveries contrack POSTs to a webhook with Secret,
// the whsec_… secret of its verification message (POST /webhook/configure).
// Every delivery carries two signatures of its raw body: X-Hook-Signature
// (lowercase hex HMAC-SHA256 keyed with the secret as issued) and the
// Standard Webhooks headers webhook-id, webhook-timestamp and
// webhook-signature ("v1,<base64 HMAC-SHA256 of id.timestamp.body>", keyed
// with the base64-decoded bytes after whsec_).
type Webhook struct {
	Secret string
	// Tolerance bounds |now - webhook-timestamp|; DefaultWebhookTolerance when 0.
	Tolerance time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Verify checks every signature the headers carry against body, and that
// at least one is there: X-Hook-Signature, and the Standard Webhooks
// signature with its timestamp. body must be the raw bytes received.
func (w Webhook) Verify(h http.Header, body []byte) error {
	hook := h.Get("X-Hook-Signature")
	std := h.Get("webhook-signature")
	if hook == "" && std == "" {
		return ErrNoSignature
	}
	if hook != "" {
		if err := VerifyHookSignature(w.Secret, body, hook); err != nil {
			return err
		}
	}
	if std != "" {
		now := time.Now()
		if w.Now != nil {
			now = w.Now()
		}
		tolerance := w.Tolerance
		if tolerance == 0 {
			tolerance = DefaultWebhookTolerance
		}
		if err := VerifyStandardWebhook(w.Secret, h.Get("webhook-id"), h.Get("webhook-timestamp"), std, body, now, tolerance); err != nil {
			return err
		}
	}
	return nil
}

// Read reads a delivery's body (at most 4 MiB), verifies it (Verify) and
// decodes it.
func (w Webhook) Read(r *http.Request) (*WebhookMessage, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("contrack: read webhook body: %w", err)
	}
	if err := w.Verify(r.Header, body); err != nil {
		return nil, err
	}
	return ParseWebhook(body)
}

// VerifyHookSignature checks X-Hook-Signature: the lowercase hex
// HMAC-SHA256 of body keyed with secret exactly as issued.
func VerifyHookSignature(secret string, body []byte, signature string) error {
	got, err := hex.DecodeString(strings.TrimSpace(signature))
	if err != nil {
		return fmt.Errorf("%w: X-Hook-Signature is not hex", ErrBadSignature)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return fmt.Errorf("%w: X-Hook-Signature", ErrBadSignature)
	}
	return nil
}

// VerifyStandardWebhook checks a Standard Webhooks signature: signatures
// is webhook-signature (space-separated "v1,<base64>" entries; one match
// is enough), timestamp webhook-timestamp in Unix seconds, which must be
// within tolerance of now.
func VerifyStandardWebhook(secret, id, timestamp, signatures string, body []byte, now time.Time, tolerance time.Duration) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || !strings.HasPrefix(secret, "whsec_") {
		return ErrBadSecret
	}
	if id == "" {
		return fmt.Errorf("%w: webhook-id missing", ErrBadSignature)
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(timestamp), 10, 64)
	if err != nil {
		return fmt.Errorf("%w: webhook-timestamp %q", ErrBadSignature, timestamp)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: %s", ErrStaleTimestamp, d.Round(time.Second))
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(sec, 10) + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, entry := range strings.Fields(signatures) {
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return fmt.Errorf("%w: webhook-signature", ErrBadSignature)
}

// Types of WebhookMessage besides event deliveries.
const (
	WebhookVerification = "webhook.verification"
	WebhookTest         = "webhook.test"
)

// WebhookMessage is a body contrack POSTs to a webhook: events of one
// subscription (Type ""), the verification message sent on configuration
// (WebhookVerification, with the Secret to activate with), or a test
// delivery (WebhookTest).
type WebhookMessage struct {
	Type       string            `json:"type,omitempty"`
	References References        `json:"references"`
	Events     []json.RawMessage `json:"events"`
	// Secret, TargetURL, Env and Timestamp come with the verification
	// message (TargetURL, Env and Timestamp also with a test delivery).
	Secret    string `json:"secret,omitempty"`
	TargetURL string `json:"targetUrl,omitempty"`
	Env       string `json:"env,omitempty"`
	Timestamp string `json:"timestamp,omitempty"`
}

// ParseWebhook decodes a delivery's body.
func ParseWebhook(body []byte) (*WebhookMessage, error) {
	var m WebhookMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("contrack: webhook body: %w", err)
	}
	return &m, nil
}
