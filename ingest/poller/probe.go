package poller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/contrack/contrack/ingest/carrier"
)

// ErrCarrierDown is Probe's error while the carrier's breaker is open: the
// carrier is failing for every account, and is not called.
var ErrCarrierDown = errors.New("poller: the carrier is down (its breaker is open)")

// PausedError is Probe's error while the account's calls to the carrier
// are paused (after consecutive failures, or the carrier's 429).
type PausedError struct{ Until time.Time }

func (e *PausedError) Error() string {
	return fmt.Sprintf("poller: this account's calls to the carrier are paused until %s", e.Until.UTC().Format(time.RFC3339))
}

// Probe makes one call to a carrier for an account outside the poll
// schedule (a health check, a shipment probe of carrier inference) through
// the same gates as the account's polls: its (account, carrier) share —
// rate and concurrency waited for, a pause refused (PausedError) — then,
// for a carrier with a platform-wide cap, its concurrency and rate, and
// the carrier's breaker (open: ErrCarrierDown, no call),
// with the carrier's one adapter and so its cached tokens. The outcome
// counts as a poll's does: failures pause the account, carrier faults feed
// the breaker. ctx bounds the waits; the call is also bounded by
// Config.PollTimeout.
func (g *Gates) Probe(ctx context.Context, env, scac, account string,
	call func(ctx context.Context, a carrier.Adapter) (carrier.Result, error)) (carrier.Result, error) {
	c, err := g.carrier(env, scac)
	if err != nil {
		return carrier.Result{}, err
	}
	a := g.account(env, scac, account)
	var probe bool
	for {
		now := time.Now()
		ok, isProbe, retry := a.admit(now, g.cfg)
		if ok {
			probe = isProbe
			break
		}
		if until, paused := a.paused(now); paused {
			return carrier.Result{}, &PausedError{Until: until}
		}
		wait := 20 * time.Millisecond // a slot of the account frees when a call ends
		if !retry.IsZero() {
			wait = retry.Sub(now)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return carrier.Result{}, ctx.Err()
		case <-t.C:
		}
	}
	var (
		res  carrier.Result
		made bool // a call reached (or tried to reach) the carrier
	)
	defer func() {
		if paused := a.release(time.Now(), g.cfg, probe, made, res); paused > 0 {
			g.log.Warn("carrier account paused", "carrier", scac, "env", env, "account_id", account,
				"pause", paused.String(), "http_code", res.HTTPCode, "reason", res.Reason)
		}
	}()
	if c.breaker.State() == gobreaker.StateOpen {
		return carrier.Result{}, ErrCarrierDown
	}
	if c.slots != nil { // a carrier with a platform-wide cap
		select {
		case c.slots <- struct{}{}:
		case <-ctx.Done():
			return carrier.Result{}, ctx.Err()
		}
		defer func() { <-c.slots }()
		if err := c.limiter.Wait(ctx); err != nil {
			return carrier.Result{}, err
		}
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, g.cfg.PollTimeout)
	defer cancel()
	res, err = c.breaker.Execute(func() (carrier.Result, error) {
		r, err := call(ctx, c.adapter)
		if err != nil && ctx.Err() != nil && parent.Err() == nil {
			// Our own timeout: the carrier did not answer in time.
			r, err = carrier.Result{Outcome: carrier.OutcomeUnreachable, Format: r.Format, Reason: "no answer within the poll timeout"}, nil
		}
		if err != nil {
			return r, err
		}
		f := classify(r)
		c.observe(account, f)
		if f == faultCarrier {
			return r, errCarrierDown
		}
		return r, nil
	})
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return carrier.Result{}, ErrCarrierDown
	}
	if err != nil && !errors.Is(err, errCarrierDown) {
		return res, err
	}
	made = true
	return res, nil
}
