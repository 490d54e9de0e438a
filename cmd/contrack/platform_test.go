package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// apiHarness is newAPIServer over real Postgres, ClickHouse and a Kafka-protocol broker.
type apiHarness struct {
	t       *testing.T
	url     string
	db      testenv.PGDatabase
	in      *infra
	brokers []string
	kc      testenv.KafkaCluster
}

func newHarness(t *testing.T, cfg Config) *apiHarness {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Postgres, ClickHouse and Kafka")
	}
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	cl := testenv.KafkaClient(t, brokers)
	cfg.KafkaNamespace = kc.NS
	if cfg.SecretKey == "" {
		cfg.SecretKey = "platform-test-key"
	}
	box, err := secretbox.New(cfg.SecretKey, cfg.SecretKeysPrevious...)
	if err != nil {
		t.Fatal(err)
	}
	in := &infra{box: box, pg: db.Pool, ch: ch.Conn, kafka: cl, metrics: httpapi.NewRegistry("api", version)}
	cfg.CarrierURLs = map[string]string{}
	if cfg.SandboxAddr == "" {
		cfg.SandboxAddr = "127.0.0.1:1"
	}
	log := testenv.Log(t)
	srv := newAPIServer(context.Background(), cfg, log, in, auth.NewStore(db.Pool), httpapi.NewHealth(in.checks(), 0, log))
	return &apiHarness{t: t, url: httptestServer(t, srv.Handler()), db: db, in: in, brokers: brokers, kc: kc}
}

func httptestServer(t *testing.T, h http.Handler) string {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

func (h *apiHarness) key(p auth.CreateKeyParams) (string, auth.Key) {
	h.t.Helper()
	plain, k, err := auth.NewStore(h.db.Pool).CreateKey(context.Background(), p)
	if err != nil {
		h.t.Fatal(err)
	}
	return plain, k
}

// do sends a request whose path and query are given raw (already escaped).
func (h *apiHarness) do(method, rawPath string, header map[string]string, body []byte) (int, http.Header, map[string]any, []byte) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.url+"/", bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	u, err := url.Parse(h.url + rawPath)
	if err != nil {
		h.t.Fatalf("%s: %v", rawPath, err)
	}
	req.URL = u
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp.StatusCode, resp.Header, m, raw
}

// TestMetricsNeedTheOperatorToken: /metrics on the API address is refused
// without the operator token (and entirely when none is configured), served
// with it; the admin handler serves it without a token.
func TestMetricsNeedTheOperatorToken(t *testing.T) {
	h := newHarness(t, Config{OperatorToken: "op-secret-token"})
	consumer, _ := h.key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	for name, hdr := range map[string]map[string]string{
		"no token":         nil,
		"wrong token":      {"Authorization": "Bearer op-secret-tokeX"},
		"token as api key": {"x-api-key": "op-secret-token"},
		"a tenant's key":   {"x-api-key": consumer},
		"not bearer":       {"Authorization": "op-secret-token"},
	} {
		code, _, _, raw := h.do("GET", "/metrics", hdr, nil)
		if code != 403 || string(raw) != "{\"message\":\"Forbidden\"}\n" {
			t.Errorf("%s: %d %s", name, code, raw)
		}
	}
	code, _, _, raw := h.do("GET", "/metrics", map[string]string{"Authorization": "Bearer op-secret-token"}, nil)
	if code != 200 || !strings.Contains(string(raw), "# HELP") {
		t.Fatalf("with the token: %d %.200s", code, raw)
	}

	none := newHarness(t, Config{})
	code, _, _, raw = none.do("GET", "/metrics", map[string]string{"Authorization": "Bearer "}, nil)
	if code != 403 || string(raw) != "{\"message\":\"Forbidden\"}\n" {
		t.Errorf("no operator token configured: %d %s", code, raw)
	}
}

// hostile are the characters no identifier, reference or parameter may hold.
var hostile = map[string]string{
	"NUL": "\x00", "SOH": "\x01", "DEL": "\x7f", "C1": "\u0085",
	"lone 0xff": "\xff", "truncated": "\xc3", "overlong": "\xc0\xaf", "surrogate": "\xed\xa0\x80",
}

// jsonHostile renders a hostile value inside a JSON string two ways: as raw
// bytes and as a \u escape of its first byte (for the ASCII ones).
func jsonHostile(v string) []string {
	out := []string{v}
	if len(v) == 1 && v[0] < 0x80 {
		out = append(out, `\u00`+strings.ToLower(string("0123456789ABCDEF"[v[0]>>4]))+string("0123456789abcdef"[v[0]&15]))
	}
	return out
}

// TestHostileInputsGetA4xx sends NUL, other control characters and invalid
// UTF-8 in every path parameter, query parameter and stored body field of
// every endpoint: each answer is a 4xx with a message, and nothing is stored.
func TestHostileInputsGetA4xx(t *testing.T) {
	h := newHarness(t, Config{AllowPrivateWebhooks: true})
	consumer, acct := h.key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	carrierKey, _ := h.key(auth.CreateKeyParams{ClientSlug: "maersk", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "MAEU"})
	asConsumer := map[string]string{"x-api-key": consumer}
	asCarrier := map[string]string{"x-api-key": carrierKey}

	type req struct {
		method, path string
		hdr          map[string]string
		body         string
		want         string // exact message, when known
	}
	var reqs []req
	for _, v := range hostile {
		p := url.PathEscape(v)
		q := url.QueryEscape(v)
		reqs = append(reqs,
			req{"GET", "/subscription/" + p, asConsumer, "", "Invalid character in path parameter 'subscription_id'"},
			req{"DELETE", "/subscription/" + p, asConsumer, "", "Invalid character in path parameter 'subscription_id'"},
			req{"GET", "/subscription/abc" + p + "def", asConsumer, "", "Invalid character in path parameter 'subscription_id'"},
			req{"POST", "/webhook/deliveries/" + p + "/retry", asConsumer, "", "Invalid character in path parameter 'id'"},
			req{"GET", "/no-such/" + p, asConsumer, "", "Invalid character in path"},
		)
		for _, get := range []string{"/subscriptions?subscriptionStatus=", "/subscriptions?nextToken=", "/subscriptions?limit=",
			"/subscription/equipment?equipmentNumber=", "/subscription/equipment?bookingNumber=", "/subscription/equipment?billNumber=",
			"/carrier/metrics?window=", "/webhook/deliveries?subscriptionReference=", "/account?x=", "/carrier/credentials?x=", "/webhook/configure?x="} {
			name := get[strings.Index(get, "?")+1 : len(get)-1]
			reqs = append(reqs, req{"GET", get + q, asConsumer, "", "Invalid character in query parameter '" + name + "'"})
		}
		reqs = append(reqs, req{"GET", "/subscriptions?" + q + "=1", asConsumer, "", "Invalid character in a query parameter name"})
		for _, jv := range jsonHostile(v) {
			sub := func(field, value string) string {
				b := map[string]string{"scacCode": "MAEU", "subscriptionReference": "ref-1", "containerNumber": "MSKU1234565"}
				b[field] = value
				if field == "bookingNumber" || field == "billNumber" {
					delete(b, "containerNumber")
				}
				var parts []string
				for k, v := range b {
					parts = append(parts, `"`+k+`":"`+v+`"`)
				}
				return "{" + strings.Join(parts, ",") + "}"
			}
			for _, f := range []string{"scacCode", "subscriptionReference", "containerNumber", "bookingNumber", "billNumber"} {
				reqs = append(reqs, req{"POST", "/subscription/equipment", asConsumer, sub(f, "X"+jv+"1"), ""})
			}
			reqs = append(reqs,
				req{"POST", "/webhook/configure", asConsumer, `{"targetUrl":"http://127.0.0.1:9/` + jv + `"}`, ""},
				req{"POST", "/webhook/activate", asConsumer, `{"secret":"whsec_` + jv + `"}`, ""},
				req{"POST", "/carrier/credentials", asConsumer, `{"MAEU":{"apiKey":"k` + jv + `"}}`, ""},
				req{"POST", "/carrier/credentials", asConsumer, `{"HLCU":{"clientId":"a` + jv + `","clientSecret":"b"}}`, ""},
				req{"POST", "/carrier/credentials", asConsumer, `{"MAEU` + jv + `":{"apiKey":"k"}}`, ""},
				req{"DELETE", "/carrier/credentials", asConsumer, `{"carriers":["MAEU` + jv + `"]}`, ""},
				req{"POST", "/carrier/health-check", asConsumer, `{"scacCode":"MAEU` + jv + `"}`, ""},
				req{"POST", "/events", asCarrier, `{"eventID":"e` + jv + `","eventType":"EQUIPMENT","equipmentReference":"MSKU1234565"}`, ""},
			)
		}
	}
	// Tabs and line breaks pass the body check but not the stored identifiers.
	reqs = append(reqs,
		req{"POST", "/subscription/equipment", asConsumer, `{"scacCode":"MAEU","subscriptionReference":"a\tb","containerNumber":"MSKU1234565"}`, "Invalid character in 'subscriptionReference'"},
		req{"POST", "/subscription/equipment", asConsumer, `{"scacCode":"MAEU","subscriptionReference":"r","bookingNumber":"B\n1"}`, "Invalid character in 'bookingNumber'"},
		req{"POST", "/carrier/credentials", asConsumer, `{"MAEU":{"apiKey":"k\r\n"}}`, "Invalid character in 'apiKey'"},
	)

	for _, r := range reqs {
		code, _, m, raw := h.do(r.method, r.path, r.hdr, []byte(r.body))
		msg, _ := m["message"].(string)
		if code < 400 || code > 499 || msg == "" {
			t.Errorf("%s %q body %q: %d %s", r.method, r.path, r.body, code, raw)
			continue
		}
		if r.want != "" && msg != r.want {
			t.Errorf("%s %q: message %q, want %q", r.method, r.path, msg, r.want)
		}
	}
	t.Logf("%d hostile requests", len(reqs))

	// Nothing stored: no subscription, webhook or credentials for the
	// account, nothing in the outbox, no raw event in Kafka.
	ctx := context.Background()
	for _, q := range []string{
		`SELECT count(*) FROM subscriptions WHERE account_id = $1`,
		`SELECT count(*) FROM webhooks WHERE account_id = $1`,
		`SELECT count(*) FROM carrier_credentials WHERE account_id = $1`,
		`SELECT count(*) FROM trackings WHERE account_id = $1`,
	} {
		var n int
		if err := h.db.Pool.QueryRow(ctx, q, acct.Account.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d rows stored", q, n)
		}
	}
	adm := kadm.NewClient(h.in.kafka)
	ends, err := adm.ListEndOffsets(ctx, h.kc.Topic(schemas.TopicCarrierRaw))
	if err != nil {
		t.Fatal(err)
	}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset != 0 {
			t.Errorf("%s[%d] has %d records", o.Topic, o.Partition, o.Offset)
		}
	})

	// The same endpoints still work with clean input (the checks are not
	// refusing everything).
	code, _, _, raw := h.do("POST", "/subscription/equipment", asConsumer, []byte(`{"scacCode":"MAEU","subscriptionReference":"ok\u00e9","containerNumber":"MSKU1234565"}`))
	if code != 201 && code != 200 {
		t.Fatalf("clean subscription: %d %s", code, raw)
	}
}

// TestSecretKeyGeneratedOnce: without CONTRACK_SECRET_KEY a random key is
// written once (mode 0600) and read back from then on; a key file others
// can read is refused.
func TestSecretKeyGeneratedOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	c1 := Config{DataDir: dir}
	if err := c1.ensureSecretKey(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode().Perm())
	}
	if len(c1.SecretKey) < 40 {
		t.Fatalf("short key %q", c1.SecretKey)
	}
	c2 := Config{DataDir: dir}
	if err := c2.ensureSecretKey(); err != nil || c2.SecretKey != c1.SecretKey {
		t.Fatalf("second start: %v, same key %v", err, c2.SecretKey == c1.SecretKey)
	}
	other := Config{DataDir: t.TempDir()}
	if err := other.ensureSecretKey(); err != nil || other.SecretKey == c1.SecretKey {
		t.Fatalf("another data dir: %v, same key %v", err, other.SecretKey == c1.SecretKey)
	}
	set := Config{DataDir: dir, SecretKey: "from-env"}
	if err := set.ensureSecretKey(); err != nil || set.SecretKey != "from-env" {
		t.Fatalf("CONTRACK_SECRET_KEY must win: %v %q", err, set.SecretKey)
	}
	if err := os.Chmod(filepath.Join(dir, "secret.key"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := (&Config{DataDir: dir}).ensureSecretKey(); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable key file accepted: %v", err)
	}
}

// TestNoConstantSecretKey: no built-in key is left in the configuration.
func TestNoConstantSecretKey(t *testing.T) {
	t.Setenv("CONTRACK_SECRET_KEY", "")
	t.Setenv("CONTRACK_DATA_DIR", t.TempDir())
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SecretKey != "" {
		t.Fatalf("loadConfig invented a key: %q", cfg.SecretKey)
	}
}

// TestAllServesTheAdminListener: `contrack all` serves /metrics, /healthz
// and /readyz on CONTRACK_ADMIN_ADDR without a token, /readyz turning 200
// once every stage runs, while the API port refuses /metrics without the
// operator token.
func TestAllServesTheAdminListener(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	cfg := Config{
		HTTPAddr: freeAddr(t), AdminAddr: freeAddr(t), OperatorToken: "op-token",
		PGURL: db.URL, ClickHouseAddr: ch.Addr, ClickHouseDB: ch.Name,
		KafkaBrokers: brokers, KafkaNamespace: kc.NS, KafkaPartitions: 1, SecretKey: "admin-test", AllowPrivateWebhooks: true,
		SandboxAddr: freeAddr(t), SubscriptionLifetime: time.Hour, Sandbox: sandbox.Config{Accelerate: 1},
		CarrierURLs: map[string]string{}, PGMaxConns: 10, PGAPIMaxConns: 10,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runAll(ctx, cfg, testenv.Log(t)) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runAll: %v", err)
		}
	}()
	status := func(url string, hdr map[string]string) int {
		req, _ := http.NewRequest("GET", url, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	admin, api := "http://"+cfg.AdminAddr, "http://"+cfg.HTTPAddr
	testkit.Eventually(t, 60*time.Second, "admin /readyz 200", func() bool { return status(admin+"/readyz", nil) == 200 })
	for path, want := range map[string]int{admin + "/metrics": 200, admin + "/healthz": 200, api + "/readyz": 200, api + "/metrics": 403} {
		if got := status(path, nil); got != want {
			t.Errorf("GET %s: %d, want %d", path, got, want)
		}
	}
	if got := status(api+"/metrics", map[string]string{"Authorization": "Bearer op-token"}); got != 200 {
		t.Errorf("API /metrics with the operator token: %d", got)
	}
}

// TestPprofNeedsTheOperatorToken: the admin listener serves /metrics and
// the probes without a token, but Go's profiles only with the operator
// token, and not at all when none is configured.
func TestPprofNeedsTheOperatorToken(t *testing.T) {
	health := httpapi.NewHealth(nil, 0, testenv.Log(t))
	metrics := httpapi.NewRegistry("test", version)
	admin := httpapi.NewAdminHandler(health, testenv.Log(t), map[string]http.Handler{"/metrics": httpapi.MetricsHandler(metrics)})
	get := func(url string, hdr map[string]string) (int, string) {
		req, _ := http.NewRequest("GET", url, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	profiles := []string{"/debug/pprof/", "/debug/pprof/heap", "/debug/pprof/goroutine?debug=1", "/debug/pprof/profile?seconds=1", "/debug/pprof/trace?seconds=1"}

	url := httptestServer(t, adminMux(Config{OperatorToken: "op-secret-token"}, testenv.Log(t), admin))
	for _, p := range profiles {
		for name, hdr := range map[string]map[string]string{
			"no token":    nil,
			"wrong token": {"Authorization": "Bearer op-secret-tokeX"},
			"not bearer":  {"Authorization": "op-secret-token"},
		} {
			if code, body := get(url+p, hdr); code != 403 || body != "{\"message\":\"Forbidden\"}\n" {
				t.Errorf("%s %s: %d %.100s", p, name, code, body)
			}
		}
		if code, body := get(url+p, map[string]string{"Authorization": "Bearer op-secret-token"}); code != 200 {
			t.Errorf("%s with the token: %d %.100s", p, code, body)
		}
	}
	if code, body := get(url+"/metrics", nil); code != 200 || !strings.Contains(body, "# HELP") {
		t.Errorf("/metrics without a token: %d", code)
	}

	none := httptestServer(t, adminMux(Config{}, testenv.Log(t), admin))
	if code, _ := get(none+"/debug/pprof/", map[string]string{"Authorization": "Bearer "}); code != 403 {
		t.Errorf("no operator token configured: /debug/pprof/ %d", code)
	}
}

// TestSecretKeyStrength: a process refuses to start with a key that cannot
// hold 32 random bytes, or one this repository published, naming
// CONTRACK_SECRET_KEY; keys as `openssl rand` makes them are accepted, and
// a weak key written into the key file is refused too.
func TestSecretKeyStrength(t *testing.T) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ key, want string }{
		{"compose-example-key-replace-me-in-contrack-env", "CONTRACK_SECRET_KEY is a value published in contrack's repository"},
		{"replace-me", "CONTRACK_SECRET_KEY is a value published in contrack's repository"},
		{"my-own-secret-key", "CONTRACK_SECRET_KEY has about"},
		{hex.EncodeToString(b[:16]), "CONTRACK_SECRET_KEY has about 128 bits of entropy"},
		{strings.Repeat("0123456789abcdef", 4), "CONTRACK_SECRET_KEY has about"},
		{base64.StdEncoding.EncodeToString(b), ""},
		{hex.EncodeToString(b), ""},
	} {
		clearConfigEnv(t)
		t.Setenv("CONTRACK_SECRET_KEY", tc.key)
		_, err := loadConfig()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q refused: %v", tc.key, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: got %v, want an error containing %q", tc.key, err, tc.want)
		}
	}
	// The previous keys are not checked: rotating away from a weak key is
	// how an operator fixes one.
	clearConfigEnv(t)
	t.Setenv("CONTRACK_SECRET_KEY", base64.StdEncoding.EncodeToString(b))
	t.Setenv("CONTRACK_SECRET_KEYS_PREVIOUS", "replace-me")
	if _, err := loadConfig(); err != nil {
		t.Errorf("a weak previous key refused: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret.key"), []byte("short-key-in-a-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := (&Config{DataDir: dir}).ensureSecretKey(); err == nil || !strings.Contains(err.Error(), "has about") {
		t.Errorf("a weak key file accepted: %v", err)
	}
}

// secretKeyAssignment finds values given to CONTRACK_SECRET_KEY in files:
// VAR=value, VAR: value, "VAR=value" (not CONTRACK_SECRET_KEYS_PREVIOUS).
var secretKeyAssignment = regexp.MustCompile(`CONTRACK_SECRET_KEY\s*[=:]\s*["']?([^\s"'$<(+{]+)`)

// TestShippedSecretKeysAreRefused: every value the repository assigns to
// CONTRACK_SECRET_KEY anywhere (deploy files, docs, scripts) is public, so
// a process refuses it. A new example value fails this test until it is
// added to shippedSecretKeys (or is weak enough to be refused anyway).
func TestShippedSecretKeysAreRefused(t *testing.T) {
	out, err := exec.Command("git", "-C", "../..", "ls-files").Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	found := 0
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasSuffix(f, "_test.go") {
			continue // tests build their Configs directly, never from a shipped file
		}
		b, err := os.ReadFile(filepath.Join("../..", f))
		if err != nil || bytes.IndexByte(b, 0) >= 0 {
			continue
		}
		for _, m := range secretKeyAssignment.FindAllSubmatch(b, -1) {
			found++
			if checkSecretKey(string(m[1])) == nil {
				t.Errorf("%s assigns CONTRACK_SECRET_KEY %q, which a process would accept: add it to shippedSecretKeys", f, m[1])
			}
		}
	}
	for _, k := range shippedSecretKeys {
		if checkSecretKey(k) == nil {
			t.Errorf("shipped key %q accepted", k)
		}
	}
	t.Logf("%d assignments in the repository checked", found)
}
