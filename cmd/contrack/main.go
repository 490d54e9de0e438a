// Command contrack is the one binary of the platform: `contrack all` runs
// every stage in one process; `contrack <stage>` runs one; `contrack
// migrate`, `contrack admin …`, `contrack broker` and `contrack sandbox` are
// the tools around them.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"

	"github.com/contrack/contrack/cmd/contrack/roles"
	"github.com/contrack/contrack/platform/tracing"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// usage is `contrack help`: the roles' lines come from the role table.
var usage = usageText()

const usageHead = `contrack — container tracking, every carrier as DCSA EVENT_DOMAIN 2.0.2

Usage:
`

const usageTools = `  contrack migrate             apply Postgres and ClickHouse migrations
  contrack config              print the effective configuration, secrets masked
  contrack roles               print the roles as JSON: their stages and what each needs
  contrack topology [--json]   print the graph of stages and Kafka topics (from the stages' routes)
  contrack healthcheck [--any-status] URL   exit 0 when URL answers 2xx (container healthchecks)
  contrack admin create-key --client SLUG --env live|sandbox [--display-name TEXT] [--plan NAME] [--role consumer|carrier] [--scac SCAC]
  contrack admin revoke-key KEY_OR_ID      (its account's last key: the account stops, as disabled)
  contrack admin disable-account CLIENT live|sandbox   keys refused, no polls, webhooks or feed events
  contrack admin enable-account CLIENT live|sandbox
  contrack admin list
  contrack admin set-signing-secret CARRIER_KEY_ID SECRET [--timestamped-only]
  contrack admin rotate-secrets  re-encrypt every stored secret with CONTRACK_SECRET_KEY
  contrack admin rebuild-journeys   rebuild the journey read model from the topics beside the live one, then switch
  contrack version

Configuration is read from environment variables; see 'contrack config'.
`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "contrack:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Print(usage)
		return nil
	}
	if args[0] == "healthcheck" { // before loadConfig: needs no configuration
		return runHealthcheck(context.Background(), args[1:])
	}
	if args[0] == "roles" {
		return printRoles(os.Stdout)
	}
	if args[0] == "topology" {
		return printTopology(os.Stdout, slices.Contains(args[1:], "--json"))
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	role, isRole := roles.Lookup(args[0])
	if isRole {
		if cfg, err = roleConfig(cfg, role); err != nil {
			return err
		}
	} else if args[0] == "admin" {
		// It seals, opens and signs secrets, as the roles that need the key.
		if err := cfg.ensureSecretKey(); err != nil {
			return err
		}
	}
	log := newLogger(cfg.LogLevel, cfg.KafkaLogLevel)
	if isRole && role.Collector {
		// The long-running roles: the collector's settings (docs/operations.md).
		gcPercent, memoryLimit, err := applyGC(cfg, memlimit.FromCgroup, log)
		if err != nil {
			return err
		}
		log.Info("go collector", "gogc", gcPercent, "gomemlimit", memoryLimitText(memoryLimit))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if isRole {
		flushTraces, err := setupTracing(ctx, cfg, role, log)
		if err != nil {
			return err
		}
		defer flushTraces()
		return runRole(ctx, cfg, log, role)
	}

	switch args[0] {
	case "migrate":
		return runMigrate(ctx, cfg, log)
	case "config":
		printConfig(os.Stdout, cfg)
		return nil
	case "admin":
		return runAdmin(ctx, cfg, log, args[1:])
	case "version":
		fmt.Println(version)
		return nil
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
}

// newLogger is the process's JSON logger at level, the Kafka client's own
// records (those of a logger With component=kafka) at kafkaLevel at least.
func newLogger(level, kafkaLevel string) *slog.Logger {
	return slog.New(newLogHandler(os.Stderr, level, kafkaLevel))
}

func newLogHandler(w io.Writer, level, kafkaLevel string) slog.Handler {
	var l, k slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	if err := k.UnmarshalText([]byte(kafkaLevel)); err != nil {
		k = slog.LevelWarn
	}
	return componentLevel{Handler: slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}), component: "kafka", least: k}
}

// componentLevel drops the records of one component (a logger made With
// "component", component) below least; every other record passes to
// Handler as it is.
type componentLevel struct {
	slog.Handler
	component string
	least     slog.Level
	inside    bool // this handler is the component's
}

func (h componentLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return !(h.inside && l < h.least) && h.Handler.Enabled(ctx, l)
}

func (h componentLevel) Handle(ctx context.Context, r slog.Record) error {
	if h.inside && r.Level < h.least {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h componentLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	inside := h.inside
	for _, a := range attrs {
		if a.Key == "component" && a.Value.String() == h.component {
			inside = true
		}
	}
	return componentLevel{Handler: h.Handler.WithAttrs(attrs), component: h.component, least: h.least, inside: inside}
}

func (h componentLevel) WithGroup(name string) slog.Handler {
	return componentLevel{Handler: h.Handler.WithGroup(name), component: h.component, least: h.least, inside: h.inside}
}

// errUsage marks a command-line mistake.
var errUsage = errors.New("usage")

// setupTracing installs the OpenTelemetry provider for a role the table
// traces: OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, a no-op
// otherwise. flush sends the spans still buffered; call it at exit.
func setupTracing(ctx context.Context, cfg Config, role roles.Role, log *slog.Logger) (flush func(), err error) {
	if !role.Tracing {
		return func() {}, nil
	}
	tc := cfg.Tracing
	if tc.ServiceName == "" {
		tc.ServiceName = "contrack-" + role.Name
	}
	tc.Version = version
	on, shutdown, err := tracing.Setup(ctx, tc)
	if err != nil {
		return nil, err
	}
	if on {
		log.Info("tracing to OTLP", "service", tc.ServiceName)
	}
	return func() {
		fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(fctx); err != nil {
			log.Warn("spans not flushed at exit", "err", err)
		}
	}, nil
}
