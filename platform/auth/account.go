// Package auth owns accounts and their API keys: creating and revoking keys
// (for `contrack admin`), and resolving the x-api-key header of a request to
// its account. A key is random, shown once, and stored only as SHA-256.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Roles of a key.
const (
	RoleConsumer = "consumer"
	RoleCarrier  = "carrier"
)

// Account is the (client, environment) a key belongs to. Every stored row of
// every store carries its ID.
type Account struct {
	ID          string
	ClientSlug  string
	Env         string
	DisplayName string
	Plan        string // "" when the account has no usage plan
	// UsagePlan is the plan's row as the key was resolved (nil: no plan);
	// set by Authenticate only.
	UsagePlan *Plan
	// Disabled is set by the operator (`contrack admin disable-account`);
	// Active is false when the account is disabled or has no key left.
	// Set by List and SetAccountDisabled only.
	Disabled, Active bool
}

// Key is the caller of a request: a key and its account.
type Key struct {
	ID      string
	Name    string
	Role    string
	SCAC    string // the carrier a carrier-role key speaks for
	Account Account
	// SigningSecretEnc is a carrier key's DCSA signing secret, sealed
	// (secretbox context SigningSecretContext(ID)); nil when it has none.
	// It is cached with the key, so POST /events checks signatures without
	// a query; setting it notifies KeyChangedChannel like a revocation.
	SigningSecretEnc []byte
	// SigningTimestampedOnly makes POST /events require the Standard
	// Webhooks headers, refusing the body-only Notification-Signature.
	SigningTimestampedOnly bool
}

// ErrUnknownKey is returned for a missing, unknown or revoked key.
var ErrUnknownKey = errors.New("auth: unknown or revoked key")

// Store reads and writes accounts and keys in Postgres.
type Store struct{ pool *pgxpool.Pool }

// NewStore returns a Store on pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

var (
	slugRe = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)
	scacRe = regexp.MustCompile(`^[A-Z]{2,4}$`)
)

// CreateKeyParams are the arguments of CreateKey.
type CreateKeyParams struct {
	ClientSlug  string
	Env         string
	DisplayName string // defaults to the slug when the account is created
	Plan        string // "" keeps the account's plan, or DefaultPlan(env, role) for a new account
	Role        string // consumer (default) or carrier
	SCAC        string // required for carrier keys
}

// CreateKey creates the account (client, env) if needed and a new key for it.
// It returns the plaintext key, which is never stored.
func (s *Store) CreateKey(ctx context.Context, p CreateKeyParams) (plaintext string, k Key, err error) {
	if !slugRe.MatchString(p.ClientSlug) {
		return "", Key{}, fmt.Errorf("auth: client %q must be a slug: lower-case letters, digits and dashes", p.ClientSlug)
	}
	if p.Env != "live" && p.Env != "sandbox" {
		return "", Key{}, fmt.Errorf("auth: env must be live or sandbox, not %q", p.Env)
	}
	if p.Role == "" {
		p.Role = RoleConsumer
	}
	if p.Role != RoleConsumer && p.Role != RoleCarrier {
		return "", Key{}, fmt.Errorf("auth: role must be consumer or carrier, not %q", p.Role)
	}
	if p.Role == RoleCarrier && p.SCAC == "" {
		return "", Key{}, errors.New("auth: a carrier key needs the carrier's SCAC (--scac)")
	}
	// Stored as subscriptions store it: pushed events reach only trackings
	// of exactly this SCAC. Any SCAC, also one not in the carrier registry
	// (a push-only carrier).
	p.SCAC = strings.ToUpper(strings.TrimSpace(p.SCAC))
	if p.SCAC != "" && !scacRe.MatchString(p.SCAC) {
		return "", Key{}, fmt.Errorf("auth: SCAC %q must be 2 to 4 letters", p.SCAC)
	}
	if p.Plan != "" && p.Plan != PlanNone {
		if _, err := s.LookupPlan(ctx, p.Plan); err != nil {
			return "", Key{}, err
		}
	}
	plaintext, err = newKey(p.Env)
	if err != nil {
		return "", Key{}, err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		display := p.DisplayName
		if display == "" {
			display = p.ClientSlug
		}
		plan := p.Plan
		if plan == "" {
			plan = DefaultPlan(p.Env, p.Role)
		}
		if plan == PlanNone {
			plan = ""
		}
		// Create the account, or keep the existing one (updating only what was asked).
		err := tx.QueryRow(ctx, `
			INSERT INTO accounts (id, client_slug, env, display_name, plan)
			VALUES ($1, $2, $3, $4, NULLIF($5, ''))
			ON CONFLICT (client_slug, env) DO UPDATE SET
				display_name = CASE WHEN $6 THEN EXCLUDED.display_name ELSE accounts.display_name END,
				plan = CASE WHEN $7 THEN EXCLUDED.plan ELSE accounts.plan END
			RETURNING id, client_slug, env, display_name, COALESCE(plan, '')`,
			uuid.NewString(), p.ClientSlug, p.Env, display, plan, p.DisplayName != "", p.Plan != "",
		).Scan(&k.Account.ID, &k.Account.ClientSlug, &k.Account.Env, &k.Account.DisplayName, &k.Account.Plan)
		if err != nil {
			return fmt.Errorf("upsert account: %w", err)
		}
		k.ID = uuid.NewString()
		k.Name = p.ClientSlug + "-" + p.Env
		k.Role = p.Role
		k.SCAC = p.SCAC
		sum := sha256.Sum256([]byte(plaintext))
		_, err = tx.Exec(ctx, `
			INSERT INTO api_keys (id, account_id, key_hash, key_hint, name, role, carrier_scac)
			VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, ''))`,
			k.ID, k.Account.ID, sum[:], hint(plaintext), k.Name, k.Role, k.SCAC)
		if err != nil {
			return fmt.Errorf("insert key: %w", err)
		}
		// A new key makes the account active again, unless it is disabled.
		if _, err := tx.Exec(ctx, `UPDATE accounts SET active = disabled_at IS NULL WHERE id = $1`, k.Account.ID); err != nil {
			return fmt.Errorf("activate account: %w", err)
		}
		return nil
	})
	if err != nil {
		return "", Key{}, fmt.Errorf("auth: create key: %w", err)
	}
	return plaintext, k, nil
}

// newKey returns "ct_<env>_" followed by 32 random bytes in base64url.
func newKey(env string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("auth: random key: %w", err)
	}
	return "ct_" + env + "_" + base64.RawURLEncoding.EncodeToString(b), nil
}

// hint is the part of a key safe to show in listings.
func hint(key string) string {
	if len(key) < 4 {
		return "****"
	}
	return "…" + key[len(key)-4:]
}

// WellFormed reports whether plaintext has the shape newKey gives every key
// ("ct_live_" or "ct_sandbox_" and 43 base64url characters): anything else
// is unknown without asking the store.
func WellFormed(plaintext string) bool {
	rest, ok := strings.CutPrefix(plaintext, "ct_live_")
	if !ok {
		if rest, ok = strings.CutPrefix(plaintext, "ct_sandbox_"); !ok {
			return false
		}
	}
	if len(rest) != 43 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Authenticate resolves a plaintext key to its key and account. A missing,
// unknown, malformed or revoked key gives ErrUnknownKey.
func (s *Store) Authenticate(ctx context.Context, plaintext string) (Key, error) {
	if !WellFormed(plaintext) {
		return Key{}, ErrUnknownKey
	}
	sum := sha256.Sum256([]byte(plaintext))
	var (
		k     Key
		p     Plan
		pName *string
	)
	err := s.pool.QueryRow(ctx, `
		SELECT k.id, k.name, k.role, COALESCE(k.carrier_scac, ''),
		       a.id, a.client_slug, a.env, a.display_name, COALESCE(a.plan, ''),
		       p.name, COALESCE(p.id, ''), COALESCE(p.display_name, ''), COALESCE(p.rate_per_second, 0),
		       COALESCE(p.burst, 0), COALESCE(p.daily_quota, 0), COALESCE(p.long_polls, 0), COALESCE(p.open_subscriptions, 0), COALESCE(p.carrier_rate, 0),
		       k.signing_secret_enc, k.signing_timestamped_only
		FROM api_keys k JOIN accounts a ON a.id = k.account_id
		LEFT JOIN usage_plans p ON p.name = a.plan
		WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND a.disabled_at IS NULL`, sum[:]).
		Scan(&k.ID, &k.Name, &k.Role, &k.SCAC, &k.Account.ID, &k.Account.ClientSlug, &k.Account.Env, &k.Account.DisplayName, &k.Account.Plan,
			&pName, &p.ID, &p.DisplayName, &p.RatePerSecond, &p.Burst, &p.DailyQuota, &p.LongPolls, &p.OpenSubscriptions, &p.CarrierRate,
			&k.SigningSecretEnc, &k.SigningTimestampedOnly)
	if errors.Is(err, pgx.ErrNoRows) {
		return Key{}, ErrUnknownKey
	}
	if err != nil {
		return Key{}, fmt.Errorf("auth: look up key: %w", err)
	}
	if pName != nil {
		p.Name = *pName
		k.Account.UsagePlan = &p
	}
	return k, nil
}

// RevokeKey revokes the key given either as its plaintext or its id. It
// reports whether a key was revoked now. In one statement (one
// transaction) it revokes, marks the account inactive when that was its
// last key, and notifies every API process's key cache (delivered at
// commit): a revocation is never committed without its notification, nor
// notified without being committed.
func (s *Store) RevokeKey(ctx context.Context, keyOrID string) (bool, error) {
	sum := sha256.Sum256([]byte(keyOrID))
	var id any = nil
	if _, err := uuid.Parse(keyOrID); err == nil {
		id = keyOrID
	}
	var revoked int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			UPDATE api_keys SET revoked_at = now()
			WHERE revoked_at IS NULL AND (key_hash = $1 OR id = $2::uuid)
			RETURNING key_hash, account_id::text`, sum[:], id)
		if err != nil {
			return err
		}
		type key struct {
			hash    []byte
			account string
		}
		keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (key, error) {
			var k key
			return k, r.Scan(&k.hash, &k.account)
		})
		if err != nil {
			return err
		}
		for _, k := range keys {
			// Delivered at commit: never without the revocation, nor after it.
			if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, revocationChannel, hex.EncodeToString(k.hash)); err != nil {
				return fmt.Errorf("notify: %w", err)
			}
			// Its last key gone, the account stops: no polls, webhooks or feed.
			if _, err := tx.Exec(ctx, `UPDATE accounts a SET active = false WHERE a.id = $1 AND NOT EXISTS (
				SELECT 1 FROM api_keys k WHERE k.account_id = a.id AND k.revoked_at IS NULL)`, k.account); err != nil {
				return fmt.Errorf("deactivate account: %w", err)
			}
		}
		revoked = len(keys)
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("auth: revoke key: %w", err)
	}
	return revoked > 0, nil
}

// ErrNoAccount is returned for a (client, environment) without an account.
var ErrNoAccount = errors.New("auth: no such account")

// SetAccountDisabled disables (or enables again) the account (client, env).
// A disabled account's keys are refused, its trackings are not polled and
// its events reach neither webhooks nor the feed; enabling it restores
// all of it (for an account with a key that is not revoked). In one
// transaction with the notification that drops the account's keys from
// every API process's cache.
func (s *Store) SetAccountDisabled(ctx context.Context, client, env string, disabled bool) (Account, error) {
	var a Account
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `
			UPDATE accounts a SET disabled_at = CASE WHEN $3 THEN coalesce(a.disabled_at, now()) END,
				active = NOT $3 AND EXISTS (SELECT 1 FROM api_keys k WHERE k.account_id = a.id AND k.revoked_at IS NULL)
			WHERE client_slug = $1 AND env = $2
			RETURNING id, client_slug, env, display_name, COALESCE(plan, ''), disabled_at IS NOT NULL, active`, client, env, disabled).
			Scan(&a.ID, &a.ClientSlug, &a.Env, &a.DisplayName, &a.Plan, &a.Disabled, &a.Active)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: %s (%s)", ErrNoAccount, client, env)
		}
		if err != nil {
			return fmt.Errorf("auth: disable account: %w", err)
		}
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, encode(key_hash, 'hex')) FROM api_keys WHERE account_id = $2`,
			revocationChannel, a.ID); err != nil {
			return fmt.Errorf("auth: notify account change: %w", err)
		}
		return nil
	})
	if err != nil {
		return Account{}, err
	}
	return a, nil
}

// KeyListing is one row of `contrack admin list`.
type KeyListing struct {
	KeyID     string
	Hint      string
	Name      string
	Role      string
	SCAC      string
	Account   Account
	CreatedAt time.Time
	RevokedAt *time.Time
}

// List returns every key with its account, oldest first.
func (s *Store) List(ctx context.Context) ([]KeyListing, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT k.id, k.key_hint, k.name, k.role, COALESCE(k.carrier_scac, ''), k.created_at, k.revoked_at,
		       a.id, a.client_slug, a.env, a.display_name, COALESCE(a.plan, ''), a.disabled_at IS NOT NULL, a.active
		FROM api_keys k JOIN accounts a ON a.id = k.account_id
		ORDER BY k.created_at, k.id`)
	if err != nil {
		return nil, fmt.Errorf("auth: list keys: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (KeyListing, error) {
		var l KeyListing
		err := r.Scan(&l.KeyID, &l.Hint, &l.Name, &l.Role, &l.SCAC, &l.CreatedAt, &l.RevokedAt,
			&l.Account.ID, &l.Account.ClientSlug, &l.Account.Env, &l.Account.DisplayName, &l.Account.Plan, &l.Account.Disabled, &l.Account.Active)
		return l, err
	})
}

type ctxKey struct{}

// WithKey returns ctx carrying the authenticated key.
func WithKey(ctx context.Context, k Key) context.Context { return context.WithValue(ctx, ctxKey{}, k) }

// FromContext returns the authenticated key of a request. Handlers behind the
// auth middleware always have one.
func FromContext(ctx context.Context) (Key, bool) {
	k, ok := ctx.Value(ctxKey{}).(Key)
	return k, ok
}
