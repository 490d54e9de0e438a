package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sync/errgroup"

	"github.com/contrack/contrack/alerts"
	"github.com/contrack/contrack/cmd/contrack/roles"
	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/commandapi/lifecycle"
	"github.com/contrack/contrack/commandapi/relay"
	"github.com/contrack/contrack/console"
	"github.com/contrack/contrack/delivery"
	"github.com/contrack/contrack/feed"
	"github.com/contrack/contrack/ingest"
	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/ingest/poller"
	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/vessels"
	"github.com/contrack/contrack/normalize"
	normparsers "github.com/contrack/contrack/normalize/parsers"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/normalize/tnt3"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/webhooktarget"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
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

// runAPI serves the HTTP API and runs the role's pipeline stages beside it
// (roles: the outbox relay that publishes its writes, one active at a time
// across replicas, and the subscription lifecycle). On a signal the HTTP intake stops first
// (in-flight requests finish), then the relay and the lifecycle.
func runAPI(ctx context.Context, cfg Config, log *slog.Logger) error {
	sd := newShutdown(cfg.shutdownTimeout())
	return sd.await(ctx, func() error {
		in, err := openInfra(ctx, cfg, "api", log)
		if err != nil {
			return err
		}
		defer in.close(log)
		g := newGroup(ctx, sd, in.health, log)
		bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
		defer stopBG()
		api, _ := roles.Lookup("api")
		for _, st := range roleStages(api, pipeline(cfg, log, in)) {
			g.Go(st.name, bg, st.run)
		}
		g.Go("api", g.ctx, func(ctx context.Context) error {
			defer stopBG() // the intake has stopped: the rest follows
			return serveAPI(ctx, cfg, log, in, in.health)
		})
		return g.Wait()
	})
}

// pageTokenKeys are the key signing page tokens (HKDF of the secret key)
// and the keys that still verify them: the old SHA-256 derivation of the
// current key (tokens signed before HKDF), then both derivations of each
// previous key (during a rotation).
func pageTokenKeys(cfg Config) (current []byte, previous [][]byte) {
	const legacy = "next-token" // the purpose's label before HKDF
	previous = append(previous, secretbox.LegacyKey(cfg.SecretKey, legacy))
	for _, s := range cfg.SecretKeysPrevious {
		previous = append(previous, secretbox.DeriveKey(s, secretbox.PurposePageToken), secretbox.LegacyKey(s, legacy))
	}
	return secretbox.DeriveKey(cfg.SecretKey, secretbox.PurposePageToken), previous
}

// serveAPI serves every HTTP stage on one port until ctx ends, with the
// operator listener on CONTRACK_ADMIN_ADDR beside it. The API gets its own
// Postgres pool (CONTRACK_PG_API_MAX_CONNS): a flood of requests queues for
// API connections and never takes the stages'. Its parts run under one
// errgroup: one failing stops the rest and serveAPI returns the reason.
func serveAPI(ctx context.Context, cfg Config, log *slog.Logger, in *infra, health *httpapi.Health) error {
	apiPG, err := postgres.OpenPool(ctx, cfg.PGURL, cfg.PGAPIMaxConns)
	if err != nil {
		return err
	}
	in.apiPG = apiPG
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("http: listen %s: %w", cfg.HTTPAddr, err)
	}
	g, gctx := errgroup.WithContext(ctx)
	// bg outlives the intake: the key cache and the daily-usage counts stop
	// after the server, so the last counts reach Postgres.
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBG()
	keys := auth.NewCachedAuthenticator(auth.NewStore(apiPG), time.Minute, log.With("stage", "api"))
	keys.Supervise(in.loops)
	g.Go(func() error { return keys.Run(bg) })
	// One LISTEN connection per API process wakes feed long-polls; it
	// stops as the server's shutdown starts, releasing them.
	in.feed = feed.NewNotifier(apiPG, log.With("stage", "api"), 0)
	in.feed.Supervise(in.loops)
	g.Go(func() error { return in.feed.Run(gctx) })
	in.usage = auth.NewDailyUsage(apiPG, auth.DefaultUsageFlush, log.With("stage", "api"))
	in.usage.Supervise(in.loops)
	g.Go(func() error { return in.usage.Run(bg) })
	if in.ch != nil && len(cfg.brokers()) > 0 {
		// The journey cache follows the projector's changes, restarted after
		// a failure (the loop "journey-cache": counted, /readyz red after a
		// run); while it is down pulls read ClickHouse: degraded, not wrong.
		in.journeys = queryapi.NewJourneys(cfg.withDerived().Journeys, in.ch, log.With("stage", "api"))
		in.journeys.Supervise(in.stream, in.loops)
		in.journeys.Route(in.router)
		g.Go(func() error {
			return in.loops.Loop("journey-cache", log.With("stage", "api")).Run(bg, 0, func(ctx context.Context) error {
				err := in.journeys.Run(ctx, cfg.brokers(), cfg.KafkaNamespace)
				if err == nil && ctx.Err() == nil {
					err = errors.New("journey change follower stopped")
				}
				return err
			})
		})
	}
	srv := newAPIServer(bg, cfg, log, in, keys, health)
	if cfg.AdminAddr != "" {
		g.Go(func() error { return serveAdmin(gctx, cfg, log, srv.AdminHandler()) })
	}
	g.Go(func() error {
		defer stopBG()
		health.SetReady("http", true)
		err := srv.Serve(gctx, ln)
		health.SetReady("http", false)
		return err
	})
	return g.Wait()
}

// serveAdmin serves the operator listener on CONTRACK_ADMIN_ADDR until ctx
// ends; callers skip it when the address is "" (off).
func serveAdmin(ctx context.Context, cfg Config, log *slog.Logger, h http.Handler) error {
	ln, err := net.Listen("tcp", cfg.AdminAddr)
	if err != nil {
		return fmt.Errorf("admin: listen %s (CONTRACK_ADMIN_ADDR; give each process on a host its own, or off): %w", cfg.AdminAddr, err)
	}
	mux := adminMux(cfg, log, h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	log.Info("admin listener serving /metrics, /healthz, /readyz, /debug/pprof/ (operator token)", "addr", ln.Addr().String())
	serveErr, shutErr := serveUntil(ctx, srv, ln)
	switch {
	case serveErr != nil:
		return fmt.Errorf("admin: serve: %w", serveErr)
	case shutErr != nil:
		return fmt.Errorf("admin: shutdown: %w", shutErr)
	}
	return nil
}

// serveShutdownGrace bounds how long a listener's shutdown waits for the
// requests in flight (the admin listener, the sandbox carriers).
const serveShutdownGrace = 5 * time.Second

// serveUntil serves srv on ln until ctx ends, then shuts it down within
// serveShutdownGrace: the one listen/serve/shutdown of the process's own
// listeners (the API's is httpapi.Server.Serve). serveErr is why the
// server stopped by itself (ctx still live), shutdownErr why its shutdown
// failed.
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener) (serveErr, shutdownErr error) {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err, nil
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), serveShutdownGrace)
	defer cancel()
	return nil, srv.Shutdown(shut)
}

// adminMux is the admin listener's handler: h (/metrics, /healthz, /readyz,
// no token: probes and Prometheus use them) and Go's profiles, which say
// where a role's CPU goes (docs/performance.md uses them). The profiles need
// the operator token (CONTRACK_OPERATOR_TOKEN; none configured refuses
// them): they expose the process's memory and code paths, and Kubernetes
// binds this listener on every interface.
func adminMux(cfg Config, log *slog.Logger, h http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/", h)
	guard := func(f http.HandlerFunc) http.Handler { return httpapi.RequireOperatorToken(cfg.OperatorToken, log, f) }
	mux.Handle("/debug/pprof/", guard(pprof.Index))
	mux.Handle("/debug/pprof/profile", guard(pprof.Profile))
	mux.Handle("/debug/pprof/trace", guard(pprof.Trace))
	return mux
}

// trustedProxies parses CONTRACK_TRUSTED_PROXIES (Validate has checked it).
func trustedProxies(cfg Config) []netip.Prefix {
	ps, _ := httpapi.ParseTrustedProxies(cfg.TrustedProxies)
	return ps
}

// newAPIServer registers every HTTP stage; bg bounds work that outlives a
// request (webhook verification retries).
func newAPIServer(bg context.Context, cfg Config, log *slog.Logger, in *infra, keys httpapi.Authenticator, health *httpapi.Health) *httpapi.Server {
	log = log.With("stage", "api")
	var preAuth, preAuthRefusals *httpapi.AddrLimiter
	if cfg.PreAuthRate > 0 {
		preAuth = httpapi.NewAddrLimiter(cfg.PreAuthRate, max(1, int(2*cfg.PreAuthRate)), 0)
		preAuthRefusals = httpapi.NewAddrLimiter(10*cfg.PreAuthRate, max(1, int(20*cfg.PreAuthRate)), 0)
	}
	limiter := httpapi.NewRateLimiter()
	if in.usage != nil {
		limiter.WithQuota(in.usage)
	}
	pool := in.pg
	if in.apiPG != nil {
		pool = in.apiPG
	}
	srv := httpapi.New(httpapi.Config{
		Addr:            cfg.HTTPAddr,
		Version:         version,
		Log:             log,
		Auth:            keys,
		Health:          health,
		Limiter:         limiter,
		PreAuth:         preAuth,
		PreAuthRefusals: preAuthRefusals,
		ClientIPHeader:  cfg.ClientIPHeader,
		TrustedProxies:  trustedProxies(cfg),
		OperatorToken:   cfg.OperatorToken,
		Public:          append([]string{"/healthz", "/readyz", "/openapi.json", "/docs", "/docs/", "HEAD /events"}, console.Public...),
		DocsUI:          console.DocsHandler,
		Metrics:         in.metrics,
	})
	console.Register(srv.Fuego.Mux)  // the browser console, embedded; it calls the API with the user's key
	var notifier queryapi.FeedWaiter // a nil *feed.Notifier must stay a nil interface
	if in.feed != nil {
		notifier = in.feed
	}
	journeys := in.journeys // followed by serveAPI
	if journeys == nil {
		journeys = queryapi.NewJourneys(cfg.withDerived().Journeys, in.ch, log) // never followed: nothing cached
	}
	tokenKey, tokenKeysPrevious := pageTokenKeys(cfg)
	queryapi.Register(srv.Fuego, queryapi.Deps{
		Pool: pool, CH: in.ch, Box: in.box, Log: log, TokenKey: tokenKey,
		TokenKeysPrevious: tokenKeysPrevious,
		Feed:              notifier,
		Journeys:          journeys,
		SandboxNow:        sandboxConfig(cfg).WithDefaults().JourneyNow,
	})
	probes := gatedProber{in.carrierGates(cfg, log)}
	commandapi.Register(srv.Fuego, cfg.withDerived().Commands, commandapi.Deps{
		Pool: pool, Box: in.box, Log: log, Prober: probes, Shipments: probes,
		Connectors:      connectorFetcher{allowPrivate: cfg.AllowPrivateWebhooks},
		FreeTimeChanged: journeys.FreeTimeChanged,
	})
	ingest.RegisterEvents(srv.Fuego, ingest.EventsDeps{
		Producer:  in.kafka,
		Namespace: cfg.KafkaNamespace,
		Secrets:   &ingest.SigningSecretStore{Pool: pool, Box: in.box},
		PushIDs:   &ingest.PushIDStore{Pool: pool},
		Log:       log,
		Check:     pushed.Check,
		CheckTNT3: tnt3.Check,
		Combine:   cfg.EventsCombine,
		Linger:    cfg.EventsCombineLinger,
	})
	// The process's metrics: on the API address only with the operator
	// token, on the admin listener (loopback by default) without.
	if in.metrics != nil {
		srv.HandleOperator("/metrics", httpapi.MetricsHandler(in.metrics))
	}
	return srv
}

// runAll runs every stage in one process, with the embedded broker unless
// KAFKA_BROKERS is set, under one errgroup: a stage that fails stops the
// process with its reason. On SIGINT/SIGTERM (or a failure) the HTTP
// intake stops first (in-flight requests finish), then the background
// stages, then Kafka is flushed and connections closed, then the broker —
// all within CONTRACK_SHUTDOWN_TIMEOUT.
func runAll(ctx context.Context, cfg Config, log *slog.Logger) error {
	sd := newShutdown(cfg.shutdownTimeout())
	if err := checkListeners(allListeners(cfg)); err != nil {
		return err
	}
	return sd.await(ctx, func() error {
		broker, err := startBroker(cfg, log)
		if err != nil {
			return err
		}
		if broker != nil {
			defer broker.Close()
		}
		in, err := openInfra(ctx, cfg, "all", log)
		if err != nil {
			return err
		}
		defer in.close(log)

		g := newGroup(ctx, sd, in.health, log)
		// The stages outlive the intake: they stop once it has.
		stageCtx, cancelStages := context.WithCancel(context.WithoutCancel(ctx))
		defer cancelStages()
		all := roles.All()
		if all.Runs(roles.StageSandbox) {
			g.Go("sandbox", stageCtx, func(ctx context.Context) error { return serveSandbox(ctx, cfg, log) })
		}
		for _, st := range roleStages(all, pipeline(cfg, log, in)) {
			g.Go(st.name, stageCtx, st.run)
		}
		log.Info("contrack running", "http", cfg.HTTPAddr, "version", version)
		readyTicks := time.NewTicker(250 * time.Millisecond)
		defer readyTicks.Stop()
		go announceReady(stageCtx, in.health, readyTicks.C, log, cfg, terminal(os.Stderr))
		g.Go("api", g.ctx, func(ctx context.Context) error {
			defer cancelStages() // the intake has stopped: the rest follows
			return serveAPI(ctx, cfg, log, in, in.health)
		})
		if err := g.Wait(); err != nil {
			return err
		}
		log.Info("contrack stopped cleanly")
		return nil
	})
}

// namedStage is one stage of the pipeline, ready to run.
type namedStage struct {
	name string
	run  func(context.Context) error
}

// pipeline lists the background stages with their config and deps: the
// one place each stage's Run is wired. Which process runs which is the
// role table's (roles): `contrack all` every one, each role its own.
func pipeline(cfg Config, log *slog.Logger, in *infra) []namedStage {
	return []namedStage{
		{"outbox-relay", func(ctx context.Context) error {
			return relay.Run(ctx, cfg.Relay, relay.Deps{Pool: in.pg, Producer: in.kafka, Namespace: cfg.KafkaNamespace,
				Log: log, Registry: in.metrics, Loops: in.loops})
		}},
		{"subscription-lifecycle", func(ctx context.Context) error {
			return lifecycle.Run(ctx, cfg.Lifecycle, lifecycle.Deps{Pool: in.pg, Log: log, Loops: in.loops})
		}},
		{"poller", func(ctx context.Context) error {
			return poller.Run(ctx, cfg.withDerived().Poller, pollerDeps(cfg, log, in))
		}},
		{"normalize", func(ctx context.Context) error { return stage.Run(ctx, cfg.Normalize, normalizeDeps(cfg, log, in)) }},
		{"delivery", func(ctx context.Context) error {
			return delivery.Run(ctx, cfg.withDerived().Delivery, deliveryDeps(cfg, log, in))
		}},
		{"projector", func(ctx context.Context) error {
			return projector.Run(ctx, cfg.Projector, projectorDeps(cfg, log, in))
		}},
		{"feed", func(ctx context.Context) error { return feed.Run(ctx, cfg.Feed, feedDeps(cfg, log, in)) }},
		{"vessels", func(ctx context.Context) error { return vessels.Run(ctx, cfg.Vessels, vesselsDeps(cfg, log, in)) }},
		{"alerts", func(ctx context.Context) error {
			return alerts.Run(ctx, cfg.Alerts, alerts.Deps{Producer: in.kafka, Namespace: cfg.KafkaNamespace, Pool: in.pg, CH: in.ch,
				Log: log, SandboxNow: sandboxConfig(cfg).WithDefaults().JourneyNow, Registry: in.metrics, Loops: in.loops})
		}},
	}
}

func vesselsDeps(cfg Config, log *slog.Logger, in *infra) vessels.Deps {
	return vessels.Deps{Producer: in.kafka, Namespace: cfg.KafkaNamespace, Pool: in.pg, CH: in.ch, Sandbox: sandboxConfig(cfg),
		Log: log, Registry: in.metrics, Loops: in.loops}
}

// adapters picks a carrier adapter: sandbox keys' trackings go to the sandbox
// carriers, live ones to CONTRACK_CARRIER_URL_<SCAC>.
func adapters(cfg Config) poller.AdapterFor {
	return poller.SandboxAdapters("http://"+cfg.SandboxAddr, func(scac string) string { return cfg.CarrierURLs[scac] })
}

func pollerDeps(cfg Config, log *slog.Logger, in *infra) poller.Deps {
	return poller.Deps{Namespace: cfg.KafkaNamespace, Producer: in.kafka, Pool: in.pg, Box: in.box, Adapters: adapters(cfg), Log: log,
		Parsers: parsers(), Registry: in.metrics, Gates: in.carrierGates(cfg, log), Loops: in.loops}
}

// carrierGates are the process's carrier gates: one set for the poller and
// the API's probes when a process runs both. openInfra makes them; an infra
// built by hand (tests) gets them on first use.
func (in *infra) carrierGates(cfg Config, log *slog.Logger) *poller.Gates {
	if in.gates == nil {
		in.gates = newCarrierGates(cfg, log)
	}
	return in.gates
}

func newCarrierGates(cfg Config, log *slog.Logger) *poller.Gates {
	g, err := poller.NewGates(cfg.withDerived().Poller, adapters(cfg), log.With("stage", "carrier-gates"), nil)
	if err != nil {
		panic(err) // cfg.Poller was validated with the rest of the configuration
	}
	return g
}

// gatedProber answers POST /carrier/health-check and carrier inference's
// shipment probes through the process's carrier gates (poller.Gates.Probe):
// the account's share of the carrier and the carrier-wide cap and breaker
// its polls pass, and the carrier's one adapter with its cached tokens.
type gatedProber struct{ gates *poller.Gates }

func (p gatedProber) Probe(ctx context.Context, env, scac, account string, creds map[string]string) (string, int, error) {
	var h carrier.Health
	_, err := p.gates.Probe(ctx, env, scac, account, func(ctx context.Context, a carrier.Adapter) (carrier.Result, error) {
		h = a.Probe(ctx, carrier.Credentials(creds))
		return h.AsResult(), nil
	})
	var paused *poller.PausedError
	switch {
	case errors.As(err, &paused):
		return "", 0, &commandapi.ProbePausedError{RetryAfter: time.Until(paused.Until)}
	case err != nil && ctx.Err() != nil:
		return "", 0, err // the caller left
	case err != nil:
		// The carrier is down for everyone (its breaker is open), or there
		// is no adapter for it here (no live base URL).
		return carrier.HealthUnreachable, 0, nil
	}
	return h.Status, h.HTTPCode, nil
}

// ProbeShipment answers carrier inference with the request a poll makes,
// through the gates, bounded by ctx.
func (p gatedProber) ProbeShipment(ctx context.Context, env, scac, account string, creds map[string]string, kind, value string) (string, int) {
	l := carrier.Lookup{Status: carrier.LookupError}
	_, err := p.gates.Probe(ctx, env, scac, account, func(ctx context.Context, a carrier.Adapter) (carrier.Result, error) {
		r, err := a.Fetch(ctx, carrier.Credentials(creds), carrier.Query{Kind: carrier.IdentifierKind(kind), Value: value})
		l = carrier.LookupOf(ctx, r, err)
		return r, err
	})
	var paused *poller.PausedError
	switch {
	case errors.As(err, &paused):
		return "PAUSED", 0
	case err != nil && ctx.Err() != nil:
		return carrier.LookupTimeout, 0
	case errors.Is(err, poller.ErrCarrierDown):
		return carrier.LookupUnreachable, 0
	case err != nil && l.Status == carrier.LookupError && l.HTTPCode == 0:
		return carrier.LookupUnreachable, 0 // no adapter for it here
	}
	return l.Status, l.HTTPCode
}

// connectorFetcher makes POST /carrier/connectors/{code}/fetch's fetches
// with the connector's adapter, through a client that refuses internal
// addresses as webhooks do (unless CONTRACK_ALLOW_PRIVATE_WEBHOOKS).
type connectorFetcher struct{ allowPrivate bool }

func (f connectorFetcher) FetchConnector(ctx context.Context, conn carriers.Connector, q carriers.ConnectorQuery, maxPages int) (carriers.ConnectorFetch, error) {
	a, err := carrier.NewConnector(conn, webhooktarget.NewClient(f.allowPrivate, 30*time.Second))
	if err != nil {
		return carriers.ConnectorFetch{}, err
	}
	r, err := a.FetchQuery(ctx, q, maxPages)
	if err != nil {
		return carriers.ConnectorFetch{}, err
	}
	return carriers.ConnectorFetch{Outcome: string(r.Outcome), HTTPCode: r.HTTPCode, Reason: r.Reason, Requests: r.Requests,
		Pages: r.Pages, EventCount: r.EventCount, NextCursor: r.NextCursor}, nil
}

// serveSandbox serves the sandbox carriers on CONTRACK_SANDBOX_ADDR until ctx ends.
func serveSandbox(ctx context.Context, cfg Config, log *slog.Logger) error {
	scfg := sandboxConfig(cfg)
	if err := scfg.Validate(); err != nil {
		return err
	}
	srv := &http.Server{Addr: cfg.SandboxAddr, Handler: sandbox.NewHandler(scfg), ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", cfg.SandboxAddr)
	if err != nil {
		return fmt.Errorf("sandbox: listen %s: %w", cfg.SandboxAddr, err)
	}
	log.Info("sandbox carriers listening", "stage", "sandbox", "addr", ln.Addr().String(), "accelerate", scfg.WithDefaults().Accelerate)
	serveErr, shutErr := serveUntil(ctx, srv, ln)
	if serveErr != nil {
		return fmt.Errorf("sandbox: %w", serveErr)
	}
	return shutErr
}

// sandboxConfig is the sandbox carriers' config as they run: accelerated
// journeys start today, not decades ahead. The vessel simulator uses the
// same, so its ships keep the carriers' journey time.
func sandboxConfig(cfg Config) sandbox.Config {
	scfg := cfg.Sandbox
	// No variable sets Epoch; a test may, to run fast from now.
	if scfg.Accelerate > 1 && scfg.Epoch.IsZero() {
		scfg.Epoch = time.Now().UTC().Truncate(24 * time.Hour)
	}
	return scfg
}

// runSandbox serves the sandbox carriers alone, with the admin listener.
func runSandbox(ctx context.Context, cfg Config, log *slog.Logger) error {
	sd := newShutdown(cfg.shutdownTimeout())
	return sd.await(ctx, func() error {
		health := httpapi.NewHealth(nil, 0, log)
		metrics := httpapi.NewRegistry("sandbox", version)
		return runWithAdmin(ctx, cfg, log, sd, health, metrics, "sandbox", func(ctx context.Context) error {
			return serveSandbox(ctx, cfg, log)
		})
	})
}

// parsers maps every source format to its normaliser.
func parsers() map[carriers.Format]normalize.Parser { return normparsers.All() }

func normalizeDeps(cfg Config, log *slog.Logger, in *infra) stage.Deps {
	return stage.Deps{Brokers: cfg.brokers(), Namespace: cfg.KafkaNamespace, Pool: in.pg, Log: log, Parsers: parsers(), Metrics: in.stream, Loops: in.loops,
		Registry: in.metrics, Router: in.router}
}

func deliveryDeps(cfg Config, log *slog.Logger, in *infra) delivery.Deps {
	return delivery.Deps{Brokers: cfg.brokers(), Namespace: cfg.KafkaNamespace, Pool: in.pg, Box: in.box, CH: in.ch, Log: log, Registry: in.metrics, Loops: in.loops,
		Router: in.router}
}

func projectorDeps(cfg Config, log *slog.Logger, in *infra) projector.Deps {
	return projector.Deps{Brokers: cfg.brokers(), Namespace: cfg.KafkaNamespace, CH: in.ch, Log: log, Metrics: in.stream, Loops: in.loops,
		Router: in.router}
}

func feedDeps(cfg Config, log *slog.Logger, in *infra) feed.Deps {
	return feed.Deps{Brokers: cfg.brokers(), Namespace: cfg.KafkaNamespace, Pool: in.pg, CH: in.ch, Log: log, Registry: in.metrics,
		Metrics: in.stream, Loops: in.loops, Router: in.router}
}

// withInfra runs one stage alone over freshly opened connections, closed
// after, with the admin listener (/healthz, /readyz, the role's /metrics)
// beside it, under the shutdown budget.
func withInfra(ctx context.Context, cfg Config, log *slog.Logger, role string, run func(context.Context, *infra) error) error {
	sd := newShutdown(cfg.shutdownTimeout())
	return sd.await(ctx, func() error {
		in, err := openInfra(ctx, cfg, role, log)
		if err != nil {
			return err
		}
		defer in.close(log)
		return runWithAdmin(ctx, cfg, log, sd, in.health, in.metrics, role, func(ctx context.Context) error { return run(ctx, in) })
	})
}

// runWithAdmin runs one stage and the admin listener under one group; the
// listener stops once the stage has.
func runWithAdmin(ctx context.Context, cfg Config, log *slog.Logger, sd *shutdown, health *httpapi.Health,
	metrics *prometheus.Registry, role string, run func(context.Context) error) error {
	g := newGroup(ctx, sd, health, log)
	adminCtx, stopAdmin := context.WithCancel(context.WithoutCancel(ctx))
	defer stopAdmin()
	if cfg.AdminAddr != "" {
		h := httpapi.NewAdminHandler(health, log, map[string]http.Handler{"/metrics": httpapi.MetricsHandler(metrics)})
		g.Go("admin", adminCtx, func(ctx context.Context) error { return serveAdmin(ctx, cfg, log, h) })
	}
	g.Go(role, g.ctx, func(ctx context.Context) error {
		defer stopAdmin()
		return run(ctx)
	})
	return g.Wait()
}
