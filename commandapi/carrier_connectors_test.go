package commandapi_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas/carriers"
)

// recordingFetcher answers connector fetches with one page and remembers
// what it was asked.
type recordingFetcher struct {
	mu    sync.Mutex
	conns []carriers.Connector
	qs    []carriers.ConnectorQuery
	pages []int
}

func (f *recordingFetcher) FetchConnector(_ context.Context, conn carriers.Connector, q carriers.ConnectorQuery, maxPages int) (carriers.ConnectorFetch, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.conns, f.qs, f.pages = append(f.conns, conn), append(f.qs, q), append(f.pages, maxPages)
	return carriers.ConnectorFetch{Outcome: "success", HTTPCode: 200, Requests: []string{conn.BaseURL + "/events?x=1"},
		Pages: [][]byte{[]byte(`{"events":[{"eventID":"a"},{"eventID":"b"}]}`)}, EventCount: 2, NextCursor: "c1"}, nil
}

type connectorEnv struct {
	api     *testenv.API
	db      testenv.PGDatabase
	box     *secretbox.Box
	fetcher *recordingFetcher
}

func newConnectorEnv(t *testing.T, allowPrivate bool) connectorEnv {
	t.Helper()
	db := testenv.Postgres(t)
	box, err := secretbox.New("test")
	if err != nil {
		t.Fatal(err)
	}
	f := &recordingFetcher{}
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, Box: box, Log: testenv.Log(t), TokenKey: []byte("k")})
		commandapi.Register(s, commandapi.Config{AllowPrivateWebhooks: allowPrivate},
			commandapi.Deps{Pool: db.Pool, Box: box, Log: testenv.Log(t), Connectors: f})
	})
	return connectorEnv{api: api, db: db, box: box, fetcher: f}
}

func (e connectorEnv) key(t *testing.T, slug, env string) (string, string) {
	t.Helper()
	plain, k, err := e.api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: slug, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return plain, k.Account.ID
}

func apiKeyConnector(code, baseURL, secret string) map[string]any {
	return map[string]any{"code": code, "baseUrl": baseURL, "format": "TNT_3.0.0",
		"auth": map[string]any{"scheme": "API_KEY", "headerName": "dcsa-conformance-api-key", "apiKey": secret}}
}

// A connector is stored with its secret sealed for its own row, and read
// back (register, get, list) with the secret masked.
func TestConnectorRegisteredSealedAndMasked(t *testing.T) {
	e := newConnectorEnv(t, true)
	key, acct := e.key(t, "acme", "sandbox")
	r := e.api.Do("POST", "/carrier/connectors", key, apiKeyConnector("acmq", "http://localhost:8080/conformance/sandbox/x/api/", "k-0123456789"))
	expect(t, r, 200, "Connector registered")
	conn := r.JSON["connector"].(map[string]any)
	authView := conn["auth"].(map[string]any)
	if conn["code"] != "ACMQ" || conn["baseUrl"] != "http://localhost:8080/conformance/sandbox/x/api" || conn["format"] != "TNT_3.0.0" ||
		authView["apiKey"] != "****6789" || authView["headerName"] != "dcsa-conformance-api-key" {
		t.Fatalf("view %s", r.Raw)
	}
	for _, path := range []string{"/carrier/connectors/acmq", "/carrier/connectors"} {
		r := e.api.Do("GET", path, key, nil)
		if r.Status != 200 || !strings.Contains(string(r.Raw), `"apiKey":"****6789"`) || strings.Contains(string(r.Raw), "k-0123456789") {
			t.Fatalf("GET %s: %d %s", path, r.Status, r.Raw)
		}
	}
	var enc []byte
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT secret_enc FROM carrier_connectors WHERE account_id = $1 AND code = 'ACMQ'`, acct).Scan(&enc); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(enc, []byte("k-0123456789")) {
		t.Fatal("secret stored in the clear")
	}
	if plain, err := e.box.Open(enc, secretbox.CarrierConnectorContext(acct, "ACMQ")); err != nil || string(plain) != "k-0123456789" {
		t.Fatalf("sealed secret opens to %q, %v", plain, err)
	}
	if _, err := e.box.Open(enc, secretbox.CarrierConnectorContext(acct, "OTHER")); err == nil {
		t.Fatal("secret opens in another row")
	}
	got, ok, err := commandapi.LoadConnector(context.Background(), e.db.Pool, e.box, acct, "ACMQ")
	if err != nil || !ok || got.Secret != "k-0123456789" || got.Auth.Scheme != carriers.AuthAPIKey || got.Format != carriers.FormatTNT3 {
		t.Fatalf("loaded %+v %v %v", got, ok, err)
	}
	expect(t, e.api.Do("POST", "/carrier/connectors", key, apiKeyConnector("ACMQ", "https://dcsa.example.com", "k2")), 400,
		"Connector 'ACMQ' already exists: change it with PATCH /carrier/connectors/ACMQ")
}

// Every problem of a body is named in one 400, never a secret; the URLs
// follow the webhook-target rules.
func TestConnectorValidation(t *testing.T) {
	e := newConnectorEnv(t, false)
	key, _ := e.key(t, "acme", "live")
	cases := []struct {
		body map[string]any
		msg  string
	}{
		{map[string]any{}, "Invalid connector: 'code' is required; 'auth' is required: its scheme is NONE, API_KEY, OAUTH2_CLIENT_CREDENTIALS or BASIC; 'baseUrl' is required; 'format' must be TNT_2.2.0 or TNT_3.0.0"},
		{map[string]any{"code": "ACME1", "baseUrl": "https://x.example.com", "format": "TNT_3.0.0", "auth": map[string]any{"scheme": "NONE"}},
			"Invalid connector: 'code' must be 2 to 4 letters, as a SCAC is"},
		{map[string]any{"code": "MAEU", "baseUrl": "https://x.example.com", "format": "TNT_3.0.0", "auth": map[string]any{"scheme": "NONE"}},
			"Invalid connector: 'code' MAEU is a supported carrier's SCAC: store its credentials (POST /carrier/credentials) instead, or choose another code"},
		{map[string]any{"code": "AB", "baseUrl": "http://dcsa.example.com", "format": "tnt_2.2", "auth": map[string]any{"scheme": "basic", "username": "u:x"}},
			"Invalid connector: Invalid 'baseUrl': live accounts must use https; 'auth.password' is required for BASIC; 'auth.username' must not contain ':'"},
		{map[string]any{"code": "AB", "baseUrl": "https://127.0.0.1:9/api", "format": "TNT_3.0.0", "auth": map[string]any{"scheme": "OAUTH2_CLIENT_CREDENTIALS", "clientSecret": "s3cr3t-value", "tokenUrl": "https://10.0.0.1/token"}},
			"Invalid connector: Invalid 'baseUrl': " + privateHint + "; 'auth.clientId' is required for OAUTH2_CLIENT_CREDENTIALS; Invalid 'auth.tokenUrl': " + privateHint},
		{map[string]any{"code": "AB", "baseUrl": "https://dcsa.example.com", "format": "TNT_2.2.0", "eventTypes": []string{"IOT"}, "auth": map[string]any{"scheme": "API_KEY", "headerName": "Host", "apiKey": "s3cr3t-value"}},
			"Invalid connector: 'eventTypes' has \"IOT\": use EQUIPMENT, TRANSPORT, SHIPMENT; 'auth.headerName' Host is a header contrack sets itself"},
		{map[string]any{"code": "AB", "baseUrl": "https://dcsa.example.com", "format": "TNT_3.0.0", "auth": map[string]any{"scheme": "DIGEST"}},
			"Invalid connector: 'auth.scheme' must be NONE, API_KEY, OAUTH2_CLIENT_CREDENTIALS or BASIC"},
	}
	for _, c := range cases {
		r := e.api.Do("POST", "/carrier/connectors", key, c.body)
		expect(t, r, 400, c.msg)
		if strings.Contains(string(r.Raw), "s3cr3t-value") {
			t.Fatalf("a secret in %s", r.Raw)
		}
	}
	var n int
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM carrier_connectors`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d connectors stored, %v", n, err)
	}
}

// One account's connector is invisible and unusable to another: reads,
// changes, fetches and subscriptions of its code answer as if it did not
// exist. Its own account subscribes to it (PENDING: its credentials are
// its own), and deleting it leaves the subscription unpolled.
func TestConnectorAccountIsolation(t *testing.T) {
	e := newConnectorEnv(t, true)
	keyA, _ := e.key(t, "acme", "sandbox")
	keyB, _ := e.key(t, "bravo", "sandbox")
	expect(t, e.api.Do("POST", "/carrier/connectors", keyA, apiKeyConnector("ACMQ", "http://127.0.0.1:9/api", "k-0123456789")), 200, "Connector registered")
	for _, c := range []struct{ method, path string }{
		{"GET", "/carrier/connectors/ACMQ"}, {"PATCH", "/carrier/connectors/ACMQ"}, {"DELETE", "/carrier/connectors/ACMQ"},
		{"POST", "/carrier/connectors/ACMQ/fetch"},
	} {
		expect(t, e.api.Do(c.method, c.path, keyB, map[string]any{"baseUrl": "http://127.0.0.1:10/api"}), 404, "Connector not found")
	}
	if r := e.api.Do("GET", "/carrier/connectors", keyB, nil); r.Status != 200 || string(bytes.TrimSpace(r.Raw)) != `{"connectors":[]}` {
		t.Fatalf("B lists %d %s", r.Status, r.Raw)
	}
	sub := map[string]any{"scacCode": "acmq", "bookingNumber": "ABC709951", "subscriptionReference": "PO-1"}
	expect(t, e.api.Do("POST", "/subscription/equipment", keyB, sub), 400, "Unsupported carrier 'acmq'")
	expect(t, e.api.Do("POST", "/subscription/equipment", keyA, sub), 200, "Successfully Subscribed")
	r := e.api.Do("GET", "/subscription/PO-1", keyA, nil)
	if r.JSON["scacCode"] != "ACMQ" || r.JSON["connectionStatus"] != "PENDING" {
		t.Fatalf("subscription %s", r.Raw)
	}
	bulk := e.api.Do("POST", "/subscriptions/equipment", keyB, []map[string]any{sub})
	if !strings.Contains(string(bulk.Raw), `"status":"INVALID"`) {
		t.Fatalf("B's bulk %s", bulk.Raw)
	}
	bulkA := e.api.Do("POST", "/subscriptions/equipment", keyA, []map[string]any{{"scacCode": "ACMQ", "billNumber": "HHL71800000", "subscriptionReference": "PO-3"}})
	if !strings.Contains(string(bulkA.Raw), `"status":"CREATED"`) {
		t.Fatalf("A's bulk %s", bulkA.Raw)
	}
	if r := e.api.Do("GET", "/subscription/PO-3", keyA, nil); r.JSON["connectionStatus"] != "PENDING" {
		t.Fatalf("bulk subscription %s", r.Raw)
	}
	expect(t, e.api.Do("DELETE", "/carrier/connectors/acmq", keyA, nil), 200, "Connector deleted")
	if r := e.api.Do("GET", "/subscription/PO-1", keyA, nil); r.JSON["connectionStatus"] != "NO_CREDENTIALS" {
		t.Fatalf("after delete %s", r.Raw)
	}
	expect(t, e.api.Do("POST", "/subscription/equipment", keyA,
		map[string]any{"scacCode": "ACMQ", "bookingNumber": "B2", "subscriptionReference": "PO-2"}), 400, "Unsupported carrier 'ACMQ'")
	expect(t, e.api.Do("POST", "/carrier/connectors", keyA, apiKeyConnector("ACMQ", "http://127.0.0.1:9/api", "k-0123456789")), 200, "Connector registered")
	if r := e.api.Do("GET", "/subscription/PO-1", keyA, nil); r.JSON["connectionStatus"] != "PENDING" {
		t.Fatalf("registered again %s", r.Raw)
	}
}

// PATCH replaces the fields given; an auth without its secret keeps the
// stored one, unless the base URL moves to another host.
func TestConnectorPatchKeepsTheSecretOnItsHost(t *testing.T) {
	e := newConnectorEnv(t, true)
	key, acct := e.key(t, "acme", "sandbox")
	expect(t, e.api.Do("POST", "/carrier/connectors", key, apiKeyConnector("ACMQ", "http://127.0.0.1:9/api", "k-0123456789")), 200, "Connector registered")
	r := e.api.Do("PATCH", "/carrier/connectors/ACMQ", key, map[string]any{"baseUrl": "http://127.0.0.1:9/v3",
		"auth": map[string]any{"scheme": "API_KEY", "headerName": "X-Api-Key"}, "eventTypes": []string{"transport", "EQUIPMENT"}})
	expect(t, r, 200, "Connector updated")
	got, _, _ := commandapi.LoadConnector(context.Background(), e.db.Pool, e.box, acct, "ACMQ")
	if got.Secret != "k-0123456789" || got.Auth.HeaderName != "X-Api-Key" || got.BaseURL != "http://127.0.0.1:9/v3" ||
		strings.Join(got.EventTypes, ",") != "EQUIPMENT,TRANSPORT" {
		t.Fatalf("patched %+v", got)
	}
	expect(t, e.api.Do("PATCH", "/carrier/connectors/ACMQ", key, map[string]any{"baseUrl": "http://127.0.0.2:9/v3"}), 400,
		"Invalid connector: the base or token URL moves to another host, and the stored secret is not sent there: send auth again with its secret")
	expect(t, e.api.Do("PATCH", "/carrier/connectors/ACMQ", key, map[string]any{"baseUrl": "http://127.0.0.2:9/v3",
		"auth": map[string]any{"scheme": "BASIC", "username": "me", "password": "pw-98765"}}), 200, "Connector updated")
	got, _, _ = commandapi.LoadConnector(context.Background(), e.db.Pool, e.box, acct, "ACMQ")
	if got.Secret != "pw-98765" || got.Auth.Scheme != carriers.AuthBasic || got.Auth.HeaderName != "" {
		t.Fatalf("patched %+v", got)
	}
	if r := e.api.Do("GET", "/carrier/connectors/ACMQ", key, nil); !strings.Contains(string(r.Raw), `"password":"****8765"`) {
		t.Fatalf("masked %s", r.Raw)
	}
}

// A fetch sends the connector (its secret opened) and exactly the filters
// given: event types upper-cased in their order, date-times as spelled,
// one page unless asked; it answers the events and the next cursor. A
// health check of the code asks for a container without events, for the
// account's own connector only.
func TestConnectorFetchSendsTheFiltersGiven(t *testing.T) {
	e := newConnectorEnv(t, true)
	key, _ := e.key(t, "acme", "sandbox")
	expect(t, e.api.Do("POST", "/carrier/connectors", key, apiKeyConnector("ACMQ", "http://127.0.0.1:9/api", "k-0123456789")), 200, "Connector registered")
	r := e.api.Do("POST", "/carrier/connectors/acmq/fetch", key, map[string]any{"carrierBookingReference": "ABC709951",
		"eventTypes": []string{"equipment", "IOT", "REEFER", "IOT"}, "eventUpdatedDateTimeMin": "2025-01-23T01:23:45Z", "limit": 5})
	if r.Status != 200 || r.JSON["outcome"] != "success" || r.JSON["eventCount"] != float64(2) || r.JSON["nextCursor"] != "c1" ||
		len(r.JSON["events"].([]any)) != 2 || r.JSON["code"] != "ACMQ" {
		t.Fatalf("fetch %d %s", r.Status, r.Raw)
	}
	f := e.fetcher
	q := f.qs[0]
	if f.conns[0].Secret != "k-0123456789" || f.pages[0] != 1 || q.CarrierBookingReference != "ABC709951" ||
		strings.Join(q.EventTypes, ",") != "EQUIPMENT,IOT,REEFER" || q.UpdatedMin != "2025-01-23T01:23:45Z" || q.UpdatedMax != "" || q.Limit != 5 || q.Cursor != "" {
		t.Fatalf("asked %+v of %+v, %d pages", q, f.conns[0], f.pages[0])
	}
	r = e.api.Do("POST", "/carrier/health-check", key, map[string]any{"scacCode": "acmq"})
	if r.Status != 200 || r.JSON["status"] != "OK" || r.JSON["scacCode"] != "ACMQ" || r.JSON["httpCode"] != float64(200) {
		t.Fatalf("health check %d %s", r.Status, r.Raw)
	}
	if q := f.qs[1]; q.EquipmentReference != "NOFU0000001" || q.Limit != 1 || f.pages[1] != 1 {
		t.Fatalf("health check asked %+v", q)
	}
	other, _ := e.key(t, "bravo", "sandbox")
	expect(t, e.api.Do("POST", "/carrier/health-check", other, map[string]any{"scacCode": "ACMQ"}), 400, "Missing or unsupported 'scacCode'")
	f.qs = f.qs[:1]
	expect(t, e.api.Do("POST", "/carrier/connectors/ACMQ/fetch", key, map[string]any{"eventUpdatedDateTimeMax": "yesterday", "maxPages": 21, "eventTypes": []string{"VESSEL"}}), 400,
		"Invalid fetch: 'eventUpdatedDateTimeMax' must be an RFC 3339 date-time (2025-01-23T01:23:45Z); 'eventTypes' has \"VESSEL\": use EQUIPMENT, TRANSPORT, SHIPMENT, IOT, REEFER; 'maxPages' must be 1 to 20")
	if len(f.qs) != 1 {
		t.Fatal("an invalid fetch was sent")
	}
}

// privateHint is the refusal of an internal address, with how to allow one.
const privateHint = "loopback, private and link-local addresses are not allowed (for a local receiver in development, the operator sets CONTRACK_ALLOW_PRIVATE_WEBHOOKS=true)"
