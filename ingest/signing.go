package ingest

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
)

// SigningSecretStore keeps carrier keys' shared secrets for DCSA
// Notification-Signature, encrypted at rest.
type SigningSecretStore struct {
	Pool *pgxpool.Pool
	Box  *secretbox.Box
}

var _ SigningSecrets = (*SigningSecretStore)(nil)

func signingContext(keyID string) string { return secretbox.SigningSecretContext(keyID) }

// KeySigningSecret opens the shared secret an authenticated key carries
// (auth.Key.SigningSecretEnc, cached with the key), "" when it has none: no
// query per request.
func (s *SigningSecretStore) KeySigningSecret(k auth.Key) (string, error) {
	if k.SigningSecretEnc == nil {
		return "", nil
	}
	plain, err := s.Box.Open(k.SigningSecretEnc, signingContext(k.ID))
	if err != nil {
		return "", fmt.Errorf("ingest: open signing secret: %w", err)
	}
	return string(plain), nil
}

// SigningSecret reads the key's shared secret from the store, "" when it has none.
func (s *SigningSecretStore) SigningSecret(ctx context.Context, keyID string) (string, error) {
	var enc []byte
	err := s.Pool.QueryRow(ctx, `SELECT signing_secret_enc FROM api_keys WHERE id = $1`, keyID).Scan(&enc)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && enc == nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("ingest: read signing secret: %w", err)
	}
	plain, err := s.Box.Open(enc, signingContext(keyID))
	if err != nil {
		return "", fmt.Errorf("ingest: open signing secret: %w", err)
	}
	return string(plain), nil
}

// SetSigningSecret sets (or, with "", clears) a carrier key's shared secret
// and, in the same statement, drops the key from every API process's key
// cache (the secret is cached with the key).
func (s *SigningSecretStore) SetSigningSecret(ctx context.Context, keyID, secret string) error {
	var enc []byte
	if secret != "" {
		var err error
		if enc, err = s.Box.Seal([]byte(secret), signingContext(keyID)); err != nil {
			return err
		}
	}
	tag, err := s.Pool.Exec(ctx, `
		WITH k AS (UPDATE api_keys SET signing_secret_enc = $2 WHERE id = $1 AND role = 'carrier' RETURNING key_hash)
		SELECT pg_notify($3, encode(key_hash, 'hex')) FROM k`, keyID, enc, auth.KeyChangedChannel)
	if err != nil {
		return fmt.Errorf("ingest: set signing secret: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return errors.New("ingest: no carrier key with that id")
	}
	return nil
}
