package auth_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
)

func TestCreateKeyStoresOnlyTheHash(t *testing.T) {
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	ctx := context.Background()
	key, k, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme-corp", Env: "live", DisplayName: "ACME Corp"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(key, "ct_live_") || len(key) < 40 {
		t.Fatalf("key %q", key)
	}
	if k.Name != "acme-corp-live" || k.Account.ClientSlug != "acme-corp" || k.Account.Plan != "standard" {
		t.Fatalf("key %+v", k)
	}
	// No column of any row of api_keys or accounts contains the key.
	rows, err := db.Pool.Query(ctx, `SELECT t::text FROM api_keys t UNION ALL SELECT t::text FROM accounts t`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		n++
		if strings.Contains(s, key) || strings.Contains(s, key[8:]) {
			t.Fatalf("plaintext key stored: %s", s)
		}
	}
	if n != 2 {
		t.Fatalf("rows = %d", n)
	}
}

func TestAuthenticateAndRevoke(t *testing.T) {
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	ctx := context.Background()
	key, k, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.Authenticate(ctx, key)
	if err != nil || got.ID != k.ID || got.Account.Env != "sandbox" {
		t.Fatalf("authenticate: %+v %v", got, err)
	}
	for _, bad := range []string{"", "ct_sandbox_nope", key + "x", strings.ToUpper(key)} {
		if _, err := store.Authenticate(ctx, bad); !errors.Is(err, auth.ErrUnknownKey) {
			t.Errorf("Authenticate(%q) = %v, want ErrUnknownKey", bad, err)
		}
	}
	ok, err := store.RevokeKey(ctx, key)
	if err != nil || !ok {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	if _, err := store.Authenticate(ctx, key); !errors.Is(err, auth.ErrUnknownKey) {
		t.Fatalf("revoked key authenticates: %v", err)
	}
	if ok, _ := store.RevokeKey(ctx, key); ok {
		t.Fatal("revoking twice reported a revocation")
	}
}

func TestSecondKeyJoinsTheSameAccount(t *testing.T) {
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	ctx := context.Background()
	_, k1, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox", DisplayName: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	_, k2, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	_, k3, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "live"})
	if err != nil {
		t.Fatal(err)
	}
	if k1.Account.ID != k2.Account.ID || k2.Account.DisplayName != "Acme" {
		t.Fatalf("second sandbox key made a new account or lost the display name: %+v %+v", k1.Account, k2.Account)
	}
	if k3.Account.ID == k1.Account.ID {
		t.Fatal("live and sandbox share an account")
	}
	list, err := store.List(ctx)
	if err != nil || len(list) != 3 {
		t.Fatalf("list: %d %v", len(list), err)
	}
}

func TestCreateKeyRejectsBadInput(t *testing.T) {
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	for _, p := range []auth.CreateKeyParams{
		{ClientSlug: "Acme", Env: "live"},
		{ClientSlug: "acme", Env: "prod"},
		{ClientSlug: "acme", Env: "live", Role: "admin"},
		{ClientSlug: "acme", Env: "live", Role: "carrier"},
		{ClientSlug: "acme", Env: "live", Plan: "gold"},
	} {
		if _, _, err := store.CreateKey(context.Background(), p); err == nil {
			t.Errorf("CreateKey(%+v) succeeded", p)
		}
	}
}
