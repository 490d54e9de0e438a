// Package commandapi serves the write side of the public interface: every
// POST and DELETE of the consumer API, and GET /carrier/infer, which (like
// the health check) calls carriers with the account's credentials. Writes
// go to Postgres, the source of truth, and — where other stages must learn
// of them — to the outbox in the same transaction; the Relay publishes the
// outbox to Kafka.
package commandapi

import (
	"context"
	"log/slog"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/secretbox"
)

// HealthProber checks a carrier's API with an account's credentials, for
// POST /carrier/health-check.
type HealthProber interface {
	Probe(ctx context.Context, env, scac string, creds map[string]string) (status string, httpCode int)
}

// Deps are what the command side needs.
type Deps struct {
	Pool *pgxpool.Pool
	Box  *secretbox.Box
	Log  *slog.Logger
	// Now defaults to time.Now.
	Now func() time.Time

	// SubscriptionLifetime is the time from creation to subscriptionExpiryDate (default 90 days).
	SubscriptionLifetime time.Duration

	// AllowPrivateWebhooks lets webhook targets be loopback, private or
	// link-local addresses (development only).
	AllowPrivateWebhooks bool

	// Prober answers POST /carrier/health-check.
	Prober HealthProber
	// Shipments asks carriers whether they know a shipment, for carrier
	// inference (GET /carrier/infer, POST /subscription/equipment without
	// scacCode). nil: a number whose prefix names no single carrier cannot
	// be resolved.
	Shipments ShipmentProber
	// InferTimeout bounds all the probes of one inference (default 10 s): a
	// carrier that has not answered by then does not know the shipment.
	InferTimeout time.Duration
	// InferConcurrency bounds the probes of one inference in flight (default 4).
	InferConcurrency int
}

func (d *Deps) defaults() {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.SubscriptionLifetime == 0 {
		d.SubscriptionLifetime = 90 * 24 * time.Hour
	}
	if d.InferTimeout == 0 {
		d.InferTimeout = 10 * time.Second
	}
	if d.InferConcurrency == 0 {
		d.InferConcurrency = 4
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
}

// Register adds the command endpoints to s.
func Register(s *fuego.Server, deps Deps) {
	deps.defaults()
	registerSubscriptions(s, deps)
	registerCredentials(s, deps)
	registerInfer(s, deps)
	registerWebhooks(s, deps)
	registerDeliveries(s, deps)
}
