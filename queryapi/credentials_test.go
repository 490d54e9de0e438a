package queryapi_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/queryapi"
)

// TestGetCredentials reads rows sealed the way migration 0004 documents
// (context '<account_id>/carrier-credentials/<scac>'), independently of the
// command side.
func TestGetCredentials(t *testing.T) {
	db := testenv.Postgres(t)
	box, err := secretbox.New("test")
	if err != nil {
		t.Fatal(err)
	}
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, Box: box, Log: testenv.Log(t), TokenKey: []byte("k")})
	})
	newKey := func(slug, env string) (string, string) {
		plain, k, err := api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: slug, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		return plain, k.Account.ID
	}
	seal := func(accountID, scac string, fields map[string]string) {
		t.Helper()
		plain, _ := json.Marshal(fields)
		enc, err := box.Seal(plain, accountID+"/carrier-credentials/"+scac)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Pool.Exec(context.Background(),
			`INSERT INTO carrier_credentials (account_id, scac, fields_enc) VALUES ($1, $2, $3)`, accountID, scac, enc); err != nil {
			t.Fatal(err)
		}
	}
	acme, acmeID := newKey("acme", "live")
	globex, globexID := newKey("globex", "sandbox")
	empty, _ := newKey("initech", "sandbox")

	// Nothing stored: carrierCredentials is {}, never null.
	if r := api.Do("GET", "/carrier/credentials", empty, nil); r.Status != 200 || string(r.Raw) != "{\"env\":\"sandbox\",\"carrierCredentials\":{}}\n" {
		t.Fatalf("empty account: %d %q", r.Status, r.Raw)
	}

	seal(acmeID, "MAEU", map[string]string{"apiKey": "maersk-api-key-abcd"})
	seal(acmeID, "HLCU", map[string]string{"clientId": "hl-client-id", "clientSecret": "hl-client-secret-wxyz"})
	seal(acmeID, "CMDU", map[string]string{"apiKey": "abc"})
	seal(globexID, "MAEU", map[string]string{"apiKey": "globex-api-key-9999"})

	cases := []struct{ key, want string }{
		{acme, `{"env":"live","carrierCredentials":{"CMDU":{"apiKey":"****"},"HLCU":{"clientId":"hl-client-id","clientSecret":"****wxyz"},"MAEU":{"apiKey":"****abcd"}}}`},
		{globex, `{"env":"sandbox","carrierCredentials":{"MAEU":{"apiKey":"****9999"}}}`},
		{empty, `{"env":"sandbox","carrierCredentials":{}}`},
	}
	for _, c := range cases {
		r := api.Do("GET", "/carrier/credentials", c.key, nil)
		if r.Status != 200 || canonical(t, r.Raw) != canonical(t, []byte(c.want)) {
			t.Errorf("GET /carrier/credentials\n got %d %s\nwant %s", r.Status, r.Raw, c.want)
		}
	}
	if r := api.Do("GET", "/carrier/credentials", "", nil); r.Status != 403 || r.Message() != "Forbidden" {
		t.Fatalf("no key: %d %s", r.Status, r.Raw)
	}
}

// canonical re-encodes JSON with sorted keys.
func canonical(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("not JSON: %s", raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
