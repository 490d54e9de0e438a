// Package commandapi serves the write side of the public interface: every
// POST, PUT and DELETE of the consumer API, and GET /carrier/infer, which (like
// the health check) calls carriers with the account's credentials. Writes
// go to Postgres, the source of truth, and — where other stages must learn
// of them — to the outbox in the same transaction (commandapi/subscription),
// which the relay stage (commandapi/relay) publishes to Kafka. The
// lifecycle stage (commandapi/lifecycle) closes subscriptions whose time is
// up, as DELETE does.
package commandapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/schemas/carriers"
)

// HealthProber checks a carrier's API with an account's credentials, for
// POST /carrier/health-check. err is a *ProbePausedError when the
// account's calls to the carrier are paused; other errors are failures.
type HealthProber interface {
	Probe(ctx context.Context, env, scac, accountID string, creds map[string]string) (status string, httpCode int, err error)
}

// ProbePausedError says an account's calls to a carrier are paused (after
// repeated failures, or the carrier's own 429) for RetryAfter: its probes
// are refused as its polls wait, so nobody can use them to test
// credentials at the carrier's expense.
type ProbePausedError struct{ RetryAfter time.Duration }

func (e *ProbePausedError) Error() string {
	return fmt.Sprintf("commandapi: carrier calls paused for %s", e.RetryAfter)
}

// Config tunes the command side; zero values take the defaults.
type Config struct {
	// SubscriptionLifetime is the time from creation to
	// subscriptionExpiryDate (default 90 days).
	SubscriptionLifetime time.Duration
	// AllowPrivateWebhooks lets webhook targets be loopback, private or
	// link-local addresses (development only).
	AllowPrivateWebhooks bool
	// InferTimeout bounds all the probes of one inference (default 10 s): a
	// carrier that has not answered by then does not know the shipment.
	InferTimeout time.Duration
	// InferConcurrency bounds the probes of one inference in flight (default 4).
	InferConcurrency int
	// ProbesPerMinute is each account's budget of carrier probes (a health
	// check is one, an inference one per carrier it asks), refilled
	// steadily, at most this many at once (default 30). Beyond it: 429.
	ProbesPerMinute int
}

// Validate reports every problem of c.
func (c Config) Validate() error {
	var errs []error
	if c.SubscriptionLifetime < 0 {
		errs = append(errs, errors.New("commandapi: SubscriptionLifetime must not be negative"))
	}
	if c.InferTimeout < 0 {
		errs = append(errs, errors.New("commandapi: InferTimeout must not be negative"))
	}
	if c.InferConcurrency < 0 {
		errs = append(errs, errors.New("commandapi: InferConcurrency must not be negative"))
	}
	if c.ProbesPerMinute < 0 {
		errs = append(errs, errors.New("commandapi: ProbesPerMinute must not be negative"))
	}
	return errors.Join(errs...)
}

// WithDefaults returns c with every zero field set to its documented
// default; Register applies it, so a zero Config is a valid one.
func (c Config) WithDefaults() Config {
	if c.SubscriptionLifetime == 0 {
		c.SubscriptionLifetime = 90 * 24 * time.Hour
	}
	if c.InferTimeout == 0 {
		c.InferTimeout = 10 * time.Second
	}
	if c.InferConcurrency == 0 {
		c.InferConcurrency = 4
	}
	if c.ProbesPerMinute == 0 {
		c.ProbesPerMinute = 30
	}
	return c
}

// Deps are the command side's connections.
type Deps struct {
	Pool *pgxpool.Pool
	Box  *secretbox.Box
	Log  *slog.Logger
	// Now defaults to time.Now.
	Now func() time.Time

	// Prober answers POST /carrier/health-check.
	Prober HealthProber
	// Shipments asks carriers whether they know a shipment, for carrier
	// inference (GET /carrier/infer, POST /subscription/equipment without
	// scacCode). nil: a number whose prefix names no single carrier cannot
	// be resolved.
	Shipments carriers.ShipmentProber
	// Connectors makes POST /carrier/connectors/{code}/fetch's fetches.
	Connectors ConnectorFetcher
	// FreeTimeChanged, if set, is told the account whose free-time rules
	// PUT /account/free-time changed (the process's journey cache reads
	// its journeys again).
	FreeTimeChanged func(accountID string)
}

// api is what the handlers share: the settings, the connections and the
// accounts' probe budgets.
type api struct {
	Config
	Deps
	probes *probeBudgets
}

// newAPI validates cfg and applies the defaults of cfg and deps.
func newAPI(cfg Config, deps Deps) (api, error) {
	if err := cfg.Validate(); err != nil {
		return api{}, err
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Log == nil {
		deps.Log = slog.Default()
	}
	cfg = cfg.WithDefaults()
	return api{Config: cfg, Deps: deps, probes: newProbeBudgets(cfg.ProbesPerMinute)}, nil
}

// Register adds the command endpoints to s. An invalid cfg is a
// programming error (cmd/contrack validates the environment before): it
// panics, as registering a route twice does.
func Register(s *fuego.Server, cfg Config, deps Deps) {
	a, err := newAPI(cfg, deps)
	if err != nil {
		panic(err)
	}
	registerSubscriptions(s, a)
	registerBulk(s, a)
	registerVesselPositions(s, a)
	registerCredentials(s, a)
	registerConnectors(s, a)
	registerInfer(s, a)
	registerWebhooks(s, a)
	registerDeliveries(s, a)
	registerReadiness(s, a)
}
