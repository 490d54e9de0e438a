package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/contrack/contrack/platform/httpapi"
)

// shutdown is the process's one stop budget (CONTRACK_SHUTDOWN_TIMEOUT):
// it starts when the process begins to stop — a signal, or a stage that
// failed — and every part still running when it runs out is named.
type shutdown struct {
	budget time.Duration

	once    sync.Once
	expired chan struct{} // closed when the budget has run out

	mu      sync.Mutex
	running map[string]int // parts started and not yet returned
	cause   error          // the first part's failure, if one failed
}

// failed records why the process is stopping (the first failure only).
func (s *shutdown) failed(err error) {
	s.mu.Lock()
	if s.cause == nil {
		s.cause = err
	}
	s.mu.Unlock()
}

func newShutdown(budget time.Duration) *shutdown {
	return &shutdown{budget: budget, expired: make(chan struct{}), running: map[string]int{}}
}

// begin starts the budget (once; later calls do nothing).
func (s *shutdown) begin() {
	s.once.Do(func() { time.AfterFunc(s.budget, func() { close(s.expired) }) })
}

func (s *shutdown) started(name string) {
	s.mu.Lock()
	s.running[name]++
	s.mu.Unlock()
}

func (s *shutdown) stopped(name string) {
	s.mu.Lock()
	if s.running[name]--; s.running[name] <= 0 {
		delete(s.running, name)
	}
	s.mu.Unlock()
}

// hung names the parts still running, sorted.
func (s *shutdown) hung() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.running))
	for n := range s.running {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// errHung is returned when the shutdown budget ran out.
var errHung = errors.New("shutdown budget exceeded")

// await returns run's result, or — once ctx has ended (a signal) or
// stopping has begun and the budget is spent — an error naming the parts
// still running. The caller then exits non-zero without waiting for them.
func (s *shutdown) await(ctx context.Context, run func() error) error {
	done := make(chan error, 1)
	go func() { done <- run() }()
	stop := context.AfterFunc(ctx, s.begin)
	defer stop()
	select {
	case err := <-done:
		return err
	case <-s.expired:
		s.mu.Lock()
		cause := s.cause
		s.mu.Unlock()
		// The failure that started the stop comes first: it is the reason.
		return errors.Join(cause, fmt.Errorf("%w (CONTRACK_SHUTDOWN_TIMEOUT %s): still running: %s",
			errHung, s.budget, strings.Join(s.hung(), ", ")))
	}
}

// group runs a role's parts under one errgroup: the first that fails —
// or that returns while nobody asked it to stop, a silent stall otherwise —
// cancels the group's context, so the role stops with that reason and a
// supervisor restarts the process. Each part is ready on /readyz while it
// runs.
type group struct {
	g      *errgroup.Group
	ctx    context.Context // ends on the parent's end or the first failure
	sd     *shutdown
	health *httpapi.Health // nil: no readiness to report
	log    *slog.Logger
}

func newGroup(ctx context.Context, sd *shutdown, health *httpapi.Health, log *slog.Logger) *group {
	g, gctx := errgroup.WithContext(ctx)
	context.AfterFunc(gctx, sd.begin) // stopping starts the budget
	return &group{g: g, ctx: gctx, sd: sd, health: health, log: log}
}

// Go runs part name on ctx (the group's context, or one the caller cancels
// later to order the stop); the part must return nil only once ctx ends.
func (p *group) Go(name string, ctx context.Context, run func(context.Context) error) {
	p.sd.started(name)
	p.setReady(name, true)
	p.g.Go(func() error {
		defer p.sd.stopped(name)
		err := run(ctx)
		p.setReady(name, false)
		if err == nil && ctx.Err() == nil {
			err = errors.New("stopped without being asked to")
		}
		if err != nil {
			p.log.Error("stage failed; stopping the process", "stage", name, "err", err)
			err = fmt.Errorf("%s: %w", name, err)
			p.sd.failed(err)
			return err
		}
		return nil
	})
}

func (p *group) setReady(name string, up bool) {
	if p.health != nil {
		p.health.SetReady(name, up)
	}
}

// Wait waits for every part and returns the first failure.
func (p *group) Wait() error { return p.g.Wait() }
