package delivery

import (
	"errors"
	"fmt"
	"time"
)

// DefaultSchedule is the wait before each retry of a failed delivery: ten
// attempts spanning a little over three days (5 s, 5 min, 30 min, 2 h, 5 h,
// 10 h, 14 h, 20 h, 24 h), each wait ± Config.Jitter.
var DefaultSchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour,
}

// Config tunes the stage. Zero values take the documented defaults.
type Config struct {
	// Workers bounds the deliveries in flight in this process that started
	// less than SlowAfter ago (default 64); see SlowAfter.
	Workers int
	// EndpointConcurrency bounds the deliveries in flight per endpoint — an
	// account's target host:port; two accounts on one host are two
	// endpoints — in this process (default 32, half the Workers), so one
	// slow endpoint holds at most this many slots and never delays another
	// account's. Deliveries of one subscription go one at a time, so this
	// is what a busy account's many subscriptions share: at 8 a single
	// account receiving 500 events/s waited half a second per delivery
	// for a slot (docs/performance.md).
	EndpointConcurrency int
	// SlowAfter is how long an attempt holds one of the shared Workers
	// (default 1 s): past it the attempt goes on, within Timeout, holding
	// only its endpoint's slot, and the worker serves someone else. So
	// however many accounts' endpoints hang, they cannot keep the pool
	// full for a whole Timeout; a value at or above Timeout turns this off.
	SlowAfter time.Duration
	// Timeout bounds one attempt, connection to last response byte read
	// (default 15 s). A timeout is a failed attempt.
	Timeout time.Duration
	// Schedule is the wait before each retry; a delivery gets 1+len(Schedule)
	// attempts, then it is dead-lettered (default DefaultSchedule, ≈3.2 days).
	Schedule []time.Duration
	// Jitter is the fraction of each wait added or removed at random
	// (default 0.2; set a negative value for none).
	Jitter float64
	// MaxRetryAfter caps how long a 429 or 503 answer's Retry-After can push
	// the next attempt back (default 1 h). Retry-After never brings an
	// attempt forward: the wait is the larger of the schedule's and Retry-After's.
	MaxRetryAfter time.Duration
	// MaxBatchEvents and MaxBatchBytes bound the events batched into one
	// delivery (defaults 100 and 256 KiB of event JSON; a single larger event
	// is still sent, alone).
	MaxBatchEvents int
	MaxBatchBytes  int
	// ResponseLimit is how much of a response body is read (default 4 KiB);
	// the rest is discarded unread.
	ResponseLimit int64
	// BreakerFailures consecutive failed attempts on an endpoint open its
	// circuit breaker (default 5): its deliveries then wait, spending no
	// attempts, until BreakerTimeout has passed (default 30 s) and one
	// half-open probe succeeds.
	BreakerFailures uint32
	BreakerTimeout  time.Duration
	// PollInterval is the longest a due delivery waits to be claimed when
	// nothing in this process signalled it (default 1 s): retries becoming
	// due, deliveries made by another instance, replays through the API.
	PollInterval time.Duration
	// Lease is how long a claimed delivery belongs to this process before
	// another may send it again (default Timeout + ShutdownGrace + 30 s). Only
	// a crashed sender lets a lease expire.
	Lease time.Duration
	// Heartbeat is how often this process proves in Postgres that it is
	// alive (default 1 s); InstanceTimeout is how stale a process's
	// heartbeat must be before the deliveries it leased are claimed by
	// another (default 3 s). A process killed mid-send thus has its
	// deliveries resumed within about InstanceTimeout, not Lease. Trap: a
	// process that cannot reach Postgres for InstanceTimeout may see a
	// delivery it is sending sent again by another (same webhook-id: at
	// least once, as after any crash).
	Heartbeat       time.Duration
	InstanceTimeout time.Duration
	// ShutdownGrace is how long in-flight attempts may finish once Run's
	// context ends (default 5 s); attempts still running then are abandoned
	// unrecorded and sent again (same webhook-id) after a restart.
	ShutdownGrace time.Duration
	// AllowPrivate lets targets resolve to loopback, private or link-local
	// addresses (CONTRACK_ALLOW_PRIVATE_WEBHOOKS; development only).
	AllowPrivate bool
	// Version goes into the User-Agent, contrack-webhooks/<Version> (default "dev").
	Version string
	// LogFlushInterval and LogBatchSize bound how long and how many attempt
	// rows wait before they are written to ClickHouse (defaults 1 s, 5,000).
	// LogBuffer caps the rows kept while ClickHouse is unreachable (default
	// 100,000; beyond it the oldest are dropped and counted).
	LogFlushInterval time.Duration
	LogBatchSize     int
	LogBuffer        int
	// SweepInterval is how often queued events whose subscription has no
	// open delivery are batched (a safety net, default 30 s), dead letters
	// are published to Kafka again if a publish failed, and old rows pruned.
	SweepInterval time.Duration
	// Retention is how long DELIVERED deliveries (and their queue rows, which
	// make re-queuing the same event a no-op) are kept (default 30 days);
	// DeadRetention the same for DEAD ones (default 90 days).
	Retention     time.Duration
	DeadRetention time.Duration
	// MetricsInterval is how often the queue depth gauges are refreshed
	// (default 15 s).
	MetricsInterval time.Duration
}

// Validate reports every invalid field (zero values are valid: they take the defaults).
func (c Config) Validate() error {
	var errs []error
	neg := func(name string, d time.Duration) {
		if d < 0 {
			errs = append(errs, fmt.Errorf("delivery: %s must not be negative", name))
		}
	}
	if c.Workers < 0 {
		errs = append(errs, errors.New("delivery: Workers must not be negative"))
	}
	if c.EndpointConcurrency < 0 {
		errs = append(errs, errors.New("delivery: EndpointConcurrency must not be negative"))
	}
	for i, d := range c.Schedule {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("delivery: Schedule[%d] must be positive", i))
		}
	}
	if c.Jitter >= 1 {
		errs = append(errs, errors.New("delivery: Jitter must be below 1"))
	}
	if c.MaxBatchEvents < 0 || c.MaxBatchBytes < 0 || c.ResponseLimit < 0 || c.LogBatchSize < 0 || c.LogBuffer < 0 {
		errs = append(errs, errors.New("delivery: MaxBatchEvents, MaxBatchBytes, ResponseLimit, LogBatchSize and LogBuffer must not be negative"))
	}
	neg("Timeout", c.Timeout)
	neg("SlowAfter", c.SlowAfter)
	neg("MaxRetryAfter", c.MaxRetryAfter)
	neg("BreakerTimeout", c.BreakerTimeout)
	neg("PollInterval", c.PollInterval)
	neg("Lease", c.Lease)
	neg("ShutdownGrace", c.ShutdownGrace)
	neg("Heartbeat", c.Heartbeat)
	neg("InstanceTimeout", c.InstanceTimeout)
	neg("LogFlushInterval", c.LogFlushInterval)
	neg("SweepInterval", c.SweepInterval)
	neg("Retention", c.Retention)
	neg("DeadRetention", c.DeadRetention)
	neg("MetricsInterval", c.MetricsInterval)
	d := c.WithDefaults()
	if d.EndpointConcurrency > d.Workers {
		errs = append(errs, errors.New("delivery: EndpointConcurrency must not exceed Workers"))
	}
	if d.InstanceTimeout < 2*d.Heartbeat {
		errs = append(errs, errors.New("delivery: InstanceTimeout must be at least twice Heartbeat, or a live process's deliveries could be taken from it"))
	}
	if d.Lease <= d.Timeout+d.ShutdownGrace {
		errs = append(errs, errors.New("delivery: Lease must exceed Timeout + ShutdownGrace, or an attempt still running could be sent twice at once"))
	}
	return errors.Join(errs...)
}

// WithDefaults returns c with every zero field set to its documented default;
// Run applies it after Validate, so a zero Config is a valid one.
func (c Config) WithDefaults() Config {
	if c.Workers == 0 {
		c.Workers = 64
	}
	if c.EndpointConcurrency == 0 {
		c.EndpointConcurrency = min(32, c.Workers)
	}
	if c.Timeout == 0 {
		c.Timeout = 15 * time.Second
	}
	if c.SlowAfter == 0 {
		c.SlowAfter = time.Second
	}
	if c.Schedule == nil {
		c.Schedule = DefaultSchedule
	}
	if c.Jitter == 0 {
		c.Jitter = 0.2
	}
	if c.Jitter < 0 {
		c.Jitter = 0
	}
	if c.MaxRetryAfter == 0 {
		c.MaxRetryAfter = time.Hour
	}
	if c.MaxBatchEvents == 0 {
		c.MaxBatchEvents = 100
	}
	if c.MaxBatchBytes == 0 {
		c.MaxBatchBytes = 256 << 10
	}
	if c.ResponseLimit == 0 {
		c.ResponseLimit = 4 << 10
	}
	if c.BreakerFailures == 0 {
		c.BreakerFailures = 5
	}
	if c.BreakerTimeout == 0 {
		c.BreakerTimeout = 30 * time.Second
	}
	if c.PollInterval == 0 {
		c.PollInterval = time.Second
	}
	if c.ShutdownGrace == 0 {
		c.ShutdownGrace = 5 * time.Second
	}
	if c.Lease == 0 {
		c.Lease = c.Timeout + c.ShutdownGrace + 30*time.Second
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = time.Second
	}
	if c.InstanceTimeout == 0 {
		c.InstanceTimeout = 3 * time.Second
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.LogFlushInterval == 0 {
		c.LogFlushInterval = time.Second
	}
	if c.LogBatchSize == 0 {
		c.LogBatchSize = 5000
	}
	if c.LogBuffer == 0 {
		c.LogBuffer = 100_000
	}
	if c.SweepInterval == 0 {
		c.SweepInterval = 30 * time.Second
	}
	if c.Retention == 0 {
		c.Retention = 30 * 24 * time.Hour
	}
	if c.DeadRetention == 0 {
		c.DeadRetention = 90 * 24 * time.Hour
	}
	if c.MetricsInterval == 0 {
		c.MetricsInterval = 15 * time.Second
	}
	return c
}

// attempts is how many attempts a delivery gets per round.
func (c Config) attempts() int { return 1 + len(c.Schedule) }
