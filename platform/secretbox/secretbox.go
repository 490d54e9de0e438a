// Package secretbox encrypts secrets at rest (carrier credentials, webhook
// secrets) with AES-256-GCM under a key derived from CONTRACK_SECRET_KEY.
// Each ciphertext is bound to its context (account and purpose) as
// additional data, so a ciphertext copied to another row does not decrypt.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

// ErrDecrypt is returned for a ciphertext that does not open with this key
// and context (wrong key, tampered, or copied from another row).
var ErrDecrypt = errors.New("secretbox: cannot decrypt")

// Box seals and opens secrets.
type Box struct{ aead cipher.AEAD }

// New derives the AES-256 key as SHA-256 of secret.
func New(secret string) (*Box, error) {
	if secret == "" {
		return nil, errors.New("secretbox: empty secret key")
	}
	key := sha256.Sum256([]byte("contrack/secretbox/v1:" + secret))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plaintext for context; the nonce is prepended.
func (b *Box) Seal(plaintext []byte, context string) ([]byte, error) {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("secretbox: nonce: %w", err)
	}
	return b.aead.Seal(nonce, nonce, plaintext, []byte(context)), nil
}

// Open decrypts a Seal output made for the same context.
func (b *Box) Open(ciphertext []byte, context string) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(ciphertext) < n+b.aead.Overhead() {
		return nil, ErrDecrypt
	}
	out, err := b.aead.Open(nil, ciphertext[:n], ciphertext[n:], []byte(context))
	if err != nil {
		return nil, ErrDecrypt
	}
	return out, nil
}

// Contexts of the secrets contrack seals, in one place so writers and
// readers in different stages cannot drift apart.

// CarrierCredentialsContext binds an account's credentials for one carrier.
func CarrierCredentialsContext(accountID, scac string) string {
	return accountID + "/carrier-credentials/" + scac
}

// WebhookSecretContext binds an account's webhook secret.
func WebhookSecretContext(accountID string) string { return accountID + "/webhook-secret" }
