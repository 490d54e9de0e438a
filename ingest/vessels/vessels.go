// Package vessels is the vessel positions stage: AIS-style position
// reports (per IMO number: time, latitude, longitude, speed and course over
// ground, navigational status) onto the vessel positions topic, from two
// sources:
//
//   - the sandbox simulator, which sails the ship of every sandbox journey
//     at sea along a sea route (schemas/searoute) between its port calls,
//     leaving and arriving exactly when the sandbox journey says;
//   - a position provider's API for live journeys, configured by the
//     operator (provider.go: the shape of Datalastic's vessel_bulk), asked
//     for the vessels the live journeys name.
//
// The projector writes the reports into ClickHouse (vessel_positions), from
// which the journey read side shows each journey's vessel, its position,
// its route and a predicted arrival (schemas/voyage).
package vessels

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sync/errgroup"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/platform/loop"
	platformmetrics "github.com/contrack/contrack/platform/metrics"
	"github.com/contrack/contrack/schemas"
)

// Config tunes the stage. Zero values take the documented defaults.
type Config struct {
	// Interval is how often each sandbox ship at sea reports (wall time;
	// default 1 min, as AIS class A reports are kept by providers).
	Interval time.Duration
	// SandboxRefresh is how often the simulator reads the open sandbox
	// trackings again to know which ships sail (default 5 min).
	SandboxRefresh time.Duration
	// MaxVessels bounds the ships the simulator sails and the vessels asked
	// of the provider (default 100,000, more than the world's container
	// fleet); beyond it the rest are left out and counted.
	MaxVessels int

	// ProviderURL is the base URL of the live position provider's API
	// (CONTRACK_VESSELS_PROVIDER_URL); empty: live journeys get no positions.
	ProviderURL string
	// ProviderAPIKey is the provider's API key. Secret: never logged.
	ProviderAPIKey string
	// ProviderInterval is how often the provider is asked for the live
	// vessels' latest positions (default 5 min: providers charge per
	// request or credit, and a ship at 18 knots moves 1.5 nm in that time).
	ProviderInterval time.Duration
	// ProviderBatch is the IMO numbers per request (default 100, the
	// provider's limit for vessel_bulk).
	ProviderBatch int
	// ProviderTimeout bounds one request (default 30 s).
	ProviderTimeout time.Duration
	// LiveRefresh is how often the vessels named by live journeys are read
	// again from ClickHouse's events table (default 10 min).
	LiveRefresh time.Duration
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.Interval == 0 {
		c.Interval = time.Minute
	}
	if c.SandboxRefresh == 0 {
		c.SandboxRefresh = 5 * time.Minute
	}
	if c.MaxVessels == 0 {
		c.MaxVessels = 100000
	}
	if c.ProviderInterval == 0 {
		c.ProviderInterval = 5 * time.Minute
	}
	if c.ProviderBatch == 0 {
		c.ProviderBatch = 100
	}
	if c.ProviderTimeout == 0 {
		c.ProviderTimeout = 30 * time.Second
	}
	if c.LiveRefresh == 0 {
		c.LiveRefresh = 10 * time.Minute
	}
	return c
}

// Validate reports every setting that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.Interval < 0 || c.SandboxRefresh < 0 || c.ProviderInterval < 0 || c.ProviderTimeout < 0 || c.LiveRefresh < 0 {
		errs = append(errs, errors.New("vessels: negative duration"))
	}
	if c.MaxVessels < 0 {
		errs = append(errs, errors.New("vessels: MaxVessels must not be negative"))
	}
	if c.ProviderBatch < 0 || c.ProviderBatch > 100 {
		errs = append(errs, errors.New("vessels: ProviderBatch must be 1 to 100"))
	}
	if c.ProviderURL != "" {
		if u, err := url.Parse(c.ProviderURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			errs = append(errs, errors.New("vessels: CONTRACK_VESSELS_PROVIDER_URL must be an absolute http(s) URL"))
		} else if c.ProviderAPIKey == "" {
			errs = append(errs, errors.New("vessels: CONTRACK_VESSELS_PROVIDER_API_KEY is required with a provider URL"))
		}
	}
	return errors.Join(errs...)
}

// Deps are the stage's connections.
type Deps struct {
	// Producer writes the position records.
	Producer  *kgo.Client
	Namespace schemas.Namespace
	// Pool lists the open sandbox trackings (Postgres trackings).
	Pool *pgxpool.Pool
	// CH lists the vessels live journeys name (ClickHouse events); nil:
	// no live positions.
	CH driver.Conn
	// Sandbox is the sandbox carriers' config: its clock (acceleration)
	// is the simulator's.
	Sandbox sandbox.Config
	// HTTP is the client for the provider (nil: one with ProviderTimeout).
	HTTP     *http.Client
	Log      *slog.Logger
	Registry prometheus.Registerer
	// Loops, if set, supervises the simulator's and the provider's rounds
	// (the loops "vessels-simulator" and "vessels-provider", the role's):
	// failures counted, /readyz red after a run of them.
	Loops *loop.Supervisor
}

// metrics are the stage's collectors.
type metrics struct {
	produced  *prometheus.CounterVec // by env
	failed    prometheus.Counter
	voyages   prometheus.Gauge
	conflicts prometheus.Gauge
	dropped   prometheus.Gauge
	requests  *prometheus.CounterVec // by outcome
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		produced: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "contrack_vessel_positions_produced_total",
			Help: "Vessel position reports written to the positions topic, by environment."}, []string{"env"}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{Name: "contrack_vessel_positions_failed_total",
			Help: "Vessel position reports Kafka did not take (the next report replaces them)."}),
		voyages: prometheus.NewGauge(prometheus.GaugeOpts{Name: "contrack_vessels_sandbox_voyages",
			Help: "Sandbox ships the simulator sails (in port, at sea or at anchor)."}),
		conflicts: prometheus.NewGauge(prometheus.GaugeOpts{Name: "contrack_vessels_sandbox_conflicts",
			Help: "Sandbox ships (IMO number and voyage) two journeys sail on different schedules: not reported."}),
		dropped: prometheus.NewGauge(prometheus.GaugeOpts{Name: "contrack_vessels_over_limit",
			Help: "Vessels left out at the last refresh because MaxVessels was reached."}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "contrack_vessels_provider_requests_total",
			Help: "Requests to the live position provider, by outcome (ok, unauthorized, error, unreachable)."}, []string{"outcome"}),
	}
	if err := platformmetrics.RegisterAll(reg, m.produced, m.failed, m.voyages, m.conflicts, m.dropped, m.requests); err != nil {
		return nil, fmt.Errorf("vessels: metrics: %w", err)
	}
	return m, nil
}

// Run runs the sandbox simulator and, with a provider configured, the live
// provider until ctx ends; nil on a clean shutdown. Both loops recover by
// themselves: a failed refresh or request is logged and counted and tried
// again at the next tick (a position is worth its latest report only), so
// neither stops the stage.
func Run(ctx context.Context, cfg Config, deps Deps) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.WithDefaults()
	if deps.Producer == nil {
		return errors.New("vessels: no Kafka producer")
	}
	if deps.Log == nil {
		deps.Log = slog.Default()
	}
	deps.Log = deps.Log.With("stage", "vessels")
	m, err := newMetrics(deps.Registry)
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	if deps.Pool != nil {
		sim := newSimulator(cfg, deps, m)
		g.Go(func() error { return sim.run(gctx) })
	}
	if cfg.ProviderURL != "" && deps.CH != nil {
		p := newProvider(cfg, deps, m)
		g.Go(func() error { return p.run(gctx) })
	}
	<-gctx.Done()
	return g.Wait()
}

// produce writes reports to the positions topic and waits for Kafka:
// failures are counted (the next report of the vessel replaces them).
func produce(ctx context.Context, deps Deps, m *metrics, ps []schemas.VesselPosition) error {
	if len(ps) == 0 {
		return nil
	}
	topic := deps.Namespace.Topic(schemas.TopicVesselPositions)
	recs := make([]*kgo.Record, 0, len(ps))
	for _, p := range ps {
		v, err := p.Marshal()
		if err != nil {
			return err
		}
		recs = append(recs, &kgo.Record{Topic: topic, Key: []byte(p.Key()), Value: v,
			Headers: schemas.Headers{Type: schemas.TypeVesselPosition, ID: p.ID(), Env: p.Env}.Kafka()})
	}
	res := deps.Producer.ProduceSync(ctx, recs...)
	failed := 0
	for _, r := range res {
		if r.Err != nil {
			failed++
		} else {
			m.produced.WithLabelValues(kafkaEnv(r.Record)).Inc()
		}
	}
	if failed > 0 {
		m.failed.Add(float64(failed))
		return fmt.Errorf("vessels: %d of %d position reports not written: %w", failed, len(recs), res.FirstErr())
	}
	return nil
}

func kafkaEnv(r *kgo.Record) string {
	for _, h := range r.Headers {
		if h.Key == schemas.HeaderEnv {
			return string(h.Value)
		}
	}
	return ""
}
