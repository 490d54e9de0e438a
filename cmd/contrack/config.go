package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/contrack/contrack/platform/tracing"
	"github.com/contrack/contrack/schemas/carriers"
)

// Config is the whole process configuration, read from the environment once,
// here, and handed to the stages as their own Config values.
type Config struct {
	HTTPAddr          string
	PGURL             string
	ClickHouseAddr    string
	ClickHouseDB      string
	KafkaBrokers      []string // empty: embedded broker
	EmbeddedKafkaAddr string
	KafkaPartitions   int
	DataDir           string
	// SecretKey seals secrets and signs page tokens; when
	// CONTRACK_SECRET_KEY is unset it is read from (or generated once into)
	// <DataDir>/secret.key by ensureSecretKey.
	SecretKey string
	// SecretKeysPrevious open what older keys sealed and verify what they
	// signed (CONTRACK_SECRET_KEYS_PREVIOUS), during a rotation.
	SecretKeysPrevious []string
	// OperatorToken guards operator endpoints (/metrics) on the API address;
	// empty refuses them there.
	OperatorToken string
	// AdminAddr serves /metrics, /healthz and /readyz without a token; ""
	// (CONTRACK_ADMIN_ADDR=off) serves no admin listener.
	AdminAddr string
	// PreAuthRate is the rate of key look-ups that miss the key cache that
	// one client address may cause, per second (burst twice that); requests
	// refused from memory may come ten times as fast.
	PreAuthRate float64
	// ClientIPHeader names a header set by a trusted proxy that carries the
	// client address; "" uses the connection's address.
	ClientIPHeader string
	// PGMaxConns and PGAPIMaxConns size the stages' and the API's Postgres
	// pools: separate pools, so API traffic cannot take the stages' connections.
	PGMaxConns, PGAPIMaxConns int
	AllowPrivateWebhooks      bool
	SandboxAddr               string
	SubscriptionLifetime      time.Duration
	// TrackingIdleLimit closes subscriptions without a new event for this long;
	// LifecycleEvery is the time between lifecycle sweeps.
	TrackingIdleLimit time.Duration
	LifecycleEvery    time.Duration
	SandboxAccelerate float64
	// CarrierURLs are live carriers' API base URLs by SCAC (CONTRACK_CARRIER_URL_<SCAC>).
	CarrierURLs map[string]string
	LogLevel    string
	// JourneyCacheBytes bounds the API's cache of encoded journeys.
	JourneyCacheBytes int64
	// Tracing: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME (the role
	// completes the default name in main).
	Tracing tracing.Config
}

// env describes one variable for `contrack config`.
type envVar struct {
	Name, Default, Doc string
	Secret             bool
}

var envVars = []envVar{
	{"CONTRACK_HTTP_ADDR", "127.0.0.1:8080", "HTTP API listen address", false},
	{"CONTRACK_PG_URL", "postgres://postgres@127.0.0.1:5432/contrack?sslmode=disable", "Postgres URL (the database is created if missing)", true},
	{"CONTRACK_CLICKHOUSE_ADDR", "127.0.0.1:9000", "ClickHouse native-protocol address", false},
	{"CONTRACK_CLICKHOUSE_DB", "contrack", "ClickHouse database (created if missing)", false},
	{"KAFKA_BROKERS", "", "comma-separated Kafka seed brokers; empty = embedded single-node broker", false},
	{"CONTRACK_EMBEDDED_KAFKA_ADDR", "127.0.0.1:9092", "listen address of the embedded broker", false},
	{"CONTRACK_KAFKA_PARTITIONS", "6", "partitions of topics created at start-up", false},
	{"CONTRACK_DATA_DIR", ".data", "local state: the embedded broker's log, ClickHouse data", false},
	{"CONTRACK_SECRET_KEY", "", "key encrypting stored secrets and signing page tokens; unset: generated once into <data dir>/secret.key", true},
	{"CONTRACK_SECRET_KEYS_PREVIOUS", "", "comma-separated older secret keys, used only to decrypt and verify during a rotation", true},
	{"CONTRACK_OPERATOR_TOKEN", "", "bearer token for /metrics on the API address; empty: /metrics is refused there", true},
	{"CONTRACK_ADMIN_ADDR", "127.0.0.1:9090", "operator listener (/metrics, /healthz, /readyz, no token); off disables", false},
	{"CONTRACK_PREAUTH_RATE", "20", "key look-ups that miss the key cache, per second per client address (burst twice that); requests refused from memory (no key, malformed, known unknown) get ten times that. Over it a request waits for its turn up to 1 s, then 429; 0 disables", false},
	{"CONTRACK_CLIENT_IP_HEADER", "", "header carrying the client address, set by a trusted proxy (e.g. X-Real-IP); empty: the connection's address", false},
	{"CONTRACK_PG_MAX_CONNS", "10", "Postgres connections of the stages (poller, delivery, normaliser, relay)", false},
	{"CONTRACK_PG_API_MAX_CONNS", "10", "Postgres connections of the HTTP API, a separate pool", false},
	{"CONTRACK_ALLOW_PRIVATE_WEBHOOKS", "false", "allow loopback/private webhook targets (development only)", false},
	{"CONTRACK_SANDBOX_ADDR", "127.0.0.1:8081", "listen address of the sandbox carriers", false},
	{"CONTRACK_SANDBOX_ACCELERATE", "1", "sandbox journeys run this many times faster than real time", false},
	{"CONTRACK_SUBSCRIPTION_LIFETIME", "2160h", "subscription expiry after creation (90 days)", false},
	{"CONTRACK_TRACKING_IDLE_LIMIT", "720h", "close subscriptions whose polled tracking saw no new event for this long (30 days)", false},
	{"CONTRACK_LIFECYCLE_INTERVAL", "1m", "time between sweeps closing expired, ended and idle subscriptions", false},
	{"CONTRACK_LOG_LEVEL", "info", "debug, info, warn or error", false},
	{"CONTRACK_JOURNEY_CACHE_BYTES", "268435456", "bytes of encoded journeys each API process caches (0 disables the cache)", false},
	{"OTEL_EXPORTER_OTLP_ENDPOINT", "", "OTLP/HTTP collector base URL (e.g. http://otel-collector:4318) receiving traces at /v1/traces; empty: tracing off (no-op)", false},
	{"OTEL_SERVICE_NAME", "", "service.name of the spans; empty: contrack-<role>", false},
	{"CONTRACK_TRACE_SAMPLE_RATIO", "1", "share of new traces recorded when tracing is on, 0 < r ≤ 1 (a continued trace follows its parent's decision)", false},
}

func getenv(name string) string {
	if v, ok := os.LookupEnv(name); ok {
		return strings.TrimSpace(v)
	}
	for _, e := range envVars {
		if e.Name == name {
			return e.Default
		}
	}
	return ""
}

func loadConfig() (Config, error) {
	c := Config{
		HTTPAddr:          getenv("CONTRACK_HTTP_ADDR"),
		PGURL:             getenv("CONTRACK_PG_URL"),
		ClickHouseAddr:    getenv("CONTRACK_CLICKHOUSE_ADDR"),
		ClickHouseDB:      getenv("CONTRACK_CLICKHOUSE_DB"),
		EmbeddedKafkaAddr: getenv("CONTRACK_EMBEDDED_KAFKA_ADDR"),
		DataDir:           getenv("CONTRACK_DATA_DIR"),
		SecretKey:         getenv("CONTRACK_SECRET_KEY"),
		OperatorToken:     getenv("CONTRACK_OPERATOR_TOKEN"),
		AdminAddr:         getenv("CONTRACK_ADMIN_ADDR"),
		ClientIPHeader:    getenv("CONTRACK_CLIENT_IP_HEADER"),
		SandboxAddr:       getenv("CONTRACK_SANDBOX_ADDR"),
		LogLevel:          getenv("CONTRACK_LOG_LEVEL"),
		Tracing:           tracing.Config{Endpoint: getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), ServiceName: getenv("OTEL_SERVICE_NAME")},
	}
	var errs []string
	for _, b := range strings.Split(getenv("KAFKA_BROKERS"), ",") {
		if b = strings.TrimSpace(b); b != "" {
			c.KafkaBrokers = append(c.KafkaBrokers, b)
		}
	}
	n, err := strconv.Atoi(getenv("CONTRACK_KAFKA_PARTITIONS"))
	if err != nil || n < 1 || n > 1000 {
		errs = append(errs, "CONTRACK_KAFKA_PARTITIONS must be an integer from 1 to 1000")
	}
	c.KafkaPartitions = n
	c.AllowPrivateWebhooks, err = strconv.ParseBool(getenv("CONTRACK_ALLOW_PRIVATE_WEBHOOKS"))
	if err != nil {
		errs = append(errs, "CONTRACK_ALLOW_PRIVATE_WEBHOOKS must be true or false")
	}
	c.SubscriptionLifetime, err = time.ParseDuration(getenv("CONTRACK_SUBSCRIPTION_LIFETIME"))
	if err != nil || c.SubscriptionLifetime <= 0 {
		errs = append(errs, "CONTRACK_SUBSCRIPTION_LIFETIME must be a positive duration such as 2160h")
	}
	c.TrackingIdleLimit, err = time.ParseDuration(getenv("CONTRACK_TRACKING_IDLE_LIMIT"))
	if err != nil || c.TrackingIdleLimit <= 0 {
		errs = append(errs, "CONTRACK_TRACKING_IDLE_LIMIT must be a positive duration such as 720h")
	}
	c.LifecycleEvery, err = time.ParseDuration(getenv("CONTRACK_LIFECYCLE_INTERVAL"))
	if err != nil || c.LifecycleEvery <= 0 {
		errs = append(errs, "CONTRACK_LIFECYCLE_INTERVAL must be a positive duration such as 1m")
	}
	c.SandboxAccelerate, err = strconv.ParseFloat(getenv("CONTRACK_SANDBOX_ACCELERATE"), 64)
	if err != nil || c.SandboxAccelerate < 1 {
		errs = append(errs, "CONTRACK_SANDBOX_ACCELERATE must be a number ≥ 1")
	}
	c.JourneyCacheBytes, err = strconv.ParseInt(getenv("CONTRACK_JOURNEY_CACHE_BYTES"), 10, 64)
	if err != nil || c.JourneyCacheBytes < 0 {
		errs = append(errs, "CONTRACK_JOURNEY_CACHE_BYTES must be a non-negative integer")
	}
	c.CarrierURLs = map[string]string{}
	for _, car := range carriers.All() {
		if v := strings.TrimSpace(os.Getenv("CONTRACK_CARRIER_URL_" + car.SCAC)); v != "" {
			c.CarrierURLs[car.SCAC] = strings.TrimRight(v, "/")
		}
	}
	for _, k := range strings.Split(getenv("CONTRACK_SECRET_KEYS_PREVIOUS"), ",") {
		if k = strings.TrimSpace(k); k != "" {
			c.SecretKeysPrevious = append(c.SecretKeysPrevious, k)
		}
	}
	if strings.EqualFold(c.AdminAddr, "off") {
		c.AdminAddr = ""
	}
	c.PreAuthRate, err = strconv.ParseFloat(getenv("CONTRACK_PREAUTH_RATE"), 64)
	if err != nil || c.PreAuthRate < 0 {
		errs = append(errs, "CONTRACK_PREAUTH_RATE must be a number ≥ 0")
	}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"CONTRACK_PG_MAX_CONNS", &c.PGMaxConns}, {"CONTRACK_PG_API_MAX_CONNS", &c.PGAPIMaxConns}} {
		n, err := strconv.Atoi(getenv(p.name))
		if err != nil || n < 2 || n > 1000 {
			errs = append(errs, p.name+" must be an integer from 2 to 1000")
		}
		*p.dst = n
	}
	c.Tracing.SampleRatio, err = strconv.ParseFloat(getenv("CONTRACK_TRACE_SAMPLE_RATIO"), 64)
	if err != nil || c.Tracing.SampleRatio <= 0 || c.Tracing.SampleRatio > 1 {
		errs = append(errs, "CONTRACK_TRACE_SAMPLE_RATIO must be a number above 0 and at most 1")
	} else if err := c.Tracing.Validate(); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("config: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

// brokers returns the seed brokers: KAFKA_BROKERS, or the embedded broker's address.
func (c Config) brokers() []string {
	if len(c.KafkaBrokers) > 0 {
		return c.KafkaBrokers
	}
	return []string{c.EmbeddedKafkaAddr}
}

// printConfig prints the effective configuration with secrets masked.
func printConfig() {
	for _, e := range envVars {
		v := getenv(e.Name)
		shown := v
		switch {
		case e.Name == "CONTRACK_SECRET_KEY" && v == "":
			shown = "(unset: generated once into " + filepath.Join(getenv("CONTRACK_DATA_DIR"), secretKeyFile) + ")"
		case e.Name == "CONTRACK_PG_URL":
			shown = maskURLPassword(v)
		case e.Secret && v != "":
			shown = mask(v)
		case v == "":
			shown = "(empty)"
		}
		fmt.Printf("%-32s %s\n", e.Name, shown)
	}
	for _, car := range carriers.All() {
		name := "CONTRACK_CARRIER_URL_" + car.SCAC
		v := os.Getenv(name)
		if v == "" {
			v = "(unset: live " + car.Name + " trackings are not polled)"
		}
		fmt.Printf("%-32s %s\n", name, v)
	}
}

func mask(s string) string {
	if len(s) <= 4 {
		return "****"
	}
	return "****" + s[len(s)-4:]
}

// maskURLPassword hides the password of a URL (user:password@host).
func maskURLPassword(u string) string {
	at := strings.LastIndex(u, "@")
	scheme := strings.Index(u, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return u
	}
	userinfo := u[scheme+3 : at]
	if user, _, ok := strings.Cut(userinfo, ":"); ok {
		return u[:scheme+3] + user + ":****" + u[at:]
	}
	return u
}

// secretKeyFile is where a process without CONTRACK_SECRET_KEY keeps the key
// it generated, under the data directory.
const secretKeyFile = "secret.key"

// ensureSecretKey fills c.SecretKey when CONTRACK_SECRET_KEY is unset: from
// <DataDir>/secret.key, generating 32 random bytes there (mode 0600) the
// first time. No key is built into the binary. Processes sharing a database
// must share the key: on more than one host, set CONTRACK_SECRET_KEY.
func (c *Config) ensureSecretKey() error {
	if c.SecretKey != "" {
		return nil
	}
	path := filepath.Join(c.DataDir, secretKeyFile)
	key, err := loadOrCreateKeyFile(path)
	if err != nil {
		return fmt.Errorf("secret key %s: %w", path, err)
	}
	c.SecretKey = key
	return nil
}

func loadOrCreateKeyFile(path string) (string, error) {
	if key, err := readKeyFile(path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return key, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	// Write a temporary file and link it into place: a concurrent starter
	// either wins the link or reads the complete file the other one linked.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".secret-*.tmp")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", err
	}
	if _, err := tmp.WriteString(base64.RawURLEncoding.EncodeToString(raw) + "\n"); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	return readKeyFile(path)
}

// readKeyFile reads a key file, refusing one that others can read.
func readKeyFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("mode %v lets others read it; chmod 600 it", st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	key := strings.TrimSpace(string(b))
	if len(key) < 16 {
		return "", errors.New("too short (at least 16 characters)")
	}
	return key, nil
}
