// Package feed keeps the account event feed that GET /subscriptions/events
// serves: for consumers without a webhook, or catching up after downtime.
//
// A consumer group on the events topic (schemas.GroupFeed, through
// kafka.Consume) writes every event record once per OPEN subscription of its
// tracking into Postgres, numbered per account in the order written, a
// transaction's items of one account in a row of feed_batches (migration
// 0071): a tracking's records are handled in topic order, which is the
// order its subscriptions' webhooks get them, so each subscription's events
// keep that order in the feed. The record's offset is committed only after
// its items are. A record consumed again is a no-op (its tracking's mark in
// feed_marks is at or past it); the same event re-emitted (a new record)
// is a new item. A history record (schemas.HeaderHistoryFor) is written
// only for the subscriptions it names, and the new events beside it
// (HeaderHistoryExcept) for all others. Each writing transaction announces the accounts it wrote
// with NOTIFY on Channel, which the API's Notifier turns into long-poll
// wake-ups. Rows older than Config.Retention are deleted.
package feed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sync/errgroup"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/eventfilter"
)

// Channel is the Postgres NOTIFY channel on which a writing transaction
// announces, at commit, each account it added feed events for (the payload
// is the account id).
const Channel = "contrack_feed"

// MinRetention is the shortest retention Config accepts: the feed promises
// consumers at least 30 days.
const MinRetention = 30 * 24 * time.Hour

// Config tunes the stage; zero values take the defaults.
type Config struct {
	// Retention is how long feed events are kept (default and minimum 30
	// days). Records older than this when consumed are skipped.
	Retention time.Duration
	// PruneInterval is how often rows past Retention are deleted (default 1 h).
	PruneInterval time.Duration
	// MaxGroup bounds the events written in one transaction (default 256).
	MaxGroup int
	// PositionsRefresh is how often the vessels of the subscriptions that
	// opted in to VESSEL_POSITION items are read again from their journeys
	// (default 1 min): a shipment's items start, move to its next vessel
	// and stop this long after the carrier's departure or arrival event.
	PositionsRefresh time.Duration
}

// Validate reports every problem of c.
func (c Config) Validate() error {
	var errs []error
	if c.Retention != 0 && c.Retention < MinRetention {
		errs = append(errs, fmt.Errorf("feed: Retention %s is below the promised %s", c.Retention, MinRetention))
	}
	if c.PruneInterval < 0 {
		errs = append(errs, errors.New("feed: PruneInterval must not be negative"))
	}
	if c.MaxGroup < 0 {
		errs = append(errs, errors.New("feed: MaxGroup must not be negative"))
	}
	if c.PositionsRefresh < 0 {
		errs = append(errs, errors.New("feed: PositionsRefresh must not be negative"))
	}
	return errors.Join(errs...)
}

// WithDefaults returns c with every zero field set to its documented default;
// Run applies it after Validate, so a zero Config is a valid one.
func (c Config) WithDefaults() Config {
	if c.Retention == 0 {
		c.Retention = MinRetention
	}
	if c.PruneInterval == 0 {
		c.PruneInterval = time.Hour
	}
	if c.MaxGroup == 0 {
		c.MaxGroup = 256
	}
	if c.PositionsRefresh == 0 {
		c.PositionsRefresh = time.Minute
	}
	return c
}

// Deps are the stage's connections.
type Deps struct {
	Brokers []string
	// Namespace prefixes the Kafka topics and groups of this deployment
	// (CONTRACK_KAFKA_NAMESPACE); empty: the names as they are.
	Namespace schemas.Namespace
	Pool      *pgxpool.Pool
	// CH reads the journeys of the subscriptions that opted in to
	// VESSEL_POSITION items (ClickHouse events); nil: no such items.
	CH  driver.Conn
	Log *slog.Logger
	// Registry takes the stage's metrics; nil: not registered.
	Registry prometheus.Registerer
	// Now defaults to time.Now.
	Now func() time.Time
	// Metrics, if set, are the stream runtime's collectors on the role's
	// registry (records by outcome, undecodable ones as skipped).
	Metrics *kafka.Metrics
	// Loops, if set, supervises the consumer and the pruning (the role's).
	Loops *loop.Supervisor
	// Router is the process's stream runtime, which runs Routes; nil: a
	// router of the stage's own over Brokers and Namespace (tests).
	Router *kafka.Router
}

// EventsRoute is the feed's consumer of events and alerts (per record).
// It has no dead-letter topic: undecodable records are skipped, logged
// and counted, as delivery dead-letters the same records already.
var EventsRoute = kafka.Route{Mode: kafka.ModeRecord, Group: schemas.GroupFeed,
	Inputs: []string{schemas.TopicEvents, schemas.TopicAlerts}}

// PositionsRoute writes the vessel positions into the opted-in feeds (per
// record; an undecodable report is skipped, as the projector's consumer
// of the same topic dead-letters it).
var PositionsRoute = kafka.Route{Mode: kafka.ModeRecord, Group: schemas.GroupFeedPositions,
	Inputs: []string{schemas.TopicVesselPositions}}

// Routes are the stage's routes, registered with the process's router.
var Routes = []kafka.Route{EventsRoute, PositionsRoute}

// Run writes the feed until ctx ends and returns nil on a clean shutdown
// (the records in hand are written and their offsets committed).
func Run(ctx context.Context, cfg Config, deps Deps) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.WithDefaults()
	if deps.Pool == nil || len(deps.Brokers) == 0 {
		return errors.New("feed: Deps.Pool and Deps.Brokers are required")
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Log == nil {
		deps.Log = slog.Default()
	}
	log := deps.Log.With("stage", "feed")
	deps.Router = kafka.RouterOr(deps.Router, kafka.RouterConfig{Brokers: deps.Brokers, Namespace: deps.Namespace, Log: log,
		Metrics: deps.Metrics, Loops: deps.Loops})
	s := &stage{cfg: cfg, log: log, pool: deps.Pool, now: deps.Now, reqs: make(chan *writeReq, cfg.MaxGroup),
		pruning: deps.Loops.Loop("feed-prune", log), alertsTopic: deps.Namespace.Topic(schemas.TopicAlerts)}

	// The loops run in one errgroup; the consumer is the one that fails for
	// good (its error cancels gctx, stopping the others, and is Run's
	// result). The writer cannot fail (a failed write goes to the waiting
	// handler, whose record the consumer retries, counted as the consumer
	// loop's failure) and pruning recovers (the loop "feed-prune": counted,
	// retried after a backoff honouring its context), so both return nil.
	loops, gctx := errgroup.WithContext(ctx)
	bg := context.WithoutCancel(ctx)
	stopWriter := make(chan struct{})
	loops.Go(func() error { s.writeLoop(bg, stopWriter); return nil })
	loops.Go(func() error { return s.pruning.Run(gctx, cfg.PruneInterval, s.prune) })
	if deps.CH != nil {
		m, err := newPositionMetrics(deps.Registry)
		if err != nil {
			return err
		}
		p := &positions{cfg: cfg, log: log, pool: deps.Pool, ch: deps.CH, now: deps.Now, m: m,
			loops: deps.Loops}
		loops.Go(func() error { p.refreshLoop(gctx); return nil })
		loops.Go(func() error { return p.consume(gctx, deps) })
	}

	consumed := make(chan struct{})
	loops.Go(func() error {
		defer close(consumed)
		// Undecodable records are skipped (EventsRoute has no dead-letter
		// topic): logged and counted, outcome skipped.
		err := deps.Router.Consume(gctx, EventsRoute, kafka.ConsumerConfig{
			Log: log,
			// Records of different trackings share a transaction; a tracking's
			// own are handled in topic order, those that waited behind one
			// in a transaction going together.
			KeyConcurrency: cfg.MaxGroup, Runs: s.handleRun,
		}, s.handle)
		if err == nil && gctx.Err() == nil {
			err = errors.New("feed: consumer stopped")
		}
		return err
	})
	<-consumed
	close(stopWriter) // the handlers are done
	err := loops.Wait()
	log.Info("feed stopped")
	return err
}

type stage struct {
	cfg     Config
	log     *slog.Logger
	pool    *pgxpool.Pool
	now     func() time.Time
	reqs    chan *writeReq
	pruning *loop.Loop
	// alertsTopic is the alerts topic's name in this deployment's
	// namespace: its records are marked apart from the events topic's.
	alertsTopic string
}

// item is one event record to write.
type item struct {
	ev       schemas.EventRecord
	tracking uuid.UUID
	// source, partition and offset place the record: its tracking's mark
	// (feed_marks) says whether it was written before.
	source    string
	partition int32
	offset    int64
	// historyFor and historyExcept are the record's history targeting
	// (schemas.HeaderHistoryFor, HeaderHistoryExcept): comma-separated
	// subscription ids, "" for none.
	historyFor, historyExcept string
}

type writeReq struct {
	it   item
	done chan error
}

// handle writes one event record for its tracking's open subscriptions and
// returns once that is committed. Store errors are transient (the consume
// loop retries the record); an undecodable record is permanent.
func (s *stage) handle(ctx context.Context, r *kgo.Record) error {
	return s.handleRun(ctx, []*kgo.Record{r})
}

// handleRun writes a run of one tracking's event records (those that
// waited behind the one before), in order, and returns once all are
// committed: the writer takes them together, so a busy tracking is not
// held to one event per transaction. An undecodable record fails the run
// permanently (the runtime then hands its records to handle one at a
// time).
func (s *stage) handleRun(ctx context.Context, run []*kgo.Record) error {
	reqs := make([]*writeReq, 0, len(run))
	for _, r := range run {
		it, ok, err := s.itemOf(r)
		if err != nil {
			return err
		}
		if ok {
			reqs = append(reqs, &writeReq{it: it, done: make(chan error, 1)})
		}
	}
	// One sender, in order: the writer groups them in this order, and
	// writes groups one after the other.
	for _, req := range reqs {
		select {
		case s.reqs <- req:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var errs []error
	for _, req := range reqs {
		select {
		case err := <-req.done:
			if err != nil {
				errs = append(errs, fmt.Errorf("feed: write event %s: %w", req.it.ev.EventID, err))
			}
		case <-ctx.Done():
			return ctx.Err() // outcome unknown: the records come again, which writes nothing twice
		}
	}
	return errors.Join(errs...)
}

// itemOf decodes r into the item to write; ok is false for a record with
// nothing to write (another type, no tracking, past retention).
func (s *stage) itemOf(r *kgo.Record) (it item, ok bool, err error) {
	if t := kafka.Header(r, schemas.HeaderType); t != "" && t != schemas.TypeEvent && t != schemas.TypeEventRetracted && t != schemas.TypeAlert &&
		t != schemas.TypeEventTNT3 {
		return it, false, nil
	}
	var ev schemas.EventRecord
	if err := schemas.DecodeEventRecord(r.Value, &ev); err != nil {
		return it, false, kafka.Permanent(fmt.Errorf("feed: undecodable event record: %w", err))
	}
	// Decoding checked the whole record, event included, is valid JSON.
	if ev.EventID == "" || ev.ContentHash == "" || len(ev.Event) == 0 || ev.Event[0] != '{' {
		return it, false, kafka.Permanent(errors.New("feed: event record without event id, content hash or event object"))
	}
	tid, err := uuid.Parse(ev.TrackingID)
	if err != nil {
		return it, false, nil // not a tracking of any subscription
	}
	if !ev.EmittedAt.IsZero() && s.now().Sub(ev.EmittedAt) > s.cfg.Retention {
		// Past retention already (a group reset to the topic's start):
		// writing it would bring back what pruning removed.
		return it, false, nil
	}
	source := sourceEvents
	if r.Topic == s.alertsTopic {
		source = sourceAlerts
	}
	return item{ev: ev, tracking: tid, source: source, partition: r.Partition, offset: r.Offset,
		historyFor: kafka.Header(r, schemas.HeaderHistoryFor), historyExcept: kafka.Header(r, schemas.HeaderHistoryExcept)}, true, nil
}

// writeLoop commits whatever handlers have waiting in one transaction at a
// time (group commit), until stop is closed and nothing is left. One
// transaction at a time per process; across processes the per-account
// counter rows serialise writers of the same account.
func (s *stage) writeLoop(ctx context.Context, stop <-chan struct{}) {
	for {
		var first *writeReq
		select {
		case first = <-s.reqs:
		case <-stop:
			return
		}
		group := []*writeReq{first}
		linger := time.NewTimer(writeLinger)
	gather:
		for len(group) < s.cfg.MaxGroup {
			select {
			case r := <-s.reqs:
				group = append(group, r)
			case <-linger.C:
				break gather
			}
		}
		linger.Stop()
		s.write(ctx, group)
	}
}

// writeLinger is how long the first event of a write waits for others:
// at 500 events/s a write went out for every four events. A long-poll
// sees an event this much later (the target is a second).
const writeLinger = 5 * time.Millisecond

func (s *stage) write(ctx context.Context, group []*writeReq) {
	items := make([]item, len(group))
	for i, r := range group {
		items[i] = r.it
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err := writeItems(wctx, s.pool, items, s.now())
	cancel()
	if err != nil && len(group) > 1 {
		// One bad event must not hold back the others: each on its own.
		for _, r := range group {
			s.write(ctx, []*writeReq{r})
		}
		return
	}
	for _, r := range group {
		r.done <- err
	}
}

// writeSQL fans events (one element per event in the arrays, in order) out
// to the OPEN subscriptions of their trackings, skips the records written
// before (at or below their tracking's mark: the record was consumed
// before), numbers the rest per account after the account's counter (whose
// row lock orders the account's writers), inserts them as batches (runs of
// an account's consecutive events, up to batchItems each; an alert alone),
// moves the marks and notifies each account written. Lookups are fenced
// per-event probes (LATERAL … OFFSET 0) so the plan does not depend on
// table statistics.
//
// A retraction (content hash schemas.RetractedHash) is written with the
// event it withdraws as that subscription's feed last had it — from
// @events when an earlier element is that version (@lookups false), else
// the newest batch since the subscription's creation holding it — and not
// at all for a subscription whose feed never had the event (see
// deliveries.Stream).
const writeSQL = `
	WITH ev AS (
		SELECT * FROM unnest(@trackings::uuid[], @sources::text[], @event_ids::text[], @hashes::text[], @events::bytea[],
		                     @parts::int[], @offsets::bigint[], @lookups::bool[], @tags::text[], @alert_types::text[],
		                     @change_minutes::int[], @history_for::text[], @history_except::text[]) WITH ORDINALITY
			AS e(tracking_id, source, event_id, hash, event, part, off, lookup, tags, alert_type, change_minutes,
			     history_for, history_except, ord)
	), unseen AS (
		-- Marks as of the statement's start: a tracking's records of this
		-- statement are compared with what earlier ones wrote.
		SELECT ev.* FROM ev
		WHERE NOT EXISTS (SELECT 1 FROM feed_marks m WHERE m.source = ev.source AND m.tracking_id = ev.tracking_id
		                  AND m.src_partition = ev.part AND m.src_offset >= ev.off)
	), marked AS (
		INSERT INTO feed_marks AS m (source, tracking_id, src_partition, src_offset, updated_at)
		SELECT DISTINCT ON (source, tracking_id) source, tracking_id, part, off, @now FROM unseen
		ORDER BY source, tracking_id, off DESC
		ON CONFLICT (source, tracking_id) DO UPDATE
		SET src_partition = EXCLUDED.src_partition, src_offset = EXCLUDED.src_offset, updated_at = EXCLUDED.updated_at
	), fan AS (
		SELECT s.account_id, s.id AS subscription_id, s.seq AS sub_seq, ev.event_id, ev.hash,
		       coalesce(s.last, ev.event) AS event, ev.ord,
		       CASE WHEN s.last IS NOT NULL THEN s.last_tags ELSE ev.tags END AS tags,
		       NULLIF(ev.alert_type, '') AS alert_type, ev.change_minutes
		FROM unseen ev CROSS JOIN LATERAL (
			SELECT s.id, s.account_id, s.seq, l.event AS last, l.tags AS last_tags
			FROM subscriptions s
			JOIN accounts a ON a.id = s.account_id AND a.active
			LEFT JOIN LATERAL (
				SELECT e.event, e.tags FROM feed_batches b
				CROSS JOIN LATERAL unnest(b.subscription_ids, b.event_ids, b.content_hashes, b.tags, b.events) WITH ORDINALITY
					AS e(subscription_id, event_id, hash, tags, event, ord)
				WHERE ev.lookup AND b.account_id = s.account_id AND b.kind = '` + schemas.FeedKindEvent + `'
				  -- A subscription's items are written after its creation
				  -- (an hour's margin for clocks): older batches are
				  -- passed over without reading their arrays.
				  AND b.created_at >= s.created_at - interval '1 hour'
				  AND e.subscription_id = s.id AND e.event_id = ev.event_id AND e.hash <> '` + schemas.RetractedHash + `'
				ORDER BY b.seq_to DESC, e.ord DESC LIMIT 1) l ON true
			WHERE s.tracking_id = ev.tracking_id AND s.status = 'OPEN'
			  -- History on subscribe: a history record goes to its
			  -- subscriptions only; the new events beside it skip them.
			  AND (ev.history_for = '' OR s.id::text = ANY(string_to_array(ev.history_for, ',')))
			  AND NOT (s.id::text = ANY(string_to_array(ev.history_except, ',')))
			  -- History is only what the subscription has not had: a new
			  -- event may have reached it a moment before its history.
			  AND (ev.history_for = '' OR NOT EXISTS (
				SELECT 1 FROM feed_batches b
				CROSS JOIN LATERAL unnest(b.subscription_ids, b.event_ids, b.content_hashes) AS e(subscription_id, event_id, hash)
				WHERE b.account_id = s.account_id AND b.kind = '` + schemas.FeedKindEvent + `'
				  AND b.created_at >= s.created_at - interval '1 hour'
				  AND e.subscription_id = s.id AND e.event_id = ev.event_id AND e.hash = ev.hash
				OFFSET 0))
			OFFSET 0) s
		WHERE NOT ev.lookup OR s.last IS NOT NULL
	), numbered AS (
		SELECT *, row_number() OVER (PARTITION BY account_id ORDER BY ord, sub_seq) AS n FROM fan
	), counts AS (
		SELECT account_id, count(*) AS n FROM fan GROUP BY account_id
	), bumped AS (
		INSERT INTO feed_accounts AS a (account_id, last_seq)
		SELECT account_id, n FROM counts ORDER BY account_id
		ON CONFLICT (account_id) DO UPDATE SET last_seq = a.last_seq + EXCLUDED.last_seq
		RETURNING account_id, last_seq
	), islands AS (
		-- An account's consecutive events share an island (n minus their
		-- rank among its events is constant along a run); an alert is one
		-- of its own (negative, apart from the events').
		SELECT f.*, b.last_seq - c.n + f.n AS seq,
		       CASE WHEN f.alert_type IS NULL
		            THEN f.n - row_number() OVER (PARTITION BY f.account_id, f.alert_type IS NULL ORDER BY f.n)
		            ELSE -f.n END AS island
		FROM numbered f JOIN counts c ON c.account_id = f.account_id JOIN bumped b ON b.account_id = f.account_id
	), chunked AS (
		SELECT *, (row_number() OVER (PARTITION BY account_id, island ORDER BY n) - 1) / ` + batchItemsSQL + ` AS chunk FROM islands
	), written AS (
		INSERT INTO feed_batches (account_id, seq_from, seq_to, kind, created_at, subscription_ids, event_ids, content_hashes,
		                          tags, events, subscription_id, alert_type, change_minutes)
		SELECT account_id, min(seq), max(seq),
		       CASE WHEN island < 0 THEN '` + schemas.FeedKindAlert + `' ELSE '` + schemas.FeedKindEvent + `' END, @now,
		       array_agg(subscription_id ORDER BY n), array_agg(event_id ORDER BY n), array_agg(hash ORDER BY n),
		       array_agg(tags ORDER BY n), array_agg(event ORDER BY n),
		       CASE WHEN island < 0 THEN (array_agg(subscription_id))[1] END, min(alert_type), min(change_minutes)
		FROM chunked GROUP BY account_id, island, chunk
		RETURNING account_id
	)
	SELECT pg_notify('` + Channel + `', account_id::text) FROM (SELECT DISTINCT account_id FROM written) w`

// writeNamed is writeSQL rewritten for its arguments once.
var writeNamed = postgres.NewNamed(writeSQL)

// batchItems bounds the items of one feed_batches row, so a reader after
// one item never reads more than this many to reach it.
const (
	batchItems    = 256
	batchItemsSQL = "256"
)

// Sources of feed_marks: the topic a record came from.
const (
	sourceEvents = "events"
	sourceAlerts = "alerts"
)

// writeItems writes items in one transaction (the statement is one).
func writeItems(ctx context.Context, pool *pgxpool.Pool, items []item, now time.Time) error {
	return pool.SendBatch(ctx, writeBatch(items, now)).Close()
}

// writeBatch is writeItems' transaction as a pgx batch.
func writeBatch(items []item, now time.Time) *pgx.Batch {
	items = historyRepeats(items)
	n := len(items)
	trackings, sources, ids, hashes := make([]uuid.UUID, n), make([]string, n), make([]string, n), make([]string, n)
	events, parts, offsets := make([][]byte, n), make([]int32, n), make([]int64, n)
	lookups := make([]bool, n)
	tags, alertTypes, changes := make([]string, n), make([]string, n), make([]*int32, n)
	historyFor, historyExcept := make([]string, n), make([]string, n)
	for i, it := range items {
		trackings[i], sources[i], ids[i], hashes[i] = it.tracking, it.source, it.ev.EventID, it.ev.ContentHash
		historyFor[i], historyExcept[i] = it.historyFor, it.historyExcept
		events[i], parts[i], offsets[i] = it.ev.Event, it.partition, it.offset
		f := eventfilter.Of(&it.ev)
		if it.ev.Retraction() {
			events[i], lookups[i] = lastVersion(items[:i], it)
			if !lookups[i] {
				// Tagged as the version it holds.
				f = eventfilter.Of(&schemas.EventRecord{Event: events[i]})
			}
		}
		tags[i], alertTypes[i] = strings.Join(f.Tags, ","), f.AlertType
		if m := f.ChangeMinutes; m != nil {
			v := int32(max(min(*m, math.MaxInt32), math.MinInt32+1))
			changes[i] = &v
		}
	}
	b := &pgx.Batch{}
	b.Queue(postgres.GenericPlan)
	// Probes only, whatever the statistics: a young table's plan scanned
	// every open subscription for each event (docs/performance.md).
	b.Queue(postgres.KeyedPlan)
	b.Queue(writeNamed.SQL, writeNamed.Args(pgx.NamedArgs{
		"trackings": postgres.UUIDs(trackings), "sources": sources, "event_ids": ids, "hashes": hashes, "events": events,
		"parts": parts, "offsets": offsets, "lookups": lookups, "now": now,
		"tags": tags, "alert_types": alertTypes, "change_minutes": changes,
		"history_for": historyFor, "history_except": historyExcept,
	})...)
	return b
}

// historyRepeats drops the history items (historyFor) that repeat for all
// their subscriptions the same version of their event written before them
// in items, by an item that excepted none of them (writeSQL's own check
// sees only what earlier statements wrote). Order is kept.
func historyRepeats(items []item) []item {
	type key struct {
		tracking uuid.UUID
		event    string
	}
	var last map[key]item
	out := items[:0:0]
	for _, it := range items {
		k := key{it.tracking, it.ev.EventID}
		if prev, ok := last[k]; ok && it.historyFor != "" && prev.ev.ContentHash == it.ev.ContentHash &&
			(prev.historyFor == it.historyFor || prev.historyFor == "" && !schemas.HistoryOverlaps(it.historyFor, prev.historyExcept)) {
			continue
		}
		if last == nil {
			last = make(map[key]item, len(items))
		}
		last[k] = it
		out = append(out, it)
	}
	return out
}

// lastVersion is the version of r's event before r among before, to write
// r with; lookup (and r's own bytes, a placeholder) when before has none
// and the table must say.
func lastVersion(before []item, r item) (event []byte, lookup bool) {
	for i := len(before) - 1; i >= 0; i-- {
		it := before[i]
		if it.tracking == r.tracking && it.ev.EventID == r.ev.EventID {
			if it.ev.Retraction() {
				break
			}
			return it.ev.Event, false
		}
	}
	return r.ev.Event, true
}

// pruneBatch bounds the rows one prune statement deletes.
const pruneBatch = 10_000

// prune deletes the rows past retention, a batch at a time, then the marks
// as old (a record that old is skipped when consumed).
func (s *stage) prune(ctx context.Context) error {
	total := 0
	defer func() {
		if total > 0 {
			s.log.Info("pruned feed events past retention", "count", total)
		}
	}()
	cutoff := s.now().Add(-s.cfg.Retention)
	for ctx.Err() == nil {
		rows, items, err := Prune(ctx, s.pool, cutoff, pruneBatch)
		if err != nil {
			return err
		}
		total += items
		if rows < pruneBatch {
			break
		}
	}
	for ctx.Err() == nil {
		tag, err := s.pool.Exec(ctx, `
			DELETE FROM feed_marks WHERE ctid = ANY (ARRAY(
				SELECT ctid FROM feed_marks WHERE updated_at < $1 LIMIT $2))`, cutoff, pruneBatch)
		if err != nil {
			return fmt.Errorf("feed: prune marks: %w", err)
		}
		if tag.RowsAffected() < pruneBatch {
			break
		}
	}
	return nil
}

// Prune deletes at most limit feed batches created before cutoff and
// returns how many rows and items it deleted. The per-account counters
// stay, so sequence numbers (and the cursors holding them) are never
// reused.
func Prune(ctx context.Context, pool *pgxpool.Pool, cutoff time.Time, limit int) (rows, items int, err error) {
	err = pool.QueryRow(ctx, `
		WITH d AS (
			DELETE FROM feed_batches WHERE ctid = ANY (ARRAY(
				SELECT ctid FROM feed_batches WHERE created_at < $1 LIMIT $2))
			RETURNING cardinality(event_ids) AS n)
		SELECT count(*), coalesce(sum(n), 0) FROM d`, cutoff, limit).Scan(&rows, &items)
	if err != nil {
		return 0, 0, fmt.Errorf("feed: prune: %w", err)
	}
	return rows, items, nil
}
