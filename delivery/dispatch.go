package delivery

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/contrack/contrack/delivery/target"
	"github.com/contrack/contrack/platform/secretbox"
)

// dispatcher claims due deliveries and sends them: at most Workers in
// flight, at most EndpointConcurrency per endpoint (one when its breaker is
// half-open, none when open), so a slow or failing endpoint occupies only
// its own share of the workers and the claim query passes it over.
type dispatcher struct {
	cfg     Config
	store   *store
	sender  *sender
	box     *secretbox.Box
	log     *slog.Logger
	metrics *Metrics
	alog    *attemptLog // nil: attempts are not logged to ClickHouse
	now     func() time.Time
	rnd     func() float64

	results chan outcome
	poke    chan struct{} // a delivery may be claimable
	dlqPoke chan struct{} // a delivery died

	mu        sync.Mutex
	inflight  int
	endpoints map[string]*endpoint
	sends     sync.WaitGroup
}

// endpoint is the in-process state of one target host.
type endpoint struct {
	inflight int
	breaker  *gobreaker.CircuitBreaker[attempt]
}

// claimSpacing is the least time between two claims, and recordLinger how
// long the first outcome of a batch waits for others: a few milliseconds of
// latency for a fraction of the database work under load.
const (
	claimSpacing = 3 * time.Millisecond
	recordLinger = 3 * time.Millisecond
)

var (
	errAttemptFailed = errors.New("delivery: attempt failed")
	errAbandoned     = errors.New("delivery: attempt abandoned at shutdown")
)

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// endpointLocked returns key's endpoint, creating it; d.mu is held.
func (d *dispatcher) endpointLocked(key string) *endpoint {
	if ep := d.endpoints[key]; ep != nil {
		return ep
	}
	gauge := d.metrics.breakerState.WithLabelValues(key)
	gauge.Set(0)
	ep := &endpoint{breaker: gobreaker.NewCircuitBreaker[attempt](gobreaker.Settings{
		Name:        key,
		MaxRequests: 1,
		Timeout:     d.cfg.BreakerTimeout,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= d.cfg.BreakerFailures },
		IsExcluded:  func(err error) bool { return errors.Is(err, errAbandoned) },
		OnStateChange: func(name string, from, to gobreaker.State) {
			gauge.Set(breakerValue(to))
			d.log.Warn("endpoint breaker state changed", "endpoint", name, "from", from.String(), "to", to.String())
			if to == gobreaker.StateHalfOpen || to == gobreaker.StateClosed {
				signal(d.poke)
			}
		},
	})}
	d.endpoints[key] = ep
	return ep
}

// capacity is how many deliveries may be claimed now, and per endpoint.
func (d *dispatcher) capacity() (int, claimLimits) {
	d.mu.Lock()
	defer d.mu.Unlock()
	lim := claimLimits{Default: d.cfg.EndpointConcurrency}
	for key, ep := range d.endpoints {
		limit := d.cfg.EndpointConcurrency
		switch ep.breaker.State() { // moves an open breaker past its timeout to half-open
		case gobreaker.StateOpen:
			limit = 0
		case gobreaker.StateHalfOpen:
			limit = 1
		}
		switch free := limit - ep.inflight; {
		case free <= 0:
			lim.Full = append(lim.Full, key)
		case free < d.cfg.EndpointConcurrency:
			lim.Hosts = append(lim.Hosts, key)
			lim.Free = append(lim.Free, int32(free))
		}
	}
	return d.cfg.Workers - d.inflight, lim
}

// claimLoop claims and starts deliveries until ctx ends. Sends run under
// sendCtx, which outlives ctx by the shutdown grace.
func (d *dispatcher) claimLoop(ctx, sendCtx context.Context) {
	idle := time.NewTimer(d.cfg.PollInterval)
	defer idle.Stop()
	var last time.Time
	for ctx.Err() == nil {
		// Under load, let slots free up between claims: one claim of many
		// rows costs the database about what one of a single row does.
		if wait := claimSpacing - time.Since(last); wait > 0 {
			time.Sleep(wait)
		}
		last = time.Now()
		more := false
		if n, limits := d.capacity(); n > 0 {
			cs, err := d.store.claim(ctx, n, limits, d.now())
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				d.log.Error("claim deliveries", "err", err)
			}
			for i := range cs {
				d.start(sendCtx, &cs[i])
			}
			more = len(cs) == n
		}
		if more {
			continue
		}
		idle.Reset(d.cfg.PollInterval)
		select {
		case <-ctx.Done():
			return
		case <-d.poke:
		case <-idle.C:
		}
	}
}

func (d *dispatcher) start(ctx context.Context, c *claimed) {
	d.mu.Lock()
	ep := d.endpointLocked(c.Endpoint)
	ep.inflight++
	d.inflight++
	d.mu.Unlock()
	d.sends.Add(1)
	go func() {
		defer d.sends.Done()
		o := d.deliver(ctx, c, ep)
		d.mu.Lock()
		ep.inflight--
		d.inflight--
		d.mu.Unlock()
		d.results <- o
		signal(d.poke)
	}()
}

// deliver makes one attempt of c and judges it.
func (d *dispatcher) deliver(ctx context.Context, c *claimed, ep *endpoint) outcome {
	secret, err := d.box.Open(c.SecretEnc, secretbox.WebhookSecretContext(c.AccountID))
	if err != nil {
		return d.judge(c, attempt{Outcome: OutcomeSecretError, Error: "webhook secret cannot be opened (was CONTRACK_SECRET_KEY changed?)"})
	}
	if msg, ok := target.Validate(c.TargetURL, c.Env, d.cfg.AllowPrivate); !ok {
		return d.judge(c, attempt{Outcome: OutcomeRejectedTarget, Error: "target refused: " + msg})
	}
	a, err := ep.breaker.Execute(func() (attempt, error) {
		a := d.sender.send(ctx, c, string(secret))
		switch {
		case ctx.Err() != nil && !a.ok():
			return a, errAbandoned
		case !a.ok():
			return a, errAttemptFailed
		}
		return a, nil
	})
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) || errors.Is(err, errAbandoned) {
		return outcome{c: c} // no attempt spent: released, due again at once
	}
	return d.judge(c, a)
}

// judge turns an attempt into c's next state, counting and logging it.
func (d *dispatcher) judge(c *claimed, a attempt) outcome {
	now := d.now()
	o := outcome{c: c, HTTPCode: a.HTTPCode, Error: a.Error, At: now, NextAt: now}
	switch {
	case a.ok():
		o.Status = StatusDelivered
		d.metrics.endToEnd.Observe(now.Sub(c.CreatedAt).Seconds())
	case a.Outcome == OutcomeGone:
		// Parked: due at once, but claimed only when the webhook is activated again.
		o.Status, o.Gone = StatusFailed, true
	default:
		if next, more := d.cfg.nextAttempt(c.RoundAttempts+1, a.RetryAfter, now, d.rnd); more {
			o.Status, o.NextAt = StatusFailed, next
		} else {
			o.Status = StatusDead
		}
	}
	d.metrics.attempts.WithLabelValues(a.Outcome).Inc()
	if a.Latency > 0 {
		d.metrics.latency.Observe(a.Latency.Seconds())
	}
	if d.alog != nil {
		d.alog.add(attemptRow{
			DeliveryID: c.ID, AccountID: c.AccountID, SubscriptionID: c.SubscriptionID, Endpoint: c.Endpoint,
			Attempt: c.Attempts + 1, StatusCode: a.HTTPCode, Outcome: a.Outcome, Latency: a.Latency, Error: a.Error, At: now,
		})
	}
	return o
}

// complete records outcomes until results is closed and drained, batching
// what has accumulated into one transaction. A failed write is retried
// until ctx ends (the leases then expire and the deliveries are sent again).
func (d *dispatcher) complete(ctx context.Context) {
	const maxBatch = 256
	outs := make([]outcome, 0, maxBatch)
	linger := time.NewTimer(0)
	for o := range d.results {
		outs = append(outs[:0], o)
		linger.Reset(recordLinger)
	gather:
		for len(outs) < maxBatch {
			select {
			case o, ok := <-d.results:
				if !ok {
					break gather
				}
				outs = append(outs, o)
			case <-linger.C:
				break gather
			}
		}
		linger.Stop()
		d.record(ctx, outs)
	}
}

func (d *dispatcher) record(ctx context.Context, outs []outcome) {
	wait := 100 * time.Millisecond
	for {
		opened, died, err := d.store.record(ctx, outs, d.now())
		if err == nil {
			for _, o := range outs {
				if o.Status == StatusDelivered || o.Status == StatusDead {
					d.metrics.closed.WithLabelValues(o.Status).Inc()
				}
			}
			if opened {
				signal(d.poke)
			}
			if died > 0 {
				signal(d.dlqPoke)
			}
			return
		}
		if ctx.Err() != nil {
			d.log.Error("outcomes not recorded at shutdown; the deliveries will be sent again when their lease expires",
				"count", len(outs), "err", err)
			return
		}
		d.log.Error("record outcomes, retrying", "count", len(outs), "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}
