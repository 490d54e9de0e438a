// Package secretbox encrypts secrets at rest (carrier credentials, webhook
// secrets, carrier signing secrets) with AES-256-GCM under keys derived from
// CONTRACK_SECRET_KEY. Each ciphertext is bound to its context (account and
// purpose) as additional data, so a ciphertext copied to another row does not
// decrypt.
//
// The secret key is never used as it is: every use has its own key derived
// with HKDF-SHA256 (RFC 5869; DeriveKey, with the purpose as info), so the
// box's key and, say, the page-token signing key are independent. Keys were
// once derived with one SHA-256 of a label and the secret (LegacyKey); a box
// still opens what those sealed, and Reseal (contrack admin rotate-secrets)
// moves it to the HKDF key.
//
// A Box holds one current key, which seals, and any number of previous keys,
// which only open: rotation is "set the new key, list the old one as
// previous, run `contrack admin rotate-secrets`, drop the old one". A
// ciphertext names the key that sealed it (a 4-byte id derived from the key),
// so opening picks the key at once; ciphertexts sealed before key ids existed
// (nonce || sealed) are tried against every key, and GCM's tag tells which.
package secretbox

import (
	"bytes"
	"compress/flate"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrDecrypt is returned for a ciphertext that does not open with any key of
// the box and this context (wrong key, tampered, or copied from another row).
var ErrDecrypt = errors.New("secretbox: cannot decrypt")

// magic starts every ciphertext sealed with a key id: magic, 4-byte key id,
// nonce, sealed data. A legacy ciphertext that happens to start with these
// bytes still opens: Open falls back to trying every key on the whole input.
var magic = []byte{0xC7, 'k', '1'}

const idLen = 4

type key struct {
	id   [idLen]byte
	aead cipher.AEAD
}

// Box seals with its current key and opens with any of its keys.
type Box struct {
	keys []key // keys[0] is the current key
}

// Purposes of the keys derived from the secret key: each use has its own.
const (
	// PurposeSecretbox seals secrets at rest (this package's Box).
	PurposeSecretbox = "secretbox"
	// PurposePageToken signs GET /subscriptions nextTokens and feed cursors.
	PurposePageToken = "page-token"
)

// DeriveKey is the 32-byte key for purpose derived from the secret key with
// HKDF-SHA256 (no salt: the secret key is already uniformly random, which
// CheckKey enforces for the configured one; info "contrack/<purpose>/v2").
func DeriveKey(secret, purpose string) []byte {
	k, err := hkdf.Key(sha256.New, []byte(secret), nil, "contrack/"+purpose+"/v2", 32)
	if err != nil {
		panic("secretbox: hkdf: " + err.Error()) // only for lengths beyond 255 hashes
	}
	return k
}

// LegacyKey is how keys were derived before HKDF: SHA-256 of
// "contrack/<purpose>/v1:" and the secret. Only for opening and verifying
// what was sealed or signed then (the secretbox purpose's label was
// "contrack/secretbox/v1:", the page token's "contrack/next-token/v1:").
func LegacyKey(secret, purpose string) []byte {
	sum := sha256.Sum256([]byte("contrack/" + purpose + "/v1:" + secret))
	return sum[:]
}

// New returns a box whose current key is derived from secret (DeriveKey);
// previous secrets (older keys, during a rotation) are used only to open, as
// are the legacy derivations (LegacyKey) of every secret, so ciphertexts
// from before HKDF still open until rotate-secrets re-seals them.
func New(secret string, previous ...string) (*Box, error) {
	b := &Box{}
	for i, s := range append([]string{secret}, previous...) {
		if s == "" {
			if i == 0 {
				return nil, errors.New("secretbox: empty secret key")
			}
			continue
		}
		for _, raw := range [][]byte{DeriveKey(s, PurposeSecretbox), LegacyKey(s, PurposeSecretbox)} {
			k, err := newKey(raw)
			if err != nil {
				return nil, err
			}
			b.keys = append(b.keys, k)
		}
	}
	return b, nil
}

func newKey(raw []byte) (key, error) {
	block, err := aes.NewCipher(raw)
	if err != nil {
		return key{}, fmt.Errorf("secretbox: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return key{}, fmt.Errorf("secretbox: %w", err)
	}
	// The id is a hash of the derived key under another label: it tells keys
	// apart without revealing anything about them.
	idSum := sha256.Sum256(append([]byte("contrack/secretbox/key-id:"), raw...))
	return key{id: [idLen]byte(idSum[:idLen]), aead: aead}, nil
}

// Seal encrypts plaintext for context with the current key.
func (b *Box) Seal(plaintext []byte, context string) ([]byte, error) {
	k := b.keys[0]
	n := k.aead.NonceSize()
	out := make([]byte, 0, len(magic)+idLen+n+len(plaintext)+k.aead.Overhead())
	out = append(out, magic...)
	out = append(out, k.id[:]...)
	nonce := make([]byte, n)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("secretbox: nonce: %w", err)
	}
	out = append(out, nonce...)
	return k.aead.Seal(out, nonce, plaintext, []byte(context)), nil
}

// Open decrypts a Seal output made for the same context by any key of the box.
func (b *Box) Open(ciphertext []byte, context string) ([]byte, error) {
	out, _, err := b.open(ciphertext, context)
	return out, err
}

// open returns the plaintext and whether the current key, in the current
// format, sealed it.
func (b *Box) open(ciphertext []byte, context string) ([]byte, bool, error) {
	if bytes.HasPrefix(ciphertext, magic) && len(ciphertext) >= len(magic)+idLen {
		id := [idLen]byte(ciphertext[len(magic):])
		for i, k := range b.keys {
			if k.id != id {
				continue
			}
			if out, ok := openWith(k, ciphertext[len(magic)+idLen:], context); ok {
				return out, i == 0, nil
			}
		}
	}
	// A ciphertext from before key ids: nonce || sealed, any key.
	for _, k := range b.keys {
		if out, ok := openWith(k, ciphertext, context); ok {
			return out, false, nil
		}
	}
	return nil, false, ErrDecrypt
}

func openWith(k key, data []byte, context string) ([]byte, bool) {
	n := k.aead.NonceSize()
	if len(data) < n+k.aead.Overhead() {
		return nil, false
	}
	out, err := k.aead.Open(nil, data[:n], data[n:], []byte(context))
	return out, err == nil
}

// Reseal returns ciphertext sealed again with the current key, and whether
// that changed anything: a ciphertext already sealed by the current key is
// returned as is (changed false), so rotating twice does nothing the second
// time.
func (b *Box) Reseal(ciphertext []byte, context string) ([]byte, bool, error) {
	plain, current, err := b.open(ciphertext, context)
	if err != nil {
		return nil, false, err
	}
	if current {
		return ciphertext, false, nil
	}
	out, err := b.Seal(plain, context)
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// Contexts of the secrets contrack seals, in one place so writers and
// readers in different stages (and rotate-secrets) cannot drift apart.

// CarrierCredentialsContext binds an account's credentials for one carrier.
func CarrierCredentialsContext(accountID, scac string) string {
	return accountID + "/carrier-credentials/" + scac
}

// CarrierConnectorContext binds the secret of an account's carrier
// connector (POST /carrier/connectors: its API key, client secret or password).
func CarrierConnectorContext(accountID, code string) string {
	return accountID + "/carrier-connector/" + code
}

// WebhookSecretContext binds an account's webhook secret.
func WebhookSecretContext(accountID string) string { return accountID + "/webhook-secret" }

// WebhookAuthHeadersContext binds the headers an account's webhook receiver
// authenticates with (POST /webhook/configure's authHeaders).
func WebhookAuthHeadersContext(accountID string) string { return accountID + "/webhook-auth-headers" }

// WebhookMessageContext is the context of a sealed webhook message body (a
// verification carries the webhook secret; see deliveries.QueueVerification).
func WebhookMessageContext(accountID string) string { return accountID + "/webhook-message" }

// SigningSecretContext binds a carrier key's Notification-Signature secret.
func SigningSecretContext(keyID string) string { return keyID + "/signing-secret" }

// MinKeyBits is the least estimated entropy CheckKey accepts: 32 random bytes.
const MinKeyBits = 256

// CheckKey refuses a secret key that cannot hold 32 random bytes of
// entropy: an estimate of its entropy (EstimateBits) must reach MinKeyBits.
// It catches short, repetitive and patterned keys; it cannot prove a key
// random, so generate keys with a cryptographic generator (32 bytes:
// `openssl rand -base64 32`, `openssl rand -hex 32`).
func CheckKey(secret string) error {
	if secret == "" {
		return errors.New("is empty")
	}
	if bits := EstimateBits(secret); bits < MinKeyBits {
		return fmt.Errorf("has about %d bits of entropy (%d characters), fewer than the %d of 32 random bytes; generate one with `openssl rand -base64 32`",
			bits, len(secret), MinKeyBits)
	}
	return nil
}

// EstimateBits estimates a key's entropy in bits, generously for keys in a
// standard encoding: its length times the bits per character of the
// smallest alphabet holding it (hex 4, base64 6, printable ASCII 6.6, else
// 8), but no more than 8 bits per byte of its DEFLATE compression, which
// exposes repetition ("abcd…abcd") that the alphabet does not.
func EstimateBits(secret string) int {
	hexOnly, b64, printable := true, true, true
	for i := 0; i < len(secret); i++ {
		c := secret[i]
		digit := c >= '0' && c <= '9'
		hexOnly = hexOnly && (digit || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')
		b64 = b64 && (digit || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("-_+/=", c) >= 0)
		printable = printable && c >= 0x20 && c < 0x7f
	}
	alphabet := 256.0
	switch {
	case hexOnly:
		alphabet = 16
	case b64:
		alphabet = 64
	case printable:
		alphabet = 95
	}
	bits := float64(len(secret)) * math.Log2(alphabet)
	var buf bytes.Buffer
	// Writing to a bytes.Buffer cannot fail, nor a valid level.
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	_, _ = w.Write([]byte(secret))
	_ = w.Close()
	return int(min(bits, float64(8*buf.Len())))
}
