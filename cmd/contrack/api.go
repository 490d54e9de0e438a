package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/contrack/contrack/cmd/contrack/roles"
	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/console"
	"github.com/contrack/contrack/feed"
	"github.com/contrack/contrack/ingest"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/normalize/tnt3"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/queryapi"
)

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
