package signature_test

import (
	"encoding/json"
	"github.com/contrack/contrack/reference"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/signature"
)

type vector struct {
	Secret    string `json:"secret"`
	ID        string `json:"webhook-id"`
	Timestamp string `json:"webhook-timestamp"`
	Body      string `json:"body"`
	Signature string `json:"webhook-signature"`
	Hook      string `json:"X-Hook-Signature"`
}

// Both signatures reproduce vectors made with the Standard Webhooks
// library (reference/) and our own (testdata, for clients' verifiers).
func TestVectors(t *testing.T) {
	for _, path := range []string{reference.StandardWebhooksVector(), "testdata/vector.json"} {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var v vector
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		sec, _ := strconv.ParseInt(v.Timestamp, 10, 64)
		h, err := signature.Headers(v.Secret, v.ID, time.Unix(sec, 0), []byte(v.Body))
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Get("webhook-signature"); got != v.Signature {
			t.Errorf("%s: webhook-signature %s, want %s", path, got, v.Signature)
		}
		if got := h.Get("X-Hook-Signature"); got != v.Hook {
			t.Errorf("%s: X-Hook-Signature %s, want %s", path, got, v.Hook)
		}
		if h.Get("webhook-id") != v.ID || h.Get("webhook-timestamp") != v.Timestamp || h.Get("Content-Type") != "application/json" {
			t.Errorf("%s: headers %v", path, h)
		}
	}
}

func TestNewSecret(t *testing.T) {
	a, _ := signature.NewSecret()
	b, _ := signature.NewSecret()
	if a == b || !strings.HasPrefix(a, "whsec_") || len(a) != len("whsec_")+44 {
		t.Fatalf("secrets %q %q", a, b)
	}
	if _, err := signature.StandardSignature("not-a-secret", "id", time.Now(), nil); err == nil {
		t.Fatal("accepted a secret without whsec_")
	}
}
