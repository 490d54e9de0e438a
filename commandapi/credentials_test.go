package commandapi_test

// Edge cases of the carrier credentials endpoints beyond
// carrier_credentials_test.go: all-or-nothing against stored data, SCAC case,
// what exactly is sealed, and connection_status transitions on trackings
// written directly with SQL.

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/go-fuego/fuego"
	"github.com/google/uuid"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/queryapi"
)

// probeCall is what recordingProber saw.
type probeCall struct {
	env, scac string
	creds     map[string]string
}

// recordingProber remembers every call and answers with the result set for
// the credentials' first value (OK/200 by default).
type recordingProber struct {
	mu      sync.Mutex
	calls   []probeCall
	answers map[string]probeAnswer
}

type probeAnswer struct {
	status string
	code   int
}

func (p *recordingProber) Probe(_ context.Context, env, scac, _ string, creds map[string]string) (string, int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, probeCall{env, scac, creds})
	for _, v := range creds {
		if a, ok := p.answers[v]; ok {
			return a.status, a.code, nil
		}
	}
	return "OK", 200, nil
}

func (p *recordingProber) last(t *testing.T) probeCall {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.calls) == 0 {
		t.Fatal("prober never called")
	}
	return p.calls[len(p.calls)-1]
}

type credsEnv struct {
	api    *testenv.API
	db     testenv.PGDatabase
	box    *secretbox.Box
	prober *recordingProber
}

func newCredsEnv(t *testing.T) credsEnv {
	t.Helper()
	db := testenv.Postgres(t)
	box, err := secretbox.New("test")
	if err != nil {
		t.Fatal(err)
	}
	prober := &recordingProber{}
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, Box: box, Log: testenv.Log(t), TokenKey: []byte("k")})
		commandapi.Register(s, commandapi.Config{}, commandapi.Deps{Pool: db.Pool, Box: box, Log: testenv.Log(t), Prober: prober})
	})
	return credsEnv{api: api, db: db, box: box, prober: prober}
}

// key creates a key and returns it with its account id.
func (e credsEnv) key(t *testing.T, slug, env string) (string, string) {
	t.Helper()
	plain, k, err := e.api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: slug, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return plain, k.Account.ID
}

// tracking inserts a tracking row and returns its id.
func (e credsEnv) tracking(t *testing.T, accountID, scac, ident, status string) string {
	t.Helper()
	id := uuid.NewString()
	if _, err := e.db.Pool.Exec(context.Background(), `
		INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
		VALUES ($1, $2, 'live', $3, 'container', $4, $5)`, id, accountID, scac, ident, status); err != nil {
		t.Fatal(err)
	}
	return id
}

func (e credsEnv) statusOf(t *testing.T, trackingID string) string {
	t.Helper()
	var s string
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT connection_status FROM trackings WHERE id = $1`, trackingID).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// stored opens the account's sealed row for scac; nil when there is none.
func (e credsEnv) stored(t *testing.T, accountID, scac string) map[string]string {
	t.Helper()
	creds, err := commandapi.LoadCredentials(context.Background(), e.db.Pool, e.box, accountID, scac)
	if err != nil {
		t.Fatal(err)
	}
	return creds
}

func expect(t *testing.T, r testenv.Response, status int, msg string) {
	t.Helper()
	if r.Status != status || r.Message() != msg {
		t.Fatalf("got %d %s, want %d %q", r.Status, r.Raw, status, msg)
	}
}

func TestCredentialsBodyShapes(t *testing.T) {
	e := newCredsEnv(t)
	key, _ := e.key(t, "acme", "live")
	const notObject = "Body must be an object of per-carrier credentials"
	cases := []struct{ body, msg string }{
		{`null`, notObject},
		{`{"MAEU":null}`, notObject},
		{`{"MAEU":[]}`, notObject},
		{`{"MAEU":{"apiKey":"k"}} {}`, notObject},
		{`{"MAEU":{"apiKey":"k"}} x`, notObject},
		{`{"MAEU":{"apiKey":"k"},}`, notObject},
		{`not json`, notObject},
		// Carriers are checked in the body's order; the first problem is reported.
		{`{"XXXX":{"apiKey":"k"},"HLCU":{}}`, "Unsupported carrier 'XXXX'"},
		{`{"HLCU":{},"XXXX":{"apiKey":"k"}}`, "Incomplete credentials for HLCU. Missing 'clientId'."},
		// A value that is not a string counts as missing.
		{`{"MAEU":{"apiKey":123}}`, "Incomplete credentials for MAEU. Missing 'apiKey'."},
		{`{"MAEU":{"apiKey":null}}`, "Incomplete credentials for MAEU. Missing 'apiKey'."},
		{`{"MAEU":{"apiKey":"   "}}`, "Incomplete credentials for MAEU. Missing 'apiKey'."},
		{`{"MAEU":{"APIKEY":"k"}}`, "Incomplete credentials for MAEU. Missing 'apiKey'."},
		{`{"HLCU":{"clientId":"i","clientSecret":{}}}`, "Incomplete credentials for HLCU. Missing 'clientSecret'."},
		// The SCAC is looked up upper-cased but echoed as given.
		{`{"xxxx":{"apiKey":"k"}}`, "Unsupported carrier 'xxxx'"},
		{`{"hlcu":{"clientId":"i"}}`, "Incomplete credentials for hlcu. Missing 'clientSecret'."},
	}
	for _, c := range cases {
		r := e.api.Do("POST", "/carrier/credentials", key, c.body)
		if r.Status != 400 || r.Message() != c.msg {
			t.Errorf("POST %s: got %d %s, want 400 %q", c.body, r.Status, r.Raw, c.msg)
		}
	}
	// JSON sent with a Content-Type is read the same as without one.
	expect(t, e.api.Do("POST", "/carrier/credentials", key, map[string]any{"MAEU": map[string]string{"apiKey": "k"}}), 200, "Successful Configuration")
	if r := e.api.Do("POST", "/carrier/credentials", "", `{"MAEU":{"apiKey":"k"}}`); r.Status != 403 || r.Message() != "Forbidden" {
		t.Fatalf("no key: %d %s", r.Status, r.Raw)
	}
}

func TestCredentialsAllOrNothing(t *testing.T) {
	e := newCredsEnv(t)
	key, acct := e.key(t, "acme", "live")
	expect(t, e.api.Do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"old-key-1111"}}`), 200, "Successful Configuration")
	tr := e.tracking(t, acct, "HLCU", "CSQU3054383", "NO_CREDENTIALS")

	// A good carrier next to a bad one: nothing is stored or changed.
	for _, body := range []string{
		`{"MAEU":{"apiKey":"new-key-2222"},"HLCU":{"clientId":"i","clientSecret":"s"},"XXXX":{"apiKey":"k"}}`,
		`{"MAEU":{"apiKey":"new-key-2222"},"HLCU":{"clientId":"i","clientSecret":"s"},"CMDU":{}}`,
		`{"MAEU":{"apiKey":"new-key-2222"},"HLCU":{"clientId":"i","clientSecret":"s"},"CMDU":"k"}`,
	} {
		if r := e.api.Do("POST", "/carrier/credentials", key, body); r.Status != 400 {
			t.Fatalf("POST %s: %d %s", body, r.Status, r.Raw)
		}
	}
	if got := e.stored(t, acct, "MAEU"); got["apiKey"] != "old-key-1111" {
		t.Fatalf("MAEU changed by a refused body: %v", got)
	}
	if got := e.stored(t, acct, "HLCU"); got != nil {
		t.Fatalf("HLCU stored from a refused body: %v", got)
	}
	if s := e.statusOf(t, tr); s != "NO_CREDENTIALS" {
		t.Fatalf("tracking changed by a refused body: %s", s)
	}

	// DELETE with one unsupported carrier deletes nothing.
	expect(t, e.api.Do("DELETE", "/carrier/credentials", key, `{"carriers":["MAEU","ABCD"]}`), 400, "Unsupported carrier 'ABCD'")
	expect(t, e.api.Do("DELETE", "/carrier/credentials", key, `{"carriers":["MAEU",""]}`), 400, "Missing or invalid 'carriers' list")
	expect(t, e.api.Do("DELETE", "/carrier/credentials", key, `{"carriers":["MAEU",null]}`), 400, "Missing or invalid 'carriers' list")
	if got := e.stored(t, acct, "MAEU"); got["apiKey"] != "old-key-1111" {
		t.Fatalf("MAEU deleted by a refused DELETE: %v", got)
	}
}

func TestCredentialsSealedFieldsAndCase(t *testing.T) {
	e := newCredsEnv(t)
	key, acct := e.key(t, "acme", "live")
	_, other := e.key(t, "globex", "live")
	// Lower-case SCAC keys are stored upper-case; only the registry's fields are kept.
	expect(t, e.api.Do("POST", "/carrier/credentials", key,
		`{"hlcu":{"clientId":"hl-client-id","clientSecret":"hl-very-secret-9876","scope":"x","apiKey":"stray"}}`), 200, "Successful Configuration")
	var scacs []string
	rows, err := e.db.Pool.Query(context.Background(), `SELECT scac FROM carrier_credentials WHERE account_id = $1`, acct)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		scacs = append(scacs, s)
	}
	rows.Close()
	if !reflect.DeepEqual(scacs, []string{"HLCU"}) {
		t.Fatalf("stored SCACs: %v", scacs)
	}
	want := map[string]string{"clientId": "hl-client-id", "clientSecret": "hl-very-secret-9876"}
	if got := e.stored(t, acct, "HLCU"); !reflect.DeepEqual(got, want) {
		t.Fatalf("sealed fields: %v, want %v", got, want)
	}

	// Nothing readable at rest, in any column, and the ciphertext opens
	// only under its own row's context.
	var all []byte
	var enc []byte
	if err := e.db.Pool.QueryRow(context.Background(),
		`SELECT convert_to(c::text, 'UTF8'), fields_enc FROM carrier_credentials c WHERE account_id = $1`, acct).Scan(&all, &enc); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hl-very-secret-9876", "very-secret", "hl-client-id", "clientSecret"} {
		if strings.Contains(string(all), secret) || strings.Contains(string(enc), secret) {
			t.Fatalf("%q readable in the stored row", secret)
		}
	}
	if _, err := e.box.Open(enc, commandapi.CredentialsContext(acct, "HLCU")); err != nil {
		t.Fatalf("open under its own context: %v", err)
	}
	if _, err := e.box.Open(enc, commandapi.CredentialsContext(other, "HLCU")); err == nil {
		t.Fatal("ciphertext opens under another account's context")
	}
	if _, err := e.box.Open(enc, commandapi.CredentialsContext(acct, "MAEU")); err == nil {
		t.Fatal("ciphertext opens under another carrier's context")
	}
	if got := commandapi.CredentialsContext(acct, "HLCU"); got != acct+"/carrier-credentials/HLCU" {
		t.Fatalf("context %q", got)
	}
}

func TestCredentialsConnectionStatusTransitions(t *testing.T) {
	e := newCredsEnv(t)
	key, acct := e.key(t, "acme", "live")
	_, other := e.key(t, "globex", "live")
	tr := map[string]string{
		"maeuNoCreds":  e.tracking(t, acct, "MAEU", "MSKU0000001", "NO_CREDENTIALS"),
		"maeuUnauth":   e.tracking(t, acct, "MAEU", "MSKU0000002", "UNAUTHORIZED"),
		"maeuOK":       e.tracking(t, acct, "MAEU", "MSKU0000003", "CONNECTED"),
		"maeuNotFound": e.tracking(t, acct, "MAEU", "MSKU0000004", "NOT_FOUND"),
		"maeuCarrErr":  e.tracking(t, acct, "MAEU", "MSKU0000005", "CARRIER_ERROR"),
		"hlcuNoCreds":  e.tracking(t, acct, "HLCU", "HLXU0000001", "NO_CREDENTIALS"),
		"otherNoCreds": e.tracking(t, other, "MAEU", "MSKU0000001", "NO_CREDENTIALS"),
		"otherOK":      e.tracking(t, other, "MAEU", "MSKU0000002", "CONNECTED"),
	}
	check := func(step string, want map[string]string) {
		t.Helper()
		for name, s := range want {
			if got := e.statusOf(t, tr[name]); got != s {
				t.Errorf("%s: tracking %s is %s, want %s", step, name, got, s)
			}
		}
	}

	expect(t, e.api.Do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"k-1234"}}`), 200, "Successful Configuration")
	check("store MAEU", map[string]string{
		"maeuNoCreds": "PENDING", "maeuUnauth": "PENDING", // may now work
		"maeuOK": "CONNECTED", "maeuNotFound": "NOT_FOUND", "maeuCarrErr": "CARRIER_ERROR", // not about credentials
		"hlcuNoCreds":  "NO_CREDENTIALS",                         // other carrier
		"otherNoCreds": "NO_CREDENTIALS", "otherOK": "CONNECTED", // other account
	})

	expect(t, e.api.Do("DELETE", "/carrier/credentials", key, `{"carriers":["maeu"]}`), 200, "Credentials cleared")
	check("delete MAEU", map[string]string{
		"maeuNoCreds": "NO_CREDENTIALS", "maeuUnauth": "NO_CREDENTIALS", "maeuOK": "NO_CREDENTIALS",
		"maeuNotFound": "NO_CREDENTIALS", "maeuCarrErr": "NO_CREDENTIALS",
		"hlcuNoCreds":  "NO_CREDENTIALS",
		"otherNoCreds": "NO_CREDENTIALS", "otherOK": "CONNECTED",
	})
	if got := e.stored(t, acct, "MAEU"); got != nil {
		t.Fatalf("MAEU still stored after DELETE: %v", got)
	}

	// Deleting carriers with nothing stored is fine; a list may repeat a carrier.
	expect(t, e.api.Do("DELETE", "/carrier/credentials", key, `{"carriers":["HLCU","CMDU","HLCU"]}`), 200, "Credentials cleared")
	// Storing several carriers at once moves each carrier's trackings.
	expect(t, e.api.Do("POST", "/carrier/credentials", key, `{"HLCU":{"clientId":"i","clientSecret":"s"},"MAEU":{"apiKey":"k2"}}`), 200, "Successful Configuration")
	check("store HLCU and MAEU", map[string]string{"hlcuNoCreds": "PENDING", "maeuOK": "PENDING", "otherNoCreds": "NO_CREDENTIALS"})
}

func TestHealthCheckUsesTheCallersCredentials(t *testing.T) {
	e := newCredsEnv(t)
	key, _ := e.key(t, "acme", "sandbox")
	otherKey, _ := e.key(t, "globex", "live")
	expect(t, e.api.Do("POST", "/carrier/credentials", key, `{"HLCU":{"clientId":"hl-id","clientSecret":"hl-secret"}}`), 200, "Successful Configuration")
	expect(t, e.api.Do("POST", "/carrier/credentials", otherKey, `{"HLCU":{"clientId":"other-id","clientSecret":"other-secret"}}`), 200, "Successful Configuration")

	for _, c := range []struct{ body, msg string }{
		{``, "Missing or unsupported 'scacCode'"},
		{`{"scacCode":""}`, "Missing or unsupported 'scacCode'"},
		{`{"scacCode":5}`, "Missing or unsupported 'scacCode'"},
		{`{"scacCode":["HLCU"]}`, "Missing or unsupported 'scacCode'"},
		{`[]`, "Missing or unsupported 'scacCode'"},
		{`{"scac":"HLCU"}`, "Missing or unsupported 'scacCode'"},
		{`{"scacCode":"cmdu"}`, "No credentials configured for cmdu. Save your credentials first."},
	} {
		r := e.api.Do("POST", "/carrier/health-check", key, c.body)
		if r.Status != 400 || r.Message() != c.msg {
			t.Errorf("health-check %s: got %d %s, want 400 %q", c.body, r.Status, r.Raw, c.msg)
		}
	}

	r := e.api.Do("POST", "/carrier/health-check", key, `{"scacCode":"hlcu"}`)
	var got map[string]any
	if err := json.Unmarshal(r.Raw, &got); err != nil || r.Status != 200 {
		t.Fatalf("health-check: %d %s", r.Status, r.Raw)
	}
	if want := map[string]any{"scacCode": "HLCU", "status": "OK", "httpCode": float64(200)}; !reflect.DeepEqual(got, want) {
		t.Fatalf("health-check body %v, want %v", got, want)
	}
	call := e.prober.last(t)
	if call.env != "sandbox" || call.scac != "HLCU" ||
		!reflect.DeepEqual(call.creds, map[string]string{"clientId": "hl-id", "clientSecret": "hl-secret"}) {
		t.Fatalf("prober got env=%s scac=%s creds=%v", call.env, call.scac, call.creds)
	}

	// The prober's verdict is passed through as is; httpCode 0 is present, not omitted.
	e.prober.mu.Lock()
	e.prober.answers = map[string]probeAnswer{"refused": {"UNAUTHORIZED", 401}, "down": {"UNREACHABLE", 0}, "broken": {"ERROR", 503}}
	e.prober.mu.Unlock()
	for _, c := range []struct{ apiKey, want string }{
		{"refused", `{"scacCode":"MAEU","status":"UNAUTHORIZED","httpCode":401}`},
		{"down", `{"scacCode":"MAEU","status":"UNREACHABLE","httpCode":0}`},
		{"broken", `{"scacCode":"MAEU","status":"ERROR","httpCode":503}`},
	} {
		expect(t, e.api.Do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"`+c.apiKey+`"}}`), 200, "Successful Configuration")
		r := e.api.Do("POST", "/carrier/health-check", key, `{"scacCode":"MAEU"}`)
		if r.Status != 200 || strings.TrimSpace(string(r.Raw)) != c.want {
			t.Errorf("health-check with %s: %d %s, want %s", c.apiKey, r.Status, r.Raw, c.want)
		}
	}
}
