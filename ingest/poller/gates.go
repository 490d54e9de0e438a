package poller

import (
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
	"golang.org/x/time/rate"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/platform/auth"
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

// carrierGate is one carrier's (per environment) adapter and breaker, and,
// only for a carrier named in Config.CarrierRate, its platform-wide cap: a
// rate and a concurrency bound over all accounts (nil otherwise: accounts
// with their own credentials are never throttled by each other).
//
// The breaker counts carrier faults only, and trips only when the run of
// consecutive faults spans at least Config.BreakerAccounts accounts (or
// every account polling the carrier, when fewer do): one account whose own
// shipments or credentials make the carrier answer 5xx cannot open it for
// everyone, while a real outage, seen by every account, does.
type carrierGate struct {
	adapter carrier.Adapter
	limiter *rate.Limiter // nil: no platform-wide cap
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

// groupKey names one account's polling of one carrier.
type groupKey struct{ account, scac string }

// accountGate is one (account, carrier)'s own share of the carrier: its
// plan's rate, its concurrency, its credentials, its pause after
// consecutive failures (doubling from Config.RetryBase up to
// Config.AccountBackoffMax, one probe at a time once the pause ends) or
// after a 429 (for its Retry-After), and its capacity figures. Nothing here
// is shared with another account, and nothing is per tracking.
type accountGate struct {
	key groupKey
	env string

	mu          sync.Mutex
	limiter     *rate.Limiter
	rate        float64
	creds       carrier.Credentials
	credsSealed []byte
	inflight    int
	failures    int
	pausedUntil time.Time
	probing     bool
	// lookAt: a claim found nothing more due; none is asked before then.
	lookAt time.Time
	// refreshed is the refresh that last saw the account's credentials.
	refreshed uint64
	capacity  capacity
	// connector is the gate of the account's own carrier connector (nil
	// for a registered carrier): its adapter and breaker serve this
	// account alone. connectorVersion says which stored row built it.
	connector        *carrierGate
	connectorVersion string
}

// connectorGate is the gate of the account's connector, nil for a
// registered carrier.
func (g *accountGate) connectorGate() *carrierGate {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.connector
}

// want is how many due trackings the gate lets this process claim now:
// the whole tokens of its rate, within its concurrency; one probe after a
// pause; none while paused.
func (g *accountGate) want(now time.Time, cfg Config) (n int, probe bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.Before(g.pausedUntil) || now.Before(g.lookAt) {
		return 0, false
	}
	if g.failures >= cfg.AccountFailures {
		if g.probing || g.inflight > 0 {
			return 0, false
		}
		return 1, true
	}
	n = min(int(g.limiter.TokensAt(now)), cfg.accountConcurrency(g.rate)-g.inflight)
	return max(n, 0), false
}

// took counts n claimed polls against the rate and the concurrency; short
// says the claim found fewer due than wanted, so the account has nothing
// more due until it looks again after idle.
func (g *accountGate) took(now time.Time, n int, probe, short bool, idle time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if n > 0 {
		g.limiter.AllowN(now, n)
		g.inflight += n
		g.probing = g.probing || probe
	}
	if short {
		g.lookAt = now.Add(idle)
	}
}

// admit decides whether one call outside the schedule (a carrier probe)
// may start now: ok, or the time to try again (zero: when a call of this
// account ends). A probe is the one call let through after a pause.
func (g *accountGate) admit(now time.Time, cfg Config) (ok, probe bool, retry time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.Before(g.pausedUntil) {
		return false, false, g.pausedUntil
	}
	tripped := g.failures >= cfg.AccountFailures
	if tripped && (g.probing || g.inflight > 0) {
		return false, false, time.Time{}
	}
	if g.inflight >= cfg.accountConcurrency(g.rate) {
		return false, false, time.Time{}
	}
	r := g.limiter.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, false, now.Add(d)
	}
	g.inflight++
	g.probing = g.probing || tripped
	return true, tripped, time.Time{}
}

// paused reports whether the account's calls are paused at now, and until when.
func (g *accountGate) paused(now time.Time) (time.Time, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pausedUntil, now.Before(g.pausedUntil)
}

// setRate applies the plan's rate (a second's worth of burst).
func (g *accountGate) setRate(now time.Time, r float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.limiter == nil {
		g.limiter = rate.NewLimiter(rate.Limit(r), max(1, int(math.Ceil(r))))
	} else if r != g.rate {
		g.limiter.SetLimitAt(now, rate.Limit(r))
		g.limiter.SetBurstAt(now, max(1, int(math.Ceil(r))))
	}
	g.rate = r
}

func (g *accountGate) credentials() carrier.Credentials {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.creds
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

// Gates are a process's carrier gates: each carrier's adapter, breaker and
// (only where configured) platform-wide cap (carrierGate, with the
// carrier's one adapter, whose token cache every call shares), and each
// (account, carrier)'s own share (accountGate). The poller's polls pass
// them, and so do the API's carrier probes (health checks, carrier
// inference: Probe) when the process runs both, so a tenant's probes spend
// its own share and are stopped by the same breaker. Nothing in them is per
// tracking.
type Gates struct {
	cfg       Config
	adapters  AdapterFor
	log       *slog.Logger
	onBreaker func(carrier, state string)

	cmu      sync.Mutex
	carriers map[string]*carrierGate   // env/SCAC → adapter, breaker, platform cap
	accounts map[groupKey]*accountGate // (account, SCAC) → that account's share
	// order is accounts' shares in the order they were made: a stable order
	// for the claim rounds' round-robin without sorting every round (a sort
	// by account and carrier was 29 % of the poller's CPU with 1,000
	// accounts, as it ran after every poll).
	order []*accountGate
}

// NewGates returns the gates of a process for cfg (validated, defaults
// applied); onBreaker, if set, observes carrier breaker state changes.
func NewGates(cfg Config, adapters AdapterFor, log *slog.Logger, onBreaker func(carrier, state string)) (*Gates, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Gates{cfg: cfg.WithDefaults(), adapters: adapters, log: log, onBreaker: onBreaker,
		carriers: map[string]*carrierGate{}, accounts: map[groupKey]*accountGate{}}, nil
}

// account returns the share of (account, scac), made on first use at the
// default plan rate (the poller's refresh sets the plan's).
func (g *Gates) account(env, scac, account string) *accountGate {
	key := groupKey{account, scac}
	g.cmu.Lock()
	defer g.cmu.Unlock()
	a := g.accounts[key]
	if a == nil {
		a = &accountGate{key: key, env: env}
		a.setRate(time.Now(), auth.DefaultCarrierRate)
		g.put(a)
	}
	return a
}

// put adds an account's share (g.cmu held).
func (g *Gates) put(a *accountGate) {
	g.accounts[a.key] = a
	g.order = append(g.order, a)
}

// dropGone forgets the shares no longer in accounts, keeping the order of
// the rest (g.cmu held).
func (g *Gates) dropGone() {
	g.order = slices.DeleteFunc(g.order, func(a *accountGate) bool { return g.accounts[a.key] != a })
}

// shares lists the account shares with credentials (the ones the poller
// polls), always in the same order.
func (g *Gates) shares() []*accountGate {
	g.cmu.Lock()
	defer g.cmu.Unlock()
	out := make([]*accountGate, 0, len(g.order))
	for _, a := range g.order {
		if a.credentials() != nil {
			out = append(out, a)
		}
	}
	return out
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
	c := g.newCarrierGate(key, env, scac, a, false)
	g.carriers[key] = c
	return c, nil
}

// newCarrierGate builds the gate of adapter a under key: its breaker, and
// the platform-wide cap configured for key. A solo gate (an account's
// connector) serves one account, whose faults alone trip it.
func (g *Gates) newCarrierGate(key, env, scac string, a carrier.Adapter, solo bool) *carrierGate {
	c := &carrierGate{adapter: a, run: map[string]bool{}}
	if r, ok := g.cfg.CarrierRate[key]; ok {
		c.limiter = rate.NewLimiter(rate.Limit(r), max(1, int(r)))
		c.slots = make(chan struct{}, g.cfg.CarrierConcurrency)
	}
	c.breaker = gobreaker.NewCircuitBreaker[carrier.Result](gobreaker.Settings{
		Name:    key,
		Timeout: g.cfg.BreakerTimeout,
		ReadyToTrip: func(n gobreaker.Counts) bool {
			need := 1
			if !solo {
				need = min(g.cfg.BreakerAccounts, max(1, g.activeAccounts(env, scac)))
			}
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
	return c
}

// openFor reports whether the breaker an account's share polls through is
// open: its connector's, or its carrier's.
func (g *Gates) openFor(a *accountGate) bool {
	if c := a.connectorGate(); c != nil {
		return c.breaker.State() == gobreaker.StateOpen
	}
	return g.open(a.env, a.key.scac)
}

// open reports whether the breaker of env/scac is open (no claims for it).
func (g *Gates) open(env, scac string) bool {
	g.cmu.Lock()
	c := g.carriers[env+"/"+scac]
	g.cmu.Unlock()
	return c != nil && c.breaker.State() == gobreaker.StateOpen
}

// activeAccounts is how many accounts poll env/scac here.
func (g *Gates) activeAccounts(env, scac string) int {
	g.cmu.Lock()
	defer g.cmu.Unlock()
	n := 0
	for k, a := range g.accounts {
		if k.scac == scac && a.env == env && a.credentials() != nil {
			n++
		}
	}
	return n
}

func (p *poller) logPause(log *slog.Logger, paused time.Duration, res carrier.Result) {
	if paused > 0 {
		log.Warn("carrier account paused", "pause", paused.String(), "http_code", res.HTTPCode, "reason", res.Reason)
	}
}
