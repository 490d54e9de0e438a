package signature_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/signature"
	"github.com/contrack/contrack/reference"
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

// TestVerifyStandard: the reference library's vector verifies; every
// change of body, id, timestamp or key fails; a timestamp farther than the
// tolerance fails either side; several entries, one of them right, verify.
func TestVerifyStandard(t *testing.T) {
	raw, err := os.ReadFile(reference.StandardWebhooksVector())
	if err != nil {
		t.Fatal(err)
	}
	var v vector
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	sec, _ := strconv.ParseInt(v.Timestamp, 10, 64)
	at := time.Unix(sec, 0)
	hdr := func(id, ts, sig string) http.Header {
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", ts)
		h.Set("webhook-signature", sig)
		return h
	}
	good := hdr(v.ID, v.Timestamp, v.Signature)
	if id, err := signature.VerifyStandard(v.Secret, good, []byte(v.Body), at.Add(4*time.Minute), 5*time.Minute); err != nil || id != v.ID {
		t.Fatalf("the reference vector: %q %v", id, err)
	}
	if _, err := signature.VerifyStandard(v.Secret, hdr(v.ID, v.Timestamp, "v1,bm9wZQ== "+v.Signature), []byte(v.Body), at, time.Minute); err != nil {
		t.Fatalf("the right entry among several: %v", err)
	}
	for name, c := range map[string]struct {
		h    http.Header
		body string
		now  time.Time
		want error
	}{
		"no headers":      {http.Header{}, v.Body, at, signature.ErrNoStandardHeaders},
		"body changed":    {good, v.Body + " ", at, signature.ErrNoMatch},
		"id changed":      {hdr(v.ID+"x", v.Timestamp, v.Signature), v.Body, at, signature.ErrNoMatch},
		"no id":           {hdr("", v.Timestamp, v.Signature), v.Body, at, signature.ErrNoMatch},
		"timestamp moved": {hdr(v.ID, strconv.FormatInt(sec+1, 10), v.Signature), v.Body, at, signature.ErrNoMatch},
		"too old":         {good, v.Body, at.Add(5*time.Minute + time.Second), signature.ErrTimestamp},
		"in the future":   {good, v.Body, at.Add(-5*time.Minute - time.Second), signature.ErrTimestamp},
		"no timestamp":    {hdr(v.ID, "", v.Signature), v.Body, at, signature.ErrTimestamp},
		"other scheme":    {hdr(v.ID, v.Timestamp, strings.Replace(v.Signature, "v1,", "v1a,", 1)), v.Body, at, signature.ErrNoMatch},
	} {
		if _, err := signature.VerifyStandard(v.Secret, c.h, []byte(c.body), c.now, 5*time.Minute); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if _, err := signature.VerifyStandard("whsec_b3RoZXI=", good, []byte(v.Body), at, time.Minute); !errors.Is(err, signature.ErrNoMatch) {
		t.Errorf("another key verified: %v", err)
	}
	// A secret not of the whsec_ form keys the HMAC with its own bytes.
	if got := signature.StandardKey("shared-secret"); string(got) != "shared-secret" {
		t.Errorf("StandardKey of a plain secret: %q", got)
	}
}
