// Package poller polls carriers' APIs for the open trackings of its
// partitions of the subscriptions topic, and writes what it gets to the
// carrier-raw topic and one attempt record per poll to poll-attempts.
//
// State: the subscriptions topic is read from the start of every assigned
// partition (the poller never commits offsets), so the set of open trackings
// is rebuilt from Kafka after any restart or rebalance, and only partitions'
// owners poll their trackings: two pollers never poll one tracking at once.
// After a rebuild, trackings are spread over one interval, not polled at
// once, so a restart causes no poll storm.
package poller

import (
	"errors"
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
	// FirstPoll is the delay before a new tracking's first poll (default 1 s).
	FirstPoll time.Duration
	// RetryBase is the first wait after a transient carrier error, doubled
	// per consecutive error up to the interval (default 30 s).
	RetryBase time.Duration
	// Workers bounds polls in flight in this process (default 32).
	Workers int
	// CarrierConcurrency bounds polls in flight per carrier and environment,
	// over all accounts (default 8).
	CarrierConcurrency int
	// CarrierRate bounds requests per second per carrier and environment,
	// over all accounts (default 20).
	CarrierRate float64
	// AccountConcurrency and AccountRate bound one account's polls of one
	// carrier within the carrier's cap (default 4 in flight, 10/s), so one
	// account's backlog or slow shipments leave the rest of the cap to others.
	AccountConcurrency int
	AccountRate        float64
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
}

// Validate reports every invalid field.
func (c Config) Validate() error {
	var errs []error
	if c.Jitter < 0 || c.Jitter >= 1 {
		errs = append(errs, errors.New("poller: Jitter must be in [0, 1)"))
	}
	for name, v := range map[string]float64{
		"Workers": float64(c.Workers), "CarrierConcurrency": float64(c.CarrierConcurrency), "CarrierRate": c.CarrierRate,
		"AccountConcurrency": float64(c.AccountConcurrency), "AccountRate": c.AccountRate, "AccountFailures": float64(c.AccountFailures),
		"AccountBackoffMax": float64(c.AccountBackoffMax), "BreakerAccounts": float64(c.BreakerAccounts), "MaxRecordBytes": float64(c.MaxRecordBytes),
	} {
		if v < 0 {
			errs = append(errs, errors.New("poller: "+name+" must not be negative"))
		}
	}
	if c.CarrierConcurrency > 0 && c.AccountConcurrency > c.CarrierConcurrency {
		errs = append(errs, errors.New("poller: AccountConcurrency must not exceed CarrierConcurrency"))
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
		c.Workers = 32
	}
	if c.CarrierConcurrency == 0 {
		c.CarrierConcurrency = 8
	}
	if c.CarrierRate == 0 {
		c.CarrierRate = 20
	}
	if c.AccountConcurrency == 0 {
		c.AccountConcurrency = min(4, c.CarrierConcurrency)
	}
	if c.AccountRate == 0 {
		c.AccountRate = min(10, c.CarrierRate)
	}
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
