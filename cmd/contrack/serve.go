package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/contrack/contrack/platform/httpapi"
)

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
