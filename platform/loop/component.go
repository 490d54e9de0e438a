package loop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"time"
)

// Component is a periodic loop declared as data, as a maintenance service
// is: its name (its metrics' label and its name on /readyz), its rounds
// with the schedule of each, and what follows a failed round. The
// supervisor runs it (Supervisor.Run): every round's failure is counted, a
// run of them turns /readyz red until a round succeeds, and the process's
// loops all behave alike. Stages declare their periodic work this way
// rather than with tickers and goroutines of their own (arch_test.go).
type Component struct {
	Name string
	// Rounds are the component's work, each on its own schedule. They run
	// one at a time, in Rounds' order when several are due at once (a
	// round never overlaps another of the component).
	Rounds []Round
	// OnFailure is what follows a failed round (default NextTick).
	OnFailure OnFailure
	// Log is the component's logger (nil: the supervisor's).
	Log *slog.Logger
}

// Round is one kind of a component's work and when it runs.
type Round struct {
	// Every runs the round at this interval, as a ticker does (a round
	// that takes longer runs again at once, ticks missed meanwhile
	// dropped); 0: only at start or on Wake.
	Every time.Duration
	// AtStart runs the round once when the component starts.
	AtStart bool
	// Wake, if set, runs the round at once when it receives (work poked,
	// a batch full).
	Wake <-chan struct{}
	// Do is one round. It logs its failure with its own context; the
	// supervisor counts it (and logs the turn to failing).
	Do func(ctx context.Context) error
}

// OnFailure is what follows a component's failed round.
type OnFailure int

const (
	// NextTick: the round is tried again when it is next due (its next
	// tick or wake), as a ticker's loop does.
	NextTick OnFailure = iota
	// BackOff: the component waits the supervisor's backoff (doubling per
	// failure in a row, logged by the supervisor) before any next round.
	BackOff
)

// Validate reports every invalid field.
func (c Component) Validate() error {
	var errs []error
	if c.Name == "" {
		errs = append(errs, errors.New("loop: component without a name"))
	}
	if len(c.Rounds) == 0 {
		errs = append(errs, fmt.Errorf("loop: component %s has no rounds", c.Name))
	}
	for i, r := range c.Rounds {
		switch {
		case r.Do == nil:
			errs = append(errs, fmt.Errorf("loop: component %s: round %d does nothing", c.Name, i))
		case r.Every < 0:
			errs = append(errs, fmt.Errorf("loop: component %s: round %d has a negative interval", c.Name, i))
		case r.Every == 0 && !r.AtStart && r.Wake == nil:
			errs = append(errs, fmt.Errorf("loop: component %s: round %d never runs (no interval, start or wake)", c.Name, i))
		}
	}
	if c.OnFailure != NextTick && c.OnFailure != BackOff {
		errs = append(errs, fmt.Errorf("loop: component %s: unknown failure policy %d", c.Name, c.OnFailure))
	}
	return errors.Join(errs...)
}

// Run runs c until ctx ends and returns nil then, or c's invalid
// declaration, or a round's error marked Unrecoverable (with c's name). A
// nil Supervisor runs it too, counting nothing.
func (s *Supervisor) Run(ctx context.Context, c Component) error {
	if err := c.Validate(); err != nil {
		return err
	}
	log := c.Log
	if log == nil && s != nil {
		log = s.log
	}
	l := s.Loop(c.Name, log)
	// The cases of one select: ctx, then each round's ticker and wake.
	cases := []reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())}}
	var which []int
	for i, r := range c.Rounds {
		if r.Every > 0 {
			t := time.NewTicker(r.Every)
			defer t.Stop()
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(t.C)})
			which = append(which, i)
		}
		if r.Wake != nil {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(r.Wake)})
			which = append(which, i)
		}
	}
	round := func(r Round) (stop bool, err error) {
		err = r.Do(ctx)
		switch {
		case ctx.Err() != nil:
			return true, nil
		case err == nil:
			l.Succeeded()
			return false, nil
		case errors.Is(err, ErrUnrecoverable):
			l.Report(err)
			return true, fmt.Errorf("%s: %w", c.Name, err)
		case c.OnFailure == BackOff:
			return !Sleep(ctx, l.Failed(err)), nil
		default:
			l.Report(err)
			return false, nil
		}
	}
	for _, r := range c.Rounds {
		if r.AtStart {
			if stop, err := round(r); stop {
				return err
			}
		}
	}
	for {
		chosen, _, ok := reflect.Select(cases)
		if chosen == 0 {
			return nil
		}
		if !ok { // a closed wake channel: that round wakes no more
			cases[chosen].Chan = reflect.ValueOf((<-chan struct{})(nil))
			continue
		}
		if stop, err := round(c.Rounds[which[chosen-1]]); stop {
			return err
		}
	}
}
