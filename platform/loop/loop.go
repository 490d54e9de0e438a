// Package loop supervises a process's long-running loops — the outbox
// relay, the delivery claim loop, the dedupe saver, the stream runtime's
// fetches — all the same way, as every handler runs under one router: a
// failed round waits a backoff (cenkalti/backoff, 100 ms doubling to 10 s
// with jitter), is counted (contrack_loop_failures_total{loop}) and logged;
// a success is stamped (contrack_loop_last_success_timestamp_seconds{loop});
// after UnreadyAfter failures in a row the loop is reported failing, so the
// process's /readyz answers 503 naming it until a round succeeds again; an
// error marked Unrecoverable ends the loop with the error, which the stage's
// errgroup carries up so the process stops with the loop's name.
//
// A loop that only logs its failures is invisible: nothing counts them and
// readiness stays green while it retries for ever. Every loop that can
// fail runs through a Loop instead.
package loop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/contrack/contrack/platform/metrics"
)

// Config is the supervision policy of a process's loops. Zero values take
// the defaults (WithDefaults).
type Config struct {
	// UnreadyAfter is how many failed rounds in a row turn a loop failing
	// on /readyz (default 5: with the default backoff about 3 s of
	// failures); its next successful round turns it back.
	UnreadyAfter int
	// Backoff is the wait after a failed round.
	Backoff Backoff
}

// Validate reports every invalid field.
func (c Config) Validate() error {
	var errs []error
	if c.UnreadyAfter < 0 {
		errs = append(errs, errors.New("loop: UnreadyAfter must not be negative"))
	}
	if c.Backoff.Initial < 0 || c.Backoff.Max < 0 {
		errs = append(errs, errors.New("loop: Backoff.Initial and Backoff.Max must not be negative"))
	}
	if c.Backoff.Initial > 0 && c.Backoff.Max > 0 && c.Backoff.Max < c.Backoff.Initial {
		errs = append(errs, errors.New("loop: Backoff.Max must not be below Backoff.Initial"))
	}
	return errors.Join(errs...)
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.UnreadyAfter == 0 {
		c.UnreadyAfter = 5
	}
	c.Backoff = c.Backoff.WithDefaults(100*time.Millisecond, 10*time.Second)
	return c
}

// Backoff is an exponential backoff: Initial doubling up to Max, each wait
// within ±20% (jitter, so replicas that failed together do not retry in
// step).
type Backoff struct {
	Initial, Max time.Duration
}

// WithDefaults fills a zero Initial or Max.
func (b Backoff) WithDefaults(initial, maxWait time.Duration) Backoff {
	if b.Initial <= 0 {
		b.Initial = initial
	}
	if b.Max <= 0 {
		b.Max = maxWait
	}
	return b
}

// New returns the library's backoff for b (not safe for concurrent use:
// one per loop or partition).
func (b Backoff) New() *backoff.ExponentialBackOff {
	b = b.WithDefaults(100*time.Millisecond, 10*time.Second)
	eb := &backoff.ExponentialBackOff{InitialInterval: b.Initial, MaxInterval: b.Max, Multiplier: 2, RandomizationFactor: 0.2}
	eb.Reset()
	return eb
}

// Readiness is where loops report failing: the process's /readyz
// (httpapi.Health).
type Readiness interface {
	SetFailing(loop string, failing bool)
}

// ErrUnrecoverable marks an error a loop cannot go on after.
var ErrUnrecoverable = errors.New("unrecoverable")

// Unrecoverable wraps err so Run ends with it instead of retrying.
func Unrecoverable(err error) error { return fmt.Errorf("%w: %w", ErrUnrecoverable, err) }

// Supervisor holds a process's loop collectors and readiness. A nil
// *Supervisor is valid: its loops back off and log, counting nothing.
type Supervisor struct {
	cfg         Config
	ready       Readiness
	failures    *prometheus.CounterVec
	lastSuccess *prometheus.GaugeVec
	inARow      *prometheus.GaugeVec
	log         *slog.Logger

	mu    sync.Mutex
	loops map[string]*Loop
}

// New returns a Supervisor whose collectors are on reg (the role's
// registry; nil: a registry of its own) and which reports failing loops to
// ready (nil: nowhere).
func New(cfg Config, reg prometheus.Registerer, ready Readiness, log *slog.Logger) (*Supervisor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Supervisor{cfg: cfg.WithDefaults(), ready: ready, log: log, loops: map[string]*Loop{},
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contrack_loop_failures_total",
			Help: "Failed rounds of a long-running loop (a store or broker call that failed and is retried after a backoff), by loop.",
		}, []string{"loop"}),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "contrack_loop_last_success_timestamp_seconds",
			Help: "Unix time of a long-running loop's last successful round, by loop.",
		}, []string{"loop"}),
		inARow: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "contrack_loop_consecutive_failures",
			Help: "Failed rounds in a row of a long-running loop (0 once a round succeeds), by loop; at UnreadyAfter /readyz answers 503.",
		}, []string{"loop"}),
	}
	var err error
	if s.failures, err = metrics.Register(reg, s.failures); err != nil {
		return nil, err
	}
	if s.lastSuccess, err = metrics.Register(reg, s.lastSuccess); err != nil {
		return nil, err
	}
	if s.inARow, err = metrics.Register(reg, s.inARow); err != nil {
		return nil, err
	}
	return s, nil
}

// Loop returns the loop called name (the metrics' label and the name on
// /readyz: a fixed string per loop, never an account or host), logging
// through log. Asked again for the same name it returns the same Loop, so
// every partition worker of one consumer shares one run of failures.
func (s *Supervisor) Loop(name string, log *slog.Logger) *Loop {
	if log == nil {
		log = slog.Default()
	}
	if s == nil {
		cfg := Config{}.WithDefaults()
		return &Loop{name: name, log: log.With("loop", name), cfg: cfg, bo: cfg.Backoff.New()}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.loops[name]; l != nil {
		return l
	}
	l := &Loop{sup: s, name: name, log: log.With("loop", name), cfg: s.cfg, bo: s.cfg.Backoff.New()}
	s.loops[name] = l
	s.failures.WithLabelValues(name).Add(0) // the series exists before the first failure
	s.inARow.WithLabelValues(name).Set(0)
	return l
}

// Loop is one named long-running loop. Its methods are safe for
// concurrent use. A nil *Loop (a component built without one, in tests)
// counts nothing and backs off Config's default first wait.
type Loop struct {
	sup  *Supervisor
	name string
	log  *slog.Logger
	cfg  Config

	mu      sync.Mutex
	bo      *backoff.ExponentialBackOff
	failed  int // rounds failed in a row
	failing bool
}

// Name is the loop's name.
func (l *Loop) Name() string { return l.name }

// Succeeded records a successful round: the run of failures ends, the
// backoff starts again from its first wait, and a failing loop is
// reported recovered.
func (l *Loop) Succeeded() {
	if l == nil {
		return
	}
	l.mu.Lock()
	was, recovered := l.failed, l.failing
	l.failed, l.failing = 0, false
	l.bo.Reset()
	l.mu.Unlock()
	if s := l.sup; s != nil {
		s.lastSuccess.WithLabelValues(l.name).SetToCurrentTime()
		if was > 0 {
			s.inARow.WithLabelValues(l.name).Set(0)
		}
		if recovered && s.ready != nil {
			s.ready.SetFailing(l.name, false)
		}
	}
	if recovered {
		l.log.Info("loop recovered", "failures", was)
	}
}

// Failed records a failed round — counted, logged with err, and after
// UnreadyAfter in a row reported failing — and returns how long to wait
// before the next try.
func (l *Loop) Failed(err error) time.Duration {
	if l == nil {
		return Config{}.WithDefaults().Backoff.Initial
	}
	l.mu.Lock()
	wait := l.bo.NextBackOff()
	l.mu.Unlock()
	n, turned := l.record(err, wait)
	if !turned {
		l.log.Warn("loop round failed; retrying", "failures", n, "backoff", wait, "err", err)
	}
	return wait
}

// Report records a failed round as Failed does, for a caller that paces
// its own retries and logs the failure with its own context: it logs only
// the turn to failing.
func (l *Loop) Report(err error) {
	if l != nil {
		l.record(err, 0)
	}
}

// record counts a failure and reports the loop failing once the run
// reaches UnreadyAfter (turned: this failure did it, logged here).
func (l *Loop) record(err error, wait time.Duration) (n int, turned bool) {
	l.mu.Lock()
	l.failed++
	n = l.failed
	turned = n >= l.cfg.UnreadyAfter && !l.failing
	if turned {
		l.failing = true
	}
	l.mu.Unlock()
	if s := l.sup; s != nil {
		s.failures.WithLabelValues(l.name).Inc()
		s.inARow.WithLabelValues(l.name).Set(float64(n))
		if turned && s.ready != nil {
			s.ready.SetFailing(l.name, true)
		}
	}
	if turned {
		l.log.Error("loop failing; not ready until it succeeds", "failures", n, "backoff", wait, "err", err)
	}
	return n, turned
}

// Failures is how many rounds in a row have failed.
func (l *Loop) Failures() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failed
}

// Run calls round until ctx ends, and returns nil then. After a round
// that returned nil (a success) it waits every (0: calls again at once);
// after one that failed, the backoff. A round may report successes itself
// (Succeeded) while it runs, as a round that holds a connection for long
// does. A round's error marked Unrecoverable ends Run with it.
func (l *Loop) Run(ctx context.Context, every time.Duration, round func(context.Context) error) error {
	for {
		err := round(ctx)
		if ctx.Err() != nil {
			return nil
		}
		wait := every
		if err == nil {
			l.Succeeded()
		} else {
			wait = l.Failed(err)
			if errors.Is(err, ErrUnrecoverable) {
				return fmt.Errorf("%s: %w", l.name, err)
			}
		}
		if wait > 0 && !Sleep(ctx, wait) {
			return nil
		}
	}
}

// Do calls op until it succeeds, waiting the loop's backoff after each
// failure (counted as the loop's), and returns nil; or returns op's error
// once ctx has ended or the error is marked Unrecoverable. For one write
// that must land (a flush) inside a loop of another shape.
func (l *Loop) Do(ctx context.Context, op func(context.Context) error) error {
	for {
		err := op(ctx)
		if err == nil {
			l.Succeeded()
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		wait := l.Failed(err)
		if errors.Is(err, ErrUnrecoverable) {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		if !Sleep(ctx, wait) {
			return err
		}
	}
}

// Sleep waits d or until ctx ends; false if ctx ended.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
