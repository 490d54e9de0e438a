package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	tcclickhouse "github.com/testcontainers/testcontainers-go/modules/clickhouse"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
	"github.com/testcontainers/testcontainers-go/wait"
)

// ContainersVar switches the suite's stores to containers started by
// testcontainers-go: "1" asks for them (used when a Docker engine answers,
// else one line says they were skipped and the local services and kfake are
// used); unset or "0" — the default, `make test` — never touches Docker.
const ContainersVar = "CONTRACK_TEST_CONTAINERS"

// Images of the containers: the official Apache Kafka image in KRaft mode,
// the Postgres major version production runs, a current ClickHouse LTS.
const (
	KafkaImage      = "apache/kafka:4.1.0"
	PostgresImage   = "postgres:15"
	ClickHouseImage = "clickhouse/clickhouse-server:25.8"
)

// dockerProbeTimeout bounds the question "does a Docker engine answer?".
const dockerProbeTimeout = 3 * time.Second

// DecideContainers says whether to use containers for the setting of
// ContainersVar, asking probe (is a Docker engine there?) only when the
// setting asks for containers. line, when not "", is the one line to print.
func DecideContainers(setting string, probe func(context.Context) error) (use bool, line string) {
	switch setting {
	case "", "0":
		return false, ""
	case "1":
		ctx, cancel := context.WithTimeout(context.Background(), dockerProbeTimeout)
		defer cancel()
		if err := probe(ctx); err != nil {
			return false, SkipLine(err)
		}
		return true, ""
	default:
		return false, fmt.Sprintf("testenv: %s=%q is neither 1 nor 0: skipped containers; using the local services and kfake", ContainersVar, oneLine(setting))
	}
}

// SkipLine is the line that says containers were skipped because no Docker
// engine answered (err says why), on one line whatever err contains.
func SkipLine(err error) string {
	return fmt.Sprintf("testenv: skipped containers (%s=1): no Docker engine answered (%s); using the local services and kfake",
		ContainersVar, oneLine(err.Error()))
}

// oneLine folds s onto one line of at most 200 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// ProbeDocker reports whether a Docker engine answers (nil) through
// testcontainers-go's own discovery (DOCKER_HOST, Docker contexts,
// ~/.testcontainers.properties, the usual sockets).
func ProbeDocker(ctx context.Context) error {
	quietTestcontainers()
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return err
	}
	defer p.Close()
	if err := p.Health(ctx); err != nil {
		return err
	}
	return nil
}

// quietTestcontainers keeps testcontainers-go's own logging (banners,
// container events) out of the test output unless CONTRACK_TEST_LOG=1.
func quietTestcontainers() {
	if os.Getenv("CONTRACK_TEST_LOG") != "1" {
		tclog.SetDefault(tclog.NewNoopLogger())
	}
}

// containerStores are the Postgres and ClickHouse containers of this test
// process, started on first use and removed by testcontainers' reaper when
// the process ends. Each test still gets its own database on them.
type containerStores struct {
	pgURL, chAddr string
}

var (
	containersOnce sync.Once
	containersUsed bool
	storesOnce     sync.Once
	stores         *containerStores
	storesErr      error
)

// useContainers is the process's decision, taken once; the skip line, if
// any, is printed once to stderr.
func useContainers() bool {
	containersOnce.Do(func() {
		var line string
		containersUsed, line = DecideContainers(os.Getenv(ContainersVar), ProbeDocker)
		if line != "" {
			fmt.Fprintln(os.Stderr, line)
		}
	})
	return containersUsed
}

// containerStoreAddrs starts (once) the Postgres and ClickHouse containers.
func containerStoreAddrs() (*containerStores, error) {
	storesOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		stores, storesErr = startStores(ctx)
	})
	return stores, storesErr
}

func startStores(ctx context.Context) (*containerStores, error) {
	quietTestcontainers()
	pg, err := tcpostgres.Run(ctx, PostgresImage,
		tcpostgres.WithUsername("postgres"), tcpostgres.WithPassword("postgres"), tcpostgres.WithDatabase("postgres"),
		tcpostgres.BasicWaitStrategies())
	if err != nil {
		return nil, fmt.Errorf("testenv: start %s: %w", PostgresImage, err)
	}
	pgURL, err := pg.ConnectionString(ctx, "sslmode=disable")
	if err != nil {
		return nil, fmt.Errorf("testenv: %s address: %w", PostgresImage, err)
	}
	// contrack connects to ClickHouse as `default` without a password: keep
	// that user reachable over the network (the image restricts it otherwise).
	ch, err := tcclickhouse.Run(ctx, ClickHouseImage, testcontainers.WithEnv(map[string]string{
		"CLICKHOUSE_USER": "default", "CLICKHOUSE_PASSWORD": "", "CLICKHOUSE_DB": "default", "CLICKHOUSE_SKIP_USER_SETUP": "1"}))
	if err != nil {
		return nil, fmt.Errorf("testenv: start %s: %w", ClickHouseImage, err)
	}
	chAddr, err := ch.ConnectionHost(ctx)
	if err != nil {
		return nil, fmt.Errorf("testenv: %s address: %w", ClickHouseImage, err)
	}
	return &containerStores{pgURL: pgURL, chAddr: chAddr}, nil
}

// containerServer is the address a store accessor returns for a process
// that asked for containers (pick chooses which), ok false otherwise. A
// container that does not start is reported by the tests that need it
// (storesErr), never replaced silently by other servers.
func containerServer(pick func(*containerStores) string) (string, bool) {
	if !useContainers() {
		return "", false
	}
	s, err := containerStoreAddrs()
	if err != nil {
		return "", false
	}
	return pick(s), true
}

// checkContainerStores fails t when this process asked for containers and
// they did not start.
func checkContainerStores(t testing.TB) {
	t.Helper()
	if !useContainers() {
		return
	}
	if _, err := containerStoreAddrs(); err != nil {
		t.Fatal(err)
	}
}

// Kafka in a container: the broker advertises the host port Docker mapped,
// known only once the container runs, so the container waits for a file
// that names it, then starts the image's own launcher.
const (
	kafkaExternal   = "9093/tcp"
	kafkaAdvertised = "/tmp/contrack-advertised-listeners"
	kafkaClusterID  = "cTrKcOnTrAcKcLuStEr0Aw"
)

// kafkaContainer starts a single-node KRaft broker for one test (a broker
// per test, as with kfake: tests assert on whole topics) with partitions as
// the default partition count, and returns its address and its removal.
func kafkaContainer(ctx context.Context, partitions int32) (addr string, terminate func() error, err error) {
	quietTestcontainers()
	ctr, err := testcontainers.Run(ctx, KafkaImage,
		testcontainers.WithExposedPorts(kafkaExternal),
		testcontainers.WithEnv(map[string]string{
			"CLUSTER_ID":                                     kafkaClusterID,
			"KAFKA_NODE_ID":                                  "1",
			"KAFKA_PROCESS_ROLES":                            "broker,controller",
			"KAFKA_LISTENERS":                                "PLAINTEXT://0.0.0.0:9093,BROKER://0.0.0.0:9092,CONTROLLER://0.0.0.0:9094",
			"KAFKA_LISTENER_SECURITY_PROTOCOL_MAP":           "PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT",
			"KAFKA_INTER_BROKER_LISTENER_NAME":               "BROKER",
			"KAFKA_CONTROLLER_LISTENER_NAMES":                "CONTROLLER",
			"KAFKA_CONTROLLER_QUORUM_VOTERS":                 "1@localhost:9094",
			"KAFKA_AUTO_CREATE_TOPICS_ENABLE":                "false",
			"KAFKA_NUM_PARTITIONS":                           fmt.Sprint(partitions),
			"KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR":         "1",
			"KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS":             "1",
			"KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
			"KAFKA_TRANSACTION_STATE_LOG_MIN_ISR":            "1",
			"KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS":     "1",
			"KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS":         "0",
		}),
		testcontainers.WithEntrypoint("sh", "-c",
			"while [ ! -f "+kafkaAdvertised+" ]; do sleep 0.1; done; . "+kafkaAdvertised+"; exec /etc/kafka/docker/run"),
		testcontainers.WithLifecycleHooks(testcontainers.ContainerLifecycleHooks{
			PostStarts: []testcontainers.ContainerHook{func(ctx context.Context, c testcontainers.Container) error {
				if err := wait.ForMappedPort(kafkaExternal).WaitUntilReady(ctx, c); err != nil {
					return fmt.Errorf("kafka port: %w", err)
				}
				ep, err := c.PortEndpoint(ctx, kafkaExternal, "")
				if err != nil {
					return fmt.Errorf("kafka port: %w", err)
				}
				inspect, err := c.Inspect(ctx)
				if err != nil {
					return fmt.Errorf("kafka inspect: %w", err)
				}
				env := fmt.Sprintf("export KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://%s,BROKER://%s:9092\n", ep, inspect.Config.Hostname)
				if err := c.CopyToContainer(ctx, []byte(env), kafkaAdvertised, 0o644); err != nil {
					return fmt.Errorf("kafka listeners: %w", err)
				}
				return wait.ForLog("Kafka Server started").WithStartupTimeout(2*time.Minute).WaitUntilReady(ctx, c)
			}},
		}),
	)
	terminate = func() error {
		if ctr == nil {
			return nil
		}
		return testcontainers.TerminateContainer(ctr)
	}
	if err != nil {
		return "", nil, errors.Join(fmt.Errorf("start %s: %w", KafkaImage, err), terminate())
	}
	addr, err = ctr.PortEndpoint(ctx, kafkaExternal, "")
	if err != nil {
		return "", nil, errors.Join(fmt.Errorf("%s address: %w", KafkaImage, err), terminate())
	}
	return addr, terminate, nil
}

// containerKafka is Kafka's seed brokers from a container for one test,
// removed when the test ends.
func containerKafka(t testing.TB, partitions int32) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	addr, terminate, err := kafkaContainer(ctx, partitions)
	if err != nil {
		t.Fatalf("testenv: kafka container: %v", err)
	}
	t.Cleanup(func() {
		if err := terminate(); err != nil {
			t.Errorf("testenv: remove kafka container: %v", err)
		}
	})
	return []string{addr}
}
