// Package poller polls carriers' APIs for the open trackings of every
// account that stored credentials for them, and writes what it gets to the
// carrier-raw topic and one attempt record per poll to poll-attempts.
//
// The schedule is a Postgres index on next-due time per (account, carrier)
// (trackings.next_poll_at, migration 0041), not a set in memory: the poller
// claims due trackings by the index — never-polled ones first, then those
// due early for an expected event, then the rest in due order — as many as
// each account's plan rate at that carrier allows, so the cost of a poll
// does not grow with the number of trackings, a new subscription is polled
// within seconds whatever else its account tracks, and an account whose
// trackings need more polls than its rate sees every interval stretch
// alike. What the poller keeps in memory is per (account, carrier): its
// rate, pause and capacity figures. Several pollers share the accounts by
// hash (poller_members); a claim leases the tracking, so two pollers never
// poll one tracking at once, and a restart keeps the schedule.
package poller

import (
	"errors"
	"math"
	"strings"
	"time"
)

// Config tunes the poller. Zero values take the documented defaults.
type Config struct {
	// Interval is the time between polls of one tracking, per environment
	// (default live 15 min, sandbox 1 min), ± Jitter.
	Interval map[string]time.Duration
	// CarrierInterval overrides Interval for "env/SCAC".
	CarrierInterval map[string]time.Duration
	// Jitter is the fraction of the interval added or removed at random (default 0.1).
	Jitter float64
	// FirstPoll is how often an account and carrier with nothing due looks
	// again, which bounds the wait of a new tracking's first poll (default 1 s).
	FirstPoll time.Duration
	// RetryBase is the first wait after a transient carrier error, doubled
	// per consecutive error up to the interval (default 30 s).
	RetryBase time.Duration
	// Workers bounds polls in flight in this process (default 512).
	Workers int
	// CarrierRate caps the polls per second of "env/SCAC" over all
	// accounts, for a carrier that sets a limit for the platform as a whole
	// or is polled with the platform's own credentials. Carriers not named
	// have no platform-wide cap (the default: none): each account polls with
	// its own credentials under its own contract, at its plan's rate.
	CarrierRate map[string]float64
	// CarrierConcurrency bounds polls in flight of a carrier named in
	// CarrierRate, over all accounts (default 8).
	CarrierConcurrency int
	// AccountConcurrency bounds one account's polls of one carrier in
	// flight (default: a second's worth of its plan's rate, at least 4), so
	// one account's slow shipments leave the workers to others. The rate
	// itself is the plan's carrier rate (usage_plans.carrier_rate, 10/s
	// without a plan).
	AccountConcurrency int
	// AccountFailures consecutive failures of one (account, carrier) — its
	// credentials refused, its key over quota, or anything else failing for
	// it — pause that account's polls of that carrier only: RetryBase,
	// doubling per further failure up to AccountBackoffMax, one probe poll
	// at a time after each pause (default 5 failures, 5 min). A 429 pauses
	// it at once for its Retry-After (at least RetryBase, at most
	// AccountBackoffMax).
	AccountFailures   int
	AccountBackoffMax time.Duration
	// BreakerFailures consecutive carrier faults (5xx, timeouts, no answer)
	// open a carrier's breaker for every account (default 5), provided they
	// came from at least BreakerAccounts accounts (default 2; fewer when
	// fewer accounts poll the carrier here). 401/403/429 never count: they
	// are the account's. BreakerTimeout later one half-open probe is let
	// through (default 30 s).
	BreakerFailures uint32
	BreakerAccounts int
	BreakerTimeout  time.Duration
	// MaxRecordBytes is the largest carrier-raw record produced (default
	// 1,000,000, under franz-go's default batch limit and Kafka's default
	// message.max.bytes). A polled page whose record would be larger is
	// dead-lettered to the carrier-raw DLQ with its reason instead of
	// failing the poll for ever.
	MaxRecordBytes int
	// PollTimeout bounds one poll (default 60 s).
	PollTimeout time.Duration
	// ExpectedGrace: when the carrier expects an event (EST or PLN: an ETA,
	// a planned departure) before the next regular poll, the tracking is
	// polled this long after that time instead (default 2 min; needs
	// Deps.Parsers). MinInterval is the least time between two polls of a
	// tracking that this brings forward (default 1 min).
	ExpectedGrace time.Duration
	MinInterval   time.Duration
	// Refresh is how often the accounts' credentials, plan rates and the
	// pollers alive are read again (default 5 s): a credential stored or a
	// plan changed takes effect within it.
	Refresh time.Duration
	// CapacityEvery is how often each (account, carrier)'s capacity figures
	// are written for GET /account (default 10 s).
	CapacityEvery time.Duration
	// AllowPrivateConnectors lets accounts' carrier connectors reach
	// loopback, private and link-local addresses (development only; set
	// from CONTRACK_ALLOW_PRIVATE_WEBHOOKS, as webhook targets are). Without
	// it a connector's client refuses them at every connection.
	AllowPrivateConnectors bool
}

// Validate reports every invalid field.
func (c Config) Validate() error {
	var errs []error
	if c.Jitter < 0 || c.Jitter >= 1 {
		errs = append(errs, errors.New("poller: Jitter must be in [0, 1)"))
	}
	for name, v := range map[string]float64{
		"Workers": float64(c.Workers), "CarrierConcurrency": float64(c.CarrierConcurrency),
		"AccountConcurrency": float64(c.AccountConcurrency), "AccountFailures": float64(c.AccountFailures),
		"AccountBackoffMax": float64(c.AccountBackoffMax), "BreakerAccounts": float64(c.BreakerAccounts), "MaxRecordBytes": float64(c.MaxRecordBytes),
	} {
		if v < 0 {
			errs = append(errs, errors.New("poller: "+name+" must not be negative"))
		}
	}
	for k, v := range c.CarrierRate {
		if v <= 0 {
			errs = append(errs, errors.New("poller: CarrierRate for "+k+" must be positive"))
		}
		if env, scac, ok := strings.Cut(k, "/"); !ok || env == "" || scac == "" {
			errs = append(errs, errors.New("poller: CarrierRate key "+k+" must be env/SCAC"))
		}
	}
	for k, v := range c.Interval {
		if v <= 0 {
			errs = append(errs, errors.New("poller: Interval for "+k+" must be positive"))
		}
	}
	return errors.Join(errs...)
}

// WithDefaults returns c with every zero field set to its documented default;
// Run applies it after Validate, so a zero Config is a valid one.
func (c Config) WithDefaults() Config {
	iv := map[string]time.Duration{"live": 15 * time.Minute, "sandbox": time.Minute}
	for k, v := range c.Interval {
		iv[k] = v
	}
	c.Interval = iv
	if c.Jitter == 0 {
		c.Jitter = 0.1
	}
	if c.FirstPoll == 0 {
		c.FirstPoll = time.Second
	}
	if c.RetryBase == 0 {
		c.RetryBase = 30 * time.Second
	}
	if c.Workers == 0 {
		c.Workers = 512
	}
	if c.CarrierConcurrency == 0 {
		c.CarrierConcurrency = 8
	}
	caps := map[string]float64{}
	for k, v := range c.CarrierRate {
		env, scac, _ := strings.Cut(k, "/")
		caps[env+"/"+strings.ToUpper(scac)] = v
	}
	c.CarrierRate = caps
	if c.AccountFailures == 0 {
		c.AccountFailures = 5
	}
	if c.AccountBackoffMax == 0 {
		c.AccountBackoffMax = 5 * time.Minute
	}
	if c.BreakerFailures == 0 {
		c.BreakerFailures = 5
	}
	if c.BreakerAccounts == 0 {
		c.BreakerAccounts = 2
	}
	if c.MaxRecordBytes == 0 {
		c.MaxRecordBytes = 1_000_000
	}
	if c.BreakerTimeout == 0 {
		c.BreakerTimeout = 30 * time.Second
	}
	if c.PollTimeout == 0 {
		c.PollTimeout = time.Minute
	}
	if c.ExpectedGrace == 0 {
		c.ExpectedGrace = 2 * time.Minute
	}
	if c.MinInterval == 0 {
		c.MinInterval = time.Minute
	}
	if c.Refresh == 0 {
		c.Refresh = 5 * time.Second
	}
	if c.CapacityEvery == 0 {
		c.CapacityEvery = 10 * time.Second
	}
	return c
}

func (c Config) interval(env, scac string) time.Duration {
	if d, ok := c.CarrierInterval[env+"/"+strings.ToUpper(scac)]; ok {
		return d
	}
	if d, ok := c.Interval[env]; ok {
		return d
	}
	return 15 * time.Minute
}

// accountConcurrency is one (account, carrier)'s polls in flight at rate.
func (c Config) accountConcurrency(rate float64) int {
	if c.AccountConcurrency > 0 {
		return c.AccountConcurrency
	}
	return max(4, int(math.Ceil(rate)))
}
