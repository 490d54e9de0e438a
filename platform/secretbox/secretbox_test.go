package secretbox_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/contrack/contrack/platform/secretbox"
)

func TestSealOpen(t *testing.T) {
	box, _ := secretbox.New("k1")
	other, _ := secretbox.New("k2")
	ct, err := box.Seal([]byte("s3cret-value"), "acct-1/webhook")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(ct, []byte("s3cret")) {
		t.Fatal("plaintext visible in ciphertext")
	}
	pt, err := box.Open(ct, "acct-1/webhook")
	if err != nil || string(pt) != "s3cret-value" {
		t.Fatalf("open: %q %v", pt, err)
	}
	if _, err := box.Open(ct, "acct-2/webhook"); !errors.Is(err, secretbox.ErrDecrypt) {
		t.Fatal("opened with another context")
	}
	if _, err := other.Open(ct, "acct-1/webhook"); !errors.Is(err, secretbox.ErrDecrypt) {
		t.Fatal("opened with another key")
	}
	ct[len(ct)-1] ^= 1
	if _, err := box.Open(ct, "acct-1/webhook"); !errors.Is(err, secretbox.ErrDecrypt) {
		t.Fatal("opened a tampered ciphertext")
	}
	if _, err := box.Open([]byte("short"), "x"); !errors.Is(err, secretbox.ErrDecrypt) {
		t.Fatal("opened garbage")
	}
}
