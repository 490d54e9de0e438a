package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
)

func TestCachedAuthenticatorDropsRevokedKeys(t *testing.T) {
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	cache := auth.NewCachedAuthenticator(store, time.Hour, testenv.Log(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go cache.Run(ctx)
	key, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "live"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // listener up
	for range 3 {
		if _, err := cache.Authenticate(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	// Revoked by another process (here: the store directly, as `contrack admin revoke-key` does).
	if ok, err := auth.NewStore(db.Pool).RevokeKey(ctx, key); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		_, err := cache.Authenticate(ctx, key)
		if errors.Is(err, auth.ErrUnknownKey) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("revoked key still served from the cache after 2 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := cache.Authenticate(ctx, "ct_live_nope"); !errors.Is(err, auth.ErrUnknownKey) {
		t.Fatalf("unknown key: %v", err)
	}
}
