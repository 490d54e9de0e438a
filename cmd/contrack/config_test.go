package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite README.md's configuration table from envVars")

// clearConfigEnv unsets every variable of the table for the test.
func clearConfigEnv(t *testing.T) {
	t.Helper()
	for _, e := range envVars {
		t.Setenv(e.Name, "") // restores the old value after the test
		if err := os.Unsetenv(e.Name); err != nil {
			t.Fatal(err)
		}
	}
}

// leafFields lists the dotted paths of every settable leaf field of Config,
// descending into the nested config structs.
func leafFields(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		path := prefix + f.Name
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[time.Time]() {
			out = append(out, leafFields(f.Type, path+".")...)
			continue
		}
		out = append(out, path)
	}
	return out
}

// TestConfigTableCoversEveryField: every field of Config and of every
// stage's config is set by exactly one variable of the table or listed as
// derived with its source; every row names a real field, once, documented.
func TestConfigTableCoversEveryField(t *testing.T) {
	byField := map[string]string{}
	names := map[string]bool{}
	for _, e := range envVars {
		if names[e.Name] {
			t.Errorf("%s: two rows", e.Name)
		}
		names[e.Name] = true
		if prev, ok := byField[e.Field]; ok {
			t.Errorf("%s and %s both set %s", prev, e.Name, e.Field)
		}
		byField[e.Field] = e.Name
		if strings.TrimSpace(e.Doc) == "" {
			t.Errorf("%s: no documentation", e.Name)
		}
		if !regexp.MustCompile(`^[A-Z][A-Z0-9_]+$`).MatchString(e.Name) {
			t.Errorf("%q is not an environment variable name", e.Name)
		}
	}
	leaves := leafFields(reflect.TypeFor[Config](), "")
	known := map[string]bool{}
	for _, path := range leaves {
		known[path] = true
		_, fromEnv := byField[path]
		_, derived := derivedFields[path]
		switch {
		case fromEnv && derived:
			t.Errorf("%s is both set by %s and derived", path, byField[path])
		case !fromEnv && !derived:
			t.Errorf("Config.%s: no variable sets it; add a row to envVars (or to derivedFields, saying where it comes from)", path)
		}
	}
	for field, name := range byField {
		if !known[field] {
			t.Errorf("%s sets %s, which is not a field of Config", name, field)
		}
	}
	for field := range derivedFields {
		if !known[field] {
			t.Errorf("derivedFields lists %s, which is not a field of Config", field)
		}
	}
	if len(leaves) < 80 {
		t.Fatalf("only %d fields found: the walk is broken", len(leaves))
	}
}

// sampleValue is a valid value for a field of type ft, unlike any default.
func sampleValue(t *testing.T, ft reflect.Type) string {
	if ft == durationType {
		return "7s"
	}
	switch ft.Kind() {
	case reflect.String:
		return "sample-value"
	case reflect.Bool:
		return "true"
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64:
		return "7"
	case reflect.Float64:
		return "0.5"
	case reflect.Slice:
		if ft.Elem() == durationType {
			return "1s,2m"
		}
		return "a,b"
	case reflect.Map:
		if ft.Elem() == durationType {
			return "live=7s"
		}
		if ft.Elem().Kind() == reflect.Float64 {
			return "live/MAEU=50"
		}
		return "a=b"
	}
	t.Fatalf("no sample for %s", ft)
	return ""
}

// TestConfigRoundTrip: each variable, set, reaches its field: reading the
// field back writes what was set.
func TestConfigRoundTrip(t *testing.T) {
	for _, e := range envVars {
		t.Run(e.Name, func(t *testing.T) {
			clearConfigEnv(t)
			var c Config
			v := sampleValue(t, fieldByPath(reflect.ValueOf(c), e.Field).Type())
			t.Setenv(e.Name, v)
			c, err := readEnv()
			if err != nil {
				t.Fatal(err)
			}
			if got := formatField(fieldByPath(reflect.ValueOf(c), e.Field)); got != v {
				t.Fatalf("%s=%s gave %s = %q", e.Name, v, e.Field, got)
			}
		})
	}
}

// TestConfigDefaultsAreTheStages: a row of a stage's config documents the
// default that stage's WithDefaults applies; the process's own rows'
// defaults are what loadConfig sets with nothing in the environment.
func TestConfigDefaultsAreTheStages(t *testing.T) {
	clearConfigEnv(t)
	loaded, err := loadConfig()
	if err != nil {
		t.Fatalf("the defaults do not validate: %v", err)
	}
	stageDefaults := withStageDefaults(Config{})
	for _, e := range envVars {
		src := loaded
		if inStageConfig(e.Field) {
			src = stageDefaults
			if got := formatField(fieldByPath(reflect.ValueOf(loaded), e.Field)); got != formatField(fieldByPath(reflect.ValueOf(Config{}), e.Field)) {
				t.Errorf("%s unset, yet %s = %s: a stage field must stay zero for the stage to default it", e.Name, e.Field, got)
			}
		}
		got := formatField(fieldByPath(reflect.ValueOf(src), e.Field))
		if e.Field == "Normalize.TransactionalID" {
			if !strings.HasPrefix(got, "contrack-normalize-") || e.Default != "" {
				t.Errorf("%s: default %q, documented %q", e.Name, got, e.Default)
			}
			continue
		}
		want := e.Default
		if e.Name == "CONTRACK_ADMIN_ADDR" || e.Name == "CONTRACK_SECRET_KEY" {
			continue // "off" and the generated key are loadConfig's own
		}
		if got != want {
			t.Errorf("%s: documented default %q, the code's %q", e.Name, want, got)
		}
	}
}

// TestConfigRejectsBadValues: Validate (and the parsers) name the variable
// or the stage field of every bad value, and several at once.
func TestConfigRejectsBadValues(t *testing.T) {
	for _, tc := range []struct{ env, value, want string }{
		{"CONTRACK_KAFKA_PARTITIONS", "0", "CONTRACK_KAFKA_PARTITIONS must be an integer from 1 to 1000"},
		{"CONTRACK_KAFKA_PARTITIONS", "six", `CONTRACK_KAFKA_PARTITIONS: want an integer, got "six"`},
		{"CONTRACK_PG_MAX_CONNS", "1", "CONTRACK_PG_MAX_CONNS must be an integer from 2 to 1000"},
		{"CONTRACK_SHUTDOWN_TIMEOUT", "3s", "CONTRACK_SHUTDOWN_TIMEOUT must be longer than CONTRACK_DELIVERY_SHUTDOWN_GRACE (5s)"},
		{"CONTRACK_SHUTDOWN_TIMEOUT", "soon", "CONTRACK_SHUTDOWN_TIMEOUT: want a duration"},
		{"CONTRACK_LOG_LEVEL", "loud", "CONTRACK_LOG_LEVEL must be debug, info, warn or error"},
		{"CONTRACK_TRACE_SAMPLE_RATIO", "2", "CONTRACK_TRACE_SAMPLE_RATIO must be a number above 0 and at most 1"},
		{"CONTRACK_DELIVERY_WORKERS", "-1", "delivery: Workers must not be negative"},
		{"CONTRACK_DELIVERY_ENDPOINT_CONCURRENCY", "100", "delivery: EndpointConcurrency must not exceed Workers"},
		{"CONTRACK_DELIVERY_SCHEDULE", "5s,later", `CONTRACK_DELIVERY_SCHEDULE: want a duration such as 90s, 15m or 720h, got "later"`},
		{"CONTRACK_DELIVERY_HEARTBEAT", "5s", "delivery: InstanceTimeout must be at least twice Heartbeat"},
		{"CONTRACK_POLLER_JITTER", "1.5", "poller: Jitter must be in [0, 1)"},
		{"CONTRACK_POLLER_INTERVALS", "live", `CONTRACK_POLLER_INTERVALS: want key=value,…, got "live"`},
		{"CONTRACK_POLLER_INTERVALS", "live=-1m", "poller: Interval for live must be positive"},
		{"CONTRACK_POLLER_BREAKER_FAILURES", "-2", "CONTRACK_POLLER_BREAKER_FAILURES: want a non-negative integer"},
		{"CONTRACK_FEED_RETENTION", "24h", "feed: Retention 24h0m0s is below the promised 720h0m0s"},
		{"CONTRACK_NORMALIZE_ROUTING_WAIT", "-1s", "normalize: RoutingWait must not be negative"},
		{"CONTRACK_PROJECTOR_MAX_BATCH", "-5", "projector: negative batch size or durations"},
		{"CONTRACK_LIFECYCLE_BATCH", "-1", "lifecycle: Batch must not be negative"},
		{"CONTRACK_RELAY_IDLE", "-1s", "outbox relay: BatchSize, Idle and Retention must not be negative"},
		{"CONTRACK_SANDBOX_ACCELERATE", "0.5", "CONTRACK_SANDBOX_ACCELERATE must be a number ≥ 1"},
		{"CONTRACK_JOURNEY_CACHE_MAX_AGE", "-1s", "queryapi: journeys: negative duration"},
		{"CONTRACK_CLIENT_IP_HEADER", "X-Real-IP", "CONTRACK_CLIENT_IP_HEADER needs CONTRACK_TRUSTED_PROXIES"},
		{"CONTRACK_TRUSTED_PROXIES", "10.0.0.0/8,ten", `CONTRACK_TRUSTED_PROXIES: "ten" is neither a network in CIDR notation`},
	} {
		t.Run(tc.env+"="+tc.value, func(t *testing.T) {
			clearConfigEnv(t)
			t.Setenv(tc.env, tc.value)
			_, err := loadConfig()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	clearConfigEnv(t)
	t.Setenv("CONTRACK_DELIVERY_WORKERS", "-1")
	t.Setenv("CONTRACK_KAFKA_PARTITIONS", "0")
	if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "Workers") || !strings.Contains(err.Error(), "PARTITIONS") {
		t.Fatalf("want both errors reported at once, got %v", err)
	}
}

// TestConfigSetsStageKnobs: a variable reaches the stage's config the
// wiring hands to Run (the knobs used to be unreachable: zero Config{}).
func TestConfigSetsStageKnobs(t *testing.T) {
	clearConfigEnv(t)
	t.Setenv("CONTRACK_DELIVERY_ENDPOINT_CONCURRENCY", "3")
	t.Setenv("CONTRACK_POLLER_INTERVALS", "sandbox=10s")
	t.Setenv("CONTRACK_ALLOW_PRIVATE_WEBHOOKS", "true")
	t.Setenv("CONTRACK_JOURNEY_CACHE_BYTES", "0")
	c, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if c.Delivery.EndpointConcurrency != 3 || !c.Delivery.AllowPrivate || c.Delivery.Version != version {
		t.Errorf("delivery config %+v", c.Delivery)
	}
	iv := c.Poller.WithDefaults().Interval
	if iv["sandbox"] != 10*time.Second || iv["live"] != 15*time.Minute {
		t.Errorf("poller intervals %v: want sandbox overridden, live defaulted", iv)
	}
	if c.Journeys.CacheBytes != -1 {
		t.Errorf("CONTRACK_JOURNEY_CACHE_BYTES=0 gave Journeys.CacheBytes %d, want -1 (disabled)", c.Journeys.CacheBytes)
	}
}

// TestConfigPrintMasksSecrets: `contrack config` prints the loaded values
// with stage defaults, and no secret in the clear.
func TestConfigPrintMasksSecrets(t *testing.T) {
	clearConfigEnv(t)
	secrets := map[string]string{
		"CONTRACK_SECRET_KEY":            "kQ7xZpL2vR9mTc4WbN8yHd3FsJ6gAe1UabcdefghijklmnopX0001",
		"CONTRACK_SECRET_KEYS_PREVIOUS":  "old-key-qrstuvwxyz-0002",
		"CONTRACK_OPERATOR_TOKEN":        "operator-token-zyxw-0003",
		"CONTRACK_SANDBOX_COSCO_CLIENTS": "client-1=cosco-secret-0004",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("CONTRACK_PG_URL", "postgres://app:pg-password-0005@db:5432/contrack")
	t.Setenv("CONTRACK_DELIVERY_WORKERS", "12")
	c, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	printConfig(&out, c)
	text := out.String()
	for _, leak := range []string{"abcdefghijklmnop", "qrstuvwxyz", "operator-token", "cosco-secret", "pg-password"} {
		if strings.Contains(text, leak) {
			t.Errorf("printed a secret (%s):\n%s", leak, text)
		}
	}
	for _, want := range []string{
		"CONTRACK_PG_URL                          postgres://app:****@db:5432/contrack\n",
		"CONTRACK_OPERATOR_TOKEN                  ****0003\n",
		"CONTRACK_SANDBOX_COSCO_CLIENTS           client-1=****\n",
		"CONTRACK_DELIVERY_WORKERS                12\n",
		"CONTRACK_DELIVERY_ENDPOINT_CONCURRENCY   12\n", // the default, 32, bounded by the workers
		"CONTRACK_DELIVERY_LEASE                  50s\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	for _, e := range envVars {
		if !strings.Contains(text, "\n"+e.Name+" ") && !strings.HasPrefix(text, e.Name+" ") {
			t.Errorf("%s not printed", e.Name)
		}
	}
}

// readmeTable is README.md's configuration table, written from envVars.
func readmeTable() string {
	var b strings.Builder
	b.WriteString("| variable | default | |\n|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, e := range envVars {
		d := "empty"
		if e.Default != "" {
			d = "`" + e.Default + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", e.Name, cell(d), cell(e.Doc))
		if e.Name == "CONTRACK_SANDBOX_ADDR" {
			b.WriteString("| `CONTRACK_CARRIER_URL_<SCAC>` | unset | a live carrier's API base URL; live trackings of a carrier without one are not polled |\n")
		}
	}
	return b.String()
}

const (
	readmeTableStart = "<!-- configuration table: written from cmd/contrack/config.go by `go test ./cmd/contrack -run TestREADMEConfigTable -update` -->\n"
	readmeTableEnd   = "<!-- end of configuration table -->\n"
)

// TestREADMEConfigTable: the README lists exactly the table's variables,
// defaults and documentation (-update rewrites it).
func TestREADMEConfigTable(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	start, end := strings.Index(readme, readmeTableStart), strings.Index(readme, readmeTableEnd)
	if start < 0 || end < start {
		t.Fatalf("README.md has no %q … %q section", readmeTableStart, readmeTableEnd)
	}
	current := readme[start+len(readmeTableStart) : end]
	want := readmeTable()
	if current == want {
		return
	}
	if *update {
		if err := os.WriteFile("../../README.md", []byte(readme[:start+len(readmeTableStart)]+want+readme[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's configuration table differs from envVars; run go test ./cmd/contrack -run TestREADMEConfigTable -update\nwant:\n%s", want)
}
