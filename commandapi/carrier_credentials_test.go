package commandapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/queryapi"
)

type fakeProber struct{ got map[string]string }

func (f *fakeProber) Probe(_ context.Context, env, scac, _ string, creds map[string]string) (string, int, error) {
	f.got = creds
	if creds["apiKey"] == "bad" {
		return "UNAUTHORIZED", 401, nil
	}
	return "OK", 200, nil
}

func credsAPI(t *testing.T) (*testenv.API, testenv.PGDatabase, *fakeProber) {
	db := testenv.Postgres(t)
	box, _ := secretbox.New("test")
	prober := &fakeProber{}
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, Box: box, TokenKey: []byte("k")})
		commandapi.Register(s, commandapi.Config{}, commandapi.Deps{Pool: db.Pool, Box: box, Prober: prober})
	})
	return api, db, prober
}

func TestCredentialsSpecMessages(t *testing.T) {
	api, _, _ := credsAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "live"})
	cases := []struct {
		method, path string
		body         any
		msg          string
	}{
		{"POST", "/carrier/credentials", `[]`, "Body must be an object of per-carrier credentials"},
		{"POST", "/carrier/credentials", `"MAEU"`, "Body must be an object of per-carrier credentials"},
		{"POST", "/carrier/credentials", `{}`, "Body must be an object of per-carrier credentials"},
		{"POST", "/carrier/credentials", ``, "Body must be an object of per-carrier credentials"},
		{"POST", "/carrier/credentials", `{"MAEU":"k"}`, "Body must be an object of per-carrier credentials"},
		{"POST", "/carrier/credentials", `{"MAEU":{"apiKey":"k"}`, "Body must be an object of per-carrier credentials"},
		{"POST", "/carrier/credentials", `{"XXXX":{"apiKey":"k"}}`, "Unsupported carrier 'XXXX'"},
		{"POST", "/carrier/credentials", `{"HLCU":{"clientSecret":"s"}}`, "Incomplete credentials for HLCU. Missing 'clientId'."},
		{"POST", "/carrier/credentials", `{"HLCU":{"clientId":"i"}}`, "Incomplete credentials for HLCU. Missing 'clientSecret'."},
		{"POST", "/carrier/credentials", `{"MAEU":{"apiKey":""}}`, "Incomplete credentials for MAEU. Missing 'apiKey'."},
		{"POST", "/carrier/credentials", `{"MAEU":{"apiKey":"ok"},"CMDU":{"clientId":"x"}}`, "Incomplete credentials for CMDU. Missing 'apiKey'."},
		{"DELETE", "/carrier/credentials", `{}`, "Missing or invalid 'carriers' list"},
		{"DELETE", "/carrier/credentials", `{"carriers":"MAEU"}`, "Missing or invalid 'carriers' list"},
		{"DELETE", "/carrier/credentials", `{"carriers":[]}`, "Missing or invalid 'carriers' list"},
		{"DELETE", "/carrier/credentials", `{"carriers":[1]}`, "Missing or invalid 'carriers' list"},
		{"DELETE", "/carrier/credentials", `{"carriers":["MAEU","ABCD"]}`, "Unsupported carrier 'ABCD'"},
		{"POST", "/carrier/health-check", `{}`, "Missing or unsupported 'scacCode'"},
		{"POST", "/carrier/health-check", `{"scacCode":"NOPE"}`, "Missing or unsupported 'scacCode'"},
		{"POST", "/carrier/health-check", `{"scacCode":"MAEU"}`, "No credentials configured for MAEU. Save your credentials first."},
	}
	for _, c := range cases {
		r := api.Do(c.method, c.path, key, c.body)
		if r.Status != 400 || r.Message() != c.msg {
			t.Errorf("%s %s %s: got %d %s, want 400 %q", c.method, c.path, c.body, r.Status, r.Raw, c.msg)
		}
	}
	// The all-or-nothing rule: MAEU of the refused body was not stored.
	if got := api.Do("GET", "/carrier/credentials", key, nil); string(got.Raw) != "{\"env\":\"live\",\"carrierCredentials\":{}}\n" {
		t.Fatalf("after refusals: %s", got.Raw)
	}
}

func TestCredentialsUpsertMaskAndHealthCheck(t *testing.T) {
	api, db, prober := credsAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	other := api.Key(auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	ok := func(r testenv.Response, msg string) {
		t.Helper()
		if r.Status != 200 || r.Message() != msg {
			t.Fatalf("got %d %s, want %q", r.Status, r.Raw, msg)
		}
	}
	ok(api.Do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"maersk-api-key-1234","extra":"ignored"}}`), "Successful Configuration")
	ok(api.Do("POST", "/carrier/credentials", key, `{"HLCU":{"clientId":"hl-client","clientSecret":"hl-client-secret-wxyz"}}`), "Successful Configuration")
	got := api.Do("GET", "/carrier/credentials", key, nil)
	want := `{"carrierCredentials":{"HLCU":{"clientId":"hl-client","clientSecret":"****wxyz"},"MAEU":{"apiKey":"****1234"}},"env":"sandbox"}`
	if norm(t, got.Raw) != want {
		t.Fatalf("GET:\n got %s\nwant %s", norm(t, got.Raw), want)
	}
	// Re-posting a carrier replaces its set; other carriers untouched.
	ok(api.Do("POST", "/carrier/credentials", key, `{"HLCU":{"clientId":"new-client","clientSecret":"s3cr3t"}}`), "Successful Configuration")
	got = api.Do("GET", "/carrier/credentials", key, nil)
	want = `{"carrierCredentials":{"HLCU":{"clientId":"new-client","clientSecret":"****"},"MAEU":{"apiKey":"****1234"}},"env":"sandbox"}`
	if norm(t, got.Raw) != want {
		t.Fatalf("after re-post:\n got %s\nwant %s", norm(t, got.Raw), want)
	}
	// Secrets are not stored in plaintext.
	rows, _ := db.Pool.Query(context.Background(), `SELECT fields_enc FROM carrier_credentials`)
	for rows.Next() {
		var enc []byte
		if err := rows.Scan(&enc); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(enc, []byte("maersk-key")) || bytes.Contains(enc, []byte("new-client")) {
			t.Fatal("credentials stored in plaintext")
		}
	}
	rows.Close()
	// Health check passes the decrypted credentials to the carrier probe.
	r := api.Do("POST", "/carrier/health-check", key, `{"scacCode":"MAEU"}`)
	if r.Status != 200 || norm(t, r.Raw) != `{"httpCode":200,"scacCode":"MAEU","status":"OK"}` || prober.got["apiKey"] != "maersk-api-key-1234" {
		t.Fatalf("health-check: %d %s (prober got %v)", r.Status, r.Raw, prober.got)
	}
	// Another account sees nothing of these.
	if g := api.Do("GET", "/carrier/credentials", other, nil); norm(t, g.Raw) != `{"carrierCredentials":{},"env":"sandbox"}` {
		t.Fatalf("isolation: %s", g.Raw)
	}
	if r := api.Do("POST", "/carrier/health-check", other, `{"scacCode":"MAEU"}`); r.Message() != "No credentials configured for MAEU. Save your credentials first." {
		t.Fatalf("isolation health-check: %s", r.Raw)
	}
	ok(api.Do("DELETE", "/carrier/credentials", key, `{"carriers":["MAEU","CMDU"]}`), "Credentials cleared")
	got = api.Do("GET", "/carrier/credentials", key, nil)
	if norm(t, got.Raw) != `{"carrierCredentials":{"HLCU":{"clientId":"new-client","clientSecret":"****"}},"env":"sandbox"}` {
		t.Fatalf("after delete: %s", got.Raw)
	}
}

func TestCredentialsDriveConnectionStatus(t *testing.T) {
	api, _, _ := credsAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	api.Do("POST", "/subscription/equipment", key, sub("S1", "containerNumber", container))
	status := func() string { return api.Do("GET", "/subscription/S1", key, nil).JSON["connectionStatus"].(string) }
	if s := status(); s != "NO_CREDENTIALS" {
		t.Fatalf("before credentials: %s", s)
	}
	api.Do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"k"}}`)
	if s := status(); s != "PENDING" {
		t.Fatalf("after storing: %s", s)
	}
	api.Do("DELETE", "/carrier/credentials", key, `{"carriers":["MAEU"]}`)
	if s := status(); s != "NO_CREDENTIALS" {
		t.Fatalf("after clearing: %s", s)
	}
	// With credentials stored first, a new subscription starts PENDING.
	api.Do("POST", "/carrier/credentials", key, `{"HLCU":{"clientId":"a","clientSecret":"b"}}`)
	api.Do("POST", "/subscription/equipment", key, map[string]string{"scacCode": "HLCU", "bookingNumber": "B1", "subscriptionReference": "S2"})
	if s := api.Do("GET", "/subscription/S2", key, nil).JSON["connectionStatus"]; s != "PENDING" {
		t.Fatalf("new subscription with credentials: %v", s)
	}
}

func norm(t *testing.T, raw []byte) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("not JSON: %s", raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
