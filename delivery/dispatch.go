package delivery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/sony/gobreaker/v2"

	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/webhooktarget"
	"github.com/contrack/contrack/schemas/deliveries"
)

// dispatcher claims due deliveries and sends them: at most
// EndpointConcurrency in flight per endpoint — an (account, host) pair,
// see endpointKey — (one when its breaker is half-open, none when open),
// and at most Workers attempts younger than SlowAfter in all. So a slow,
// hanging or failing endpoint occupies only its own slots, the claim query
// passes it over, and no tenant shares a breaker or a slot with another.
//
// The shared pool: an attempt holds one of the Workers only for its first
// SlowAfter; past that it is "slow" and holds only its endpoint's slot
// until it ends (within Timeout). However many accounts' endpoints hang,
// each hanging attempt keeps a shared worker for at most SlowAfter, so a
// healthy account's due delivery waits at most about SlowAfter for a
// worker per Workers hanging attempts started ahead of it — never a whole
// Timeout behind a full pool. In flight at once: at most Workers young
// attempts plus the slow ones, and since every slow attempt was young
// once and ends within Timeout, at most Workers × (1 + Timeout/SlowAfter)
// attempts (goroutines and connections) in all.
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

	// claiming and recording are the claim loop's and the outcome
	// writer's supervision (platform/loop).
	claiming, recording *loop.Loop

	results chan outcome
	poke    chan struct{} // a delivery may be claimable
	dlqPoke chan struct{} // a delivery died

	// sendCtx is the context attempts run under; it outlives the stage's
	// by the shutdown grace.
	sendCtx context.Context

	mu        sync.Mutex
	inflight  int  // attempts holding a shared worker (younger than SlowAfter)
	slow      int  // attempts past SlowAfter: they hold only their endpoint's slots
	reserved  int  // slots granted to enqueue transactions in flight
	accepting bool // false once shutting down: no more sends start
	// orphans are the tokens of grants whose enqueue failed, each until its
	// lease ends (see orphan).
	orphans map[uuid.UUID]time.Time
	// wantWorkers: deliveries may be waiting for a free worker, so any
	// send ending pokes the claim loop (endpoint.wantSlot: for a slot on
	// that endpoint). Otherwise a send ending pokes nothing: at a steady
	// pace every delivery is leased at birth, and a claim per send would
	// cost the database more than the sends do.
	wantWorkers bool
	endpoints   map[string]*endpoint // by endpointKey; idle healthy ones are dropped
	byAccount   map[string]*endpoint // the endpoint each account last sent to
	sends       sync.WaitGroup
}

// endpoint is the in-process state of one account's target host.
type endpoint struct {
	account  string
	inflight int // attempts in flight, slow ones included
	breaker  *gobreaker.CircuitBreaker[attempt]
	// wantSlot: deliveries may be waiting for room here (see wantWorkers).
	wantSlot bool
}

// claimSpacing is the least time between two claims, and recordLinger how
// long the first outcome of a batch waits for others: a fraction of the
// database work under load, and off the path of the receipt (the receiver
// has its answer; only a subscription's next batch, opened by the same
// transaction, waits). At 500 events/s 3 ms made a transaction for every
// 1.3 outcomes.
const (
	claimSpacing = 3 * time.Millisecond
	recordLinger = 10 * time.Millisecond
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
	account, host, _ := strings.Cut(key, "|")
	ep := &endpoint{account: account, breaker: gobreaker.NewCircuitBreaker[attempt](gobreaker.Settings{
		Name:        key,
		MaxRequests: 1,
		Timeout:     d.cfg.BreakerTimeout,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= d.cfg.BreakerFailures },
		IsExcluded:  func(err error) bool { return errors.Is(err, errAbandoned) },
		OnStateChange: func(_ string, from, to gobreaker.State) {
			d.metrics.breakerMoved(from, to)
			d.log.Warn("endpoint breaker state changed", "account_id", account, "endpoint", host, "from", from.String(), "to", to.String())
			if to == gobreaker.StateHalfOpen || to == gobreaker.StateClosed {
				signal(d.poke)
			}
		},
	})}
	d.endpoints[key] = ep
	return ep
}

// idleLocked: ep has nothing in flight and a closed breaker with no failure
// counted, so forgetting it loses nothing; the endpoints kept are those with
// work or trouble, not every account ever served. d.mu is held.
func idleLocked(ep *endpoint) bool {
	return ep.inflight == 0 && ep.breaker.State() == gobreaker.StateClosed && ep.breaker.Counts().ConsecutiveFailures == 0
}

// roomLocked is how many more deliveries ep may take now: its concurrency
// bound, one while its breaker is half-open, none while open. d.mu is held.
func (d *dispatcher) roomLocked(ep *endpoint) int {
	limit := d.cfg.EndpointConcurrency
	switch ep.breaker.State() { // moves an open breaker past its timeout to half-open
	case gobreaker.StateOpen:
		limit = 0
	case gobreaker.StateHalfOpen:
		limit = 1
	}
	return limit - ep.inflight
}

// capacity is how many deliveries may be claimed now, and per endpoint.
func (d *dispatcher) capacity() (int, claimLimits) {
	d.mu.Lock()
	defer d.mu.Unlock()
	lim := claimLimits{Default: d.cfg.EndpointConcurrency}
	for key, ep := range d.endpoints {
		ep.wantSlot = false
		if idleLocked(ep) {
			delete(d.endpoints, key)
			if d.byAccount[ep.account] == ep {
				delete(d.byAccount, ep.account)
			}
			continue
		}
		switch free := d.roomLocked(ep); {
		case free <= 0:
			ep.wantSlot = true
			lim.Full = append(lim.Full, key)
		case free < d.cfg.EndpointConcurrency:
			lim.Keys = append(lim.Keys, key)
			lim.Free = append(lim.Free, int32(free))
		}
	}
	now := d.now()
	for token, until := range d.orphans {
		if !until.After(now) {
			delete(d.orphans, token) // the lease has ended: claimable anyway
			continue
		}
		lim.Orphans = append(lim.Orphans, token)
	}
	n := d.cfg.Workers - d.inflight - d.reserved
	d.wantWorkers = n <= 0
	return n, lim
}

// orphan notes that the enqueue transaction of g failed. Its outcome is
// unknown: a commit whose answer was lost (Postgres stopping, the
// connection cut) leaves deliveries leased under g.Token that no sender
// here holds, and since this process is alive they would wait for their
// lease to end (a chaos run saw 50 s). Claims take them from now on.
func (d *dispatcher) orphan(g leaseGrant) {
	if g.Max == 0 {
		return
	}
	d.mu.Lock()
	if d.orphans == nil {
		d.orphans = map[uuid.UUID]time.Time{}
	}
	d.orphans[g.Token] = g.Until
	d.mu.Unlock()
	signal(d.poke)
}

// claimedUpTo notes the endpoints whose room a claim used up: deliveries
// may be waiting there for a send to end.
func (d *dispatcher) claimedUpTo(lim claimLimits, cs []claimed) {
	per := map[string]int{}
	for _, c := range cs {
		per[c.Endpoint]++
	}
	free := map[string]int{}
	for i, h := range lim.Keys {
		free[h] = int(lim.Free[i])
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for key, n := range per {
		room, ok := free[key]
		if !ok {
			room = lim.Default
		}
		if n >= room {
			d.endpointLocked(key).wantSlot = true
		}
	}
}

// grant reserves up to want free workers for the deliveries an enqueue
// transaction opens, to lease them at birth and send them at once
// (handoff), skipping the accounts of endpoints with no room. Every grant
// is settled by handoff.
func (d *dispatcher) grant(want int) leaseGrant {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := min(d.cfg.Workers-d.inflight-d.reserved, want)
	if !d.accepting || n <= 0 {
		return leaseGrant{}
	}
	d.reserved += n
	g := leaseGrant{Max: n, PerAccount: d.cfg.EndpointConcurrency, Token: uuid.New(), Until: d.now().Add(d.cfg.Lease)}
	for _, ep := range d.endpoints {
		if d.byAccount[ep.account] == ep && d.roomLocked(ep) <= 0 {
			if id, err := uuid.Parse(ep.account); err == nil {
				g.Skip = append(g.Skip, id)
			}
		}
	}
	return g
}

// handoff settles g: it starts the deliveries leased under it that their
// endpoint has room for and returns the rest (to be released and claimed).
// unleased are the accounts of deliveries opened without a lease: if one of
// them could be sent now, the claim loop is poked; otherwise a send ending
// on their endpoint (or its breaker closing) pokes it later, so an endpoint
// whose breaker is open costs no claim per event.
func (d *dispatcher) handoff(g leaseGrant, cs []claimed, unleased []string) (rejected []claimed) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reserved -= g.Max
	if g.Max > 0 && d.wantWorkers {
		// A claim found no worker free while this grant held some.
		signal(d.poke)
	}
	for i := range cs {
		c := &cs[i]
		ep := d.endpointLocked(c.Endpoint)
		if !d.accepting || d.inflight >= d.cfg.Workers || d.roomLocked(ep) <= 0 {
			rejected = append(rejected, *c)
			continue
		}
		d.startLocked(c, ep)
	}
	for _, acct := range unleased {
		ep := d.byAccount[acct]
		switch {
		case d.inflight >= d.cfg.Workers:
			d.wantWorkers = true
		case ep != nil && d.roomLocked(ep) <= 0:
			ep.wantSlot = true
		default:
			signal(d.poke) // claimable now
		}
	}
	return rejected
}

// claimLoop claims and starts deliveries until ctx ends.
//
// Its waits (the poll interval, the spacing between claims) are real time:
// they pace work on the database. What is due is decided by the injected
// clock (d.now).
func (d *dispatcher) claimLoop(ctx context.Context) {
	idle := time.NewTimer(d.cfg.PollInterval)
	defer idle.Stop()
	var last time.Time
	for ctx.Err() == nil {
		// Under load, let slots free up between claims: one claim of many
		// rows costs the database about what one of a single row does.
		if wait := claimSpacing - time.Since(last); wait > 0 {
			spacing := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				spacing.Stop()
				return
			case <-spacing.C:
			}
		}
		last = time.Now()
		more := false
		if n, limits := d.capacity(); n > 0 {
			cs, err := d.store.claim(ctx, n, limits, d.now())
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				// Counted; after a run of them /readyz is red. A poke does
				// not bring a store back: wait the backoff, not PollInterval.
				if !loop.Sleep(ctx, d.claiming.Failed(fmt.Errorf("claim deliveries: %w", err))) {
					return
				}
				continue
			}
			d.claiming.Succeeded()
			d.claimedUpTo(limits, cs)
			if over := d.startClaimed(cs); len(over) > 0 {
				d.release(ctx, over)
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

// startClaimed sends the deliveries claimLoop claimed whose endpoint still
// has room and returns the others: the room the claim was made for may
// have gone meanwhile to deliveries leased at birth (handoff), and an
// endpoint never gets more than EndpointConcurrency requests at once.
func (d *dispatcher) startClaimed(cs []claimed) (over []claimed) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range cs {
		c := &cs[i]
		if !d.accepting {
			return nil // their leases expire; sent again after a restart
		}
		ep := d.endpointLocked(c.Endpoint)
		if d.roomLocked(ep) <= 0 {
			ep.wantSlot = true // claimed again when a slot frees
			over = append(over, *c)
			continue
		}
		d.startLocked(c, ep)
	}
	return over
}

// release gives back leased deliveries that could not be sent at once
// (their endpoint filled up meanwhile, or the stage is stopping), so they
// are claimed as usual; if that fails, their lease expires.
func (d *dispatcher) release(ctx context.Context, cs []claimed) {
	outs := make([]outcome, len(cs))
	for i := range cs {
		outs[i] = outcome{c: &cs[i]}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, _, err := d.store.record(ctx, outs, leaseGrant{}, d.now()); err != nil {
		d.log.Warn("release leased deliveries; they are sent when the lease expires", "count", len(cs), "err", err)
	}
}

// startLocked sends c in a goroutine of its own; d.mu is held. The attempt
// holds a shared worker until it ends or SlowAfter passes, whichever comes
// first, and its endpoint's slot until it ends.
func (d *dispatcher) startLocked(c *claimed, ep *endpoint) {
	ep.inflight++
	d.byAccount[c.AccountID] = ep // the webhook may have moved
	d.inflight++
	d.sends.Add(1)
	var ended, slow bool // guarded by d.mu
	// Real time: SlowAfter bounds how long a live request holds a worker.
	aging := time.AfterFunc(d.cfg.SlowAfter, func() {
		d.mu.Lock()
		if ended {
			d.mu.Unlock()
			return
		}
		slow = true
		d.inflight--
		d.slow++
		d.metrics.slow.Set(float64(d.slow))
		poke := d.wantWorkers
		d.mu.Unlock()
		if poke {
			signal(d.poke) // a worker is free for another account
		}
	})
	go func() {
		defer d.sends.Done()
		o := d.deliver(d.sendCtx, c, ep)
		aging.Stop()
		d.mu.Lock()
		ended = true
		ep.inflight--
		if slow {
			d.slow--
			d.metrics.slow.Set(float64(d.slow))
		} else {
			d.inflight--
		}
		poke := d.wantWorkers || ep.wantSlot
		d.mu.Unlock()
		d.results <- o
		if poke {
			signal(d.poke)
		}
	}()
}

// stopSending makes start and handoff start nothing more (at shutdown,
// before waiting for the sends in flight).
func (d *dispatcher) stopSending() {
	d.mu.Lock()
	d.accepting = false
	d.mu.Unlock()
}

// deliver makes one attempt of c and judges it.
func (d *dispatcher) deliver(ctx context.Context, c *claimed, ep *endpoint) outcome {
	secret, err := d.box.Open(c.SecretEnc, secretbox.WebhookSecretContext(c.AccountID))
	if err != nil {
		return d.judge(c, attempt{Outcome: OutcomeSecretError, Error: "webhook secret cannot be opened (was CONTRACK_SECRET_KEY changed?)"})
	}
	authHeaders, err := deliveries.OpenAuthHeaders(d.box, c.AccountID, c.AuthHeadersEnc)
	if err != nil {
		return d.judge(c, attempt{Outcome: OutcomeSecretError, Error: "webhook auth headers cannot be opened (was CONTRACK_SECRET_KEY changed?)"})
	}
	if c.Kind != deliveries.KindEvents {
		body, err := d.box.Open(c.MessageEnc, secretbox.WebhookMessageContext(c.AccountID))
		if err != nil {
			return d.judge(c, attempt{Outcome: OutcomeSecretError, Error: "webhook message cannot be opened (was CONTRACK_SECRET_KEY changed?)"})
		}
		c.Body = body
	}
	if msg, ok := webhooktarget.Validate(c.TargetURL, c.Env, d.cfg.AllowPrivate); !ok {
		return d.judge(c, attempt{Outcome: OutcomeRejectedTarget, Error: "target refused: " + msg})
	}
	a, err := ep.breaker.Execute(func() (attempt, error) {
		actx, span := startAttempt(ctx, c)
		a := d.sender.send(actx, c, string(secret), authHeaders)
		endAttempt(span, a)
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
		o.Status = deliveries.StatusDelivered
		d.metrics.endToEnd.Observe(now.Sub(c.CreatedAt).Seconds())
	case a.Outcome == OutcomeGone && c.Kind != deliveries.KindVerification:
		// Parked: due at once, but claimed only when the webhook is activated
		// again. (A verification's webhook is not activated: its 410 is a
		// failure like any other.)
		o.Status, o.Gone = deliveries.StatusFailed, true
	default:
		if next, more := d.cfg.nextAttempt(c.RoundAttempts+1, a.RetryAfter, now, d.rnd); more {
			o.Status, o.NextAt = deliveries.StatusFailed, next
		} else {
			o.Status = deliveries.StatusDead
		}
	}
	d.metrics.attempts.WithLabelValues(a.Outcome).Inc()
	if a.Latency > 0 {
		d.metrics.latency.Observe(a.Latency.Seconds())
	}
	if d.alog != nil {
		d.alog.add(attemptRow{
			DeliveryID: c.ID, AccountID: c.AccountID, SubscriptionID: c.SubscriptionID, Endpoint: endpointHost(c.TargetURL),
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
	linger := time.NewTimer(0) // real time: it batches writes to the database
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
	closing := 0
	for _, o := range outs {
		if o.closes() {
			closing++
		}
	}
	// The backoff between failed writes is real time (it paces the database).
	for {
		// The next deliveries of the subscriptions closing are leased at
		// birth, as enqueue's are: at saturation nearly every delivery is
		// opened here, behind its predecessor, and a claim for each cost a
		// statement and a wait on the claim loop.
		g := d.grant(closing)
		out, died, err := d.store.record(ctx, outs, g, d.now())
		if err != nil {
			d.orphan(g)
		}
		if rejected := d.handoff(g, out.leased, out.unleased); len(rejected) > 0 {
			d.release(ctx, rejected)
			signal(d.poke)
		}
		if err == nil {
			d.recording.Succeeded()
			for _, o := range outs {
				if o.Status == deliveries.StatusDelivered || o.Status == deliveries.StatusDead {
					d.metrics.closed.WithLabelValues(o.Status).Inc()
				}
			}
			if died > 0 {
				signal(d.dlqPoke)
			}
			return
		}
		if ctx.Err() != nil {
			d.recording.Report(err)
			d.log.Error("outcomes not recorded at shutdown; the deliveries will be sent again when their lease expires",
				"count", len(outs), "err", err)
			return
		}
		loop.Sleep(ctx, d.recording.Failed(fmt.Errorf("record %d outcomes: %w", len(outs), err)))
	}
}
