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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sony/gobreaker/v2"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/trace"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/platform/kafka"
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
	Brokers []string
	// Namespace prefixes the Kafka topics and groups of this deployment
	// (CONTRACK_KAFKA_NAMESPACE); empty: the names as they are.
	Namespace schemas.Namespace
	Producer  *kgo.Client
	Pool      *pgxpool.Pool
	Box       *secretbox.Box
	Adapters  AdapterFor
	Log       *slog.Logger
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
}

// Run polls until ctx ends; nil on a clean shutdown (in-flight polls finish).
func Run(ctx context.Context, cfg Config, deps Deps) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.WithDefaults()
	if deps.Now == nil {
		deps.Now = time.Now
	}
	p := &poller{
		cfg: cfg, deps: deps, log: deps.Log.With("stage", "poller"),
		entries: map[string]*entry{}, wake: make(chan struct{}, 1),
		gates:    deps.Gates,
		workers:  make(chan struct{}, cfg.Workers),
		inflight: map[int32]*sync.WaitGroup{},
	}
	if p.gates == nil {
		var err error
		if p.gates, err = NewGates(cfg, deps.Adapters, p.log, deps.OnBreaker); err != nil {
			return err
		}
	}
	schedCtx, stopSched := context.WithCancel(context.WithoutCancel(ctx))
	schedDone := make(chan struct{})
	go func() { defer close(schedDone); p.schedule(schedCtx) }()

	// The tracking set is a table follower of the subscriptions topic: the
	// group shares its partitions among pollers, each rebuilt from the
	// start of the partition (nothing committed).
	err := kafka.Follow(ctx, kafka.FollowConfig{
		Brokers: deps.Brokers, Topics: deps.Namespace.Topics(schemas.TopicSubscriptions), Name: "poller", Log: p.log,
		Group: deps.Namespace.Group(schemas.GroupPoller), OnRevoked: p.drop,
	}, func(_ context.Context, recs []*kgo.Record) error {
		for _, r := range recs {
			p.apply(r)
		}
		return nil
	})
	stopSched()
	<-schedDone
	p.waitAll()
	if err != nil {
		return fmt.Errorf("poller: %w", err)
	}
	return nil
}

type entry struct {
	change    schemas.SubscriptionChanged
	partition int32
	next      time.Time
	failures  int
	polling   bool
	removed   bool
	// fingerprint is the last events fingerprint written to Postgres (journey.go).
	fingerprint string
}

type poller struct {
	cfg  Config
	deps Deps
	log  *slog.Logger

	mu       sync.Mutex
	entries  map[string]*entry // tracking id → entry
	inflight map[int32]*sync.WaitGroup
	wake     chan struct{}

	gates   *Gates // the carriers' and accounts' shares, maybe shared with the API's probes
	workers chan struct{}
}

// apply folds one subscription change into the tracking set.
func (p *poller) apply(r *kgo.Record) {
	var ch schemas.SubscriptionChanged
	if err := json.Unmarshal(r.Value, &ch); err != nil || ch.TrackingID == "" {
		p.log.Error("skipping malformed subscription record", "offset", r.Offset, "partition", r.Partition, "err", err)
		return
	}
	now := p.deps.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entries[ch.TrackingID]
	if !ch.TrackingOpen {
		if e != nil {
			e.removed = true // an in-flight poll finishes; no further ones
			delete(p.entries, ch.TrackingID)
			p.countAccount(e.change.Env, e.change.SCAC, e.change.AccountID, -1)
		}
		return
	}
	if e != nil {
		e.change = ch
		return
	}
	if _, ok := carriers.Lookup(ch.SCAC); !ok {
		// A push-only carrier (not in the registry, fed by POST /events):
		// nothing to poll, and nothing to mark; it stays PUSH_ONLY.
		return
	}
	e = &entry{change: ch, partition: r.Partition}
	interval := p.cfg.interval(ch.Env, ch.SCAC)
	if now.Sub(ch.OccurredAt) < interval {
		// New since the last interval: poll within seconds.
		e.next = now.Add(p.cfg.FirstPoll)
	} else {
		// Rebuilt after a restart: spread over one interval, no poll storm.
		e.next = now.Add(time.Duration(rand.Int64N(int64(interval))))
	}
	p.entries[ch.TrackingID] = e
	p.countAccount(ch.Env, ch.SCAC, ch.AccountID, 1)
	p.poke()
}

func (p *poller) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// drop forgets the trackings of revoked partitions and waits for their
// in-flight polls, so the partitions' next owner never overlaps with us.
func (p *poller) drop(m map[string][]int32) {
	parts := map[int32]bool{}
	for _, ps := range m {
		for _, part := range ps {
			parts[part] = true
		}
	}
	var waits []*sync.WaitGroup
	p.mu.Lock()
	for id, e := range p.entries {
		if parts[e.partition] {
			e.removed = true
			delete(p.entries, id)
			p.countAccount(e.change.Env, e.change.SCAC, e.change.AccountID, -1)
		}
	}
	for part := range parts {
		if wg := p.inflight[part]; wg != nil {
			waits = append(waits, wg)
		}
	}
	p.mu.Unlock()
	for _, wg := range waits {
		wg.Wait()
	}
}

func (p *poller) waitAll() {
	p.mu.Lock()
	var waits []*sync.WaitGroup
	for _, wg := range p.inflight {
		waits = append(waits, wg)
	}
	p.mu.Unlock()
	for _, wg := range waits {
		wg.Wait()
	}
}

// admitted is a due tracking its account's gate let through.
type admitted struct {
	e     *entry
	gate  *accountGate
	probe bool
}

// schedule dispatches due trackings to workers until ctx ends. A due
// tracking first passes its (account, carrier) gate without holding a
// worker: a paused, throttled or saturated account waits on its own, and
// its backlog never occupies the workers other accounts need.
func (p *poller) schedule(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := p.deps.Now()
		var due []admitted
		next := now.Add(time.Minute)
		p.mu.Lock()
		for _, e := range p.entries {
			if e.polling {
				continue
			}
			if !e.next.After(now) {
				ag := p.accountGate(e.change.Env, e.change.SCAC, e.change.AccountID)
				ok, probe, retry := ag.admit(now, p.cfg)
				if !ok {
					// Not now: at retry, or when a poll of this account ends.
					if !retry.IsZero() {
						e.next = retry
						if retry.Before(next) {
							next = retry
						}
					}
					continue
				}
				due = append(due, admitted{e, ag, probe})
				e.polling = true
				wg := p.inflight[e.partition]
				if wg == nil {
					wg = &sync.WaitGroup{}
					p.inflight[e.partition] = wg
				}
				wg.Add(1)
			} else if e.next.Before(next) {
				next = e.next
			}
		}
		p.mu.Unlock()
		for _, a := range due {
			select {
			case p.workers <- struct{}{}:
			case <-ctx.Done():
				a.gate.release(p.deps.Now(), p.cfg, a.probe, false, carrier.Result{})
				p.finish(a.e, time.Time{})
				continue
			}
			go func() {
				defer func() { <-p.workers }()
				p.finish(a.e, p.poll(ctx, a))
			}()
		}
		timer.Reset(max(next.Sub(p.deps.Now()), 10*time.Millisecond))
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-p.wake:
		}
	}
}

// finish records when e is next due and releases its in-flight mark.
func (p *poller) finish(e *entry, next time.Time) {
	p.mu.Lock()
	e.polling = false
	if !next.IsZero() {
		e.next = next
	}
	wg := p.inflight[e.partition]
	p.mu.Unlock()
	wg.Done()
	p.poke()
}

// errCarrierDown makes the breaker count an error or unreachable outcome.
var errCarrierDown = errors.New("carrier error")

// poll runs one poll of a.e and returns when it is next due (zero:
// unchanged), then tells the account gate how it went.
func (p *poller) poll(ctx context.Context, a admitted) time.Time {
	e := a.e
	p.mu.Lock()
	ch, removed := e.change, e.removed
	p.mu.Unlock()
	log := p.log.With("tracking_id", ch.TrackingID, "carrier", ch.SCAC, "env", ch.Env, "account_id", ch.AccountID)
	var (
		res  carrier.Result
		made bool // a call reached (or tried to reach) the carrier
	)
	defer func() {
		p.logPause(log, a.gate.release(p.deps.Now(), p.cfg, a.probe, made, res), res)
	}()
	if removed {
		return time.Time{}
	}
	interval := p.cfg.interval(ch.Env, ch.SCAC)
	now := p.deps.Now()
	regular := now.Add(p.jitter(interval))
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, p.cfg.PollTimeout)
	defer cancel()
	ctx, span := tracing.Tracer().Start(ctx, "poll", trace.WithNewRoot(), trace.WithAttributes(tracing.Poll(ch.SCAC, ch.Env, ch.TrackingID)...))
	defer span.End()

	creds, err := p.credentials(ctx, ch.AccountID, ch.SCAC)
	if errors.Is(err, errAccountInactive) {
		// Disabled, or every key revoked: no call until it is active again
		// (looked at once per interval).
		return regular
	}
	if err != nil {
		log.Error("read credentials", "err", err)
		return now.Add(p.cfg.RetryBase)
	}
	if creds == nil {
		p.setStatus(ctx, ch.TrackingID, ConnNoCredentials)
		return regular
	}
	g, err := p.gate(ch.Env, ch.SCAC)
	if err != nil {
		// No adapter for this carrier here (e.g. no live base URL configured).
		log.Error("no adapter", "err", err)
		p.setFailure(ctx, ch.TrackingID)
		return regular
	}
	if g.breaker.State() == gobreaker.StateOpen {
		// The carrier is down for everyone: no call, no slot, no token spent.
		return now.Add(p.cfg.BreakerTimeout)
	}
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		return time.Time{}
	}
	defer func() { <-g.slots }()
	if err := g.limiter.Wait(ctx); err != nil {
		return time.Time{}
	}
	res, err = g.breaker.Execute(func() (carrier.Result, error) {
		r, err := g.adapter.Fetch(ctx, creds, carrier.Query{Kind: carrier.IdentifierKind(ch.IdentifierKind), Value: ch.Identifier})
		if err != nil && ctx.Err() != nil && parent.Err() == nil {
			// Our own poll timeout: the carrier did not answer in time.
			r, err = carrier.Result{Outcome: carrier.OutcomeUnreachable, Format: r.Format, Reason: "no answer within the poll timeout"}, nil
		}
		if err != nil {
			return r, err
		}
		f := classify(r)
		g.observe(ch.AccountID, f)
		if f == faultCarrier {
			return r, errCarrierDown
		}
		return r, nil
	})
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		// The carrier is down: no call spent; try after the breaker's timeout.
		return now.Add(p.cfg.BreakerTimeout)
	}
	if err != nil && !errors.Is(err, errCarrierDown) {
		if parent.Err() == nil {
			log.Error("poll failed", "err", err)
			return now.Add(p.cfg.RetryBase)
		}
		return time.Time{}
	}
	made = true
	if err := p.record(ctx, ch, res); err != nil {
		// Nothing counted: Kafka did not acknowledge. Try again soon.
		log.Error("record poll", "err", err)
		return now.Add(p.cfg.RetryBase)
	}
	switch res.Outcome {
	case carrier.OutcomeSuccess, carrier.OutcomeNoData:
		p.setStatus(ctx, ch.TrackingID, ConnConnected)
		e.failures = 0
		p.journeyFacts(ctx, log, e, ch, res)
		return p.nextAfterExpected(res, ch.TrackingID, ch.SCAC, now, regular)
	case carrier.OutcomeUnauthorized:
		p.setStatus(ctx, ch.TrackingID, ConnUnauthorized)
		return regular
	default:
		p.setFailure(ctx, ch.TrackingID)
		e.failures++
		backoff := p.cfg.RetryBase << min(e.failures-1, 10)
		return now.Add(min(backoff, interval))
	}
}

func (p *poller) jitter(d time.Duration) time.Duration {
	j := p.cfg.Jitter * (2*rand.Float64() - 1)
	return time.Duration(float64(d) * (1 + j))
}

// errAccountInactive: the account is disabled or has no key left; its
// trackings are not polled.
var errAccountInactive = errors.New("poller: account inactive")

// credentials returns the account's decrypted credentials for scac, nil if
// none, or errAccountInactive.
func (p *poller) credentials(ctx context.Context, accountID, scac string) (carrier.Credentials, error) {
	var (
		enc    []byte
		active bool
	)
	err := p.deps.Pool.QueryRow(ctx, `SELECT a.active, c.fields_enc FROM accounts a
		LEFT JOIN carrier_credentials c ON c.account_id = a.id AND c.scac = $2
		WHERE a.id = $1`, accountID, scac).Scan(&active, &enc)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !active) {
		return nil, errAccountInactive
	}
	if err != nil {
		return nil, err
	}
	if enc == nil {
		return nil, nil
	}
	plain, err := p.deps.Box.Open(enc, secretbox.CarrierCredentialsContext(accountID, scac))
	if err != nil {
		return nil, err
	}
	var creds carrier.Credentials
	if err := json.Unmarshal(plain, &creds); err != nil {
		return nil, fmt.Errorf("decode credentials: %w", err)
	}
	return creds, nil
}

// record produces the raw pages, then (only once Kafka has them) the attempt.
// A page too large for one record is dead-lettered (oversized) instead: the
// poll still counts, so the tracking keeps its normal interval.
func (p *poller) record(ctx context.Context, ch schemas.SubscriptionChanged, res carrier.Result) error {
	now := p.deps.Now().UTC()
	pollID := uuid.NewString()
	var recs, dead []*kgo.Record
	if res.Outcome == carrier.OutcomeSuccess {
		for i, page := range res.Pages {
			env := schemas.CarrierRaw{
				ID: fmt.Sprintf("%s/%d", pollID, i), Format: string(res.Format), SCAC: ch.SCAC, Env: ch.Env,
				AccountID: ch.AccountID, TrackingID: ch.TrackingID, ReceivedAt: now, Payload: page,
			}
			v, err := schemas.EncodeCarrierRaw(&env)
			if err != nil {
				return err
			}
			rec := &kgo.Record{Topic: p.deps.Namespace.Topic(schemas.TopicCarrierRaw), Key: []byte(ch.TrackingID), Value: v, Headers: schemas.Headers{
				Type: schemas.TypeCarrierRaw, ID: env.ID, Account: ch.AccountID, Env: ch.Env,
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
		ID: pollID, AccountID: ch.AccountID, Env: ch.Env, SCAC: ch.SCAC, TrackingID: ch.TrackingID,
		Outcome: outcome, HTTPCode: res.HTTPCode, LatencyMS: res.Latency.Milliseconds(), EventCount: res.EventCount, At: now,
	}
	v, err := json.Marshal(att)
	if err != nil {
		return err
	}
	rec := &kgo.Record{Topic: p.deps.Namespace.Topic(schemas.TopicPollAttempts), Key: []byte(ch.TrackingID), Value: v, Headers: schemas.Headers{
		Type: schemas.TypePollAttempt, ID: pollID, Account: ch.AccountID,
	}.Kafka()}
	if err := p.deps.Producer.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return fmt.Errorf("produce attempt: %w", err)
	}
	return nil
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

func (p *poller) setStatus(ctx context.Context, trackingID, status string) {
	_, err := p.deps.Pool.Exec(ctx, `UPDATE trackings SET connection_status = $2, updated_at = now()
		WHERE id = $1 AND connection_status <> $2`, trackingID, status)
	if err != nil && ctx.Err() == nil {
		p.log.Error("update connection status", "tracking_id", trackingID, "err", err)
	}
}

// setFailure marks a tracking that never connected; a connected one stays
// CONNECTED through transient carrier errors.
func (p *poller) setFailure(ctx context.Context, trackingID string) {
	_, err := p.deps.Pool.Exec(ctx, `UPDATE trackings SET connection_status = $2, updated_at = now()
		WHERE id = $1 AND connection_status IN ('PENDING', 'UNAUTHORIZED')`, trackingID, ConnCarrierError)
	if err != nil && ctx.Err() == nil {
		p.log.Error("update connection status", "tracking_id", trackingID, "err", err)
	}
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
