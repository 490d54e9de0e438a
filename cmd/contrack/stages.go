package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/contrack/contrack/alerts"
	"github.com/contrack/contrack/cmd/contrack/roles"
	"github.com/contrack/contrack/commandapi/lifecycle"
	"github.com/contrack/contrack/commandapi/relay"
	"github.com/contrack/contrack/delivery"
	"github.com/contrack/contrack/feed"
	"github.com/contrack/contrack/ingest/poller"
	"github.com/contrack/contrack/ingest/vessels"
	"github.com/contrack/contrack/normalize"
	normparsers "github.com/contrack/contrack/normalize/parsers"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/schemas/carriers"
)

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

func pollerDeps(cfg Config, log *slog.Logger, in *infra) poller.Deps {
	return poller.Deps{Namespace: cfg.KafkaNamespace, Producer: in.kafka, Pool: in.pg, Box: in.box, Adapters: adapters(cfg), Log: log,
		Parsers: parsers(), Registry: in.metrics, Gates: in.carrierGates(cfg, log), Loops: in.loops}
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
