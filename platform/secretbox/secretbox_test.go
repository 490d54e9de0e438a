package secretbox_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
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

// legacySeal is how ciphertexts were sealed before key ids: nonce || sealed
// under SHA-256("contrack/secretbox/v1:" + secret).
func legacySeal(t *testing.T, secret string, plain []byte, context string) []byte {
	t.Helper()
	k := sha256.Sum256([]byte("contrack/secretbox/v1:" + secret))
	block, err := aes.NewCipher(k[:])
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		t.Fatal(err)
	}
	return aead.Seal(nonce, nonce, plain, []byte(context))
}

func TestRotation(t *testing.T) {
	old, _ := secretbox.New("old-key")
	ctOld, err := old.Seal([]byte("from-old"), "ctx")
	if err != nil {
		t.Fatal(err)
	}
	legacy := legacySeal(t, "old-key", []byte("legacy"), "ctx")

	rotated, err := secretbox.New("new-key", "old-key")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		ct   []byte
		want string
	}{"keyed": {ctOld, "from-old"}, "legacy": {legacy, "legacy"}} {
		pt, err := rotated.Open(c.ct, "ctx")
		if err != nil || string(pt) != c.want {
			t.Fatalf("%s: previous key does not open: %q %v", name, pt, err)
		}
		re, changed, err := rotated.Reseal(c.ct, "ctx")
		if err != nil || !changed {
			t.Fatalf("%s: reseal: changed=%v err=%v", name, changed, err)
		}
		// Sealed with the new key: opens without the old one, and a second
		// reseal changes nothing.
		fresh, _ := secretbox.New("new-key")
		if pt, err := fresh.Open(re, "ctx"); err != nil || string(pt) != c.want {
			t.Fatalf("%s: resealed does not open with the new key alone: %v", name, err)
		}
		if _, err := old.Open(re, "ctx"); !errors.Is(err, secretbox.ErrDecrypt) {
			t.Fatalf("%s: resealed still opens with the old key", name)
		}
		again, changed, err := rotated.Reseal(re, "ctx")
		if err != nil || changed || !bytes.Equal(again, re) {
			t.Fatalf("%s: second reseal changed=%v err=%v", name, changed, err)
		}
	}
	// The new key alone no longer opens what the old key sealed.
	fresh, _ := secretbox.New("new-key")
	if _, err := fresh.Open(ctOld, "ctx"); !errors.Is(err, secretbox.ErrDecrypt) {
		t.Fatal("new key opened an old-key ciphertext")
	}
	if _, err := secretbox.New(""); err == nil {
		t.Fatal("empty current key accepted")
	}
}
