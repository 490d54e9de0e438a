package main

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/ingest"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
)

// TestRotateSecrets: with the new key current and the old one previous,
// rotate-secrets re-seals every stored secret (carrier credentials, webhook
// secrets, carrier signing secrets, carrier connectors' secrets) so the new key alone opens them through
// their real readers; a second run changes nothing. It is also the
// migration from the SHA-256 key derivation to HKDF: a secret sealed under
// the old derivation of the current key is re-sealed under its HKDF key.
func TestRotateSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres")
	}
	ctx := context.Background()
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	_, consumer, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	_, carrier, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "maersk", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "MAEU"})
	if err != nil {
		t.Fatal(err)
	}
	old, _ := secretbox.New("old-key")
	acct := consumer.Account.ID
	seal := func(box *secretbox.Box, plain, context string) []byte {
		b, err := box.Seal([]byte(plain), context)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// HLCU's credentials were sealed before HKDF, under the SHA-256
	// derivation of the key still current.
	hlcuBeforeHKDF := sha256Seal(t, "new-key", `{"clientId":"id","clientSecret":"hl-secret"}`, secretbox.CarrierCredentialsContext(acct, "HLCU"))
	if _, err := db.Pool.Exec(ctx, `INSERT INTO carrier_credentials (account_id, scac, fields_enc) VALUES ($1, 'MAEU', $2), ($1, 'HLCU', $3)`,
		acct, seal(old, `{"apiKey":"maersk-key"}`, secretbox.CarrierCredentialsContext(acct, "MAEU")), hlcuBeforeHKDF); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO webhooks (account_id, target_url, secret_enc, auth_headers_enc) VALUES ($1, 'https://example.com/h', $2, $3)`,
		acct, seal(old, "whsec_abc", secretbox.WebhookSecretContext(acct)),
		seal(old, `[{"name":"X-API-Key","value":"hook-key"}]`, secretbox.WebhookAuthHeadersContext(acct))); err != nil {
		t.Fatal(err)
	}
	if err := (&ingest.SigningSecretStore{Pool: db.Pool, Box: old}).SetSigningSecret(ctx, carrier.ID, "sign-me"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO carrier_connectors (account_id, code, base_url, format, auth_scheme, auth_username, secret_enc)
		VALUES ($1, 'ACMQ', 'https://dcsa.example.com', 'dcsa-tnt-3.0', 'BASIC', 'me', $2), ($1, 'OPNQ', 'https://open.example.com', 'dcsa-tnt-3.0', 'NONE', '', NULL)`,
		acct, seal(old, "connector-pw", secretbox.CarrierConnectorContext(acct, "ACMQ"))); err != nil {
		t.Fatal(err)
	}

	rotating, _ := secretbox.New("new-key", "old-key")
	res, err := rotateSecrets(ctx, db.Pool, rotating)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resealed != 6 || res.Current != 0 {
		t.Fatalf("first run: %+v, want 6 resealed", res)
	}

	newOnly, _ := secretbox.New("new-key")
	creds, err := commandapi.LoadCredentials(ctx, db.Pool, newOnly, acct, "HLCU")
	if err != nil || creds["clientSecret"] != "hl-secret" {
		t.Fatalf("credentials with the new key alone: %v %v", creds, err)
	}
	// Re-sealed under the HKDF key of the current secret, read with
	// AES-GCM directly (key id and nonce first).
	var hlcu []byte
	if err := db.Pool.QueryRow(ctx, `SELECT fields_enc FROM carrier_credentials WHERE account_id = $1 AND scac = 'HLCU'`, acct).Scan(&hlcu); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(hlcu, hlcuBeforeHKDF) {
		t.Fatal("credentials sealed under the SHA-256 derivation were left as they were")
	}
	hkdfKey, _ := hkdf.Key(sha256.New, []byte("new-key"), nil, "contrack/secretbox/v2", 32)
	if pt := aesGCMOpen(t, hkdfKey, hlcu[7:], secretbox.CarrierCredentialsContext(acct, "HLCU")); !strings.Contains(string(pt), "hl-secret") {
		t.Fatalf("re-sealed credentials are not under the HKDF key: %q", pt)
	}
	if creds, err := commandapi.LoadCredentials(ctx, db.Pool, newOnly, acct, "MAEU"); err != nil || creds["apiKey"] != "maersk-key" {
		t.Fatalf("credentials with the new key alone: %v %v", creds, err)
	}
	var enc []byte
	if err := db.Pool.QueryRow(ctx, `SELECT secret_enc FROM webhooks WHERE account_id = $1`, acct).Scan(&enc); err != nil {
		t.Fatal(err)
	}
	if s, err := newOnly.Open(enc, secretbox.WebhookSecretContext(acct)); err != nil || string(s) != "whsec_abc" {
		t.Fatalf("webhook secret with the new key alone: %q %v", s, err)
	}
	if err := db.Pool.QueryRow(ctx, `SELECT auth_headers_enc FROM webhooks WHERE account_id = $1`, acct).Scan(&enc); err != nil {
		t.Fatal(err)
	}
	if s, err := newOnly.Open(enc, secretbox.WebhookAuthHeadersContext(acct)); err != nil || !strings.Contains(string(s), "hook-key") {
		t.Fatalf("webhook auth headers with the new key alone: %q %v", s, err)
	}
	if s, err := (&ingest.SigningSecretStore{Pool: db.Pool, Box: newOnly}).SigningSecret(ctx, carrier.ID); err != nil || s != "sign-me" {
		t.Fatalf("signing secret with the new key alone: %q %v", s, err)
	}
	if conn, ok, err := commandapi.LoadConnector(ctx, db.Pool, newOnly, acct, "ACMQ"); err != nil || !ok || conn.Secret != "connector-pw" {
		t.Fatalf("connector secret with the new key alone: %+v %v", conn, err)
	}
	// The old key alone opens nothing any more.
	if _, err := commandapi.LoadCredentials(ctx, db.Pool, old, acct, "MAEU"); err == nil {
		t.Fatal("old key still opens rotated credentials")
	}

	res, err = rotateSecrets(ctx, db.Pool, rotating)
	if err != nil || res.Resealed != 0 || res.Current != 6 {
		t.Fatalf("second run: %+v %v, want nothing resealed", res, err)
	}

	// A secret no configured key opens stops the run, naming its table.
	stranger, _ := secretbox.New("unrelated")
	if _, err := db.Pool.Exec(ctx, `UPDATE webhooks SET secret_enc = $2 WHERE account_id = $1`,
		acct, seal(stranger, "x", secretbox.WebhookSecretContext(acct))); err != nil {
		t.Fatal(err)
	}
	if _, err := rotateSecrets(ctx, db.Pool, rotating); err == nil {
		t.Fatal("an unopenable secret was skipped silently")
	}
}

// sha256Seal seals as contrack did before HKDF: AES-256-GCM under
// SHA-256("contrack/secretbox/v1:" + secret), nonce || sealed.
func sha256Seal(t *testing.T, secret, plain, context string) []byte {
	t.Helper()
	k := sha256.Sum256([]byte("contrack/secretbox/v1:" + secret))
	block, err := aes.NewCipher(k[:])
	if err != nil {
		t.Fatal(err)
	}
	aead, _ := cipher.NewGCM(block)
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	return aead.Seal(nonce, nonce, []byte(plain), []byte(context))
}

// aesGCMOpen opens nonce || sealed under key, failing the test if it does not.
func aesGCMOpen(t *testing.T, key, data []byte, context string) []byte {
	t.Helper()
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, _ := cipher.NewGCM(block)
	n := aead.NonceSize()
	out, err := aead.Open(nil, data[:n], data[n:], []byte(context))
	if err != nil {
		t.Fatalf("does not open: %v", err)
	}
	return out
}

// TestNextTokenVerifiesWithPreviousKeys: a nextToken signed before a key
// rotation still pages while the old key is listed as previous, and is
// refused once it is dropped.
func TestNextTokenVerifiesWithPreviousKeys(t *testing.T) {
	before := newHarness(t, Config{SecretKey: "old-key"})
	key, _ := before.key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	hdr := map[string]string{"x-api-key": key}
	for _, ref := range []string{"r1", "r2", "r3"} {
		if code, _, _, raw := before.do("POST", "/subscription/equipment", hdr,
			[]byte(`{"scacCode":"MAEU","subscriptionReference":"`+ref+`","containerNumber":"MSKU1234565"}`)); code >= 300 {
			t.Fatalf("subscribe: %d %s", code, raw)
		}
	}
	code, _, m, raw := before.do("GET", "/subscriptions?limit=1", hdr, nil)
	tok, _ := m["nextToken"].(string)
	if code != 200 || tok == "" {
		t.Fatalf("first page: %d %s", code, raw)
	}
	// The same database served with the new key, old one previous / dropped.
	serve := func(cfg Config) *apiHarness {
		h := *before
		cfg.CarrierURLs = map[string]string{}
		box, _ := secretbox.New(cfg.SecretKey, cfg.SecretKeysPrevious...)
		in := *before.in
		in.box = box
		log := testenv.Log(t)
		srv := newAPIServer(context.Background(), cfg, log, &in, auth.NewStore(before.db.Pool), nil)
		ts := httptestServer(t, srv.Handler())
		h.url = ts
		return &h
	}
	rotated := serve(Config{SecretKey: "new-key", SecretKeysPrevious: []string{"old-key"}})
	if code, _, _, raw := rotated.do("GET", "/subscriptions?limit=1&nextToken="+tok, hdr, nil); code != 200 {
		t.Fatalf("old token during rotation: %d %s", code, raw)
	}
	dropped := serve(Config{SecretKey: "new-key"})
	if code, _, m, raw := dropped.do("GET", "/subscriptions?limit=1&nextToken="+tok, hdr, nil); code != 400 ||
		!startsWith(m["message"], "Invalid nextToken") {
		t.Fatalf("old token after the old key is dropped: %d %s", code, raw)
	}
}

func startsWith(v any, prefix string) bool {
	s, _ := v.(string)
	return len(s) >= len(prefix) && s[:len(prefix)] == prefix
}
