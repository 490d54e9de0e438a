package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/loop"
)

// revocationChannel is the NOTIFY channel RevokeKey and SetPlan signal on
// with a key's hash in hex, so every API process drops the key from its cache
// at once; UpdatePlan sends plansChanged, and any payload that is not a hash
// empties the whole cache.
const revocationChannel = "contrack_key_revoked"

// KeyChangedChannel is revocationChannel for writers outside this package
// that change what a cached Key holds (a carrier key's signing secret): a
// NOTIFY with the key's hash in hex drops it from every process's cache.
const KeyChangedChannel = revocationChannel

// CachedAuthenticator keeps resolved keys (with their account's plan) in
// memory for TTL so the hot path
// (POST /events) does not query Postgres per request. A revocation reaches
// every process within milliseconds through LISTEN/NOTIFY; while the listener
// is not connected the cache is bypassed, so a revoked key is never served
// from a stale cache for longer than that.
//
// Unknown keys are cached too (negatively, for TTL, in a bounded LRU of
// their hashes): a key that is unknown now can only become known by being
// created, and created keys are random, so repeating an unknown key costs no
// query and a flood of distinct made-up keys costs at most one each while
// memory stays bounded. Malformed keys never reach the store at all.
type CachedAuthenticator struct {
	store *Store
	pool  *pgxpool.Pool
	ttl   time.Duration
	log   *slog.Logger

	mu        sync.Mutex
	entries   map[[32]byte]cachedKey
	listening bool
	unknown   *hashLRU
	// gen counts notifications: a look-up that raced one is not cached, so
	// a row read before a revocation or plan change never outlives it.
	gen uint64

	loops *loop.Supervisor // Supervise
}

// Supervise runs the revocation listener as the loop "api-key-cache" of
// loops (the role's): a lost listener is counted, a run of them turns
// /readyz red. Call before Run.
func (c *CachedAuthenticator) Supervise(loops *loop.Supervisor) { c.loops = loops }

// MaxUnknownKeys bounds the negative cache (about 100 bytes per entry).
const MaxUnknownKeys = 100_000

type cachedKey struct {
	key     Key
	expires time.Time
}

// NewCachedAuthenticator returns a cache over store; call Run to listen
// for revocations (until then it passes every lookup to the store).
func NewCachedAuthenticator(store *Store, ttl time.Duration, log *slog.Logger) *CachedAuthenticator {
	return &CachedAuthenticator{store: store, pool: store.pool, ttl: ttl, log: log, entries: map[[32]byte]cachedKey{},
		unknown: newHashLRU(MaxUnknownKeys)}
}

// Cached answers from memory when it can (hit true): a known key, a key
// known to be unknown, or a malformed one. A miss needs Authenticate.
func (c *CachedAuthenticator) Cached(plaintext string) (Key, bool, error) {
	if !WellFormed(plaintext) {
		return Key{}, true, ErrUnknownKey
	}
	sum := sha256.Sum256([]byte(plaintext))
	return c.cached(sum, time.Now())
}

func (c *CachedAuthenticator) cached(sum [32]byte, now time.Time) (Key, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listening {
		if e, ok := c.entries[sum]; ok && now.Before(e.expires) {
			return e.key, true, nil
		}
	}
	if c.unknown.contains(sum, now) {
		return Key{}, true, ErrUnknownKey
	}
	return Key{}, false, nil
}

// Authenticate resolves a key, from the cache when possible.
func (c *CachedAuthenticator) Authenticate(ctx context.Context, plaintext string) (Key, error) {
	if !WellFormed(plaintext) {
		return Key{}, ErrUnknownKey
	}
	sum := sha256.Sum256([]byte(plaintext))
	now := time.Now()
	if k, hit, err := c.cached(sum, now); hit {
		return k, err
	}
	c.mu.Lock()
	gen := c.gen
	c.mu.Unlock()
	k, err := c.store.Authenticate(ctx, plaintext)
	if errors.Is(err, ErrUnknownKey) {
		c.mu.Lock()
		c.unknown.add(sum, now.Add(c.ttl))
		c.mu.Unlock()
	}
	if err != nil {
		return k, err
	}
	c.mu.Lock()
	if c.listening && c.gen == gen {
		if len(c.entries) > 100_000 {
			c.entries = map[[32]byte]cachedKey{}
		}
		c.entries[sum] = cachedKey{key: k, expires: now.Add(c.ttl)}
	}
	c.mu.Unlock()
	return k, nil
}

// Run listens for revocations until ctx ends, reconnecting after the
// loop's backoff; the cache is bypassed while the listener is down.
func (c *CachedAuthenticator) Run(ctx context.Context) error {
	listener := c.loops.Loop("api-key-cache", c.log)
	return listener.Run(ctx, 0, func(ctx context.Context) error {
		err := c.listen(ctx, listener)
		c.setListening(false)
		if err == nil && ctx.Err() == nil {
			err = errors.New("auth: key revocation listener stopped")
		}
		if err != nil && ctx.Err() == nil {
			err = fmt.Errorf("key revocation listener down; auth cache bypassed: %w", err)
		}
		return err
	})
}

func (c *CachedAuthenticator) setListening(on bool) {
	c.mu.Lock()
	c.listening = on
	c.gen++
	c.entries = map[[32]byte]cachedKey{}
	c.mu.Unlock()
}

func (c *CachedAuthenticator) listen(ctx context.Context, listener *loop.Loop) error {
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+revocationChannel); err != nil {
		return err
	}
	c.setListening(true)
	listener.Succeeded()
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return err
		}
		b, err := hex.DecodeString(n.Payload)
		c.mu.Lock()
		c.gen++
		if err != nil || len(b) != 32 {
			c.entries = map[[32]byte]cachedKey{}
		} else {
			delete(c.entries, [32]byte(b))
		}
		c.mu.Unlock()
	}
}

// hashLRU is a set of key hashes with expiry, bounded to max entries (the
// least recently added goes first: a look-up does not refresh an entry).
// Not safe for concurrent use (the authenticator's mutex guards it).
type hashLRU struct {
	lru *simplelru.LRU[[32]byte, time.Time] // hash → expiry
}

func newHashLRU(max int) *hashLRU {
	l, err := simplelru.NewLRU[[32]byte, time.Time](max, nil)
	if err != nil {
		panic(fmt.Sprintf("auth: negative cache of %d keys: %v", max, err)) // a constant bound
	}
	return &hashLRU{lru: l}
}

func (l *hashLRU) contains(sum [32]byte, now time.Time) bool {
	expires, ok := l.lru.Peek(sum)
	if !ok {
		return false
	}
	if !now.Before(expires) {
		l.lru.Remove(sum)
		return false
	}
	return true
}

func (l *hashLRU) add(sum [32]byte, expires time.Time) { l.lru.Add(sum, expires) }

// len is the number of hashes held.
func (l *hashLRU) len() int { return l.lru.Len() }

// UnknownCached is the number of unknown keys held in the negative cache.
func (c *CachedAuthenticator) UnknownCached() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unknown.len()
}

// Listening reports whether the revocation listener is connected, i.e.
// whether keys are being served from memory.
func (c *CachedAuthenticator) Listening() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.listening
}
