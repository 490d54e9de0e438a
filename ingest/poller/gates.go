package poller

import (
	"log/slog"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
	"golang.org/x/time/rate"

	"github.com/contrack/contrack/ingest/carrier"
)

// fault says whose problem a poll's outcome is, which decides what it slows:
// a carrier fault counts towards the carrier-wide breaker, an account fault
// only pauses that (account, carrier), a tracking fault only backs off that
// tracking.
type fault int

const (
	faultNone     fault = iota // success or no data
	faultTracking              // another 4xx, a malformed body: this shipment's query
	faultAccount               // 401/403 or 429: this account's credentials or quota
	faultCarrier               // 5xx, timeouts, no answer: the carrier itself
)

func classify(res carrier.Result) fault {
	switch {
	case res.Outcome == carrier.OutcomeSuccess || res.Outcome == carrier.OutcomeNoData:
		return faultNone
	case res.Outcome == carrier.OutcomeUnauthorized || res.RateLimited:
		return faultAccount
	case res.Outcome == carrier.OutcomeUnreachable, res.HTTPCode >= 500, res.HTTPCode == 0:
		return faultCarrier
	}
	return faultTracking
}

// carrierGate is one carrier's (per environment) shared cap: a rate and a
// concurrency bound over all accounts, and the carrier-wide breaker.
//
// The breaker counts carrier faults only, and trips only when the run of
// consecutive faults spans at least Config.BreakerAccounts accounts (or
// every account polling the carrier, when fewer do): one account whose own
// shipments or credentials make the carrier answer 5xx cannot open it for
// everyone, while a real outage, seen by every account, does.
type carrierGate struct {
	adapter carrier.Adapter
	limiter *rate.Limiter
	slots   chan struct{}
	breaker *gobreaker.CircuitBreaker[carrier.Result]

	mu sync.Mutex
	// run holds the accounts with a carrier fault since the last answer
	// that was not one (or the breaker's last state change).
	run map[string]bool
}

func (g *carrierGate) observe(account string, f fault) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f == faultCarrier {
		g.run[account] = true
	} else if len(g.run) > 0 {
		g.run = map[string]bool{}
	}
}

func (g *carrierGate) runAccounts() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.run)
}

func (g *carrierGate) resetRun() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.run = map[string]bool{}
}

// accountGate is one (account, carrier)'s own share of the carrier: its rate,
// its concurrency, and its pause after consecutive failures (doubling from
// Config.RetryBase up to Config.AccountBackoffMax, one probe at a time once
// the pause ends) or after a 429 (for its Retry-After). Nothing here is
// shared with another account.
type accountGate struct {
	limiter *rate.Limiter

	mu          sync.Mutex
	inflight    int
	failures    int
	pausedUntil time.Time
	probing     bool
}

// admit decides whether a poll of this account may start now. It returns
// ok, or the time to try again (zero: when a poll of this account finishes).
// A probe is the one poll let through after a pause.
func (g *accountGate) admit(now time.Time, cfg Config) (ok, probe bool, retry time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.Before(g.pausedUntil) {
		return false, false, g.pausedUntil
	}
	tripped := g.failures >= cfg.AccountFailures
	if tripped && g.probing {
		return false, false, time.Time{}
	}
	if g.inflight >= cfg.AccountConcurrency {
		return false, false, time.Time{}
	}
	r := g.limiter.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, false, now.Add(d)
	}
	g.inflight++
	if tripped {
		g.probing = true
	}
	return true, tripped, time.Time{}
}

// paused reports whether the account's calls are paused at now, and until when.
func (g *accountGate) paused(now time.Time) (time.Time, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pausedUntil, now.Before(g.pausedUntil)
}

// release ends an admitted poll with its result (made false: no call was
// made, nothing learnt). It reports a pause that starts now, for the log.
func (g *accountGate) release(now time.Time, cfg Config, probe, made bool, res carrier.Result) (paused time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inflight--
	if probe {
		g.probing = false
	}
	if !made {
		return 0
	}
	if classify(res) == faultNone {
		g.failures, g.pausedUntil = 0, time.Time{}
		return 0
	}
	g.failures++
	switch {
	case res.RateLimited:
		paused = min(max(res.RetryAfter, cfg.RetryBase), cfg.AccountBackoffMax)
	case g.failures >= cfg.AccountFailures:
		paused = min(cfg.RetryBase<<min(g.failures-cfg.AccountFailures, 16), cfg.AccountBackoffMax)
	default:
		return 0
	}
	if until := now.Add(paused); until.After(g.pausedUntil) {
		g.pausedUntil = until
		return paused
	}
	return 0
}

// Gates are a process's carrier gates: each carrier's shared cap and
// breaker (carrierGate, with the carrier's one adapter, whose token cache
// every call shares) and each (account, carrier)'s share (accountGate).
// The poller's polls pass them, and so do the API's carrier probes (health
// checks, carrier inference: Probe) when the process runs both, so a
// tenant's probes spend its own share and are stopped by the same breaker.
type Gates struct {
	cfg       Config
	adapters  AdapterFor
	log       *slog.Logger
	onBreaker func(carrier, state string)

	cmu      sync.Mutex
	carriers map[string]*carrierGate // env/SCAC → shared cap and breaker
	accounts map[string]*accountGate // env/SCAC/account → that account's share

	amu    sync.Mutex
	active map[string]map[string]int // env/SCAC → account → open trackings polled here
}

// NewGates returns the gates of a process for cfg (validated, defaults
// applied); onBreaker, if set, observes carrier breaker state changes.
func NewGates(cfg Config, adapters AdapterFor, log *slog.Logger, onBreaker func(carrier, state string)) (*Gates, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Gates{cfg: cfg.WithDefaults(), adapters: adapters, log: log, onBreaker: onBreaker,
		carriers: map[string]*carrierGate{}, accounts: map[string]*accountGate{}, active: map[string]map[string]int{}}, nil
}

// accountGate returns the gate of (env, scac, account), made on first use.
func (p *poller) accountGate(env, scac, account string) *accountGate {
	return p.gates.account(env, scac, account)
}

func (g *Gates) account(env, scac, account string) *accountGate {
	key := env + "/" + scac + "/" + account
	g.cmu.Lock()
	defer g.cmu.Unlock()
	a := g.accounts[key]
	if a == nil {
		a = &accountGate{limiter: rate.NewLimiter(rate.Limit(g.cfg.AccountRate), max(1, int(g.cfg.AccountRate)))}
		g.accounts[key] = a
	}
	return a
}

// gate returns the carrier-wide gate of (env, scac), made on first use.
func (p *poller) gate(env, scac string) (*carrierGate, error) { return p.gates.carrier(env, scac) }

func (g *Gates) carrier(env, scac string) (*carrierGate, error) {
	key := env + "/" + scac
	g.cmu.Lock()
	defer g.cmu.Unlock()
	if c := g.carriers[key]; c != nil {
		return c, nil
	}
	a, err := g.adapters(env, scac)
	if err != nil {
		return nil, err
	}
	c := &carrierGate{
		adapter: a,
		limiter: rate.NewLimiter(rate.Limit(g.cfg.CarrierRate), max(1, int(g.cfg.CarrierRate))),
		slots:   make(chan struct{}, g.cfg.CarrierConcurrency),
		run:     map[string]bool{},
	}
	c.breaker = gobreaker.NewCircuitBreaker[carrier.Result](gobreaker.Settings{
		Name:    key,
		Timeout: g.cfg.BreakerTimeout,
		ReadyToTrip: func(n gobreaker.Counts) bool {
			need := min(g.cfg.BreakerAccounts, max(1, g.activeAccounts(key)))
			return n.ConsecutiveFailures >= g.cfg.BreakerFailures && c.runAccounts() >= need
		},
		OnStateChange: func(name string, from, to gobreaker.State) {
			c.resetRun()
			g.log.Warn("carrier breaker state changed", "carrier", name, "from", from.String(), "to", to.String())
			if g.onBreaker != nil {
				g.onBreaker(name, to.String())
			}
		},
	})
	g.carriers[key] = c
	return c, nil
}

// countAccount adds delta to the open trackings of account on env/scac.
func (p *poller) countAccount(env, scac, account string, delta int) {
	g := p.gates
	key := env + "/" + scac
	g.amu.Lock()
	defer g.amu.Unlock()
	m := g.active[key]
	if m == nil {
		m = map[string]int{}
		g.active[key] = m
	}
	if m[account] += delta; m[account] <= 0 {
		delete(m, account)
	}
}

// activeAccounts is how many accounts have open trackings on env/scac here.
func (g *Gates) activeAccounts(key string) int {
	g.amu.Lock()
	defer g.amu.Unlock()
	return len(g.active[key])
}

func (p *poller) logPause(log *slog.Logger, paused time.Duration, res carrier.Result) {
	if paused > 0 {
		log.Warn("carrier account paused", "pause", paused.String(), "http_code", res.HTTPCode, "reason", res.Reason)
	}
}
