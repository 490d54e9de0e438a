package ingest

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// SetSigningSecret sets (or, with "", clears) a carrier key's shared secret,
// accepting both signature schemes; see SetSigningPolicy.
func (s *SigningSecretStore) SetSigningSecret(ctx context.Context, keyID, secret string) error {
	return s.SetSigningPolicy(ctx, keyID, secret, false)
}

// ErrLiveKeyNeedsSecret refuses to clear a live carrier key's secret: a
// live carrier's pushes are always signed.
var ErrLiveKeyNeedsSecret = errors.New("ingest: a live carrier key must keep a signing secret (set another one instead)")

// SetSigningPolicy sets (or, with "", clears) a carrier key's shared secret
// and whether its pushes must use the timestamped Standard Webhooks
// signature (timestampedOnly: the body-only Notification-Signature is then
// refused), and in the same statement drops the key from every API
// process's key cache (both are cached with the key). A live key's secret
// cannot be cleared.
func (s *SigningSecretStore) SetSigningPolicy(ctx context.Context, keyID, secret string, timestampedOnly bool) error {
	var enc []byte
	if secret != "" {
		var err error
		if enc, err = s.Box.Seal([]byte(secret), signingContext(keyID)); err != nil {
			return err
		}
	} else if timestampedOnly {
		return errors.New("ingest: a timestamped signature needs a secret")
	}
	var env string
	err := s.Pool.QueryRow(ctx, `SELECT a.env FROM api_keys k JOIN accounts a ON a.id = k.account_id
		WHERE k.id::text = $1 AND k.role = 'carrier'`, keyID).Scan(&env)
	if errors.Is(err, pgx.ErrNoRows) {
		return errors.New("ingest: no carrier key with that id")
	}
	if err != nil {
		return fmt.Errorf("ingest: set signing secret: %w", err)
	}
	if env == "live" && enc == nil {
		return ErrLiveKeyNeedsSecret
	}
	tag, err := s.Pool.Exec(ctx, `
		WITH k AS (UPDATE api_keys SET signing_secret_enc = $2, signing_timestamped_only = $4
			WHERE id = $1 AND role = 'carrier' RETURNING key_hash)
		SELECT pg_notify($3, encode(key_hash, 'hex')) FROM k`, keyID, enc, auth.KeyChangedChannel, timestampedOnly)
	if err != nil {
		return fmt.Errorf("ingest: set signing secret: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return errors.New("ingest: no carrier key with that id")
	}
	return nil
}

// PushIDStore keeps the webhook-ids of accepted pushes for the replay
// window, in Postgres (carrier_push_ids), so every API process refuses a
// replay, whichever received the original.
type PushIDStore struct{ Pool *pgxpool.Pool }

var _ PushIDs = (*PushIDStore)(nil)

// Claim records keyID's push id, first dropping the key's ids older than
// window; fresh is false when the id was already recorded within it.
func (s *PushIDStore) Claim(ctx context.Context, keyID, id string, now time.Time, window time.Duration) (fresh bool, err error) {
	var claimed bool
	err = s.Pool.QueryRow(ctx, `
		WITH expired AS (DELETE FROM carrier_push_ids WHERE key_id = $1 AND received_at < $4 AND webhook_id <> $2),
		     claimed AS (INSERT INTO carrier_push_ids (key_id, webhook_id, received_at) VALUES ($1, $2, $3)
		                 ON CONFLICT (key_id, webhook_id) DO UPDATE SET received_at = EXCLUDED.received_at
		                 WHERE carrier_push_ids.received_at < $4
		                 RETURNING 1)
		SELECT EXISTS (SELECT 1 FROM claimed)`, keyID, id, now, now.Add(-window)).Scan(&claimed)
	if err != nil {
		return false, fmt.Errorf("ingest: record push id: %w", err)
	}
	return claimed, nil
}

// Release forgets a claimed id whose push was not stored, so the carrier's
// retry of it is processed.
func (s *PushIDStore) Release(ctx context.Context, keyID, id string) error {
	if _, err := s.Pool.Exec(ctx, `DELETE FROM carrier_push_ids WHERE key_id = $1 AND webhook_id = $2`, keyID, id); err != nil {
		return fmt.Errorf("ingest: forget push id: %w", err)
	}
	return nil
}
