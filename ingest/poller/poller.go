package poller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/sony/gobreaker/v2"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/trace"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/tracing"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// Connection statuses the poller writes (see README "connectionStatus").
const (
	ConnConnected     = "CONNECTED"
	ConnNoCredentials = "NO_CREDENTIALS"
	ConnUnauthorized  = "UNAUTHORIZED"
	ConnCarrierError  = "CARRIER_ERROR"
)

// AdapterFor returns the adapter of a carrier in an environment (sandbox
// keys' trackings go to the sandbox carriers, live ones to the real APIs).
type AdapterFor func(env, scac string) (carrier.Adapter, error)

// Deps are the poller's connections.
type Deps struct {
	// Namespace prefixes the Kafka topics of this deployment
	// (CONTRACK_KAFKA_NAMESPACE); empty: the names as they are.
	Namespace schemas.Namespace
	Producer  *kgo.Client
	Pool      *pgxpool.Pool
	Box       *secretbox.Box
	Adapters  AdapterFor
	Log       *slog.Logger
	// Registry, if set, gets the poller's collectors (poll lateness, claims).
	Registry prometheus.Registerer
	// Now defaults to time.Now.
	Now func() time.Time
	// Parsers read polled pages for expected events, to poll sooner after
	// them (Config.ExpectedGrace), and for the end of the journey
	// (journey.go); nil polls on the interval only and records no journey facts.
	Parsers map[carriers.Format]normalize.Parser
	// OnBreaker, if set, observes carrier breaker state changes ("env/SCAC", "open").
	OnBreaker func(carrier, state string)
	// Gates, if set, are the process's carrier gates, shared with the API's
	// carrier probes (NewGates with this Config; Adapters and OnBreaker are
	// then the gates'); nil: the poller makes its own.
	Gates *Gates
	// Loops, if set, supervises the poller's loops ("poller-claim",
	// "poller-refresh", "poller-capacity"): a failed round is counted and
	// retried after the loop's backoff, and a run of them turns /readyz red
	// until one succeeds. nil: they back off and log.
	Loops *loop.Supervisor
}

// Run polls until ctx ends; nil on a clean shutdown (in-flight polls finish
// and write their next due times).
func Run(ctx context.Context, cfg Config, deps Deps) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.WithDefaults()
	if deps.Now == nil {
		deps.Now = time.Now
	}
	p := &poller{
		cfg: cfg, deps: deps, log: deps.Log.With("stage", "poller"), id: uuid.NewString(),
		wake: make(chan struct{}, 1), gates: deps.Gates, metrics: newMetrics(deps.Registry),
	}
	if p.gates == nil {
		var err error
		if p.gates, err = NewGates(cfg, deps.Adapters, p.log, deps.OnBreaker); err != nil {
			return err
		}
	}
	defer p.leave()
	// A first refresh that fails (Postgres not there yet) is logged,
	// counted and tried again by the refresh loop; nothing is polled until
	// one succeeds.
	if err := p.refresh(ctx); err != nil && ctx.Err() == nil {
		p.metrics.failures.WithLabelValues("refresh").Inc()
		p.log.Error("poller refresh failed", "err", err)
	}
	// Refreshes and capacity writes recover by themselves (logged and
	// counted); the claim loop ends with ctx only.
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.every(ctx, cfg.Refresh, "refresh", p.refresh) }()
	go func() { defer wg.Done(); p.every(ctx, cfg.CapacityEvery, "capacity", p.writeCapacity) }()
	// Polls in flight when ctx ends may finish within shutdownGrace, so
	// what the carrier answered is recorded and not asked again at once.
	polls, cut := context.WithCancel(context.WithoutCancel(ctx))
	defer cut()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(shutdownGrace, cut) })
	defer stop()
	p.schedule(ctx, polls)
	wg.Wait()
	p.polls.Wait()
	return nil
}

// every runs f each interval until ctx ends, as the supervised loop
// "poller-<name>": a failure is counted (also in the poller's own failures
// metric) and retried after the loop's backoff.
func (p *poller) every(ctx context.Context, interval time.Duration, name string, f func(context.Context) error) {
	if !loop.Sleep(ctx, interval) {
		return
	}
	_ = p.deps.Loops.Loop("poller-"+name, p.log).Run(ctx, interval, func(ctx context.Context) error {
		err := f(ctx)
		if err != nil && ctx.Err() == nil {
			p.metrics.failures.WithLabelValues(name).Inc()
			return fmt.Errorf("poller %s: %w", name, err)
		}
		return nil
	}) // Run returns only when ctx ends; f's errors are never unrecoverable
}

type poller struct {
	cfg     Config
	deps    Deps
	log     *slog.Logger
	id      string // this process's row in poller_members
	metrics *metrics

	wake    chan struct{}
	polls   sync.WaitGroup // polls in flight
	running atomic.Int64
	round   int

	// gates are the carriers' and the accounts' shares, maybe shared with
	// the API's probes; the accounts with credentials there are the ones
	// this poller polls (refresh).
	gates *Gates
	gen   uint64 // refresh generation
}

func (p *poller) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// claim is one due tracking this process leased for one poll.
type claim struct {
	id, account, env, scac, kind, identifier string
	due                                      time.Time // when it was due: lateness is the claim's time after it
	class                                    int
	failures                                 int
	lastPolled                               *time.Time
	fingerprint                              string
	// since is trackings.poll_since: a connector's poll asks only for the
	// events updated since then (nil: every event).
	since *time.Time
}

// Poll classes, in claim order (trackings.poll_class).
const (
	classFirst    = 0 // never polled
	classExpected = 1 // due early for an expected event
	classRegular  = 2
)

// maxClaim bounds the trackings one (account, carrier) claims in one round.
const maxClaim = 256

// shutdownGrace is how long polls in flight at shutdown may take to finish.
const shutdownGrace = 5 * time.Second

// schedule claims due trackings and starts their polls (under polls) until
// ctx ends.
//
// It is the component "poller-claim": a round every 100 ms (or FirstPoll,
// if shorter) and when woken; one that fails (Postgres away) is counted
// and the next waits the supervisor's backoff instead of the tick, and a
// run of failures turns /readyz red until a round succeeds.
func (p *poller) schedule(ctx, polls context.Context) {
	_ = p.deps.Loops.Run(ctx, loop.Component{Name: "poller-claim", Log: p.log, OnFailure: loop.BackOff, Rounds: []loop.Round{
		{Every: min(100*time.Millisecond, p.cfg.FirstPoll), Wake: p.wake, Do: func(ctx context.Context) error {
			err := p.claimRound(ctx, polls)
			if err == nil || ctx.Err() != nil {
				return err
			}
			p.metrics.failures.WithLabelValues("claim").Inc()
			return fmt.Errorf("claim due trackings: %w", err)
		}},
	}}) // its rounds' errors are never unrecoverable: it returns when ctx ends
}

// ask is what one gate wants in one round, and what it got.
type ask struct {
	g     *accountGate
	n     int
	probe bool
	got   []claim
}

// claimRound asks every gate with tokens and room how many polls it may
// start, claims that many due trackings of each by the index, class by
// class, and starts their polls. The worker bound is shared round-robin,
// so accounts take turns when workers are short.
func (p *poller) claimRound(ctx, polls context.Context) error {
	now := p.deps.Now()
	free := p.cfg.Workers - int(p.running.Load())
	if free <= 0 {
		return nil
	}
	gates := p.gates.shares()
	p.round++
	var asks []*ask
	for i := range gates {
		g := gates[(i+p.round)%len(gates)]
		if free == 0 {
			break
		}
		if p.gates.openFor(g) {
			continue
		}
		n, probe := g.want(now, p.cfg)
		if n = min(n, free, maxClaim); n > 0 {
			free -= n
			asks = append(asks, &ask{g: g, n: n, probe: probe})
		}
	}
	if len(asks) == 0 {
		return nil
	}
	lease := now.Add(p.cfg.PollTimeout + 30*time.Second)
	var err error
	for class := classFirst; class <= classRegular && err == nil; class++ {
		err = p.claimClass(ctx, class, asks, now, lease)
	}
	for _, a := range asks {
		a.g.took(now, len(a.got), a.probe, err == nil && len(a.got) < a.n, p.cfg.FirstPoll)
		for _, c := range a.got {
			p.metrics.lateness.WithLabelValues(className(c.class)).Observe(max(0, now.Sub(c.due).Seconds()))
			p.start(polls, c, a.g, a.probe)
		}
	}
	return err
}

// claimClass leases, for each ask still short, up to its remaining number
// of due trackings of one class, oldest due first, skipping any another
// poller holds. One statement for every gate of the round.
func (p *poller) claimClass(ctx context.Context, class int, asks []*ask, now, lease time.Time) error {
	var accounts, scacs []string
	var ns []int32
	for _, a := range asks {
		if rest := a.n - len(a.got); rest > 0 {
			accounts, scacs, ns = append(accounts, a.g.key.account), append(scacs, a.g.key.scac), append(ns, int32(rest))
		}
	}
	if len(accounts) == 0 {
		return nil
	}
	rows, err := p.deps.Pool.Query(ctx, `
		WITH g AS (
			SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[]) AS g(account_id, scac, n)
		), due AS (
			SELECT d.id, d.next_poll_at FROM g CROSS JOIN LATERAL (
				SELECT t.id, t.next_poll_at FROM trackings t
				WHERE t.account_id = g.account_id AND t.scac = g.scac AND t.open_subscriptions > 0
				  AND t.poll_class = $4 AND t.next_poll_at <= $5
				ORDER BY t.next_poll_at LIMIT g.n
				FOR UPDATE SKIP LOCKED) d
		)
		UPDATE trackings t SET next_poll_at = $6 FROM due WHERE t.id = due.id
		RETURNING t.id, t.account_id, t.env, t.scac, t.identifier_kind, t.identifier, due.next_poll_at,
		          t.poll_failures, t.last_polled_at, coalesce(t.events_fingerprint, ''), t.poll_since`,
		accounts, scacs, ns, class, now, lease)
	if err != nil {
		return fmt.Errorf("claim class %d: %w", class, err)
	}
	defer rows.Close()
	byKey := make(map[groupKey]*ask, len(asks))
	for _, a := range asks {
		byKey[a.g.key] = a
	}
	for rows.Next() {
		c := claim{class: class}
		if err := rows.Scan(&c.id, &c.account, &c.env, &c.scac, &c.kind, &c.identifier, &c.due, &c.failures, &c.lastPolled, &c.fingerprint, &c.since); err != nil {
			return fmt.Errorf("claim class %d: %w", class, err)
		}
		if a := byKey[groupKey{c.account, c.scac}]; a != nil {
			a.got = append(a.got, c)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("claim class %d: %w", class, err)
	}
	return nil
}

func className(class int) string {
	switch class {
	case classFirst:
		return "first"
	case classExpected:
		return "expected"
	}
	return "regular"
}

// start polls c in its own goroutine, then writes when it is next due.
func (p *poller) start(ctx context.Context, c claim, g *accountGate, probe bool) {
	p.polls.Add(1)
	p.running.Add(1)
	go func() {
		defer p.polls.Done()
		defer p.running.Add(-1)
		out := p.poll(ctx, c, g)
		p.logPause(p.log.With("tracking_id", c.id, "carrier", c.scac, "account_id", c.account),
			g.release(p.deps.Now(), p.cfg, probe, out.made, out.res), out.res)
		if out.made && c.lastPolled != nil {
			g.observeInterval(p.deps.Now().Sub(*c.lastPolled))
		}
		if out.made {
			g.countPoll()
		}
		p.finish(ctx, c, out)
		p.poke()
	}()
}

// outcome is what one poll decided about its tracking.
type outcome struct {
	res  carrier.Result
	made bool // a call reached (or tried to reach) the carrier
	// next is when the tracking is next due, class its poll class then;
	// zero next: the poll was cut short, due again as it was.
	next     time.Time
	class    int
	failures int
	// status is the connectionStatus to write ("" none); a CARRIER_ERROR
	// only replaces PENDING or UNAUTHORIZED (a connected tracking stays
	// CONNECTED through transient carrier errors).
	status string
	// fingerprint is the events' new fingerprint, "" when unchanged.
	fingerprint string
	// since is the next trackings.poll_since of a connector's tracking
	// (nil: unchanged; a registered carrier's tracking never has one).
	since *time.Time
}

// finish writes the poll's outcome in one statement: next due time and
// class, failures, when the carrier last answered, connection status and
// events fingerprint. It runs even while the poller stops, so a lease is
// never left to expire.
func (p *poller) finish(ctx context.Context, c claim, out outcome) {
	if out.next.IsZero() {
		out.next, out.class, out.failures = c.due, c.class, c.failures
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, err := p.deps.Pool.Exec(wctx, `
		UPDATE trackings SET
		    -- A subscription made while the poll ran is owed its history:
		    -- polled again at once after an answer (not after a failure,
		    -- which keeps its backoff).
		    next_poll_at = CASE WHEN $9 AND EXISTS (SELECT 1 FROM subscriptions s
		            WHERE s.tracking_id = trackings.id AND s.status = 'OPEN' AND s.history_pending)
		        THEN least($2::timestamptz, $8::timestamptz) ELSE $2::timestamptz END,
		    poll_class = $3, poll_failures = $4,
		    last_polled_at = CASE WHEN $5 THEN $8 ELSE last_polled_at END,
		    connection_status = CASE
		        WHEN $6 = '' OR connection_status = $6 THEN connection_status
		        WHEN $6 = 'CARRIER_ERROR' AND connection_status NOT IN ('PENDING', 'UNAUTHORIZED') THEN connection_status
		        ELSE $6 END,
		    events_changed_at = CASE WHEN $7 <> '' AND events_fingerprint IS DISTINCT FROM $7 THEN now() ELSE events_changed_at END,
		    events_fingerprint = CASE WHEN $7 = '' THEN events_fingerprint ELSE $7 END,
		    -- a connector's next poll asks for what is new since this one,
		    -- unless a subscription is owed every event
		    poll_since = CASE WHEN $10::timestamptz IS NULL THEN poll_since
		        WHEN EXISTS (SELECT 1 FROM subscriptions s
		            WHERE s.tracking_id = trackings.id AND s.status = 'OPEN' AND s.history_pending) THEN NULL
		        ELSE $10::timestamptz END,
		    updated_at = now()
		WHERE id = $1`,
		c.id, out.next, out.class, min(out.failures, 1000), out.made, out.status, out.fingerprint, p.deps.Now(),
		out.status == ConnConnected, out.since)
	if err != nil {
		p.metrics.failures.WithLabelValues("finish").Inc()
		p.log.Error("write next poll", "tracking_id", c.id, "err", err)
	}
}

// errCarrierDown makes the breaker count an error or unreachable outcome.
var errCarrierDown = errors.New("carrier error")

// poll runs one poll of c and decides when it is next due.
func (p *poller) poll(ctx context.Context, c claim, ag *accountGate) (out outcome) {
	log := p.log.With("tracking_id", c.id, "carrier", c.scac, "env", c.env, "account_id", c.account)
	interval := p.cfg.interval(c.env, c.scac)
	now := p.deps.Now()
	regular := now.Add(p.jitter(interval))
	retry := func(at time.Time) outcome {
		return outcome{res: out.res, made: out.made, next: at, class: c.class, failures: c.failures}
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, p.cfg.PollTimeout)
	defer cancel()
	ctx, span := tracing.Tracer().Start(ctx, "poll", trace.WithNewRoot(), trace.WithAttributes(tracing.Poll(c.scac, c.env, c.id)...))
	defer span.End()

	creds := ag.credentials()
	if creds == nil {
		// Removed since the claim; credentials deleted mark the tracking themselves.
		return retry(regular)
	}
	g, err := p.gateFor(ag, c.env, c.scac)
	if err != nil {
		// No adapter for this carrier here (e.g. no live base URL configured).
		log.Error("no adapter", "err", err)
		return outcome{next: regular, class: c.class, failures: c.failures, status: ConnCarrierError}
	}
	if g.breaker.State() == gobreaker.StateOpen {
		// The carrier is down for everyone: no call, no slot, no token spent.
		return retry(now.Add(p.cfg.BreakerTimeout))
	}
	if g.slots != nil {
		select {
		case g.slots <- struct{}{}:
		case <-ctx.Done():
			return outcome{}
		}
		defer func() { <-g.slots }()
		if err := g.limiter.Wait(ctx); err != nil {
			return outcome{}
		}
	}
	res, err := g.breaker.Execute(func() (carrier.Result, error) {
		q := carrier.Query{Kind: carrier.IdentifierKind(c.kind), Value: c.identifier}
		if c.since != nil {
			q.Since = *c.since
		}
		r, err := g.adapter.Fetch(ctx, creds, q)
		if err != nil && ctx.Err() != nil && parent.Err() == nil {
			// Our own poll timeout: the carrier did not answer in time.
			r, err = carrier.Result{Outcome: carrier.OutcomeUnreachable, Format: r.Format, Reason: "no answer within the poll timeout"}, nil
		}
		if err != nil {
			return r, err
		}
		f := classify(r)
		g.observe(c.account, f)
		if f == faultCarrier {
			return r, errCarrierDown
		}
		return r, nil
	})
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		// The carrier is down: no call spent; try after the breaker's timeout.
		return retry(now.Add(p.cfg.BreakerTimeout))
	}
	if err != nil && !errors.Is(err, errCarrierDown) {
		if parent.Err() == nil {
			log.Error("poll failed", "err", err)
			return retry(now.Add(p.cfg.RetryBase))
		}
		return outcome{}
	}
	out.res, out.made = res, true
	if err := p.record(ctx, c, res); err != nil {
		// Nothing counted: Kafka did not acknowledge. Try again soon.
		log.Error("record poll", "err", err)
		return retry(now.Add(p.cfg.RetryBase))
	}
	switch res.Outcome {
	case carrier.OutcomeSuccess, carrier.OutcomeNoData:
		out.status = ConnConnected
		if ag.connectorGate() != nil {
			since := now.Add(-sinceMargin)
			out.since = &since
		}
		pp := p.parsePoll(res, c.id, c.scac, now)
		out.fingerprint = p.journeyFacts(ctx, log, c, pp)
		next, expected := p.nextAfterEvents(pp, now, regular)
		out.next, out.class = next, classRegular
		if expected {
			out.class = classExpected
		}
	case carrier.OutcomeUnauthorized:
		out.status, out.next, out.class = ConnUnauthorized, regular, classRegular
	default:
		out.status = ConnCarrierError
		out.failures = c.failures + 1
		backoff := p.cfg.RetryBase << min(out.failures-1, 10)
		out.next, out.class = now.Add(min(backoff, interval)), classRegular
	}
	return out
}

func (p *poller) jitter(d time.Duration) time.Duration {
	j := p.cfg.Jitter * (2*rand.Float64() - 1)
	return time.Duration(float64(d) * (1 + j))
}

// record produces the raw pages, then (only once Kafka has them) the attempt.
// A page too large for one record is dead-lettered (oversized) instead: the
// poll still counts, so the tracking keeps its normal interval.
func (p *poller) record(ctx context.Context, ch claim, res carrier.Result) (err error) {
	now := p.deps.Now().UTC()
	var hdr []schemas.Header // the history targets, on every page
	pollID := uuid.NewString()
	var recs, dead []*kgo.Record
	if res.Outcome == carrier.OutcomeSuccess || res.Outcome == carrier.OutcomeNoData {
		// The subscriptions owed their history are this poll's targets
		// (taken at once, so a second poll of the tracking never repeats
		// it); given back if Kafka does not take the pages. With no data
		// they are served: whatever comes later is new to everyone.
		var targets []string
		// A connector's poll that asked only for what is new cannot serve
		// a history: the targets wait for the full poll that follows at
		// once (finish clears poll_since while one is owed).
		if ch.since == nil {
			if targets, err = p.takeHistory(ctx, ch.id); err != nil {
				return err
			}
		}
		if len(targets) > 0 && res.Outcome == carrier.OutcomeSuccess {
			history := strings.Join(targets, ",")
			defer func() {
				if err != nil {
					p.giveBackHistory(ctx, ch.id, targets)
				}
			}()
			hdr = []schemas.Header{{Key: schemas.HeaderHistoryFor, Value: history}}
		}
	}
	if res.Outcome == carrier.OutcomeSuccess {
		for i, page := range res.Pages {
			env := schemas.CarrierRaw{
				ID: fmt.Sprintf("%s/%d", pollID, i), Format: string(res.Format), SCAC: ch.scac, Env: ch.env,
				AccountID: ch.account, TrackingID: ch.id, ReceivedAt: now, Payload: page,
			}
			v, err := schemas.EncodeCarrierRaw(&env)
			if err != nil {
				return err
			}
			rec := &kgo.Record{Topic: p.deps.Namespace.Topic(schemas.TopicCarrierRaw), Key: []byte(ch.id), Value: v, Headers: schemas.Headers{
				Type: schemas.TypeCarrierRaw, ID: env.ID, Account: ch.account, Env: ch.env, Extra: hdr,
			}.Kafka()}
			tracing.Inject(ctx, rec) // the poll's trace goes on in the normaliser
			if n := recordBytes(rec); n > p.cfg.MaxRecordBytes {
				dead = append(dead, p.oversized(env, fmt.Sprintf("carrier page of %d bytes makes a %d-byte record, over the %d-byte limit", len(page), n, p.cfg.MaxRecordBytes)))
				continue
			}
			recs = append(recs, rec)
		}
		for _, r := range p.deps.Producer.ProduceSync(ctx, recs...) {
			if r.Err == nil {
				continue
			}
			if !errors.Is(r.Err, kerr.MessageTooLarge) && !errors.Is(r.Err, kerr.RecordListTooLarge) {
				return fmt.Errorf("produce raw: %w", r.Err)
			}
			// The broker's limit is lower than MaxRecordBytes: same verdict.
			var env schemas.CarrierRaw
			if err := schemas.DecodeCarrierRaw(r.Record.Value, &env); err != nil {
				return fmt.Errorf("produce raw: %w", r.Err)
			}
			dead = append(dead, p.oversized(env, "carrier page refused by the broker: "+r.Err.Error()))
		}
		if len(dead) > 0 {
			if err := p.deps.Producer.ProduceSync(ctx, dead...).FirstErr(); err != nil {
				return fmt.Errorf("produce dead letter: %w", err)
			}
		}
	}
	outcome := string(res.Outcome)
	if res.Outcome == carrier.OutcomeUnauthorized || res.Outcome == carrier.OutcomeUnreachable {
		outcome = string(carrier.OutcomeError)
	}
	att := schemas.PollAttempt{
		ID: pollID, AccountID: ch.account, Env: ch.env, SCAC: ch.scac, TrackingID: ch.id,
		Outcome: outcome, HTTPCode: res.HTTPCode, LatencyMS: res.Latency.Milliseconds(), EventCount: res.EventCount, At: now,
		DueAt: ch.due.UTC(), PollClass: className(ch.class),
	}
	v, err := json.Marshal(att)
	if err != nil {
		return err
	}
	rec := &kgo.Record{Topic: p.deps.Namespace.Topic(schemas.TopicPollAttempts), Key: []byte(ch.id), Value: v, Headers: schemas.Headers{
		Type: schemas.TypePollAttempt, ID: pollID, Account: ch.account,
	}.Kafka()}
	if err := p.deps.Producer.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return fmt.Errorf("produce attempt: %w", err)
	}
	return nil
}

// takeHistory clears and returns the open subscriptions of tracking that
// are owed their history (migration 0090).
func (p *poller) takeHistory(ctx context.Context, tracking string) ([]string, error) {
	rows, err := p.deps.Pool.Query(ctx, `
		UPDATE subscriptions SET history_pending = false
		WHERE tracking_id = $1 AND status = 'OPEN' AND history_pending
		RETURNING id::text`, tracking)
	if err != nil {
		return nil, fmt.Errorf("take history targets: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("take history targets: %w", err)
	}
	sort.Strings(ids)
	return ids, nil
}

// giveBackHistory marks targets owed their history again: the poll that
// took them did not get its pages into Kafka. A failure here is logged:
// those subscriptions then get only what is new from now on.
func (p *poller) giveBackHistory(ctx context.Context, tracking string, targets []string) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := p.deps.Pool.Exec(wctx, `UPDATE subscriptions SET history_pending = true WHERE id = ANY($1::uuid[]) AND status = 'OPEN'`, targets); err != nil {
		p.metrics.failures.WithLabelValues("history").Inc()
		p.log.Error("give back history targets", "tracking_id", tracking, "err", err)
	}
}

// oversizedPrefix is how much of an oversized page its dead letter keeps.
const oversizedPrefix = 64 << 10

// oversized is the dead letter of a page too large for one record: its
// first 64 KiB as the value (the whole page cannot fit either), the reason,
// the page's full size and SHA-256, and where it was bound.
func (p *poller) oversized(env schemas.CarrierRaw, reason string) *kgo.Record {
	p.log.Warn("dead-lettering oversized carrier page", "tracking_id", env.TrackingID, "carrier", env.SCAC, "reason", reason)
	sum := sha256.Sum256(env.Payload)
	prefix := env.Payload[:min(len(env.Payload), oversizedPrefix)]
	return &kgo.Record{Topic: p.deps.Namespace.Topic(schemas.TopicNormalizeDeadLetters), Key: []byte(env.TrackingID), Value: prefix, Headers: schemas.Headers{
		ID: env.ID, Account: env.AccountID, Env: env.Env, SCAC: env.SCAC,
		// Refused before it was produced: no source partition or offset.
		DeadLetter: &schemas.DeadLetter{Reason: reason, Stage: "poller", Topic: p.deps.Namespace.Topic(schemas.TopicCarrierRaw), Offset: -1},
		Extra: []schemas.Header{{Key: "format", Value: env.Format}, {Key: "tracking", Value: env.TrackingID},
			{Key: "payload-bytes", Value: strconv.Itoa(len(env.Payload))},
			{Key: "payload-sha256", Value: hex.EncodeToString(sum[:])},
			{Key: "truncated", Value: strconv.FormatBool(len(prefix) < len(env.Payload))}},
	}.Kafka()}
}

// recordBytes approximates a record's size on the wire: key, value, headers.
func recordBytes(r *kgo.Record) int {
	n := len(r.Key) + len(r.Value) + 64
	for _, h := range r.Headers {
		n += len(h.Key) + len(h.Value) + 8
	}
	return n
}

// SandboxAdapters returns adapters for sandbox trackings at sandboxURL
// (http://host:port) and for live ones at liveURL(scac).
func SandboxAdapters(sandboxURL string, liveURL func(scac string) string) AdapterFor {
	return func(env, scac string) (carrier.Adapter, error) {
		base := sandboxURL + "/" + strings.ToLower(scac)
		if env == schemas.EnvLive {
			base = liveURL(scac)
			if base == "" {
				return nil, fmt.Errorf("poller: no live base URL configured for %s", scac)
			}
		}
		return carrier.New(scac, base, nil)
	}
}
