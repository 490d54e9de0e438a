package auth_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
)

// poolWithoutNotify connects to db as a role that may do everything but
// call pg_notify: a stand-in for a notification that cannot be sent.
func poolWithoutNotify(t *testing.T, db testenv.PGDatabase) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	role := fmt.Sprintf("no_notify_%d", rand.Uint32())
	for _, q := range []string{
		`CREATE ROLE ` + role + ` LOGIN`,
		`GRANT ALL ON ALL TABLES IN SCHEMA public TO ` + role,
		`GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ` + role,
		`REVOKE EXECUTE ON FUNCTION pg_notify(text, text) FROM PUBLIC`,
	} {
		if _, err := db.Pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	u, err := url.Parse(db.URL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	pool, err := pgxpool.New(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pool.Close()
		if _, err := db.Pool.Exec(context.Background(), `DROP OWNED BY `+role); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Pool.Exec(context.Background(), `DROP ROLE `+role); err != nil {
			t.Fatal(err)
		}
	})
	return pool
}

// TestRevocationAndItsNotificationAreOneTransaction: revoking a key (and
// disabling an account) commits together with the notification that drops
// the keys from every API process's cache. When the notification cannot be
// sent nothing is revoked; when it can, a listener receives it.
func TestRevocationAndItsNotificationAreOneTransaction(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	store := auth.NewStore(db.Pool)
	key, k, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	crippled := auth.NewStore(poolWithoutNotify(t, db))
	if _, err := crippled.RevokeKey(ctx, k.ID); err == nil {
		t.Fatal("revoked although the notification could not be sent")
	}
	if _, err := store.Authenticate(ctx, key); err != nil {
		t.Fatalf("the key was revoked without its notification (committed apart): %v", err)
	}
	if _, err := crippled.SetAccountDisabled(ctx, "acme", "sandbox", true); err == nil {
		t.Fatal("disabled although the notification could not be sent")
	}
	if _, err := store.Authenticate(ctx, key); err != nil {
		t.Fatalf("the account was disabled without its notification: %v", err)
	}

	// With notifications, a listener hears the revocation.
	conn, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `LISTEN `+auth.KeyChangedChannel); err != nil {
		t.Fatal(err)
	}
	if ok, err := store.RevokeKey(ctx, k.ID); err != nil || !ok {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	wctx, cancel := context.WithTimeout(ctx, testkit.Scale(10*time.Second))
	defer cancel()
	if n, err := conn.WaitForNotification(wctx); err != nil || n.Payload == "" {
		t.Fatalf("no notification of the revocation: %v", err)
	}
	if _, err := store.Authenticate(ctx, key); !errors.Is(err, auth.ErrUnknownKey) {
		t.Fatalf("revoked key authenticates: %v", err)
	}
}

// TestAccountActive: an account is active while it is not disabled and has
// a key that is not revoked. Disabling refuses its keys; enabling restores
// them; revoking its last key makes it inactive until a new key is made.
func TestAccountActive(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	store := auth.NewStore(db.Pool)
	active := func() bool {
		var a bool
		if err := db.Pool.QueryRow(ctx, `SELECT active FROM accounts WHERE client_slug = 'acme' AND env = 'sandbox'`).Scan(&a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	key1, _, _ := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	key2, _, _ := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if !active() {
		t.Fatal("a new account is inactive")
	}
	a, err := store.SetAccountDisabled(ctx, "acme", "sandbox", true)
	if err != nil || !a.Disabled || a.Active || active() {
		t.Fatalf("disable: %+v %v", a, err)
	}
	if _, err := store.Authenticate(ctx, key1); !errors.Is(err, auth.ErrUnknownKey) {
		t.Fatalf("a disabled account's key authenticates: %v", err)
	}
	// A new key does not bring a disabled account back.
	if _, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"}); err != nil || active() {
		t.Fatalf("a new key re-activated a disabled account: %v", err)
	}
	if a, err := store.SetAccountDisabled(ctx, "acme", "sandbox", false); err != nil || a.Disabled || !a.Active || !active() {
		t.Fatalf("enable: %+v %v", a, err)
	}
	if _, err := store.Authenticate(ctx, key2); err != nil {
		t.Fatalf("an enabled account's key: %v", err)
	}
	// Revoking every key makes it inactive; one left keeps it active.
	keys, _ := store.List(ctx)
	for i, l := range keys {
		if _, err := store.RevokeKey(ctx, l.KeyID); err != nil {
			t.Fatal(err)
		}
		if last := i == len(keys)-1; active() == last {
			t.Fatalf("after revoking %d of %d keys: active %v", i+1, len(keys), !last)
		}
	}
	if _, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"}); err != nil || !active() {
		t.Fatalf("a new key after every revocation: %v, active %v", err, active())
	}
	if _, err := store.SetAccountDisabled(ctx, "nobody", "sandbox", true); !errors.Is(err, auth.ErrNoAccount) {
		t.Fatalf("unknown account: %v", err)
	}
}
