package auth_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
)

func TestCachedAuthenticatorDropsRevokedKeys(t *testing.T) {
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	cache := auth.NewCachedAuthenticator(store, time.Hour, testenv.Log(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	testenv.RunStage(t, "api-key-cache", cache.Run)
	key, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "live"})
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "the key cache listening for revocations", cache.Listening)
	for range 3 {
		if _, err := cache.Authenticate(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	// Revoked by another process (here: the store directly, as `contrack admin revoke-key` does).
	if ok, err := auth.NewStore(db.Pool).RevokeKey(ctx, key); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	testkit.Eventually(t, 10*time.Second, "the revoked key refused, not served from the cache", func() bool {
		_, err := cache.Authenticate(ctx, key)
		return errors.Is(err, auth.ErrUnknownKey)
	})
	if _, err := cache.Authenticate(ctx, "ct_live_nope"); !errors.Is(err, auth.ErrUnknownKey) {
		t.Fatalf("unknown key: %v", err)
	}
}

// TestUnknownKeysAreNegativelyCached: an unknown key costs one store query;
// asked again it is answered from memory (proved by closing the pool: a
// query would now fail with another error), and malformed keys never reach
// the store.
func TestUnknownKeysAreNegativelyCached(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	cache := auth.NewCachedAuthenticator(auth.NewStore(pool), time.Hour, testenv.Log(t))
	unknown := "ct_live_" + strings.Repeat("A", 43)
	if !auth.WellFormed(unknown) {
		t.Fatal("test key is not well formed")
	}
	if _, hit, _ := cache.Cached(unknown); hit {
		t.Fatal("cache hit before any look-up")
	}
	if _, err := cache.Authenticate(ctx, unknown); !errors.Is(err, auth.ErrUnknownKey) {
		t.Fatalf("first look-up: %v", err)
	}
	if n := cache.UnknownCached(); n != 1 {
		t.Fatalf("negative cache holds %d", n)
	}
	pool.Close()
	if _, err := cache.Authenticate(ctx, unknown); !errors.Is(err, auth.ErrUnknownKey) {
		t.Fatalf("repeat look-up reached the store: %v", err)
	}
	if _, hit, err := cache.Cached(unknown); !hit || !errors.Is(err, auth.ErrUnknownKey) {
		t.Fatalf("Cached: hit=%v err=%v", hit, err)
	}
	for _, bad := range []string{"", "x", "ct_live_short", "ct_prod_" + strings.Repeat("A", 43), "ct_live_" + strings.Repeat("A", 42) + "!"} {
		if _, hit, err := cache.Cached(bad); !hit || !errors.Is(err, auth.ErrUnknownKey) {
			t.Errorf("malformed %q: hit=%v err=%v", bad, hit, err)
		}
		if _, err := cache.Authenticate(ctx, bad); !errors.Is(err, auth.ErrUnknownKey) {
			t.Errorf("malformed %q reached the store: %v", bad, err)
		}
	}
}
