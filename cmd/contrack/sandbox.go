package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/platform/httpapi"
)

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
