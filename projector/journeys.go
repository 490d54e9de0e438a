package projector

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/journeys"
)

// journeyProjection maintains one generation of the journey read model from
// the events and subscriptions topics (both keyed by tracking id, so one
// member owns all of a tracking's records).
//
// Its state per tracking (journey.State: the latest version of each event,
// the ETA history, the lookup key and status) lives in
// journey_state_rows_g<N> (a header and one row per event, written as they
// change) and, for the trackings of the partitions this member owns that
// changed most recently, in memory, within Config.JourneyStateBytes. A record updates a journey without reading the events table: the state is
// read from ClickHouse only on a cache miss (after a restart or a
// rebalance), a point read by tracking id. Keeping it beside the read model
// rather than re-reading the journey rows matters because the rows lack
// what derivation needs (every ETA revision, events of containers not
// shown, the order versions arrived in).
type journeyProjection struct {
	cfg    Config
	deps   Deps
	gen    uint32
	log    *slog.Logger
	states map[string]*journey.State
	// chunks are the source chunks last written of the trackings in states
	// (forgotten with them).
	chunks map[string]writtenChunks
	// drop is set by a rebalance: the next batch starts from ClickHouse.
	drop atomic.Bool
	// seen is the highest offset handled per topic and partition, idle the
	// polls in a row that found nothing, assigned whether the group gave the
	// member its partitions, and progress when it last got partitions or
	// handled a batch (rebuild).
	seen     map[string]map[int32]int64
	idle     int
	assigned atomic.Bool
	progress atomic.Int64 // unix nanoseconds
	// wrote, if set, counts the bytes of the String values inserted per
	// table (the benchmark's bytes per change).
	wrote map[string]int64
	// sizes is the estimated bytes of each state in memory, bytes their
	// sum; used is the batch that last touched each, batch the current one.
	sizes map[string]int64
	used  map[string]uint64
	bytes int64
	batch uint64
	// raise: alerts are published (the live projection); a rebuild records
	// them in the states only, so the live one does not raise them again.
	raise bool
}

// rebuildSettle is how long a rebuild that reads nothing more waits
// before it takes a partition whose end it cannot reach as done.
const rebuildSettle = 2 * time.Second

func newJourneyProjection(cfg Config, deps Deps, gen uint32) *journeyProjection {
	return &journeyProjection{cfg: cfg, deps: deps, gen: gen, states: map[string]*journey.State{},
		chunks: map[string]writtenChunks{}, seen: map[string]map[int32]int64{},
		sizes: map[string]int64{}, used: map[string]uint64{},
		log: deps.Log.With("stage", "projector", "table", journeys.JourneysTable(gen))}
}

// run projects (the runtime's batch mode) until ctx ends or stop returns
// true after a poll; an error once a batch failed every retry.
func (p *journeyProjection) run(ctx context.Context, stop func() bool) error {
	if err := EnsureJourneyTables(ctx, p.deps.CH, p.gen); err != nil {
		return err
	}
	retrying := false
	return p.deps.router().ConsumeBatches(ctx, JourneysRoute, kafka.BatchConfig{
		// ClickHouse down is waited out (readiness is red meanwhile: its check fails).
		Transient: clickhouse.Unreachable,
		// The generation's group: a rebuild reads from the start.
		Group:    fmt.Sprintf("%s-g%d", JourneysRoute.Group, p.gen),
		Log:      p.log,
		MaxBatch: p.cfg.MaxBatch, MaxWait: p.cfg.JourneyMaxWait, Retry: p.cfg.Retry,
		// A changed journey's row and last chunk are rewritten whole, so a
		// batch costs more what its trackings hold than what it brings.
		Paced:      true,
		OnRevoked:  func() { p.drop.Store(true) },
		OnAssigned: func() { p.assigned.Store(true); p.progress.Store(time.Now().UnixNano()) },
		Stop: func(idle int) bool {
			p.idle = idle
			return stop != nil && stop()
		},
		Opts: []kgo.Opt{kgo.FetchIsolationLevel(kgo.ReadCommitted())},
	}, func(ctx context.Context, b *kafka.Batch) error {
		if retrying {
			// A failed batch is retried from the states in ClickHouse: the
			// ones in memory may hold its half-applied records.
			p.forget()
		}
		if err := p.handle(ctx, b); err != nil {
			retrying = true
			return err
		}
		retrying = false
		p.progress.Store(time.Now().UnixNano())
		for _, r := range b.Records {
			if p.seen[r.Topic] == nil {
				p.seen[r.Topic] = map[int32]int64{}
			}
			p.seen[r.Topic][r.Partition] = r.Offset
		}
		return nil
	})
}

// handle applies a batch: states in, changed journeys and states out (the
// journeys first, so a crash in between re-derives the same rows), then one
// JourneyChanged per changed tracking.
func (p *journeyProjection) handle(ctx context.Context, b *kafka.Batch) error {
	order, err := p.apply(ctx, b)
	if err != nil || len(order) == 0 {
		return err
	}
	notes, err := p.write(ctx, b, order)
	if err != nil {
		return err
	}
	if len(notes) > 0 {
		// Not retried: the rows are written, and readers' caches also expire
		// (queryapi's MaxAge). Counted as the loop's failure.
		changes := p.deps.Loops.Loop("projector-journey-changes", p.log)
		if err := b.Produce(ctx, notes...); err != nil {
			changes.Report(err)
			p.log.Error("publish journey changes", "err", err)
		} else {
			changes.Succeeded()
		}
	}
	return nil
}

// forget drops the states in memory (and what was written of them): the
// next batch reads those it needs from ClickHouse.
func (p *journeyProjection) forget() {
	clear(p.states)
	clear(p.chunks)
	clear(p.sizes)
	clear(p.used)
	p.bytes = 0
}

// stateBytes estimates what a state holds in memory: its events' JSON,
// about as much again parsed, and the rest per event and per state.
func stateBytes(st *journey.State) int64 {
	if st == nil {
		return 0
	}
	n := int64(512 + 64*len(st.ETAs))
	for _, e := range st.Events {
		n += int64(2*len(e.Event)+len(e.ID)+len(e.Hash)) + 256
	}
	return n
}

// account re-estimates the states a batch touched and, beyond
// Config.JourneyStateBytes, drops the least recently used of the others
// (down to three quarters of it, so drops come in rounds, not per batch).
func (p *journeyProjection) account(touched []string) {
	for _, id := range touched {
		n := stateBytes(p.states[id])
		p.bytes += n - p.sizes[id]
		p.sizes[id] = n
		p.used[id] = p.batch
	}
	if p.bytes <= p.cfg.JourneyStateBytes {
		return
	}
	ids := make([]string, 0, len(p.sizes))
	for id := range p.sizes {
		if p.used[id] != p.batch {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b string) int { return cmp.Compare(p.used[a], p.used[b]) })
	for _, id := range ids {
		if p.bytes <= p.cfg.JourneyStateBytes*3/4 {
			break
		}
		p.bytes -= p.sizes[id]
		delete(p.states, id)
		delete(p.chunks, id)
		delete(p.sizes, id)
		delete(p.used, id)
	}
}

// apply applies a batch's records to the states (loading the missing ones)
// and returns the trackings it changed, in order of first change.
func (p *journeyProjection) apply(ctx context.Context, b *kafka.Batch) ([]string, error) {
	recs := b.Records
	if p.drop.Swap(false) {
		p.forget()
	}
	p.batch++
	var missing, touched []string
	for _, r := range recs {
		id := string(r.Key)
		if id == "" || p.used[id] == p.batch {
			continue
		}
		p.used[id] = p.batch
		touched = append(touched, id)
		if _, ok := p.states[id]; !ok {
			p.states[id] = nil
			missing = append(missing, id)
		}
	}
	defer func() { p.account(touched) }()
	if err := p.load(ctx, missing); err != nil {
		return nil, err
	}
	changed := map[string]bool{}
	var order []string
	for _, r := range recs {
		id := string(r.Key)
		if id == "" {
			continue
		}
		st := p.states[id]
		if st == nil {
			st = &journey.State{}
			p.states[id] = st
		}
		var did bool
		switch p.deps.Namespace.Logical(r.Topic) {
		case schemas.TopicEvents:
			if isHistory(r) || kafka.Header(r, schemas.HeaderType) == schemas.TypeEventTNT3 {
				// A 3.0-only event (SHIPMENT, IOT, REEFER) is no part of a
				// journey: its retraction then finds nothing to withdraw.
				continue
			}
			var rec schemas.EventRecord
			if err := schemas.DecodeEventRecord(r.Value, &rec); err != nil || rec.EventID == "" || rec.TrackingID != id {
				b.DeadLetter(r, errors.New("malformed event record"))
				continue
			}
			if st.AccountID != "" && st.AccountID != rec.AccountID {
				b.DeadLetter(r, errors.New("event record of another account than its tracking's"))
				continue
			}
			did = st.ApplyEvent(rec)
		case schemas.TopicSubscriptions:
			var c schemas.SubscriptionChanged
			if err := json.Unmarshal(r.Value, &c); err != nil || c.TrackingID != id {
				b.DeadLetter(r, errors.New("malformed subscription record"))
				continue
			}
			if st.AccountID != "" && st.AccountID != c.AccountID {
				b.DeadLetter(r, errors.New("subscription record of another account than its tracking's"))
				continue
			}
			did = st.ApplySubscription(c)
		}
		if did {
			st.Version++
			if !changed[id] {
				changed[id] = true
				order = append(order, id)
			}
		}
	}
	return order, nil
}

// write inserts the changed trackings' journeys and readiness, publishes
// the alerts they raise, then inserts their states (which record the alerts
// raised: a batch that fails before them derives the same alerts again,
// and delivery and the feed's readers drop the repeats by id), and returns
// their JourneyChanged notes.
func (p *journeyProjection) write(ctx context.Context, b *kafka.Batch, order []string) ([]*kgo.Record, error) {
	now := time.Now().UTC().Truncate(time.Second)
	var rows, chunkRows, stateRows, readyRows [][]any
	var notes, alerts []*kgo.Record
	written := make(map[string]writtenChunks, len(order))
	for _, id := range order {
		st := p.states[id]
		prev, next := p.chunks[id], writtenChunks{}
		results := journey.Derive(st)
		raised, err := p.alertRecords(st, st.NewAlerts(results))
		if err != nil {
			return nil, err
		}
		if p.raise {
			alerts = append(alerts, raised...)
		}
		for i, res := range results {
			facts := ""
			if !res.Facts.Empty() {
				f, _ := json.Marshal(res.Facts)
				facts = string(f)
				readyRows = append(readyRows, readinessRow(st, res, facts, now))
			}
			key := chunkKey(st, res.EquipmentNumber)
			versions, changed, marks := splitSource(res.SourceEvents, prev[key], st.Version)
			next[key] = marks
			for _, c := range changed {
				chunkRows = append(chunkRows, []any{st.AccountID, st.Kind, st.Identifier, st.TrackingID, res.EquipmentNumber,
					uint32(c.index), string(c.events), st.Version})
			}
			src := "" // in its chunks
			if len(versions) == 0 {
				src = "[]"
			}
			ves := journey.AppendArray(nil, res.VesselEvents)
			enh, _ := json.Marshal(res.EnhancedEvents)
			rows = append(rows, []any{st.AccountID, st.Env, st.Kind, st.Identifier, st.TrackingID, st.Since.Truncate(time.Second),
				uint16(min(i, 65535)), res.EquipmentNumber, res.ScacCode, res.TrackingStatus, res.POL, res.POD, res.LastLocation,
				src, versions, string(ves), string(enh), facts, now, st.Version})
		}
		written[id] = next
		// The state: its header and the events changed since it was last written.
		h, err := st.MarshalHeader()
		if err != nil {
			return nil, fmt.Errorf("projector journeys: encode state of %s: %w", st.TrackingID, err)
		}
		stateRows = append(stateRows, []any{st.TrackingID, uint32(0), "", "", string(h), st.Version})
		for _, i := range st.UnsavedEvents() {
			e := st.Events[i]
			stateRows = append(stateRows, []any{st.TrackingID, uint32(i + 1), e.ID, e.Hash, string(e.Event), st.Version})
		}
		if st.Kind != "" {
			v, _ := json.Marshal(schemas.JourneyChanged{AccountID: st.AccountID, TrackingID: st.TrackingID,
				IdentifierKind: st.Kind, Identifier: st.Identifier, Generation: p.gen, Version: st.Version})
			notes = append(notes, &kgo.Record{Topic: p.deps.Namespace.Topic(schemas.TopicJourneys), Key: []byte(st.TrackingID), Value: v,
				Headers: schemas.Headers{Type: schemas.TypeJourneyChanged, Account: st.AccountID}.Kafka()})
		}
	}
	// The chunks before the rows that name them; both in blocks of
	// journeyBlockBytes: each is whole, and a retried batch writes them all
	// again.
	if err := p.insert(ctx, journeys.ChunksTable(p.gen), chunkColumns, journeyBlockBytes, chunkRows); err != nil {
		return nil, err
	}
	if err := p.insert(ctx, journeys.JourneysTable(p.gen), journeyColumns, journeyBlockBytes, rows); err != nil {
		return nil, err
	}
	if err := p.insert(ctx, ReadinessTable, readinessColumns, journeyBlockBytes, readyRows); err != nil {
		return nil, err
	}
	if len(alerts) > 0 {
		if err := b.Produce(ctx, alerts...); err != nil {
			return nil, fmt.Errorf("projector journeys: publish %d alerts: %w", len(alerts), err)
		}
	}
	// One insert, one block: the headers and events of a batch are stored
	// together or not at all.
	if err := p.insert(ctx, StateRowsTable(p.gen), stateRowColumns, 0, stateRows); err != nil {
		return nil, err
	}
	for _, id := range order {
		p.states[id].MarkSaved()
		p.chunks[id] = written[id]
	}
	return notes, nil
}

// alertRecords are alerts as records of the alerts topic.
func (p *journeyProjection) alertRecords(st *journey.State, alerts []schemas.Alert) ([]*kgo.Record, error) {
	out := make([]*kgo.Record, 0, len(alerts))
	base := schemas.EventRecord{TrackingID: st.TrackingID, AccountID: st.AccountID, Env: st.Env, SCAC: st.SCAC, EmittedAt: time.Now().UTC()}
	for _, a := range alerts {
		rec, err := schemas.AlertRecord(a, base)
		if err != nil {
			return nil, fmt.Errorf("projector journeys: encode alert: %w", err)
		}
		v, err := json.Marshal(rec)
		if err != nil {
			return nil, fmt.Errorf("projector journeys: encode alert: %w", err)
		}
		out = append(out, &kgo.Record{Topic: p.deps.Namespace.Topic(schemas.TopicAlerts), Key: []byte(st.TrackingID), Value: v,
			Headers: schemas.Headers{Type: schemas.TypeAlert, ID: rec.EventID + "/" + rec.ContentHash, Account: st.AccountID, Env: st.Env}.Kafka()})
	}
	return out, nil
}

// readinessRow is a container's readiness row (ClickHouse readiness).
func readinessRow(st *journey.State, res journeys.Result, facts string, now time.Time) []any {
	f := res.Facts
	at := func(s string) time.Time {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return time.Unix(0, 0).UTC()
		}
		return t.UTC().Truncate(time.Second)
	}
	open := 0
	for _, h := range f.Holds {
		if h.ReleasedDateTime == "" {
			open++
		}
	}
	return []any{st.AccountID, st.Env, st.TrackingID, res.EquipmentNumber, res.ScacCode, f.UNLocationCode,
		at(f.DischargedDateTime), at(f.AvailableDateTime), at(f.PickedUpDateTime), at(f.EmptyReturnedDateTime),
		uint16(min(len(f.Holds), 65535)), uint16(open), facts, now, st.Version}
}

// journeyBlockBytes bounds a block of journey rows (clickhouse.InsertInBlocks).
const journeyBlockBytes = clickhouse.BlockBytes

// insert writes rows, in one block when blockBytes is 0, else in blocks of
// about blockBytes; a failure fails the batch, which the runtime retries.
func (p *journeyProjection) insert(ctx context.Context, table string, cols []string, blockBytes int, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if p.wrote != nil {
		for _, r := range rows {
			for _, v := range r {
				if s, ok := v.(string); ok {
					p.wrote[table] += int64(len(s))
				}
			}
		}
	}
	return clickhouse.InsertInBlocks(ctx, p.deps.CH, table, cols, blockBytes, rows...)
}

// load reads the states of trackings not in memory: the header and event
// rows of each, or else the whole state written before events were stored
// apart (legacy).
func (p *journeyProjection) load(ctx context.Context, ids []string) error {
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 1000)]
		ids = ids[len(chunk):]
		// An IN list of literals: the primary key prunes it on every version.
		quoted := make([]string, len(chunk))
		for i, id := range chunk {
			quoted[i] = "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(id) + "'"
		}
		in := strings.Join(quoted, ",")
		if err := p.loadRows(ctx, in); err != nil {
			return err
		}
		var legacy []string
		for i, id := range chunk {
			if p.states[id] == nil {
				legacy = append(legacy, quoted[i])
			}
		}
		if len(legacy) > 0 {
			if err := p.loadLegacy(ctx, strings.Join(legacy, ",")); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadRows reads states from journey_state_rows_g<N>. The header's version
// decides: an event row of a higher version is from a batch whose insert
// did not complete (not expected: a batch's rows are one insert) and is
// left out, so the state is the one the header was written with.
func (p *journeyProjection) loadRows(ctx context.Context, in string) error {
	rows, err := p.deps.CH.Query(ctx, `SELECT tracking_id, seq, event_id, hash, row_json, version FROM `+StateRowsTable(p.gen)+`
		WHERE tracking_id IN (`+in+`) ORDER BY tracking_id, seq, version DESC`)
	if err != nil {
		return fmt.Errorf("projector journeys: load states: %w", err)
	}
	defer rows.Close()
	var (
		cur     string
		st      *journey.State // cur's state; nil until its header is read
		lastSeq uint32         // cur's last event read
	)
	// Rows come by tracking, then seq (the header, 0, first), newest version first.
	for rows.Next() {
		var id, eventID, hash, js string
		var seq uint32
		var version uint64
		if err := rows.Scan(&id, &seq, &eventID, &hash, &js, &version); err != nil {
			return fmt.Errorf("projector journeys: load states: %w", err)
		}
		if id != cur {
			cur, st, lastSeq = id, nil, 0
			if seq == 0 {
				st = &journey.State{}
				if err := json.Unmarshal([]byte(js), st); err != nil {
					return fmt.Errorf("projector journeys: decode state of %s: %w", id, err)
				}
				p.states[id] = st
				continue
			}
		}
		switch {
		case st == nil, seq == 0, seq == lastSeq, version > st.Version:
			// events without a header (a first batch that did not complete),
			// an older header, an older version of an event, an event of a
			// batch that did not complete
		case seq != lastSeq+1:
			return fmt.Errorf("projector journeys: state of %s at version %d lacks event %d", id, st.Version, lastSeq+1)
		default:
			st.Events = append(st.Events, journey.Stored{ID: eventID, Hash: hash, Event: json.RawMessage(js)})
			lastSeq = seq
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("projector journeys: load states: %w", err)
	}
	return nil
}

// loadLegacy reads whole states (events included) from journey_state_g<N>,
// as written before events were stored apart; their events are written
// as rows with the tracking's next change.
func (p *journeyProjection) loadLegacy(ctx context.Context, in string) error {
	rows, err := p.deps.CH.Query(ctx, `SELECT tracking_id, state_json FROM `+StateTable(p.gen)+`
		WHERE tracking_id IN (`+in+`) ORDER BY version DESC LIMIT 1 BY tracking_id`)
	if err != nil {
		return fmt.Errorf("projector journeys: load states: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, js string
		if err := rows.Scan(&id, &js); err != nil {
			return fmt.Errorf("projector journeys: load states: %w", err)
		}
		st := &journey.State{}
		if err := json.Unmarshal([]byte(js), st); err != nil {
			return fmt.Errorf("projector journeys: decode state of %s: %w", id, err)
		}
		st.MarkAllUnsaved()
		p.states[id] = st
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("projector journeys: load states: %w", err)
	}
	return nil
}

// runJourneys projects the current generation and moves to a newer one when
// a rebuild publishes it (checked every GenerationCheck).
func runJourneys(ctx context.Context, cfg Config, deps Deps) error {
	// Reading the generation and creating its tables are the loop
	// "projector-journeys-generation"'s rounds: an outage is waited out,
	// counted.
	generations := deps.Loops.Loop("projector-journeys-generation", deps.Log)
	for ctx.Err() == nil {
		gen, err := journeys.CurrentGeneration(ctx, deps.CH)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !loop.Sleep(ctx, generations.Failed(fmt.Errorf("journeys: read generation: %w", err))) {
				return nil
			}
			continue
		}
		generations.Succeeded()
		p := newJourneyProjection(cfg, deps, gen)
		p.raise = true
		next := time.Now().Add(cfg.GenerationCheck)
		err = p.run(ctx, func() bool {
			if time.Now().Before(next) {
				return false
			}
			next = time.Now().Add(cfg.GenerationCheck)
			g, err := journeys.CurrentGeneration(ctx, deps.CH)
			return err == nil && g > gen
		})
		switch {
		case ctx.Err() != nil:
			return nil // asked to stop: whatever failed, failed for that
		case err != nil && clickhouse.Unreachable(err):
			// Creating a generation's tables met an outage: wait it out.
			if !loop.Sleep(ctx, generations.Failed(fmt.Errorf("journeys: ClickHouse unreachable: %w", err))) {
				return nil
			}
			continue
		case err != nil:
			return err
		}
		deps.Log.Info("journeys: moving to a rebuilt generation", "from", gen)
	}
	return nil
}

// RebuildJourneys builds a new generation of the journey read model from
// the topics (every retained event and the compacted subscription changes)
// beside the live one, which readers keep using, and publishes it once it
// has caught up with what the topics held when the rebuild started. The
// running projector and API processes move to it within GenerationCheck;
// the generation before the previous one is dropped. It returns the new
// generation.
func RebuildJourneys(ctx context.Context, cfg Config, deps Deps) (uint32, error) {
	cfg = cfg.WithDefaults()
	cur, err := journeys.CurrentGeneration(ctx, deps.CH)
	if err != nil {
		return 0, err
	}
	gen := cur + 1
	// A rebuild interrupted earlier left this generation half built: start it over.
	for _, t := range generationTables(gen) {
		if err := deps.CH.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return 0, fmt.Errorf("projector: rebuild: %w", err)
		}
	}
	p := newJourneyProjection(cfg, deps, gen)
	admCl, err := deps.router().Client(deps.Log)
	if err != nil {
		return 0, err
	}
	ends, err := kadm.NewClient(admCl).ListEndOffsets(ctx, deps.Namespace.Topics(schemas.TopicEvents, schemas.TopicSubscriptions)...)
	admCl.Close()
	if err != nil {
		return 0, fmt.Errorf("projector: rebuild: end offsets: %w", err)
	}
	started := time.Now()
	// Caught up: every partition handled up to the end it had at the start
	// (its last record or, after a transaction marker, the one before), or
	// nothing new for five polls in a row and rebuildSettle since the
	// partitions came or a batch was handled (a partition ending in an
	// aborted transaction never reaches its end). Never before the group
	// gave the member its partitions: on Apache Kafka joining takes longer
	// than five empty polls, and a rebuild counted them and switched to an
	// empty generation (TestRebuildJourneys under make test-kafka).
	caughtUp := func() bool {
		if !p.assigned.Load() {
			return false
		}
		if p.idle >= 5 && time.Since(time.Unix(0, p.progress.Load())) >= rebuildSettle {
			return true
		}
		done := true
		ends.Each(func(o kadm.ListedOffset) {
			if o.Offset <= 0 {
				return
			}
			seen, ok := p.seen[o.Topic][o.Partition]
			if !ok || seen < o.Offset-2 {
				done = false
			}
		})
		return done
	}
	if err := p.run(ctx, caughtUp); err != nil {
		return 0, err
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if err := setGeneration(ctx, deps.CH, gen); err != nil {
		return 0, err
	}
	if gen > 2 {
		for _, t := range generationTables(gen - 2) {
			if err := deps.CH.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
				return gen, fmt.Errorf("projector: rebuild: drop old generation: %w", err)
			}
		}
	}
	deps.Log.Info("journeys rebuilt", "generation", gen, "took", time.Since(started).Round(time.Millisecond))
	return gen, nil
}
