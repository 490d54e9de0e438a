package main

import (
	"fmt"

	"github.com/contrack/contrack/schemas/carriers"
	"os"
	"strconv"
	"strings"
	"time"
)

// devSecretKey is used when CONTRACK_SECRET_KEY is unset, with a loud warning:
// anything encrypted with it is readable by anyone with this source.
const devSecretKey = "contrack-dev-secret-key-do-not-use-in-production"

// Config is the whole process configuration, read from the environment once,
// here, and handed to the stages as their own Config values.
type Config struct {
	HTTPAddr             string
	PGURL                string
	ClickHouseAddr       string
	ClickHouseDB         string
	KafkaBrokers         []string // empty: embedded broker
	EmbeddedKafkaAddr    string
	KafkaPartitions      int
	DataDir              string
	SecretKey            string
	SecretKeyIsDefault   bool
	AllowPrivateWebhooks bool
	SandboxAddr          string
	SubscriptionLifetime time.Duration
	SandboxAccelerate    float64
	// CarrierURLs are live carriers' API base URLs by SCAC (CONTRACK_CARRIER_URL_<SCAC>).
	CarrierURLs map[string]string
	LogLevel    string
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
	{"CONTRACK_SECRET_KEY", "", "key encrypting carrier credentials and webhook secrets (dev default if unset)", true},
	{"CONTRACK_ALLOW_PRIVATE_WEBHOOKS", "false", "allow loopback/private webhook targets (development only)", false},
	{"CONTRACK_SANDBOX_ADDR", "127.0.0.1:8081", "listen address of the sandbox carriers", false},
	{"CONTRACK_SANDBOX_ACCELERATE", "1", "sandbox journeys run this many times faster than real time", false},
	{"CONTRACK_SUBSCRIPTION_LIFETIME", "2160h", "subscription expiry after creation (90 days)", false},
	{"CONTRACK_LOG_LEVEL", "info", "debug, info, warn or error", false},
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
		SandboxAddr:       getenv("CONTRACK_SANDBOX_ADDR"),
		LogLevel:          getenv("CONTRACK_LOG_LEVEL"),
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
	c.SandboxAccelerate, err = strconv.ParseFloat(getenv("CONTRACK_SANDBOX_ACCELERATE"), 64)
	if err != nil || c.SandboxAccelerate < 1 {
		errs = append(errs, "CONTRACK_SANDBOX_ACCELERATE must be a number ≥ 1")
	}
	c.CarrierURLs = map[string]string{}
	for _, car := range carriers.All() {
		if v := strings.TrimSpace(os.Getenv("CONTRACK_CARRIER_URL_" + car.SCAC)); v != "" {
			c.CarrierURLs[car.SCAC] = strings.TrimRight(v, "/")
		}
	}
	if c.SecretKey == "" {
		c.SecretKey = devSecretKey
		c.SecretKeyIsDefault = true
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
			shown = "(unset: development default in use)"
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
