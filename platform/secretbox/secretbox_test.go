package secretbox_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
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

// v1Seal seals as boxes did after key ids and before HKDF: magic, the key
// id of SHA-256("contrack/secretbox/v1:" + secret), nonce, sealed.
func v1Seal(t *testing.T, secret string, plain []byte, context string) []byte {
	t.Helper()
	k := sha256.Sum256([]byte("contrack/secretbox/v1:" + secret))
	id := sha256.Sum256(append([]byte("contrack/secretbox/key-id:"), k[:]...))
	ct := legacySeal(t, secret, plain, context)
	return append(append([]byte{0xC7, 'k', '1'}, id[:4]...), ct...)
}

// openRaw opens a keyed ciphertext (magic, id, nonce, sealed) with an
// AES-256-GCM key given as bytes.
func openRaw(raw, ct []byte, context string) ([]byte, error) {
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	data := ct[7:]
	n := aead.NonceSize()
	return aead.Open(nil, data[:n], data[n:], []byte(context))
}

// TestKeysAreDerivedWithHKDF: a box seals under HKDF-SHA256(secret,
// info "contrack/secretbox/v2") — checked with crypto/hkdf directly, not
// through the package — and not under the old SHA-256 derivation; each
// purpose has its own key. What the SHA-256 derivation sealed (with or
// without key ids) still opens, and Reseal moves it to the HKDF key (the
// migration rotate-secrets runs).
func TestKeysAreDerivedWithHKDF(t *testing.T) {
	const secret = "dGhpcyBpcyBub3QgYSByZWFsIGtleSBidXQgaXQgaXMgbG9uZw"
	box, err := secretbox.New(secret)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := box.Seal([]byte("carrier-secret"), "acct/carrier-credentials/MAEU")
	if err != nil {
		t.Fatal(err)
	}
	want, err := hkdf.Key(sha256.New, []byte(secret), nil, "contrack/secretbox/v2", 32)
	if err != nil {
		t.Fatal(err)
	}
	if pt, err := openRaw(want, ct, "acct/carrier-credentials/MAEU"); err != nil || string(pt) != "carrier-secret" {
		t.Fatalf("not sealed under the HKDF key: %q %v", pt, err)
	}
	old := sha256.Sum256([]byte("contrack/secretbox/v1:" + secret))
	if _, err := openRaw(old[:], ct, "acct/carrier-credentials/MAEU"); err == nil {
		t.Fatal("sealed under the SHA-256 derivation")
	}
	if !bytes.Equal(secretbox.DeriveKey(secret, secretbox.PurposeSecretbox), want) {
		t.Fatal("DeriveKey differs from HKDF-SHA256")
	}
	if bytes.Equal(secretbox.DeriveKey(secret, secretbox.PurposePageToken), want) {
		t.Fatal("two purposes share a key")
	}

	// Migration: both earlier forms open, and are resealed under HKDF.
	for name, ct := range map[string][]byte{
		"v1 keyed": v1Seal(t, secret, []byte("older"), "ctx"),
		"no id":    legacySeal(t, secret, []byte("older"), "ctx"),
	} {
		if pt, err := box.Open(ct, "ctx"); err != nil || string(pt) != "older" {
			t.Fatalf("%s: does not open: %q %v", name, pt, err)
		}
		re, changed, err := box.Reseal(ct, "ctx")
		if err != nil || !changed {
			t.Fatalf("%s: reseal changed=%v err=%v", name, changed, err)
		}
		if pt, err := openRaw(want, re, "ctx"); err != nil || string(pt) != "older" {
			t.Fatalf("%s: resealed, but not under the HKDF key: %v", name, err)
		}
		if _, changed, _ := box.Reseal(re, "ctx"); changed {
			t.Fatalf("%s: a second reseal changed it", name)
		}
	}
}

// TestCheckKey: keys as the documented generators make them pass (every
// one of many); short, repetitive, patterned and placeholder keys fail.
func TestCheckKey(t *testing.T) {
	gens := map[string]func([]byte) string{
		"openssl rand -base64 32": base64.StdEncoding.EncodeToString,
		"openssl rand -hex 32":    hex.EncodeToString,
		"generated key file":      base64.RawURLEncoding.EncodeToString,
		"hex upper case":          func(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) },
	}
	for name, gen := range gens {
		for range 1000 {
			b := make([]byte, 32)
			if _, err := rand.Read(b); err != nil {
				t.Fatal(err)
			}
			if k := gen(b); secretbox.CheckKey(k) != nil {
				t.Fatalf("%s: %q refused: %v", name, k, secretbox.CheckKey(k))
			}
		}
	}
	b := make([]byte, 31)
	rand.Read(b)
	for _, weak := range []string{
		"", "replace-me", "compose-example-key", "platform-test-key",
		base64.StdEncoding.EncodeToString(b[:16]), // 16 random bytes
		hex.EncodeToString(b),                     // 31 random bytes in hex
		strings.Repeat("a", 64),
		strings.Repeat("abcdefghijklmnop", 4),
		strings.Repeat("0123456789abcdef", 4),
		strings.Repeat("Tr0ub4dor&3", 8),
	} {
		if err := secretbox.CheckKey(weak); err == nil {
			t.Errorf("%q accepted (%d bits estimated)", weak, secretbox.EstimateBits(weak))
		}
	}
}
