// Package testenv gives integration tests fresh, isolated stores and a
// Kafka-protocol broker. By default (`make test`) they are the local services
// (deploy/services.sh) and an in-process kfake; with CONTRACK_TEST_CONTAINERS=1
// and a Docker engine answering they are containers started by
// testcontainers-go (apache/kafka in KRaft mode, postgres:15, a current
// ClickHouse; see containers.go and docs/testing.md); variables naming a
// server win over both:
//
//   - Postgres: a new database per test, cloned from a migrated template
//     (server from CONTRACK_TEST_PG_URL, else the process's container, else
//     the local 127.0.0.1:5432).
//   - ClickHouse: a new migrated database per test (CONTRACK_TEST_CLICKHOUSE_ADDR,
//     else the process's container, else 127.0.0.1:9000).
//   - Kafka: CONTRACK_TEST_KAFKA_BROKERS if set (tests then share its topics:
//     run packages one at a time), else a broker per test — a container, or an
//     in-process kfake cluster — because a broker per test is what isolates
//     tests that assert on a topic's whole content.
//
// Each store is dropped when the test ends. In -short mode (`make unit`)
// a test that needs Postgres or ClickHouse is skipped with one line saying
// so; otherwise an unreachable store fails the test with the reason and the
// command that starts the local services. Kafka is in-process (kfake), so
// Kafka tests run in -short mode too.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/migrations"
)

const hint = "start the local services with deploy/services.sh (or `make services`)"

// Log returns a logger for tests. With CONTRACK_TEST_LOG=1 it writes
// everything to stderr. Otherwise it keeps the test's last logTail bytes
// of info and above, and prints them when the test fails: a failure under
// load (a 500, a wait that timed out) comes with what the stages said.
func Log(t testing.TB) *slog.Logger {
	if os.Getenv("CONTRACK_TEST_LOG") == "1" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("test", t.Name())
	}
	return slog.New(slog.NewTextHandler(tailOf(t), nil))
}

// logTail bounds the log a test keeps for its failure.
const logTail = 32 << 10

// testTail is the end of one test's log, shared by every Log(t) of it.
type testTail struct {
	mu  sync.Mutex
	buf []byte
}

func (w *testTail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - logTail; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}

var (
	tailsMu sync.Mutex
	tails   = map[testing.TB]*testTail{}
)

func tailOf(t testing.TB) io.Writer {
	tailsMu.Lock()
	defer tailsMu.Unlock()
	if w := tails[t]; w != nil {
		return w
	}
	w := &testTail{}
	tails[t] = w
	t.Cleanup(func() {
		tailsMu.Lock()
		delete(tails, t)
		tailsMu.Unlock()
		w.mu.Lock()
		defer w.mu.Unlock()
		if t.Failed() && len(w.buf) > 0 {
			t.Logf("the test's log, its last %d bytes (CONTRACK_TEST_LOG=1 prints all of it):\n%s", len(w.buf), w.buf)
		}
	})
	return w
}

func randomSuffix() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// SkipShort skips t in -short mode (`make unit`, no services running):
// service names what the test needs. Postgres and ClickHouse call it; a test
// that reaches a server through PGServerURL or CHAddr calls it first.
func SkipShort(t testing.TB, service string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs %s: skipped in -short mode (make unit)", service)
	}
}

// PGServerURL is the URL of the Postgres server tests create databases on.
func PGServerURL() string {
	if v := os.Getenv("CONTRACK_TEST_PG_URL"); v != "" {
		return v
	}
	if url, ok := containerServer(func(s *containerStores) string { return s.pgURL }); ok {
		return url
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// withDatabase replaces the database (path) of a postgres:// URL.
func withDatabase(url, db string) string {
	before, after, _ := strings.Cut(url, "?")
	i := strings.LastIndex(before, "/")
	out := before[:i+1] + db
	if after != "" {
		out += "?" + after
	}
	return out
}

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// templateDB creates (once per process, under an advisory lock across
// processes) a migrated template database named after the migrations' content.
func templateDB(ctx context.Context) (string, error) {
	templateOnce.Do(func() {
		ms, err := migrations.Postgres()
		if err != nil {
			templateErr = err
			return
		}
		// The bookkeeping's shape is part of the name: a template made by
		// an older Migrate (no checksums) is not reused.
		h := fnv64().add("schema_migrations with checksums")
		for _, m := range ms {
			h = h.add(m.Name).add(m.SQL)
		}
		templateName = fmt.Sprintf("contrack_tmpl_%016x", uint64(h))
		conn, err := pgx.Connect(ctx, PGServerURL())
		if err != nil {
			templateErr = fmt.Errorf("connect to test postgres: %w (%s)", err, hint)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(7402114)`); err != nil {
			templateErr = err
			return
		}
		// The lock goes with the connection too, closed right after.
		defer func() { _, _ = conn.Exec(ctx, `SELECT pg_advisory_unlock(7402114)`) }()
		var exists bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, templateName).Scan(&exists); err != nil {
			templateErr = err
			return
		}
		if exists {
			return
		}
		building := templateName + "_building"
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+building); err != nil {
			templateErr = fmt.Errorf("drop a half-built template: %w", err)
			return
		}
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+building); err != nil {
			templateErr = fmt.Errorf("create template: %w", err)
			return
		}
		pool, err := pgxpool.New(ctx, withDatabase(PGServerURL(), building))
		if err != nil {
			templateErr = err
			return
		}
		_, err = postgres.Migrate(ctx, pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
		pool.Close()
		if err != nil {
			templateErr = fmt.Errorf("migrate template: %w", err)
			return
		}
		if _, err := conn.Exec(ctx, "ALTER DATABASE "+building+" RENAME TO "+templateName); err != nil {
			templateErr = fmt.Errorf("rename template: %w", err)
		}
	})
	return templateName, templateErr
}

type fnv uint64

func fnv64() fnv { return 14695981039346656037 }
func (h fnv) add(s string) fnv {
	for i := 0; i < len(s); i++ {
		h ^= fnv(s[i])
		h *= 1099511628211
	}
	return h
}

// PGDatabase is a fresh migrated Postgres database for one test.
type PGDatabase struct {
	Pool *pgxpool.Pool
	URL  string
	Name string
}

// Postgres returns a fresh migrated database, dropped when the test ends.
func Postgres(t testing.TB) PGDatabase {
	t.Helper()
	SkipShort(t, "Postgres")
	if os.Getenv("CONTRACK_TEST_PG_URL") == "" {
		checkContainerStores(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(60*time.Second))
	defer cancel()
	tmpl, err := templateDB(ctx)
	if err != nil {
		t.Fatalf("testenv: postgres template: %v", err)
	}
	name := "contrack_test_" + randomSuffix()
	conn, err := pgx.Connect(ctx, PGServerURL())
	if err != nil {
		t.Fatalf("testenv: connect to postgres: %v (%s)", err, hint)
	}
	defer conn.Close(ctx)
	for attempt := 0; ; attempt++ {
		_, err = conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+tmpl)
		if err == nil || attempt == 20 {
			break
		}
		time.Sleep(100 * time.Millisecond) // template briefly in use by a concurrent clone
	}
	if err != nil {
		t.Fatalf("testenv: create database: %v", err)
	}
	url := withDatabase(PGServerURL(), name)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatalf("testenv: open %s: %v", name, err)
	}
	t.Cleanup(func() {
		pool.Close()
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
		defer cancel()
		c, err := pgx.Connect(ctx, PGServerURL())
		if err != nil {
			t.Logf("testenv: database %s left behind: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("testenv: database %s left behind: %v", name, err)
		}
	})
	return PGDatabase{Pool: pool, URL: url, Name: name}
}

// CHAddr is the ClickHouse server tests use.
func CHAddr() string {
	if v := os.Getenv("CONTRACK_TEST_CLICKHOUSE_ADDR"); v != "" {
		return v
	}
	if addr, ok := containerServer(func(s *containerStores) string { return s.chAddr }); ok {
		return addr
	}
	return "127.0.0.1:9000"
}

// CHDatabase is a fresh migrated ClickHouse database for one test.
type CHDatabase struct {
	Conn driver.Conn
	Addr string
	Name string
}

// ClickHouse returns a fresh migrated database, dropped when the test ends.
func ClickHouse(t testing.TB) CHDatabase {
	t.Helper()
	SkipShort(t, "ClickHouse")
	if os.Getenv("CONTRACK_TEST_CLICKHOUSE_ADDR") == "" {
		checkContainerStores(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(60*time.Second))
	defer cancel()
	name := "contrack_test_" + randomSuffix()
	conn, err := clickhouse.Open(ctx, CHAddr(), name)
	if err != nil {
		t.Fatalf("testenv: clickhouse: %v (%s)", err, hint)
	}
	if _, err := clickhouse.Migrate(ctx, conn, Log(t)); err != nil {
		t.Fatalf("testenv: clickhouse migrate: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
		defer cancel()
		if err := conn.Exec(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			t.Logf("testenv: clickhouse database %s left behind: %v", name, err)
		}
		conn.Close()
	})
	return CHDatabase{Conn: conn, Addr: CHAddr(), Name: name}
}

// KafkaCluster is the Kafka of one test: seed brokers, and the namespace
// its topics, consumer groups and transactional ids live in. A test names
// a topic or group through it (k.Topic(schemas.TopicEvents)), so it reads
// only its own records on a cluster shared with other tests.
type KafkaCluster struct {
	Brokers []string
	NS      schemas.Namespace
}

// Topic is the name of the logical topic t in the test's namespace.
func (k KafkaCluster) Topic(t string) string { return k.NS.Topic(t) }

// Group is the name of the logical consumer group g in the test's namespace.
func (k KafkaCluster) Group(g string) string { return k.NS.Group(g) }

// RealKafka reports whether tests run on a shared real cluster
// (CONTRACK_TEST_KAFKA_BROKERS, as `make test-kafka` sets it) rather than a
// broker of their own.
func RealKafka() bool { return os.Getenv("CONTRACK_TEST_KAFKA_BROKERS") != "" }

// Kafka returns a Kafka-protocol cluster with every contrack topic created
// (partitions each) in the test's namespace. With
// CONTRACK_TEST_KAFKA_BROKERS set (make test-kafka) it is that shared
// cluster and a fresh namespace, whose topics and groups are deleted when
// the test ends; otherwise a broker of the test's own (a container with
// CONTRACK_TEST_CONTAINERS=1, else an in-process kfake) and no namespace.
func Kafka(t testing.TB, partitions int32) KafkaCluster {
	t.Helper()
	var k KafkaCluster
	if v := os.Getenv("CONTRACK_TEST_KAFKA_BROKERS"); v != "" {
		k = KafkaCluster{Brokers: strings.Split(v, ","), NS: schemas.Namespace("test-" + randomSuffix())}
	} else if useContainers() {
		k.Brokers = containerKafka(t, partitions)
	} else {
		c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DefaultNumPartitions(int(partitions)))
		if err != nil {
			t.Fatalf("testenv: kfake: %v", err)
		}
		t.Cleanup(c.Close)
		k.Brokers = c.ListenAddrs()
	}
	cl, err := kafka.NewClient(k.Brokers, Log(t))
	if err != nil {
		t.Fatalf("testenv: kafka client: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(60*time.Second))
	defer cancel()
	if err := kafka.EnsureTopics(ctx, cl, k.NS, partitions, schemas.AllTopics...); err != nil {
		t.Fatalf("testenv: topics: %v", err)
	}
	if k.NS != "" {
		t.Cleanup(func() { dropNamespace(t, k) })
	}
	return k
}

// dropNamespace deletes the topics and consumer groups of a test's
// namespace, so a long run leaves the shared cluster as it found it.
// Best effort: a failure is logged, not a test failure.
func dropNamespace(t testing.TB, k KafkaCluster) {
	cl, err := kafka.NewClient(k.Brokers, Log(t))
	if err != nil {
		t.Logf("testenv: drop namespace %s: %v", k.NS, err)
		return
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	if err := kafka.DeleteNamespace(ctx, cl, k.NS); err != nil {
		t.Logf("testenv: %v", err)
	}
}

// KafkaClient returns a client on brokers closed when the test ends.
func KafkaClient(t testing.TB, brokers []string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kafka.NewClient(brokers, Log(t), opts...)
	if err != nil {
		t.Fatalf("testenv: kafka client: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// RunStage runs a stage's Run in the background until the returned stop is
// called or the test ends; stop reports an error Run returned, or that it
// did not return within 30 s of its context ending.
func RunStage(t testing.TB, name string, run func(ctx context.Context) error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
			case <-time.After(testkit.Scale(30 * time.Second)):
				t.Errorf("%s did not stop within 30 s", name)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// RowsRead wraps the statements of b in a batch that also reads, before and
// after them, the rows read from each of tables (by sequential scans and by
// every one of their indexes); read is filled with the difference when the
// batch runs. A pgx batch is one transaction, so the difference is what b's
// statements read. It tells a probe by key (a few rows) from a plan that
// reads a whole table, whatever plan Postgres chose.
func RowsRead(b *pgx.Batch, tables []string) (wrapped *pgx.Batch, read map[string]int64) {
	read = map[string]int64{}
	const counts = `
		SELECT c.relname::text, pg_stat_get_xact_tuples_returned(c.oid) + coalesce((
			SELECT sum(pg_stat_get_xact_tuples_returned(i.indexrelid)) FROM pg_index i WHERE i.indrelid = c.oid), 0)::bigint
		FROM pg_class c WHERE c.relname = ANY($1) AND c.relnamespace = 'public'::regnamespace`
	add := func(sign int64) func(pgx.Rows) error {
		return func(rows pgx.Rows) error {
			var table string
			var n int64
			_, err := pgx.ForEachRow(rows, []any{&table, &n}, func() error {
				read[table] += sign * n
				return nil
			})
			return err
		}
	}
	wrapped = &pgx.Batch{}
	wrapped.Queue(counts, tables).Query(add(-1))
	wrapped.QueuedQueries = append(wrapped.QueuedQueries, b.QueuedQueries...)
	wrapped.Queue(counts, tables).Query(add(1))
	return wrapped, read
}

// MigratedBefore is a connection to db whose search path is a schema of its
// own ("premig") holding the Postgres migrations before version, and a
// function that applies the rest there: a migration's test fills the
// schema as the releases before it left it, then migrates.
func MigratedBefore(t testing.TB, db PGDatabase, version int) (conn *pgxpool.Conn, migrate func()) {
	t.Helper()
	ctx := context.Background()
	ms, err := migrations.Postgres()
	if err != nil {
		t.Fatal(err)
	}
	conn, err = db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := conn.Exec(ctx, `RESET search_path`); err != nil {
			t.Errorf("testenv: reset search_path: %v", err)
		}
		conn.Release()
	})
	if _, err := conn.Exec(ctx, `CREATE SCHEMA premig; SET search_path TO premig`); err != nil {
		t.Fatal(err)
	}
	apply := func(before bool) {
		for _, m := range ms {
			if (m.Version < version) == before {
				if _, err := conn.Exec(ctx, m.SQL); err != nil {
					t.Fatalf("migration %d: %v", m.Version, err)
				}
			}
		}
	}
	apply(true)
	return conn, func() { t.Helper(); apply(false) }
}

// PoolVia returns a pool on db whose connections go through a
// testkit.Proxy, and the proxy: Cut makes Postgres unreachable for that
// pool alone (a stage under test), while db.Pool and every other test
// sharing the server go on. Closed when the test ends.
func PoolVia(t testing.TB, db PGDatabase) (*pgxpool.Pool, *testkit.Proxy) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(db.URL)
	if err != nil {
		t.Fatalf("testenv: parse %s: %v", db.Name, err)
	}
	proxy := testkit.NewProxy(t, fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port))
	host, port, _ := strings.Cut(proxy.Addr(), ":")
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		t.Fatalf("testenv: proxy address %s: %v", proxy.Addr(), err)
	}
	cfg.ConnConfig.Host, cfg.ConnConfig.Port = host, uint16(p)
	// Connections through a cut proxy fail fast, not after the OS's timeouts.
	cfg.ConnConfig.ConnectTimeout = 2 * time.Second
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("testenv: pool via proxy: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool, proxy
}
