package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/contrack/contrack/alerts"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/commandapi/lifecycle"
	"github.com/contrack/contrack/commandapi/relay"
	"github.com/contrack/contrack/delivery"
	"github.com/contrack/contrack/feed"
	"github.com/contrack/contrack/ingest/poller"
	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/vessels"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/tracing"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// Config is the whole process configuration, read from the environment once,
// here (envVars maps every variable to its field), and handed to the stages
// as their own Config values. A stage's config is left zero where its
// variable is unset: the stage's WithDefaults applies the default, so
// defaults that depend on other fields (Delivery.Lease) stay right.
type Config struct {
	HTTPAddr       string
	PGURL          string
	ClickHouseAddr string
	ClickHouseDB   string
	// ClickHouseUser and ClickHousePassword are the ClickHouse user
	// contrack connects as (default: default, without a password).
	ClickHouseUser, ClickHousePassword string
	KafkaBrokers                       []string // empty: embedded broker
	// KafkaNamespace prefixes every topic, consumer group and
	// transactional id, so deployments share a cluster apart.
	KafkaNamespace    schemas.Namespace
	EmbeddedKafkaAddr string
	// EmbeddedKafkaFlush is how often the embedded broker fsyncs its log;
	// 0 fsyncs every write (see kafka.EmbeddedBroker on the trade).
	EmbeddedKafkaFlush time.Duration
	KafkaPartitions    int
	DataDir            string
	// SecretKey seals secrets and signs page tokens; when
	// CONTRACK_SECRET_KEY is unset it is read from (or generated once into)
	// <DataDir>/secret.key by ensureSecretKey.
	SecretKey string
	// SecretKeysPrevious open what older keys sealed and verify what they
	// signed (CONTRACK_SECRET_KEYS_PREVIOUS), during a rotation.
	SecretKeysPrevious []string
	// OperatorToken guards operator endpoints: /metrics on the API address
	// and the profiles on the admin listener; empty refuses them there.
	OperatorToken string
	// AdminAddr serves /metrics, /healthz and /readyz without a token; ""
	// (CONTRACK_ADMIN_ADDR=off) serves no admin listener.
	AdminAddr string
	// ShutdownTimeout is the budget from SIGTERM to exit: every stage's
	// context is cancelled and each must return within it, or the process
	// exits non-zero naming the stages that hung (0: 20 s). Trap: it must
	// exceed Delivery.ShutdownGrace and the HTTP server's drain, or a clean
	// shutdown is reported as a hang.
	ShutdownTimeout time.Duration
	// PreAuthRate is the rate of key look-ups that miss the key cache that
	// one client address may cause, per second (burst twice that); requests
	// refused from memory may come ten times as fast.
	PreAuthRate float64
	// GOGC is the collector's target (heap growth in per cent between
	// collections, or off). The Go runtime reads the variable itself;
	// contrack applies its own default when it is unset (applyGC).
	GOGC string
	// GoMemLimit is GOMEMLIMIT as set (the runtime applies it); unset,
	// applyGC sets 90 % of the container's memory limit.
	GoMemLimit string
	// EventsCombine has concurrent single-event POST /events of one carrier
	// key share a carrier-raw record and its produce; EventsCombineLinger
	// is how long such a record waits for more beyond the produce before it.
	EventsCombine       bool
	EventsCombineLinger time.Duration
	// ClientIPHeader names a header set by a trusted proxy that carries the
	// client address; "" uses the connection's address. It needs
	// TrustedProxies: the header is believed only from those networks.
	ClientIPHeader string
	// TrustedProxies are the networks (CIDR) of the proxies in front of the
	// API whose ClientIPHeader is believed (CONTRACK_TRUSTED_PROXIES).
	TrustedProxies []string
	// PGMaxConns and PGAPIMaxConns size the stages' and the API's Postgres
	// pools: separate pools, so API traffic cannot take the stages' connections.
	PGMaxConns, PGAPIMaxConns int
	AllowPrivateWebhooks      bool
	SandboxAddr               string
	SubscriptionLifetime      time.Duration
	// CarrierURLs are live carriers' API base URLs by SCAC (CONTRACK_CARRIER_URL_<SCAC>).
	CarrierURLs map[string]string
	LogLevel    string
	// KafkaLogLevel is the least level of the Kafka client's own records
	// (franz-go's connections, group joins, metadata), below which they
	// are dropped: at info they are most of a quiet process's log.
	KafkaLogLevel string
	// JourneyCacheBytes bounds the API's cache of encoded journeys; 0
	// disables it (Journeys.CacheBytes gets -1).
	JourneyCacheBytes int64
	// Tracing: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME (the role
	// completes the default name in main).
	Tracing tracing.Config
	// Loops is the supervision policy of every long-running loop
	// (platform/loop): backoff, and the run of failures that turns
	// /readyz red.
	Loops loop.Config

	// The stages' own configs.
	Commands  commandapi.Config
	Relay     relay.Config
	Lifecycle lifecycle.Config
	Journeys  queryapi.JourneysConfig
	Sandbox   sandbox.Config
	Poller    poller.Config
	Normalize stage.Config
	Projector projector.Config
	Delivery  delivery.Config
	Feed      feed.Config
	Vessels   vessels.Config
	Alerts    alerts.Config
}

// defaultShutdownTimeout is ShutdownTimeout's default, for a zero Config.
const defaultShutdownTimeout = 20 * time.Second

// envVar is one environment variable: its default, its documentation (for
// `contrack config` and the README) and the Config field it sets, a dotted
// path ("Delivery.Workers"). Values are parsed by the field's type: numbers,
// booleans, Go durations (90s, 15m, 720h), comma-separated lists, and
// comma-separated key=value maps.
type envVar struct {
	Name, Default, Doc string
	Secret             bool
	Field              string
}

// envVars is the one table of the process's environment. A row whose field
// is in a stage's config documents the stage's default (a test checks that
// it is the one the stage's WithDefaults applies); the field stays zero when
// the variable is unset.
var envVars = []envVar{
	{"CONTRACK_HTTP_ADDR", "127.0.0.1:8080", "HTTP API listen address", false, "HTTPAddr"},
	{"CONTRACK_PG_URL", "postgres://postgres@127.0.0.1:5432/contrack?sslmode=disable", "Postgres URL (the database is created if missing)", true, "PGURL"},
	{"CONTRACK_CLICKHOUSE_ADDR", "127.0.0.1:9000", "ClickHouse native-protocol address", false, "ClickHouseAddr"},
	{"CONTRACK_CLICKHOUSE_DB", "contrack", "ClickHouse database (created if missing)", false, "ClickHouseDB"},
	{"CONTRACK_CLICKHOUSE_USER", "default", "ClickHouse user contrack connects as (it creates the database and tables)", false, "ClickHouseUser"},
	{"CONTRACK_CLICKHOUSE_PASSWORD", "", "password of CONTRACK_CLICKHOUSE_USER; empty: none", true, "ClickHousePassword"},
	{"KAFKA_BROKERS", "", "comma-separated Kafka seed brokers; empty = embedded single-node broker", false, "KafkaBrokers"},
	{"CONTRACK_KAFKA_NAMESPACE", "", "prefix of every Kafka topic, consumer group and transactional id (`<namespace>.contrack.events.v1`), so several deployments share one cluster without reading each other's records; letters, digits, '.', '-', '_', at most 64; empty = no prefix. Changing it starts from empty topics", false, "KafkaNamespace"},
	{"CONTRACK_EMBEDDED_KAFKA_ADDR", "127.0.0.1:9092", "listen address of the embedded broker", false, "EmbeddedKafkaAddr"},
	{"CONTRACK_EMBEDDED_KAFKA_FLUSH_INTERVAL", "1s", "how often the embedded broker fsyncs its log (every write reaches the page cache first, so a process crash loses nothing; this bounds a machine crash); 0 = fsync every write", false, "EmbeddedKafkaFlush"},
	{"CONTRACK_KAFKA_PARTITIONS", "6", "partitions of topics created at start-up (1 to 1000)", false, "KafkaPartitions"},
	{"CONTRACK_DATA_DIR", ".data", "local state: the embedded broker's log, ClickHouse data, the generated secret key; ignored by git", false, "DataDir"},
	{"CONTRACK_SECRET_KEY", "", "key from which the keys encrypting stored secrets and signing page tokens are derived (HKDF); at least 32 random bytes (`openssl rand -base64 32`), never a value published in the repository, else the process refuses to start; unset: generated once into <data dir>/secret.key (0600). Set it, the same value, when processes run on several hosts", true, "SecretKey"},
	{"CONTRACK_SECRET_KEYS_PREVIOUS", "", "comma-separated older secret keys, used only to decrypt and verify during a rotation", true, "SecretKeysPrevious"},
	{"CONTRACK_OPERATOR_TOKEN", "", "bearer token for /metrics on the API address and /debug/pprof/ on the admin listener; empty: both are refused", true, "OperatorToken"},
	{"CONTRACK_ADMIN_ADDR", "127.0.0.1:9090", "operator listener of every role (/metrics of the role's own stages, /healthz, /readyz without a token; /debug/pprof/ with the operator token); off disables", false, "AdminAddr"},
	{"CONTRACK_SHUTDOWN_TIMEOUT", "20s", "budget from SIGTERM to exit: every stage must stop within it, else the process exits non-zero naming the stages that hung; must exceed CONTRACK_DELIVERY_SHUTDOWN_GRACE", false, "ShutdownTimeout"},
	{"CONTRACK_PREAUTH_RATE", "20", "key look-ups that miss the key cache, per second per client address (burst twice that); requests refused from memory (no key, malformed, known unknown) get ten times that. Over it a request waits for its turn up to 1 s, then 429; 0 disables", false, "PreAuthRate"},
	{"GOGC", "200", "Go's garbage collector target: how far the heap grows, in per cent of what a collection left, before the next (off: never; read by the Go runtime, contrack sets this default when unset; see docs/operations.md, \"Memory and the collector\")", false, "GOGC"},
	{"GOMEMLIMIT", "", "Go's soft memory limit (e.g. 900MiB; read by the Go runtime); unset: 90% of the container's memory limit (cgroup memory.max), none without one; AUTOMEMLIMIT=off turns that default off", false, "GoMemLimit"},
	{"CONTRACK_EVENTS_COMBINE", "true", "concurrent single-event POST /events of one carrier key share one carrier-raw record and one produce (each still answered only once Kafka has that record); false: a record and a produce each", false, "EventsCombine"},
	{"CONTRACK_EVENTS_COMBINE_LINGER", "0s", "how long combined single-event pushes wait for more before their record is produced (0: only those that arrive while the carrier key's previous record is being produced)", false, "EventsCombineLinger"},
	{"CONTRACK_CLIENT_IP_HEADER", "", "header carrying the client address, set by a trusted proxy (e.g. X-Real-IP), believed only on connections from CONTRACK_TRUSTED_PROXIES (required with it); empty: the connection's address", false, "ClientIPHeader"},
	{"CONTRACK_TRUSTED_PROXIES", "", "comma-separated networks (CIDR, e.g. 10.0.0.0/8) of the proxies in front of the API whose CONTRACK_CLIENT_IP_HEADER is believed; from any other peer the header is ignored", false, "TrustedProxies"},
	{"CONTRACK_PG_MAX_CONNS", "10", "Postgres connections of the stages (poller, delivery, normaliser, relay), 2 to 1000", false, "PGMaxConns"},
	{"CONTRACK_PG_API_MAX_CONNS", "10", "Postgres connections of the HTTP API, a separate pool, 2 to 1000", false, "PGAPIMaxConns"},
	{"CONTRACK_ALLOW_PRIVATE_WEBHOOKS", "false", "allow loopback/private webhook targets and carrier connector URLs (development only)", false, "AllowPrivateWebhooks"},
	{"CONTRACK_SANDBOX_ADDR", "127.0.0.1:8081", "listen address of the sandbox carriers", false, "SandboxAddr"},
	{"CONTRACK_SANDBOX_ACCELERATE", "1", "sandbox journeys run this many times faster than real time (≥ 1; above 1 they start today)", false, "Sandbox.Accelerate"},
	{"CONTRACK_SANDBOX_PAGE_SIZE", "20", "largest page of the sandbox's DCSA TNT 2.2 and 3.0 carriers", false, "Sandbox.PageSize"},
	{"CONTRACK_SANDBOX_SLOW_DELAY", "3s", "how long a slow sandbox test number (prefix SLOU) waits before answering", false, "Sandbox.SlowDelay"},
	{"CONTRACK_SANDBOX_TOKEN_TTL", "1h", "lifetime of the sandbox carriers' access tokens", false, "Sandbox.TokenTTL"},
	{"CONTRACK_SANDBOX_COSCO_CLIENTS", "", "clientId=secret,… of sandbox COSU clients whose signatures are verified in full", true, "Sandbox.CoscoClients"},
	{"CONTRACK_SANDBOX_STRICT_SHAPES", "false", "true: every sandbox answer exactly as its standard documents it; false: one shipment in three gets, from the DCSA TNT 2.2 carriers and COSU, the deviations real carriers send (docs/sandbox.md)", false, "Sandbox.StrictShapes"},
	{"CONTRACK_SUBSCRIPTION_LIFETIME", "2160h", "subscription expiry after creation (90 days)", false, "SubscriptionLifetime"},
	{"CONTRACK_INFER_TIMEOUT", "10s", "bound of all the carrier probes of one carrier inference (GET /carrier/infer, a subscription without scacCode); a carrier that has not answered by then does not know the shipment", false, "Commands.InferTimeout"},
	{"CONTRACK_INFER_CONCURRENCY", "4", "carrier probes of one inference in flight", false, "Commands.InferConcurrency"},
	{"CONTRACK_PROBES_PER_MINUTE", "30", "carrier probes one account may make per minute in an API process (a health check is one, a carrier inference one per carrier asked; that many at once); beyond it 429. Probes also pass the poller's gates (CONTRACK_POLLER_CARRIER_*, CONTRACK_POLLER_ACCOUNT_*)", false, "Commands.ProbesPerMinute"},
	{"CONTRACK_TRACKING_IDLE_LIMIT", "720h", "close subscriptions whose polled tracking saw no new event for this long (30 days)", false, "Lifecycle.IdleLimit"},
	{"CONTRACK_LIFECYCLE_INTERVAL", "1m", "time between sweeps closing expired, ended and idle subscriptions", false, "Lifecycle.Every"},
	{"CONTRACK_LIFECYCLE_BATCH", "500", "subscriptions closed per sweep round", false, "Lifecycle.Batch"},
	{"CONTRACK_RELAY_BATCH_SIZE", "500", "outbox rows published per relay round", false, "Relay.BatchSize"},
	{"CONTRACK_RELAY_IDLE", "1s", "longest wait between outbox relay rounds without a notification", false, "Relay.Idle"},
	{"CONTRACK_RELAY_RETENTION", "168h", "how long published outbox rows are kept for audit", false, "Relay.Retention"},
	{"CONTRACK_LOG_LEVEL", "info", "debug, info, warn or error", false, "LogLevel"},
	{"CONTRACK_KAFKA_LOG_LEVEL", "warn", "least level of the Kafka client's own log records (connections, group joins, metadata): debug, info, warn or error; never below CONTRACK_LOG_LEVEL", false, "KafkaLogLevel"},
	{"CONTRACK_JOURNEY_CACHE_BYTES", "268435456", "bytes of compressed journey answers each API process caches, warmed at start (0 disables the cache; 100,000 sandbox-shaped container journeys take ~220 MB); a quarter as much again keeps the answers pulled most often without gzip uncompressed", false, "JourneyCacheBytes"},
	{"CONTRACK_JOURNEY_CACHE_MAX_AGE", "10m", "a cached journey answer is read again this long after it was read even without a change notification (served while it is read again)", false, "Journeys.MaxAge"},
	{"CONTRACK_JOURNEY_CACHE_SUPERSEDED_FOR", "2s", "after a journey changes, its previous cached answer is still served this long while the new one is read (a negative value: not served, pulls read ClickHouse until the new answer is cached)", false, "Journeys.SupersededFor"},
	{"CONTRACK_JOURNEY_CACHE_MISSES_PER_ACCOUNT", "1000", "lookups without results (e.g. made-up identifiers) one account may keep in the journey cache, its least recently used going first; also at most 1/64 of CONTRACK_JOURNEY_CACHE_BYTES, so one tenant's misses never evict another's answers", false, "Journeys.MissesPerAccount"},
	{"CONTRACK_JOURNEY_GENERATION_CHECK", "5s", "how often the API looks for a rebuilt journey generation", false, "Journeys.GenerationCheck"},
	{"OTEL_EXPORTER_OTLP_ENDPOINT", "", "OTLP/HTTP collector base URL (e.g. http://otel-collector:4318) receiving traces at /v1/traces; empty: tracing off (no-op). See docs/operations.md, Tracing", false, "Tracing.Endpoint"},
	{"OTEL_SERVICE_NAME", "", "service.name of the spans; empty: contrack-<role>", false, "Tracing.ServiceName"},
	{"CONTRACK_LOOP_UNREADY_AFTER", "5", "failed rounds in a row after which a long-running loop (the outbox relay, delivery's claim loop, the dedupe saver, a consumer's fetches, …) turns /readyz red, until its next success; every failure is counted in contrack_loop_failures_total{loop}", false, "Loops.UnreadyAfter"},
	{"CONTRACK_LOOP_BACKOFF_INITIAL", "100ms", "first wait after a long-running loop's failed round, doubled per failure in a row (±20% jitter)", false, "Loops.Backoff.Initial"},
	{"CONTRACK_LOOP_BACKOFF_MAX", "10s", "longest wait between a long-running loop's failed rounds", false, "Loops.Backoff.Max"},
	{"CONTRACK_TRACE_SAMPLE_RATIO", "1", "share of new traces recorded when tracing is on, 0 < r ≤ 1 (a continued trace follows its parent's decision)", false, "Tracing.SampleRatio"},

	{"CONTRACK_POLLER_INTERVALS", "live=15m,sandbox=1m", "time between polls of one tracking, per environment (env=duration,…; unnamed environments keep their default)", false, "Poller.Interval"},
	{"CONTRACK_POLLER_CARRIER_INTERVALS", "", "per-carrier overrides of the poll interval (env/SCAC=duration,…, e.g. live/MAEU=5m)", false, "Poller.CarrierInterval"},
	{"CONTRACK_POLLER_JITTER", "0.1", "fraction of the poll interval added or removed at random, in [0, 1); 0 takes the default", false, "Poller.Jitter"},
	{"CONTRACK_POLLER_FIRST_POLL", "1s", "how often an account with nothing due looks again: bounds the wait of a new tracking's first poll", false, "Poller.FirstPoll"},
	{"CONTRACK_POLLER_RETRY_BASE", "30s", "first wait after a transient carrier error, doubled per consecutive error up to the interval", false, "Poller.RetryBase"},
	{"CONTRACK_POLLER_WORKERS", "512", "polls in flight in this process", false, "Poller.Workers"},
	{"CONTRACK_POLLER_CARRIER_RATE", "", "platform-wide caps in polls per second over all accounts, only for carriers that need one (env/SCAC=rate,…, e.g. live/MAEU=50: a limit the carrier sets for the platform as a whole, or the platform's own credentials); carriers not named have none, and an account's own rate is its plan's --carrier-rate", false, "Poller.CarrierRate"},
	{"CONTRACK_POLLER_CARRIER_CONCURRENCY", "8", "polls in flight over all accounts of a carrier capped in CONTRACK_POLLER_CARRIER_RATE", false, "Poller.CarrierConcurrency"},
	{"CONTRACK_POLLER_ACCOUNT_CONCURRENCY", "0", "one account's polls in flight per carrier (0: a second's worth of its plan's carrier rate, at least 4)", false, "Poller.AccountConcurrency"},
	{"CONTRACK_POLLER_REFRESH", "5s", "how often the poller re-reads accounts' credentials, plan carrier rates and the pollers alive", false, "Poller.Refresh"},
	{"CONTRACK_POLLER_CAPACITY_EVERY", "10s", "how often each account's polling capacity figures (GET /account) are written", false, "Poller.CapacityEvery"},
	{"CONTRACK_POLLER_ACCOUNT_FAILURES", "5", "consecutive failures of one account at one carrier that pause its polls of that carrier", false, "Poller.AccountFailures"},
	{"CONTRACK_POLLER_ACCOUNT_BACKOFF_MAX", "5m", "longest pause of one account's polls of one carrier", false, "Poller.AccountBackoffMax"},
	{"CONTRACK_POLLER_BREAKER_FAILURES", "5", "consecutive carrier faults (5xx, timeouts) that open a carrier's breaker for every account", false, "Poller.BreakerFailures"},
	{"CONTRACK_POLLER_BREAKER_ACCOUNTS", "2", "accounts the carrier faults must come from to open its breaker", false, "Poller.BreakerAccounts"},
	{"CONTRACK_POLLER_BREAKER_TIMEOUT", "30s", "time before an open carrier breaker lets one probe through", false, "Poller.BreakerTimeout"},
	{"CONTRACK_POLLER_MAX_RECORD_BYTES", "1000000", "largest carrier-raw record produced; larger pages are dead-lettered with their reason", false, "Poller.MaxRecordBytes"},
	{"CONTRACK_POLLER_POLL_TIMEOUT", "1m", "bound of one poll", false, "Poller.PollTimeout"},
	{"CONTRACK_POLLER_EXPECTED_GRACE", "2m", "a tracking whose carrier expects an event before the next poll is polled this long after it", false, "Poller.ExpectedGrace"},
	{"CONTRACK_POLLER_MIN_INTERVAL", "1m", "least time between two polls of a tracking brought forward by an expected event", false, "Poller.MinInterval"},

	{"CONTRACK_NORMALIZE_MAX_TRANSACTION", "2000", "raw records per Kafka transaction of the normaliser at most", false, "Normalize.MaxTransaction"},
	{"CONTRACK_NORMALIZE_TRANSACTION_LINGER", "10ms", "how long a normaliser transaction's first raw records wait for more (fewer transactions at low rates)", false, "Normalize.TransactionLinger"},
	{"CONTRACK_NORMALIZE_TRANSACTIONAL_ID", "", "Kafka transactional id of this normaliser; unique per running instance (empty: random at every start)", false, "Normalize.TransactionalID"},
	{"CONTRACK_NORMALIZE_SEEN_CAPACITY", "200000", "entries of the normaliser's in-memory dedupe cache", false, "Normalize.SeenCapacity"},
	{"CONTRACK_NORMALIZE_ROUTING_CACHE_KEYS", "100000", "looked-up routes of pushed events the normaliser keeps in memory (the routes are in Postgres)", false, "Normalize.RoutingCacheKeys"},
	{"CONTRACK_NORMALIZE_ROUTING_WAIT", "10s", "how long pushed events wait at start-up for the routing index to catch up", false, "Normalize.RoutingWait"},

	{"CONTRACK_PROJECTOR_MAX_BATCH", "20000", "rows per ClickHouse insert of the projector", false, "Projector.MaxBatch"},
	{"CONTRACK_PROJECTOR_MAX_WAIT", "1s", "how long a partial projector batch waits", false, "Projector.MaxWait"},
	{"CONTRACK_PROJECTOR_JOURNEY_MAX_WAIT", "250ms", "how long the journey projection batches (a pull is fresh this long after the event plus an insert)", false, "Projector.JourneyMaxWait"},
	{"CONTRACK_PROJECTOR_JOURNEY_STATE_BYTES", "268435456", "bytes (estimated) of journey states the projector keeps in memory; beyond it the least recently changed are dropped and read from ClickHouse when they change again", false, "Projector.JourneyStateBytes"},
	{"CONTRACK_PROJECTOR_GENERATION_CHECK", "5s", "how often the journey projection looks for a rebuilt generation", false, "Projector.GenerationCheck"},
	{"CONTRACK_PROJECTOR_RETRY_INITIAL", "100ms", "first wait before a failed projector batch (an insert ClickHouse refused) is tried again, doubled per attempt", false, "Projector.Retry.Initial"},
	{"CONTRACK_PROJECTOR_RETRY_MAX", "10s", "longest wait between tries of a failed projector batch", false, "Projector.Retry.Max"},
	{"CONTRACK_PROJECTOR_RETRY_ATTEMPTS", "8", "tries of a failed projector batch before the projector stops with the error (readiness red, process exits)", false, "Projector.Retry.Attempts"},

	{"CONTRACK_DELIVERY_WORKERS", "64", "webhook deliveries in flight in this process that started less than CONTRACK_DELIVERY_SLOW_AFTER ago", false, "Delivery.Workers"},
	{"CONTRACK_DELIVERY_ENDPOINT_CONCURRENCY", "32", "deliveries in flight per endpoint (an account's target host:port), at most CONTRACK_DELIVERY_WORKERS", false, "Delivery.EndpointConcurrency"},
	{"CONTRACK_DELIVERY_SLOW_AFTER", "1s", "past this an attempt keeps only its endpoint's slot, not a shared worker", false, "Delivery.SlowAfter"},
	{"CONTRACK_DELIVERY_TIMEOUT", "15s", "bound of one delivery attempt, connection to last response byte", false, "Delivery.Timeout"},
	{"CONTRACK_DELIVERY_SCHEDULE", "5s,5m,30m,2h,5h,10h,14h,20h,24h", "waits before each retry; a delivery gets one attempt more than the list, then is dead", false, "Delivery.Schedule"},
	{"CONTRACK_DELIVERY_JITTER", "0.2", "fraction of each retry wait added or removed at random, below 1; 0 takes the default, a negative value means none", false, "Delivery.Jitter"},
	{"CONTRACK_DELIVERY_MAX_RETRY_AFTER", "1h", "cap on how far a 429/503 Retry-After pushes the next attempt back", false, "Delivery.MaxRetryAfter"},
	{"CONTRACK_DELIVERY_MAX_BATCH_EVENTS", "100", "events batched into one delivery", false, "Delivery.MaxBatchEvents"},
	{"CONTRACK_DELIVERY_MAX_BATCH_BYTES", "262144", "bytes of event JSON batched into one delivery (a larger single event is sent alone)", false, "Delivery.MaxBatchBytes"},
	{"CONTRACK_DELIVERY_RESPONSE_LIMIT", "4096", "bytes of a webhook response body read", false, "Delivery.ResponseLimit"},
	{"CONTRACK_DELIVERY_BREAKER_FAILURES", "5", "consecutive failed attempts that open an endpoint's circuit breaker", false, "Delivery.BreakerFailures"},
	{"CONTRACK_DELIVERY_BREAKER_TIMEOUT", "30s", "time before an open endpoint breaker lets one probe through", false, "Delivery.BreakerTimeout"},
	{"CONTRACK_DELIVERY_POLL_INTERVAL", "1s", "longest a due delivery waits to be claimed without a signal", false, "Delivery.PollInterval"},
	{"CONTRACK_DELIVERY_LEASE", "50s", "how long a claimed delivery belongs to its process (default timeout + shutdown grace + 30s; must exceed timeout + shutdown grace)", false, "Delivery.Lease"},
	{"CONTRACK_DELIVERY_HEARTBEAT", "1s", "how often a delivery process proves in Postgres that it is alive", false, "Delivery.Heartbeat"},
	{"CONTRACK_DELIVERY_INSTANCE_TIMEOUT", "3s", "heartbeat age after which a process's leased deliveries are resumed by another (at least twice the heartbeat)", false, "Delivery.InstanceTimeout"},
	{"CONTRACK_DELIVERY_SHUTDOWN_GRACE", "5s", "how long in-flight attempts may finish at shutdown; the rest are sent again after a restart", false, "Delivery.ShutdownGrace"},
	{"CONTRACK_DELIVERY_LOG_FLUSH_INTERVAL", "1s", "longest an attempt-log row waits before it is written to ClickHouse", false, "Delivery.LogFlushInterval"},
	{"CONTRACK_DELIVERY_LOG_BATCH_SIZE", "5000", "attempt-log rows per ClickHouse insert", false, "Delivery.LogBatchSize"},
	{"CONTRACK_DELIVERY_LOG_BUFFER", "100000", "attempt-log rows kept while ClickHouse is unreachable (beyond it the oldest are dropped and counted)", false, "Delivery.LogBuffer"},
	{"CONTRACK_DELIVERY_SWEEP_INTERVAL", "30s", "how often stray queued events are batched, failed dead-letter publishes retried and old rows pruned", false, "Delivery.SweepInterval"},
	{"CONTRACK_DELIVERY_RETENTION", "720h", "how long DELIVERED deliveries are kept", false, "Delivery.Retention"},
	{"CONTRACK_DELIVERY_DEAD_RETENTION", "2160h", "how long DEAD deliveries are kept", false, "Delivery.DeadRetention"},
	{"CONTRACK_DELIVERY_METRICS_INTERVAL", "15s", "how often the delivery queue-depth gauges are refreshed", false, "Delivery.MetricsInterval"},

	{"CONTRACK_FEED_RETENTION", "720h", "how long account feed events are kept (at least 720h, the promised 30 days)", false, "Feed.Retention"},
	{"CONTRACK_FEED_PRUNE_INTERVAL", "1h", "how often feed events past retention are deleted", false, "Feed.PruneInterval"},
	{"CONTRACK_FEED_MAX_GROUP", "256", "feed events written in one transaction", false, "Feed.MaxGroup"},
	{"CONTRACK_FEED_POSITIONS_REFRESH", "1m", "how often the feed reads again which vessel each subscription opted in to VESSEL_POSITION items is at sea on", false, "Feed.PositionsRefresh"},

	{"CONTRACK_VESSELS_INTERVAL", "1m", "how often each simulated sandbox ship reports its position (wall time)", false, "Vessels.Interval"},
	{"CONTRACK_VESSELS_SANDBOX_REFRESH", "5m", "how often the vessel simulator reads the open sandbox trackings to know which ships sail", false, "Vessels.SandboxRefresh"},
	{"CONTRACK_VESSELS_MAX_VESSELS", "100000", "most vessels sailed by the simulator and asked of the position provider (beyond it they are left out and counted)", false, "Vessels.MaxVessels"},
	{"CONTRACK_VESSELS_PROVIDER_URL", "", "base URL of the live vessel position provider (Datalastic's vessel_bulk API shape, see docs/vessels.md); empty: live journeys get no vessel positions", false, "Vessels.ProviderURL"},
	{"CONTRACK_VESSELS_PROVIDER_API_KEY", "", "API key of the vessel position provider (required with its URL)", true, "Vessels.ProviderAPIKey"},
	{"CONTRACK_VESSELS_PROVIDER_INTERVAL", "5m", "how often the provider is asked for the live vessels' latest positions", false, "Vessels.ProviderInterval"},
	{"CONTRACK_VESSELS_PROVIDER_BATCH", "100", "IMO numbers per provider request (1 to 100)", false, "Vessels.ProviderBatch"},
	{"CONTRACK_VESSELS_PROVIDER_TIMEOUT", "30s", "bound of one provider request", false, "Vessels.ProviderTimeout"},
	{"CONTRACK_VESSELS_LIVE_REFRESH", "10m", "how often the vessels named by live journeys are read again from ClickHouse", false, "Vessels.LiveRefresh"},
	{"CONTRACK_ALERTS_SWEEP_INTERVAL", "5m", "how often the alerts stage looks at the containers in their terminal for the last free day's alerts (LFD_APPROACHING, DEMURRAGE_STARTED)", false, "Alerts.SweepInterval"},
	{"CONTRACK_ALERTS_WINDOW", "1440h", "containers whose readiness changed within this are followed by the alerts stage", false, "Alerts.Window"},
	{"CONTRACK_ALERTS_SNAPSHOT_INTERVAL", "1h", "how often the demurrage and detention figures are written to ClickHouse for analysts", false, "Alerts.SnapshotInterval"},
}

// derivedFields are the Config fields no variable sets directly, and why:
// loadConfig (or the stage wiring) fills them.
var derivedFields = map[string]string{
	"CarrierURLs":                   "CONTRACK_CARRIER_URL_<SCAC>, one variable per registered carrier",
	"Tracing.Version":               "the binary's version",
	"Delivery.AllowPrivate":         "CONTRACK_ALLOW_PRIVATE_WEBHOOKS",
	"Commands.AllowPrivateWebhooks": "CONTRACK_ALLOW_PRIVATE_WEBHOOKS",
	"Poller.AllowPrivateConnectors": "CONTRACK_ALLOW_PRIVATE_WEBHOOKS (carrier connectors follow the webhook-target rules)",
	"Commands.SubscriptionLifetime": "CONTRACK_SUBSCRIPTION_LIFETIME",
	"Delivery.Version":              "the binary's version",
	"Journeys.CacheBytes":           "CONTRACK_JOURNEY_CACHE_BYTES (0 there disables the cache: -1 here)",
	"Sandbox.Clock":                 "the wall clock",
	"Sandbox.Epoch":                 "today when CONTRACK_SANDBOX_ACCELERATE is above 1, else the journeys' fixed epoch",
}

// loadConfig reads every variable of the table into its field, then
// validates the whole: every error names its variable or field.
func loadConfig() (Config, error) {
	c, err := readEnv()
	if err = errors.Join(err, c.Validate()); err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	return c, nil
}

// readEnv parses the environment into a Config, unvalidated.
func readEnv() (Config, error) {
	var c Config
	var errs []error
	for _, e := range envVars {
		v, set := os.LookupEnv(e.Name)
		v = strings.TrimSpace(v)
		if !set || v == "" {
			if inStageConfig(e.Field) {
				continue // the stage's WithDefaults applies the documented default
			}
			v = e.Default
		}
		if e.Name == "CONTRACK_ADMIN_ADDR" && strings.EqualFold(v, "off") {
			v = ""
		}
		if err := setField(&c, e.Field, v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.Name, err))
		}
	}
	c.CarrierURLs = map[string]string{}
	for _, car := range carriers.All() {
		if v := strings.TrimSpace(os.Getenv("CONTRACK_CARRIER_URL_" + car.SCAC)); v != "" {
			c.CarrierURLs[car.SCAC] = strings.TrimRight(v, "/")
		}
	}
	return c.withDerived(), errors.Join(errs...)
}

// withDerived fills the fields listed in derivedFields that follow from others.
func (c Config) withDerived() Config {
	c.Delivery.AllowPrivate = c.AllowPrivateWebhooks
	c.Commands.AllowPrivateWebhooks = c.AllowPrivateWebhooks
	c.Poller.AllowPrivateConnectors = c.AllowPrivateWebhooks
	c.Commands.SubscriptionLifetime = c.SubscriptionLifetime
	c.Delivery.Version = version
	c.Journeys.CacheBytes = c.JourneyCacheBytes
	if c.JourneyCacheBytes == 0 {
		c.Journeys.CacheBytes = -1 // disabled
	}
	return c
}

// Validate reports every invalid setting: the process's own, then each
// stage's Validate.
func (c Config) Validate() error {
	var errs []error
	bad := func(name, rule string) { errs = append(errs, fmt.Errorf("%s must be %s", name, rule)) }
	if c.EmbeddedKafkaFlush < 0 {
		bad("CONTRACK_EMBEDDED_KAFKA_FLUSH_INTERVAL", "a duration ≥ 0 such as 1s (0: fsync every write)")
	}
	if err := c.KafkaNamespace.Validate(); err != nil {
		bad("CONTRACK_KAFKA_NAMESPACE", "letters, digits, '.', '-' and '_' (at most 64, a dot only between others): "+err.Error())
	}
	if c.KafkaPartitions < 1 || c.KafkaPartitions > 1000 {
		bad("CONTRACK_KAFKA_PARTITIONS", "an integer from 1 to 1000")
	}
	if c.PGMaxConns < 2 || c.PGMaxConns > 1000 {
		bad("CONTRACK_PG_MAX_CONNS", "an integer from 2 to 1000")
	}
	if c.PGAPIMaxConns < 2 || c.PGAPIMaxConns > 1000 {
		bad("CONTRACK_PG_API_MAX_CONNS", "an integer from 2 to 1000")
	}
	if c.SubscriptionLifetime <= 0 {
		bad("CONTRACK_SUBSCRIPTION_LIFETIME", "a positive duration such as 2160h")
	}
	if c.Sandbox.Accelerate != 0 && c.Sandbox.Accelerate < 1 {
		bad("CONTRACK_SANDBOX_ACCELERATE", "a number ≥ 1")
	}
	if c.JourneyCacheBytes < 0 {
		bad("CONTRACK_JOURNEY_CACHE_BYTES", "a non-negative integer")
	}
	if _, err := parseGOGC(c.GOGC); err != nil {
		bad("GOGC", "a percentage of at least 1, or off")
	}
	if c.EventsCombineLinger < 0 || c.EventsCombineLinger > time.Second {
		bad("CONTRACK_EVENTS_COMBINE_LINGER", "a duration from 0 to 1s such as 2ms")
	}
	if c.PreAuthRate < 0 {
		bad("CONTRACK_PREAUTH_RATE", "a number ≥ 0")
	}
	if c.SecretKey != "" {
		if err := checkSecretKey(c.SecretKey); err != nil {
			errs = append(errs, fmt.Errorf("CONTRACK_SECRET_KEY %w", err))
		}
	}
	if _, err := httpapi.ParseTrustedProxies(c.TrustedProxies); err != nil {
		errs = append(errs, fmt.Errorf("CONTRACK_TRUSTED_PROXIES: %w", err))
	} else if c.ClientIPHeader != "" && len(c.TrustedProxies) == 0 {
		errs = append(errs, errors.New("CONTRACK_CLIENT_IP_HEADER needs CONTRACK_TRUSTED_PROXIES: the networks of the proxies that set it (e.g. 10.0.0.0/8); from anyone else the header would let a client choose its own address"))
	}
	if c.Tracing.SampleRatio <= 0 || c.Tracing.SampleRatio > 1 {
		bad("CONTRACK_TRACE_SAMPLE_RATIO", "a number above 0 and at most 1")
	}
	if c.ShutdownTimeout < 0 {
		bad("CONTRACK_SHUTDOWN_TIMEOUT", "a positive duration such as 20s")
	} else if grace := c.Delivery.WithDefaults().ShutdownGrace; c.shutdownTimeout() <= grace {
		bad("CONTRACK_SHUTDOWN_TIMEOUT", fmt.Sprintf("longer than CONTRACK_DELIVERY_SHUTDOWN_GRACE (%s)", grace))
	}
	for name, v := range map[string]string{"CONTRACK_LOG_LEVEL": c.LogLevel, "CONTRACK_KAFKA_LOG_LEVEL": c.KafkaLogLevel} {
		var l slog.Level
		if err := l.UnmarshalText([]byte(v)); v != "" && err != nil {
			bad(name, "debug, info, warn or error")
		}
	}
	errs = append(errs,
		c.Tracing.Validate(), c.Loops.Validate(), c.Commands.Validate(), c.Relay.Validate(), c.Lifecycle.Validate(), c.Journeys.Validate(), c.Sandbox.Validate(),
		c.Poller.Validate(), c.Normalize.Validate(), c.Projector.Validate(), c.Delivery.Validate(), c.Feed.Validate(), c.Vessels.Validate(), c.Alerts.Validate())
	return errors.Join(errs...)
}

// shutdownTimeout is ShutdownTimeout or its default.
func (c Config) shutdownTimeout() time.Duration {
	if c.ShutdownTimeout > 0 {
		return c.ShutdownTimeout
	}
	return defaultShutdownTimeout
}

// clickHouse is the ClickHouse user contrack connects as.
func (c Config) clickHouse() clickhouse.Credentials {
	return clickhouse.Credentials{User: c.ClickHouseUser, Password: c.ClickHousePassword}
}

// brokers returns the seed brokers: KAFKA_BROKERS, or the embedded broker's address.
func (c Config) brokers() []string {
	if len(c.KafkaBrokers) > 0 {
		return c.KafkaBrokers
	}
	return []string{c.EmbeddedKafkaAddr}
}

// printConfig prints the loaded configuration, one variable a line, with
// each stage's defaults applied and secrets masked.
func printConfig(w io.Writer, c Config) {
	eff := withStageDefaults(c)
	for _, e := range envVars {
		f := fieldByPath(reflect.ValueOf(eff), e.Field)
		shown := formatField(f)
		_, set := os.LookupEnv(e.Name)
		switch {
		case e.Name == "CONTRACK_SECRET_KEY" && !set:
			shown = "(unset: generated once into " + filepath.Join(c.DataDir, secretKeyFile) + ")"
		case e.Name == "CONTRACK_ADMIN_ADDR" && shown == "":
			shown = "off"
		case e.Name == "CONTRACK_NORMALIZE_TRANSACTIONAL_ID" && c.Normalize.TransactionalID == "":
			shown = "(unset: random at every start)"
		case e.Name == "CONTRACK_PG_URL":
			shown = maskURLPassword(shown)
		case e.Secret && f.Kind() == reflect.Map && f.Len() > 0:
			shown = maskMapValues(f)
		case e.Secret && shown != "":
			shown = secretbox.Mask(shown)
		case shown == "":
			shown = "(empty)"
		}
		fmt.Fprintf(w, "%-40s %s\n", e.Name, shown)
	}
	for _, car := range carriers.All() {
		name := "CONTRACK_CARRIER_URL_" + car.SCAC
		v := c.CarrierURLs[car.SCAC]
		if v == "" {
			v = "(unset: live " + car.Name + " trackings are not polled)"
		}
		fmt.Fprintf(w, "%-40s %s\n", name, v)
	}
}

// maskMapValues writes a map of secrets with every value hidden.
func maskMapValues(m reflect.Value) string {
	var items []string
	for _, k := range m.MapKeys() {
		items = append(items, k.String()+"=****")
	}
	slices.Sort(items)
	return strings.Join(items, ",")
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

// shippedSecretKeys are the values of CONTRACK_SECRET_KEY that this
// repository has ever shipped (examples, placeholders, fixtures in docs):
// public, so refused whatever their strength. TestShippedSecretKeysAreRefused
// finds every value the repository assigns to the variable and fails until
// it is refused.
var shippedSecretKeys = []string{
	"compose-example-key-replace-me-in-contrack-env", // deploy/contrack.env.example, until issue 30
	"replace-me", // the Kubernetes base Secret, until issue 30
}

// checkSecretKey refuses a key shipped in the repository or too weak to
// hold 32 random bytes (secretbox.CheckKey); the error reads after the
// variable's name.
func checkSecretKey(key string) error {
	if slices.Contains(shippedSecretKeys, key) {
		return errors.New("is a value published in contrack's repository; generate your own: `openssl rand -base64 32`")
	}
	if err := secretbox.CheckKey(key); err != nil {
		return err
	}
	return nil
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
	if err := checkSecretKey(key); err != nil {
		return "", fmt.Errorf("the key in it %w", err)
	}
	return key, nil
}
