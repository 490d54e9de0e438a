// Package secretbox encrypts secrets at rest (carrier credentials, webhook
// secrets, carrier signing secrets) with AES-256-GCM under keys derived from
// CONTRACK_SECRET_KEY. Each ciphertext is bound to its context (account and
// purpose) as additional data, so a ciphertext copied to another row does not
// decrypt.
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
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
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

// New returns a box whose current key is derived from secret; previous
// secrets (older keys, during a rotation) are used only to open.
func New(secret string, previous ...string) (*Box, error) {
	b := &Box{}
	for i, s := range append([]string{secret}, previous...) {
		if s == "" {
			if i == 0 {
				return nil, errors.New("secretbox: empty secret key")
			}
			continue
		}
		k, err := deriveKey(s)
		if err != nil {
			return nil, err
		}
		b.keys = append(b.keys, k)
	}
	return b, nil
}

func deriveKey(secret string) (key, error) {
	raw := sha256.Sum256([]byte("contrack/secretbox/v1:" + secret))
	block, err := aes.NewCipher(raw[:])
	if err != nil {
		return key{}, fmt.Errorf("secretbox: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return key{}, fmt.Errorf("secretbox: %w", err)
	}
	// The id is a hash of the derived key under another label: it tells keys
	// apart without revealing anything about them.
	idSum := sha256.Sum256(append([]byte("contrack/secretbox/key-id:"), raw[:]...))
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

// WebhookSecretContext binds an account's webhook secret.
func WebhookSecretContext(accountID string) string { return accountID + "/webhook-secret" }

// WebhookMessageContext is the context of a sealed webhook message body (a
// verification carries the webhook secret; see delivery.QueueVerification).
func WebhookMessageContext(accountID string) string { return accountID + "/webhook-message" }

// SigningSecretContext binds a carrier key's Notification-Signature secret.
func SigningSecretContext(keyID string) string { return keyID + "/signing-secret" }
