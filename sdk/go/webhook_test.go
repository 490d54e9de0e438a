package contrack

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"
)

// vector is reference/standard-webhooks-vector.json: a delivery signed by
// the Standard Webhooks reference library and Node crypto.
type vector struct {
	Secret    string `json:"secret"`
	ID        string `json:"webhook-id"`
	Timestamp string `json:"webhook-timestamp"`
	Body      string `json:"body"`
	Signature string `json:"webhook-signature"`
	Hook      string `json:"X-Hook-Signature"`
}

func readVector(t *testing.T) (vector, http.Header, time.Time) {
	t.Helper()
	raw, err := os.ReadFile("../../reference/standard-webhooks-vector.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vector
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("X-Hook-Signature", v.Hook)
	h.Set("webhook-id", v.ID)
	h.Set("webhook-timestamp", v.Timestamp)
	h.Set("webhook-signature", v.Signature)
	sec, _ := strconv.ParseInt(v.Timestamp, 10, 64)
	return v, h, time.Unix(sec, 0)
}

func TestWebhookVerifiesReferenceVector(t *testing.T) {
	v, h, at := readVector(t)
	w := Webhook{Secret: v.Secret, Now: func() time.Time { return at.Add(time.Minute) }}
	if err := w.Verify(h, []byte(v.Body)); err != nil {
		t.Fatalf("reference vector: %v", err)
	}
	// Each scheme alone verifies too.
	if err := VerifyHookSignature(v.Secret, []byte(v.Body), v.Hook); err != nil {
		t.Errorf("X-Hook-Signature: %v", err)
	}
	if err := VerifyStandardWebhook(v.Secret, v.ID, v.Timestamp, v.Signature, []byte(v.Body), at, time.Minute); err != nil {
		t.Errorf("Standard Webhooks: %v", err)
	}
	// Among several signatures (a secret rotation), one match is enough.
	if err := VerifyStandardWebhook(v.Secret, v.ID, v.Timestamp, "v1,AAAA "+v.Signature, []byte(v.Body), at, time.Minute); err != nil {
		t.Errorf("second of two signatures: %v", err)
	}
	msg, err := ParseWebhook([]byte(v.Body))
	if err != nil || msg.References.SubscriptionReference != "ref-1" || len(msg.Events) != 1 {
		t.Errorf("parsed %+v, %v", msg, err)
	}
}

func TestWebhookRefusesWhatDoesNotMatch(t *testing.T) {
	v, h, at := readVector(t)
	now := func() time.Time { return at }
	body := []byte(v.Body)
	tampered := append([]byte{}, body...)
	tampered[len(tampered)-3] = ' '
	only := func(keep ...string) http.Header {
		out := http.Header{}
		for _, k := range keep {
			out.Set(k, h.Get(k))
		}
		return out
	}
	with := func(k, val string) http.Header {
		out := h.Clone()
		out.Set(k, val)
		return out
	}
	cases := []struct {
		name   string
		w      Webhook
		header http.Header
		body   []byte
		want   error
	}{
		{"tampered body", Webhook{Secret: v.Secret, Now: now}, h, tampered, ErrBadSignature},
		{"tampered body, X-Hook-Signature only", Webhook{Secret: v.Secret, Now: now}, only("X-Hook-Signature"), tampered, ErrBadSignature},
		{"tampered body, Standard Webhooks only", Webhook{Secret: v.Secret, Now: now}, only("webhook-id", "webhook-timestamp", "webhook-signature"), tampered, ErrBadSignature},
		{"another secret", Webhook{Secret: "whsec_" + "c2VjcmV0LW9mLWFub3RoZXItYWNjb3VudC0wMDAwMDA=", Now: now}, h, body, ErrBadSignature},
		{"wrong X-Hook-Signature, right Standard", Webhook{Secret: v.Secret, Now: now}, with("X-Hook-Signature", v.Hook[:63]+"0"), body, ErrBadSignature},
		{"other webhook-id", Webhook{Secret: v.Secret, Now: now}, with("webhook-id", "msg_other"), body, ErrBadSignature},
		{"replayed an hour later", Webhook{Secret: v.Secret, Now: func() time.Time { return at.Add(time.Hour) }}, h, body, ErrStaleTimestamp},
		{"from the future", Webhook{Secret: v.Secret, Now: func() time.Time { return at.Add(-10 * time.Minute) }}, h, body, ErrStaleTimestamp},
		{"no signature", Webhook{Secret: v.Secret, Now: now}, http.Header{}, body, ErrNoSignature},
		{"secret not whsec_", Webhook{Secret: "plain", Now: now}, only("webhook-id", "webhook-timestamp", "webhook-signature"), body, ErrBadSecret},
	}
	for _, c := range cases {
		if err := c.w.Verify(c.header, c.body); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
