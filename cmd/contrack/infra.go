package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/cmd/contrack/roles"
	"github.com/contrack/contrack/feed"
	"github.com/contrack/contrack/ingest/poller"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas"
)

// infra holds the connections a process shares between its stages.
type infra struct {
	box   *secretbox.Box
	pg    *pgxpool.Pool // the stages' pool
	apiPG *pgxpool.Pool // the HTTP API's own pool (serveAPI), nil elsewhere
	ch    driver.Conn
	kafka *kgo.Client // producer client (the router's)
	// router is the process's stream runtime: the role's stages register
	// their routes with it and run them through it.
	router *kafka.Router
	// feed wakes GET /subscriptions/events long-polls (serveAPI); nil: they poll.
	feed *feed.Notifier

	usage *auth.DailyUsage // plans' daily quotas (serveAPI); nil: not enforced

	// gates are the carrier gates the poller and the API's probes share
	// (made by openInfra; carrierGates).
	gates *poller.Gates

	// metrics is the process's registry: its stages register on it and
	// the admin listener serves it. Nil in tests that need none.
	metrics *prometheus.Registry
	// stream are the stream runtime's collectors on metrics, shared by the
	// process's consumers (labelled by consumer).
	stream *kafka.Metrics
	// health answers /healthz and /readyz; loops supervises every
	// long-running loop of the process (counted on metrics, failing ones
	// reported to health).
	health *httpapi.Health
	loops  *loop.Supervisor
	// journeys is the API's journey reader (serveAPI), followed under the
	// process's errgroup; nil elsewhere.
	journeys *queryapi.Journeys
}

// openInfra connects to Postgres, ClickHouse and Kafka, applies migrations
// and creates topics: every stage does this at start-up.
func openInfra(ctx context.Context, cfg Config, role string, log *slog.Logger) (*infra, error) {
	in := &infra{metrics: httpapi.NewRegistry(role, version), gates: newCarrierGates(cfg, log)}
	in.health = httpapi.NewHealth(in.checks(), 0, log)
	var err error
	if in.stream, err = kafka.NewMetrics(in.metrics); err != nil {
		return nil, err
	}
	if in.loops, err = loop.New(cfg.Loops, in.metrics, in.health, log); err != nil {
		return nil, err
	}
	if in.box, err = secretbox.New(cfg.SecretKey, cfg.SecretKeysPrevious...); err != nil {
		return nil, err
	}
	if in.pg, err = postgres.OpenPool(ctx, cfg.PGURL, cfg.PGMaxConns); err != nil {
		return nil, err
	}
	if _, err = postgres.Migrate(ctx, in.pg, log); err != nil {
		in.close(log)
		return nil, err
	}
	if in.ch, err = clickhouse.OpenAs(ctx, cfg.ClickHouseAddr, cfg.ClickHouseDB, cfg.clickHouse()); err != nil {
		in.close(log)
		return nil, err
	}
	if _, err = migrateClickHouse(ctx, in.pg, in.ch, log); err != nil {
		in.close(log)
		return nil, err
	}
	// The process's router runs its stages' routes (the role table's) and
	// owns the producer they share.
	in.router = kafka.NewRouter(kafka.RouterConfig{Brokers: cfg.brokers(), Namespace: cfg.KafkaNamespace, Log: log,
		Metrics: in.stream, Loops: in.loops})
	if r, ok := roles.Lookup(role); ok {
		if err = registerRoutes(in.router, r); err != nil {
			in.close(log)
			return nil, err
		}
	}
	if in.kafka, err = in.router.Producer(); err != nil {
		in.close(log)
		return nil, err
	}
	if err = kafka.EnsureTopics(ctx, in.kafka, cfg.KafkaNamespace, int32(cfg.KafkaPartitions), schemas.AllTopics...); err != nil {
		in.close(log)
		return nil, err
	}
	return in, nil
}

// close flushes Kafka and closes every connection. A flush that fails
// (records produced and not acknowledged: the broker is gone) is logged.
func (in *infra) close(log *slog.Logger) {
	if in.kafka != nil {
		fctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := in.kafka.Flush(fctx); err != nil {
			log.Error("kafka producer not flushed at exit; records produced since the last acknowledgement may be lost", "err", err)
		}
		cancel()
		in.kafka.Close()
	}
	if in.ch != nil {
		in.ch.Close()
	}
	if in.apiPG != nil {
		in.apiPG.Close()
	}
	if in.pg != nil {
		in.pg.Close()
	}
}

func (in *infra) checks() []httpapi.Check {
	return []httpapi.Check{
		{Name: "postgres", Ping: func(ctx context.Context) error { return in.pg.Ping(ctx) }},
		{Name: "clickhouse", Ping: func(ctx context.Context) error { return clickhouse.Ping(ctx, in.ch) }},
		{Name: "kafka", Ping: func(ctx context.Context) error { return kafka.Ping(ctx, in.kafka) }},
	}
}

func runMigrate(ctx context.Context, cfg Config, log *slog.Logger) error {
	pool, err := postgres.Open(ctx, cfg.PGURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	n, err := postgres.Migrate(ctx, pool, log)
	if err != nil {
		return err
	}
	fmt.Printf("postgres: %d migration(s) applied\n", n)
	conn, err := clickhouse.OpenAs(ctx, cfg.ClickHouseAddr, cfg.ClickHouseDB, cfg.clickHouse())
	if err != nil {
		return err
	}
	defer conn.Close()
	n, err = migrateClickHouse(ctx, pool, conn, log)
	if err != nil {
		return err
	}
	fmt.Printf("clickhouse: %d migration(s) applied\n", n)
	return nil
}

// migrateClickHouse applies the ClickHouse migrations under a Postgres
// advisory lock: every stage migrates at start-up, and ClickHouse cannot
// serialise them itself.
func migrateClickHouse(ctx context.Context, pool *pgxpool.Pool, ch driver.Conn, log *slog.Logger) (applied int, err error) {
	err = postgres.WithLock(ctx, pool, postgres.ClickHouseMigrationLock, func() error {
		applied, err = clickhouse.Migrate(ctx, ch, log)
		return err
	})
	return applied, err
}

// startBroker starts the embedded broker when KAFKA_BROKERS is unset.
func startBroker(cfg Config, log *slog.Logger) (*kafka.EmbeddedBroker, error) {
	if len(cfg.KafkaBrokers) > 0 {
		return nil, nil
	}
	return kafka.StartEmbedded(cfg.EmbeddedKafkaAddr, filepath.Join(cfg.DataDir, "kafka"), cfg.KafkaPartitions, cfg.EmbeddedKafkaFlush, log.With("stage", "broker"))
}

func runBroker(ctx context.Context, cfg Config, log *slog.Logger) error {
	if len(cfg.KafkaBrokers) > 0 {
		return errors.New("KAFKA_BROKERS is set: the embedded broker is for machines without Kafka")
	}
	b, err := startBroker(cfg, log)
	if err != nil {
		return err
	}
	b.Wait(ctx)
	log.Info("embedded broker stopped")
	return nil
}
