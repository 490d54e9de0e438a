package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// revocationChannel is the NOTIFY channel RevokeKey signals on, so every API
// process drops the key from its cache at once.
const revocationChannel = "contrack_key_revoked"

// CachedAuthenticator keeps resolved keys in memory for TTL so the hot path
// (POST /events) does not query Postgres per request. A revocation reaches
// every process within milliseconds through LISTEN/NOTIFY; while the listener
// is not connected the cache is bypassed, so a revoked key is never served
// from a stale cache for longer than that.
type CachedAuthenticator struct {
	store *Store
	pool  *pgxpool.Pool
	ttl   time.Duration
	log   *slog.Logger

	mu        sync.Mutex
	entries   map[[32]byte]cachedKey
	listening bool
}

type cachedKey struct {
	key     Key
	expires time.Time
}

// NewCachedAuthenticator returns a cache over store; call Run to listen
// for revocations (until then it passes every lookup to the store).
func NewCachedAuthenticator(store *Store, ttl time.Duration, log *slog.Logger) *CachedAuthenticator {
	return &CachedAuthenticator{store: store, pool: store.pool, ttl: ttl, log: log, entries: map[[32]byte]cachedKey{}}
}

// Authenticate resolves a key, from the cache when possible.
func (c *CachedAuthenticator) Authenticate(ctx context.Context, plaintext string) (Key, error) {
	if plaintext == "" {
		return Key{}, ErrUnknownKey
	}
	sum := sha256.Sum256([]byte(plaintext))
	now := time.Now()
	c.mu.Lock()
	if c.listening {
		if e, ok := c.entries[sum]; ok && now.Before(e.expires) {
			c.mu.Unlock()
			return e.key, nil
		}
	}
	c.mu.Unlock()
	k, err := c.store.Authenticate(ctx, plaintext)
	if err != nil {
		return k, err
	}
	c.mu.Lock()
	if c.listening {
		if len(c.entries) > 100_000 {
			c.entries = map[[32]byte]cachedKey{}
		}
		c.entries[sum] = cachedKey{key: k, expires: now.Add(c.ttl)}
	}
	c.mu.Unlock()
	return k, nil
}

// Run listens for revocations until ctx ends, reconnecting on failure.
func (c *CachedAuthenticator) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		err := c.listen(ctx)
		c.setListening(false)
		if ctx.Err() != nil {
			break
		}
		c.log.Warn("key revocation listener down; auth cache bypassed", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
	return nil
}

func (c *CachedAuthenticator) setListening(on bool) {
	c.mu.Lock()
	c.listening = on
	c.entries = map[[32]byte]cachedKey{}
	c.mu.Unlock()
}

func (c *CachedAuthenticator) listen(ctx context.Context) error {
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+revocationChannel); err != nil {
		return err
	}
	c.setListening(true)
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return err
		}
		b, err := hex.DecodeString(n.Payload)
		c.mu.Lock()
		if err != nil || len(b) != 32 {
			c.entries = map[[32]byte]cachedKey{}
		} else {
			delete(c.entries, [32]byte(b))
		}
		c.mu.Unlock()
	}
}
