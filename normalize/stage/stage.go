// Package stage runs the normaliser: a consumer group on the carrier-raw
// topic that parses every payload to DCSA 2.0.2 events, drops repeats, and
// produces each event once per tracking it belongs to onto the events topic,
// in Kafka transactions (read-process-write exactly once inside Kafka).
// Payloads that cannot be parsed go to the dead-letter topic with the reason,
// the format and the original bytes, in the same transaction, so a poison
// record never blocks its partition.
package stage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/errgroup"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/platform/jsonbuf"
	"github.com/contrack/contrack/platform/jsonvalid"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/tracing"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/dcsa"
)

// Config tunes the stage. Zero values take the documented defaults.
type Config struct {
	// TransactionalID names this instance's producer (default
	// "contrack-normalize-<random>", new at every start). Trap: it must be
	// unique per running instance — two instances sharing one fence each
	// other off — so set it only with one normaliser per value.
	TransactionalID string
	// SeenCapacity bounds the in-memory dedupe cache (default 200,000 entries).
	SeenCapacity int
	// RoutingCacheKeys bounds the looked-up routes of pushed events kept in
	// memory (default 100,000 keys); the routes themselves are in Postgres.
	RoutingCacheKeys int
	// RoutingWait is how long pushed events may wait at start-up for the
	// routing index to catch up with the subscriptions topic before the wait
	// is logged as an error (default 10 s). They are never routed before:
	// their batch is aborted and retried; an index that fails stops the stage.
	RoutingWait time.Duration
	// MaxTransaction bounds the raw records of one Kafka transaction
	// (default 2,000). A transaction's cost is mostly fixed (its round trips
	// to the broker and its markers), so under a backlog larger ones carry
	// more events per second; an idle stage commits whatever one poll gave.
	MaxTransaction int
	// TransactionLinger is how long a transaction's first raw records wait
	// for more (default 10 ms): at 500 events/s transactions carried 2.6
	// events each, and each costs about ten broker round trips with the
	// fetches its commit wakes downstream.
	TransactionLinger time.Duration
}

// Validate reports every invalid field (zero values are valid: they take the defaults).
func (c Config) Validate() error {
	var errs []error
	if c.SeenCapacity < 0 {
		errs = append(errs, errors.New("normalize: SeenCapacity must not be negative"))
	}
	if c.RoutingCacheKeys < 0 {
		errs = append(errs, errors.New("normalize: RoutingCacheKeys must not be negative"))
	}
	if c.RoutingWait < 0 {
		errs = append(errs, errors.New("normalize: RoutingWait must not be negative"))
	}
	if c.MaxTransaction < 0 {
		errs = append(errs, errors.New("normalize: MaxTransaction must not be negative"))
	}
	if c.TransactionLinger < 0 {
		errs = append(errs, errors.New("normalize: TransactionLinger must not be negative"))
	}
	return errors.Join(errs...)
}

// WithDefaults returns c with every zero field set to its documented default;
// Run applies it after Validate, so a zero Config is a valid one.
func (c Config) WithDefaults() Config {
	if c.TransactionalID == "" {
		c.TransactionalID = "contrack-normalize-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	if c.SeenCapacity == 0 {
		c.SeenCapacity = 200_000
	}
	if c.RoutingCacheKeys == 0 {
		c.RoutingCacheKeys = 100_000
	}
	if c.RoutingWait == 0 {
		c.RoutingWait = 10 * time.Second
	}
	if c.MaxTransaction == 0 {
		c.MaxTransaction = 2000
	}
	if c.TransactionLinger == 0 {
		c.TransactionLinger = 10 * time.Millisecond
	}
	return c
}

// Deps are the stage's connections and parsers.
type Deps struct {
	Brokers []string
	// Namespace prefixes the Kafka topics, groups and transactional ids of
	// this deployment (CONTRACK_KAFKA_NAMESPACE); empty: the names as they are.
	Namespace schemas.Namespace
	Pool      *pgxpool.Pool
	Log       *slog.Logger
	// Parsers maps a source format to its parser.
	Parsers map[carriers.Format]normalize.Parser
	Now     func() time.Time
	// Metrics, if set, are the stream runtime's collectors on the role's registry.
	Metrics *kafka.Metrics
	// Loops, if set, supervises the stage's loops (the consumer, the
	// routing follower, the dedupe saver) on the role's /readyz and registry.
	Loops *loop.Supervisor
	// Registry, if set, is the role's metrics registry, where the stage
	// counts the carriers' repaired deviations and refused elements.
	Registry prometheus.Registerer
	// Router is the process's stream runtime, which runs Routes; nil: a
	// router of the stage's own over Brokers and Namespace (tests).
	Router *kafka.Router
}

// NormalizeRoute is the normaliser: raw carrier pages into events (and
// retractions), the pages it cannot read on the normaliser's dead-letter
// topic, all in Kafka transactions.
var NormalizeRoute = kafka.Route{Name: "normalize", Mode: kafka.ModeTransactional, Group: schemas.GroupNormalize,
	Inputs: []string{schemas.TopicCarrierRaw}, Outputs: []string{schemas.TopicEvents}, DeadLetter: schemas.TopicNormalizeDeadLetters}

// RoutingRoute follows the subscriptions topic into the routing index.
var RoutingRoute = kafka.Route{Name: "normalize-routing", Mode: kafka.ModeFollow, Inputs: []string{schemas.TopicSubscriptions}}

// Routes are the stage's routes, registered with the process's router.
var Routes = []kafka.Route{NormalizeRoute, RoutingRoute}

// Run normalises until parent ends; nil on a clean shutdown. The routing
// index's follower and the consume loop run under one errgroup: if the
// follower fails, the loop stops and Run returns the reason, rather than
// pushed events waiting for an index that will never be ready.
func Run(parent context.Context, cfg Config, deps Deps) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.WithDefaults()
	if deps.Now == nil {
		deps.Now = time.Now
	}
	log := deps.Log.With("stage", "normalize")
	deps.Router = kafka.RouterOr(deps.Router, kafka.RouterConfig{Brokers: deps.Brokers, Namespace: deps.Namespace, Log: log,
		Metrics: deps.Metrics, Loops: deps.Loops})
	quality, err := newQualityMetrics(deps.Registry)
	if err != nil {
		return err
	}
	s := &stage{cfg: cfg, deps: deps, log: log, quality: quality, seen: newSeenStore(deps.Pool, cfg.SeenCapacity), repairs: newRepairLog(deps.Pool),
		index: newRoutingIndex(deps.Pool, cfg.RoutingCacheKeys, time.Now().Add(cfg.RoutingWait), cfg.RoutingWait)}

	g, ctx := errgroup.WithContext(parent)
	idxCtx, stopIdx := context.WithCancel(ctx)
	defer stopIdx()
	g.Go(func() error {
		err := s.index.follow(idxCtx, deps, log)
		switch {
		case idxCtx.Err() != nil:
			return nil // asked to stop
		case err == nil:
			err = errors.New("stopped without being asked to")
		}
		s.index.failed(err)
		return fmt.Errorf("normalize: routing index: %w", err)
	})
	stopSaver := make(chan struct{})
	saverDone := make(chan struct{})
	saver := deps.Loops.Loop("normalize-dedupe-saver", log)
	go func() { s.seen.saveLoop(context.WithoutCancel(ctx), stopSaver, saver, log); close(saverDone) }()
	// Last: the saver writes what the final transactions emitted.
	defer func() { close(stopSaver); <-saverDone }()
	stopRepairs, repairsDone := make(chan struct{}), make(chan struct{})
	repairSaver := deps.Loops.Loop("normalize-repairs-saver", log)
	go func() {
		saveOffPath(context.WithoutCancel(ctx), stopRepairs, s.repairs.wake, s.repairs.flush, repairSaver, log,
			"repair counts", "the data-quality figures miss them")
		close(repairsDone)
	}()
	defer func() { close(stopRepairs); <-repairsDone }()

	err = deps.Router.ConsumeTransactional(ctx, NormalizeRoute, kafka.TransactConfig{
		TransactionalID: cfg.TransactionalID, Log: log,
		MaxRecords: cfg.MaxTransaction, Linger: cfg.TransactionLinger,
	}, s.batch)
	stopIdx()
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("normalize: %w", err)
	} else {
		err = nil
	}
	return errors.Join(err, g.Wait()) // the follower's failure, if that is what stopped the consumer
}

type stage struct {
	cfg     Config
	deps    Deps
	log     *slog.Logger
	quality *qualityMetrics
	repairs *repairLog
	seen    *seenStore
	index   *routingIndex
}

// batch turns fetched records into one transaction's output. Dedupe state
// is saved only after the commit, by the saver, off the next transaction's
// path: a crash in between re-emits the batch's events with the same id and
// hash, which consumers drop. An error aborts the transaction and the
// runtime handles the batch again.
func (s *stage) batch(ctx context.Context, tx *kafka.TxBatch) error {
	recs := tx.Records
	var out []*kgo.Record
	preps := make([]prepared, 0, len(recs))
	var keys []seenUpdate
	// A span per raw record, a child of the trace its headers carry (the
	// POST /events or poll that produced it); the events it emits carry
	// this span's context on. The spans end with the transaction.
	spans := make([]trace.Span, 0, len(recs))
	defer func() {
		for _, sp := range spans {
			sp.End()
		}
	}()
	for _, r := range recs {
		sctx, span := tracing.Tracer().Start(tracing.Extract(ctx, r), "normalize", trace.WithSpanKind(trace.SpanKindConsumer),
			trace.WithAttributes(attribute.String("messaging.destination.name", r.Topic),
				attribute.Int("messaging.destination.partition.id", int(r.Partition)), attribute.Int64("messaging.kafka.offset", r.Offset)))
		spans = append(spans, span)
		p, dead, err := s.prepare(ctx, r)
		if err != nil {
			// The routing index is not there: nothing of the batch is
			// committed (retried, or the stage stops with the reason).
			span.SetStatus(codes.Error, err.Error())
			return err
		}
		if dead != nil {
			span.SetStatus(codes.Error, "dead-lettered")
			out = append(out, dead)
			continue
		}
		p.trace = trace.SpanContextFromContext(sctx)
		preps = append(preps, p)
		out = append(out, p.dead...)
	}
	// Pushed TNT 3.0 events' routes are recorded, then pushed retractions
	// routed by them (those of this batch included), before the dedupe
	// state of what they reach is read.
	if err := s.recordRetractable(ctx, preps); err != nil {
		return fmt.Errorf("normalize: record pushed TNT 3.0 routes: %w", err)
	}
	if err := s.routeRetractions(ctx, preps); err != nil {
		return fmt.Errorf("normalize: route retractions: %w", err)
	}
	for _, p := range preps {
		for _, it := range p.items {
			keys = append(keys, seenUpdate{tracking: it.route.TrackingID, event: it.event.EventID})
		}
	}
	// One query for the whole batch's dedupe state, not one per event.
	if err := s.seen.preload(ctx, keys); err != nil {
		return fmt.Errorf("normalize: dedupe state: %w", err)
	}
	// Pushed events that reached no tracking are counted before the
	// commit: a store error aborts the batch, so none is silently gone. The
	// carriers' repaired deviations are kept and saved off the path.
	if err := s.countUnmatched(ctx, preps); err != nil {
		return fmt.Errorf("normalize: count unmatched: %w", err)
	}
	s.countRepairs(preps)
	pending := map[string]string{} // in-batch dedupe
	var updates []seenUpdate
	for _, p := range preps {
		o, ups := s.emit(p, pending)
		out = append(out, o...)
		updates = append(updates, ups...)
	}
	tx.Produce(out...)
	// After the commit, by the saver, off the next transaction's path.
	tx.AfterCommit(func(context.Context) { s.seen.committed(updates) })
	return nil
}

// prepared is a parsed raw record: its events, each with its trackings.
type prepared struct {
	raw   schemas.CarrierRaw
	items []item
	// trace is the span context of the record's normalise span.
	trace trace.SpanContext
	// dead are the dead letters of the record's parts that did not parse
	// (combined pushes) and of its refused elements, produced beside its
	// events.
	dead []*kgo.Record
	// repairs are the deviations the parser repaired in the record;
	// refused counts its elements dead-lettered one by one.
	repairs []normalize.Repair
	refused int
	// read counts the events its payload gave; lastRefusal is the reason
	// of its last refused element.
	read        int
	lastRefusal string
	// unmatched counts pushed events that reached no tracking;
	// unmatchedRef names the last one's shipment.
	unmatched    int
	unmatchedRef string
	// history names the subscriptions (comma-separated) a polled record is
	// the history of (schemas.HeaderHistoryFor); "" for most.
	history string
}

type item struct {
	event dcsa.Event
	route Route
	// unrouted marks a pushed retraction before routeRetractions replaces
	// it with one item per tracking that got its event.
	unrouted bool
	// hash is the event's identity.ContentHash, computed once for all its
	// routes ("" for retractions, and items made elsewhere: emit hashes).
	hash string
}

// prepare decodes and parses one raw record, or returns its dead letter;
// an error when a pushed record cannot be routed yet.
func (s *stage) prepare(ctx context.Context, r *kgo.Record) (prepared, *kgo.Record, error) {
	var raw schemas.CarrierRaw
	if err := schemas.DecodeCarrierRaw(r.Value, &raw); err != nil {
		return prepared{}, s.deadLetter(r, raw, "", "undecodable envelope: "+err.Error()), nil
	}
	if raw.TrackingID == "" {
		// A pushed record's carrier is its key's SCAC, upper-case as
		// subscriptions store it (records from before keys were normalised).
		raw.SCAC = strings.ToUpper(raw.SCAC)
	}
	parse := s.deps.Parsers[carriers.Format(raw.Format)]
	if parse == nil {
		return prepared{}, s.deadLetter(r, raw, raw.Format, "no parser for format "+strconv.Quote(raw.Format)), nil
	}
	env := normalize.Envelope{SCAC: raw.SCAC, TrackingID: raw.TrackingID, ReceivedAt: raw.ReceivedAt}
	var events []dcsa.Event
	var dead []*kgo.Record
	var repairs []normalize.Repair
	refused, lastRefusal := 0, ""
	// read keeps what one payload gave: its events and repairs, a dead
	// letter per refused element (carrying the payload it is in, its index
	// and reason); false when the payload could not be read at all.
	read := func(one schemas.CarrierRaw) (string, bool) {
		res, err := safeParse(parse, one.Payload, env, s.log)
		if err != nil {
			return err.Error(), false
		}
		events = append(events, res.Events...)
		repairs = append(repairs, res.Repairs...)
		refused += len(res.Refused)
		for _, e := range res.Refused {
			lastRefusal = e.Error()
			dead = append(dead, s.deadLetter(r, one, raw.Format, lastRefusal, schemas.Header{Key: "element", Value: strconv.Itoa(e.Element)}))
		}
		return "", true
	}
	if raw.Parts > 0 {
		events = make([]dcsa.Event, 0, raw.Parts)
		// Pushes that shared one record: each parsed, and dead-lettered, alone.
		parts, ok := splitParts(raw.Payload)
		if !ok {
			return prepared{}, s.deadLetter(r, raw, raw.Format, "combined pushes: the payload is not an array of objects"), nil
		}
		for _, part := range parts {
			one := raw
			one.Payload, one.Parts = part, 0
			if reason, ok := read(one); !ok {
				dead = append(dead, s.deadLetter(r, one, raw.Format, reason))
			}
		}
	} else if reason, ok := read(raw); !ok {
		return prepared{}, s.deadLetter(r, raw, raw.Format, reason), nil
	}
	if raw.TrackingID == "" {
		if err := s.index.usable(); err != nil {
			return prepared{}, nil, err
		}
	}
	p := prepared{raw: raw, dead: dead, repairs: repairs, refused: refused, read: len(events), lastRefusal: lastRefusal,
		items: make([]item, 0, len(events))}
	if raw.TrackingID != "" {
		p.history = kafka.Header(r, schemas.HeaderHistoryFor)
	}
	for _, ev := range events {
		if ev.Retracted {
			// A retraction names only its event: it goes where the event
			// went — the tracking polled, or (pushed) routeRetractions says.
			if raw.TrackingID != "" {
				p.items = append(p.items, item{event: ev, route: Route{TrackingID: raw.TrackingID, AccountID: raw.AccountID, Env: raw.Env, SCAC: raw.SCAC}})
			} else {
				p.items = append(p.items, item{event: ev, unrouted: true})
			}
			continue
		}
		if ev.EventID == "" {
			ev.EventID = identity.EventIDFromFields(ev, raw.SCAC)
		}
		rts, err := s.routes(ctx, raw, ev)
		if err != nil {
			return prepared{}, nil, err
		}
		if len(rts) == 0 && raw.TrackingID == "" {
			p.unmatched++
			p.unmatchedRef = reference(ev)
		}
		if len(rts) == 0 {
			continue
		}
		hash := identity.ContentHash(ev) // once, however many trackings it reaches
		for _, rt := range rts {
			p.items = append(p.items, item{event: ev, route: rt, hash: hash})
		}
	}
	return p, nil, nil
}

// emit produces the events of p that are new or changed for their
// tracking. A record that is history for subscriptions (p.history) first
// gives them every event of the page, seen or not, in the page's order
// (history for them only), and then the new or changed ones to everyone
// else (HeaderHistoryExcept): each subscription gets each event once, the
// history before what follows it on the tracking's partition.
func (s *stage) emit(p prepared, pending map[string]string) ([]*kgo.Record, []seenUpdate) {
	out := make([]*kgo.Record, 0, len(p.items))
	ups := make([]seenUpdate, 0, len(p.items))
	now := s.deps.Now().UTC()
	enc := jsonbuf.Get()
	defer jsonbuf.Put(enc)
	var extra []schemas.Header
	if p.history != "" {
		out = append(out, s.history(p, now, enc)...)
		extra = []schemas.Header{{Key: schemas.HeaderHistoryExcept, Value: p.history}}
	}
	for _, it := range p.items {
		ev, rt := it.event, it.route
		typ := schemas.TypeEvent
		hash := it.hash
		switch {
		case ev.Retracted:
			typ, hash = schemas.TypeEventRetracted, schemas.RetractedHash
		case hash == "":
			hash = identity.ContentHash(ev)
		}
		if ev.Terminal {
			typ = schemas.TypeEventTerminal
		}
		if ev.TNT3 != nil {
			typ = schemas.TypeEventTNT3
		}
		k := seenKey(rt.TrackingID, ev.EventID)
		prev, inBatch := pending[k]
		if !inBatch {
			prev = s.seen.cached(k)
		}
		if prev == hash || (ev.Retracted && prev == "") {
			continue // the same event again, or the withdrawal of one this tracking never got
		}
		update := prev != ""
		var body []byte
		switch {
		case ev.Retracted:
			body = schemas.RetractionEvent(ev.EventID)
		case update:
			// An update keeps its id and carries a newer creation time.
			ev.EventCreatedDateTime = now.Format(time.RFC3339Nano)
			fallthrough
		default:
			// Into a buffer reused for every event: the record copies it.
			body, _ = enc.Marshal(&ev) // dcsa.Event holds only strings, ints and slices
		}
		rec := schemas.EventRecord{
			TrackingID: rt.TrackingID, AccountID: rt.AccountID, Env: rt.Env, SCAC: rt.SCAC,
			EventID: ev.EventID, ContentHash: hash, Update: update, Event: body, SourceID: p.raw.ID, EmittedAt: now,
		}
		// body is json.Marshal's output (enc writes the same bytes), so the
		// record can be written without encoding it again.
		v, ok := schemas.AppendEventRecord(make([]byte, 0, len(body)+512), &rec)
		if !ok {
			v, _ = json.Marshal(rec)
		}
		r := &kgo.Record{Topic: s.deps.Namespace.Topic(schemas.TopicEvents), Key: []byte(rt.TrackingID), Value: v, Headers: schemas.Headers{
			Type: typ, ID: ev.EventID + "/" + hash, Account: rt.AccountID, Env: rt.Env, Extra: extra,
		}.Kafka()}
		tracing.Inject(trace.ContextWithSpanContext(context.Background(), p.trace), r)
		out = append(out, r)
		pending[k] = hash
		ups = append(ups, seenUpdate{rt.TrackingID, ev.EventID, hash})
	}
	return out, ups
}

// history is the history records of p for its subscriptions
// (p.history): every event of the page as the carrier has it now, once
// each, in order; the events the page withdraws (retractions) are left
// out. They change no dedupe state: the tracking's other subscriptions
// have had them.
func (s *stage) history(p prepared, now time.Time, enc *jsonbuf.Encoder) []*kgo.Record {
	out := make([]*kgo.Record, 0, len(p.items))
	done := make(map[string]bool, len(p.items))
	withdrawn := map[string]bool{}
	for _, it := range p.items {
		if it.event.Retracted {
			withdrawn[it.event.EventID] = true
		}
	}
	for _, it := range p.items {
		ev, rt := it.event, it.route
		if ev.Retracted || withdrawn[ev.EventID] {
			continue
		}
		hash := it.hash
		if hash == "" {
			hash = identity.ContentHash(ev)
		}
		if done[ev.EventID+"/"+hash] {
			continue
		}
		done[ev.EventID+"/"+hash] = true
		typ := schemas.TypeEvent
		if ev.Terminal {
			typ = schemas.TypeEventTerminal
		}
		if ev.TNT3 != nil {
			typ = schemas.TypeEventTNT3
		}
		body, _ := enc.Marshal(&ev)
		rec := schemas.EventRecord{
			TrackingID: rt.TrackingID, AccountID: rt.AccountID, Env: rt.Env, SCAC: rt.SCAC,
			EventID: ev.EventID, ContentHash: hash, Event: body, SourceID: p.raw.ID, EmittedAt: now,
		}
		v, ok := schemas.AppendEventRecord(make([]byte, 0, len(body)+512), &rec)
		if !ok {
			v, _ = json.Marshal(rec)
		}
		r := &kgo.Record{Topic: s.deps.Namespace.Topic(schemas.TopicEvents), Key: []byte(rt.TrackingID), Value: v, Headers: schemas.Headers{
			Type: typ, ID: ev.EventID + "/" + hash, Account: rt.AccountID, Env: rt.Env,
			Extra: []schemas.Header{{Key: schemas.HeaderHistoryFor, Value: p.history}},
		}.Kafka()}
		tracing.Inject(trace.ContextWithSpanContext(context.Background(), p.trace), r)
		out = append(out, r)
	}
	return out
}

// routes returns the trackings an event belongs to: the polled tracking, or
// for pushed events every open tracking of the environment and of the
// carrier key's SCAC (raw.SCAC, set by POST /events from the key, never
// from the body) following its container or one of its booking / bill of
// lading references.
func (s *stage) routes(ctx context.Context, raw schemas.CarrierRaw, ev dcsa.Event) ([]Route, error) {
	if raw.TrackingID != "" {
		return []Route{{TrackingID: raw.TrackingID, AccountID: raw.AccountID, Env: raw.Env, SCAC: raw.SCAC}}, nil
	}
	// prepare checked that the index is caught up (index.usable).
	seen := map[string]bool{}
	var out []Route
	add := func(rs []Route) {
		for _, r := range rs {
			if !seen[r.TrackingID] {
				seen[r.TrackingID] = true
				out = append(out, r)
			}
		}
	}
	look := func(kind, value string) error {
		rs, err := s.index.lookup(ctx, raw.Env, raw.SCAC, kind, value)
		add(rs)
		return err
	}
	if ev.EquipmentReference != "" {
		if err := look("container", ev.EquipmentReference); err != nil {
			return nil, err
		}
	}
	for _, d := range ev.DocumentReferences {
		var err error
		switch d.DocumentReferenceType {
		case dcsa.DocBooking:
			err = look("booking", d.DocumentReferenceValue)
		case dcsa.DocTransportDoc:
			err = look("bill", d.DocumentReferenceValue)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// splitParts returns the elements of a JSON array of objects (a combined
// record's pushes), or false if payload is not one.
func splitParts(payload []byte) ([][]byte, bool) {
	i := skipJSONSpace(payload, 0)
	if i == len(payload) || payload[i] != '[' {
		return nil, false
	}
	var parts [][]byte
	for i = skipJSONSpace(payload, i+1); ; {
		n, ok := jsonvalid.Object(payload[i:], 10000)
		if !ok {
			return nil, false
		}
		parts = append(parts, payload[i:i+n])
		i = skipJSONSpace(payload, i+n)
		switch {
		case i < len(payload) && payload[i] == ',':
			i = skipJSONSpace(payload, i+1)
		case i < len(payload) && payload[i] == ']' && skipJSONSpace(payload, i+1) == len(payload):
			return parts, true
		default:
			return nil, false
		}
	}
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// safeParse turns a parser panic into a parse error: a bug in one parser
// must dead-letter the record, not stop the stage. The panic's stack is
// logged (the dead letter's reason carries only the panic's value).
func safeParse(p normalize.Parser, raw []byte, env normalize.Envelope, log *slog.Logger) (res normalize.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			log.Error("parser panic", "scac", env.SCAC, "panic", v, "stack", string(debug.Stack()))
			res, err = normalize.Result{}, fmt.Errorf("parser panic: %v", v)
		}
	}()
	res, err = p(raw, env)
	if err != nil && !errors.Is(err, normalize.ErrMalformed) {
		err = fmt.Errorf("parse: %w", err)
	}
	return res, err
}

// deadLetter is the dead letter of raw's payload with its reason; extra
// headers say more (the index of a refused element).
func (s *stage) deadLetter(r *kgo.Record, raw schemas.CarrierRaw, format, reason string, extra ...schemas.Header) *kgo.Record {
	s.log.Warn("dead-lettering raw payload", "format", format, "partition", r.Partition, "offset", r.Offset, "reason", reason)
	value := raw.Payload
	if value == nil {
		value = r.Value
	}
	return &kgo.Record{Topic: s.deps.Namespace.Topic(schemas.TopicNormalizeDeadLetters), Key: r.Key, Value: value, Headers: schemas.Headers{
		ID: raw.ID, Env: raw.Env, SCAC: raw.SCAC,
		DeadLetter: schemas.DeadLetterOf(r, "normalize", reason),
		Extra:      append([]schemas.Header{{Key: "format", Value: format}, {Key: "tracking", Value: raw.TrackingID}}, extra...),
	}.Kafka()}
}
