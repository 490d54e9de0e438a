package projector

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/schemas/journeys"
)

// newStateProjection is generation 1's journey projection on a test
// database, its tables created, no state in memory.
func newStateProjection(t *testing.T, ch testenv.CHDatabase) *journeyProjection {
	t.Helper()
	if err := EnsureJourneyTables(context.Background(), ch.Conn, 1); err != nil {
		t.Fatal(err)
	}
	return newJourneyProjection(Config{}.WithDefaults(), Deps{CH: ch.Conn, Log: testenv.Log(t)}, 1)
}

// loaded is the state of tracking id as a fresh projection loads it (nil: none).
func loaded(t *testing.T, ch testenv.CHDatabase, id string) *journey.State {
	t.Helper()
	p := newStateProjection(t, ch)
	if err := p.load(context.Background(), []string{id}); err != nil {
		t.Fatal(err)
	}
	return p.states[id]
}

func applyBatch(t *testing.T, p *journeyProjection, recs ...*kgo.Record) {
	t.Helper()
	if err := benchBatch(context.Background(), p, recs); err != nil {
		t.Fatal(err)
	}
}

// sameState fails unless got and want hold the same header, the same
// events in the same order and derive the same journeys.
func sameState(t *testing.T, what string, got, want *journey.State) {
	t.Helper()
	if got == nil || want == nil {
		t.Fatalf("%s: state %v, want %v", what, got, want)
	}
	gh, _ := got.MarshalHeader()
	wh, _ := want.MarshalHeader()
	if !bytes.Equal(gh, wh) {
		t.Fatalf("%s: header\n%s\nwant\n%s", what, gh, wh)
	}
	if len(got.Events) != len(want.Events) {
		t.Fatalf("%s: %d events, want %d", what, len(got.Events), len(want.Events))
	}
	for i, e := range want.Events {
		g := got.Events[i]
		if g.ID != e.ID || g.Hash != e.Hash || !bytes.Equal(g.Event, e.Event) {
			t.Fatalf("%s: event %d is %s %s %s, want %s %s %s", what, i, g.ID, g.Hash, g.Event, e.ID, e.Hash, e.Event)
		}
	}
	gd, _ := json.Marshal(journey.Derive(got))
	wd, _ := json.Marshal(journey.Derive(want))
	if !bytes.Equal(gd, wd) {
		t.Fatalf("%s: journeys\n%s\nwant\n%s", what, gd, wd)
	}
}

func countRows(t *testing.T, ch testenv.CHDatabase, where string, args ...any) uint64 {
	t.Helper()
	var n uint64
	if err := ch.Conn.QueryRow(context.Background(), `SELECT count() FROM `+StateRowsTable(1)+` WHERE `+where, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// journeyLists are the event lists of tracking id's latest journey rows,
// by container: the source events (source_events, or the chunks the row
// names at their versions, joined) and the vessel events.
func journeyLists(t *testing.T, ch testenv.CHDatabase, id string) map[string][2]string {
	t.Helper()
	ctx := context.Background()
	rows, err := ch.Conn.Query(ctx, `SELECT equipment_number, source_events, source_chunks, vessel_events FROM `+journeys.JourneysTable(1)+`
		WHERE tracking_id = ? ORDER BY version DESC LIMIT 1 BY equipment_number`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][2]string{}
	for rows.Next() {
		var eq, src, ves string
		var chunks []uint64
		if err := rows.Scan(&eq, &src, &chunks, &ves); err != nil {
			t.Fatal(err)
		}
		if len(chunks) > 0 {
			if src != "" {
				t.Fatalf("%s: source_events %q beside chunks", eq, src)
			}
			parts := make([]string, len(chunks))
			for i, v := range chunks {
				var js string
				if err := ch.Conn.QueryRow(ctx, `SELECT events FROM `+journeys.ChunksTable(1)+`
					WHERE tracking_id = ? AND equipment_number = ? AND chunk = ? AND version = ? LIMIT 1`,
					id, eq, uint32(i), v).Scan(&js); err != nil {
					t.Fatalf("%s: chunk %d at version %d: %v", eq, i, v, err)
				}
				parts[i] = strings.TrimSuffix(strings.TrimPrefix(js, "["), "]")
			}
			src = "[" + strings.Join(parts, ",") + "]"
		}
		out[eq] = [2]string{src, ves}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameJourneys fails unless the journey rows of st's tracking hold the
// event lists Derive gives, as json.Marshal encodes them.
func sameJourneys(t *testing.T, ch testenv.CHDatabase, st *journey.State) {
	t.Helper()
	got := journeyLists(t, ch, st.TrackingID)
	results := journey.Derive(st)
	for _, r := range results {
		src, _ := json.Marshal(r.SourceEvents)
		ves, _ := json.Marshal(r.VesselEvents)
		if g := got[r.EquipmentNumber]; g[0] != string(src) || g[1] != string(ves) {
			t.Fatalf("%s: journey row\n%s\n%s\nwant\n%s\n%s", r.EquipmentNumber, g[0], g[1], src, ves)
		}
	}
	if len(got) != len(results) {
		t.Fatalf("%d journey rows, want %d", len(got), len(results))
	}
}

func countChunks(t *testing.T, ch testenv.CHDatabase, where string, args ...any) uint64 {
	t.Helper()
	var n uint64
	if err := ch.Conn.QueryRow(context.Background(), `SELECT count() FROM `+journeys.ChunksTable(1)+` WHERE `+where, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// chunksOf is the number of chunks of st's journeys' source events.
func chunksOf(st *journey.State) uint64 {
	var n uint64
	for _, r := range journey.Derive(st) {
		n += uint64((len(r.SourceEvents) + SourceChunkEvents - 1) / SourceChunkEvents)
	}
	return n
}

// A change rewrites the chunks of source events it changed, not the whole
// list: an event at the end its last chunk, a new version of an early
// event its chunk; a projection started afresh (nothing known of what was
// written) writes every chunk once, and reads stay whole throughout.
func TestJourneyChunksAreWrittenByChange(t *testing.T) {
	ch := testenv.ClickHouse(t)
	p := newStateProjection(t, ch)
	id := benchTracking(0)
	seed := []*kgo.Record{benchSubscription(0)}
	// 240 events: 48 vessel events and 64 of each of three containers,
	// whole chunks.
	for e := range 240 {
		seed = append(seed, benchEvent(0, e, 0))
	}
	applyBatch(t, p, seed...)
	v := p.states[id].Version
	if n := countChunks(t, ch, "tracking_id = ?", id); n != 3*64/SourceChunkEvents || n != chunksOf(p.states[id]) {
		t.Fatalf("%d chunks after the first batch, want %d per container", n, 64/SourceChunkEvents)
	}
	sameJourneys(t, ch, p.states[id])

	// A new event at the end of container 1's journey (events are an hour
	// apart, in order): a chunk of its own, nothing else.
	applyBatch(t, p, benchEvent(0, 241, 0))
	v++
	if n := countChunks(t, ch, "version = ?", v); n != 1 {
		t.Fatalf("%d chunks written for an event at the end, want 1", n)
	}
	if n := countChunks(t, ch, "version = ? AND equipment_number = 'MSKU9070321' AND chunk = ?", v, uint32(64/SourceChunkEvents)); n != 1 {
		t.Fatal("the new event's chunk was not the one written")
	}
	sameJourneys(t, ch, p.states[id])

	// A new version of an early event: its own chunk only.
	applyBatch(t, p, benchEvent(0, 1, 1))
	v++
	if n := countChunks(t, ch, "version = ? AND chunk = 0", v); n != 1 || countChunks(t, ch, "version = ?", v) != 1 {
		t.Fatalf("an early event's change wrote %d chunks, want its first only", countChunks(t, ch, "version = ?", v))
	}
	sameJourneys(t, ch, p.states[id])

	// Afresh: the state loads from ClickHouse, and the next change writes
	// every chunk of every container, the reads unchanged.
	p = newStateProjection(t, ch)
	applyBatch(t, p, benchEvent(0, 2, 1))
	v++
	if n, want := countChunks(t, ch, "version = ?", v), chunksOf(p.states[id]); n != want || want != 3*64/SourceChunkEvents+1 {
		t.Fatalf("%d chunks written after a restart, want all %d", n, want)
	}
	sameJourneys(t, ch, p.states[id])
}

// A batch writes a tracking's header and the events it changed, not the
// whole state; a projection that starts afresh loads the same state.
func TestJourneyStateIsWrittenByChange(t *testing.T) {
	ch := testenv.ClickHouse(t)
	p := newStateProjection(t, ch)
	id := benchTracking(0)
	seed := []*kgo.Record{benchSubscription(0)}
	for e := range 30 {
		seed = append(seed, benchEvent(0, e, 0))
	}
	applyBatch(t, p, seed...)
	if n := countRows(t, ch, "tracking_id = ?", id); n != 31 {
		t.Fatalf("%d rows after the first batch, want a header and 30 events", n)
	}
	sameState(t, "after the first batch", loaded(t, ch, id), p.states[id])

	// Two events change (one twice, one an estimated arrival: an ETA
	// version), one is new, one repeats.
	applyBatch(t, p, benchEvent(0, 3, 1), benchEvent(0, 20, 1), benchEvent(0, 3, 2), benchEvent(0, 30, 0), benchEvent(0, 7, 0))
	st := p.states[id]
	if st.Version != 35 || len(st.ETAs) != 5 {
		t.Fatalf("version %d, %d ETAs", st.Version, len(st.ETAs))
	}
	if n := countRows(t, ch, "tracking_id = ? AND version = 35", id); n != 4 {
		t.Fatalf("%d rows written by the second batch, want a header and 3 events", n)
	}
	if n := countRows(t, ch, "tracking_id = ? AND version = 35 AND seq IN (4, 21, 31)", id); n != 3 {
		t.Fatalf("%d of the changed events' rows (4, 21, 31) written", n)
	}
	sameState(t, "after the second batch", loaded(t, ch, id), st)

	// The journey rows hold the event lists as json.Marshal encodes them.
	sameJourneys(t, ch, st)

	// Merged or not, the same state loads. (OPTIMIZE does nothing while a
	// background merge holds the parts: ask again.)
	testkit.Eventually(t, 20*time.Second, "the state rows merged to a header and 31 events", func() bool {
		if err := ch.Conn.Exec(context.Background(), "OPTIMIZE TABLE "+StateRowsTable(1)+" FINAL"); err != nil {
			t.Fatal(err)
		}
		return countRows(t, ch, "tracking_id = ?", id) == 32
	})
	sameState(t, "merged", loaded(t, ch, id), st)
	if len(loaded(t, ch, id).UnsavedEvents()) != 0 {
		t.Fatal("a loaded state has unsaved events")
	}
}

// A generation projected before events were stored apart holds whole
// states in journey_state_g<N>: they load, and the next change of such a
// tracking writes all its events as rows, after which those are read.
func TestJourneyStateLegacyWholeState(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	p := newStateProjection(t, ch)
	id := benchTracking(1)
	if _, err := p.apply(ctx, batchOf(trackingRecords(1, 12))); err != nil {
		t.Fatal(err)
	}
	old := p.states[id]
	whole, _ := json.Marshal(old) // as the projector wrote a state before
	if !strings.Contains(string(whole), `"events":[`) {
		t.Fatalf("whole state without events: %s", whole)
	}
	if err := clickhouse.Insert(ctx, ch.Conn, StateTable(1), []string{"account_id", "tracking_id", "state_json", "updated_at", "version"},
		[]any{old.AccountID, id, string(whole), time.Now().UTC().Truncate(time.Second), old.Version}); err != nil {
		t.Fatal(err)
	}
	p = newStateProjection(t, ch)
	applyBatch(t, p, benchEvent(1, 12, 0))
	st := p.states[id]
	if len(st.Events) != 13 || st.Version != old.Version+1 {
		t.Fatalf("%d events at version %d after the legacy state and one event", len(st.Events), st.Version)
	}
	if n := countRows(t, ch, "tracking_id = ?", id); n != 14 {
		t.Fatalf("%d rows after the first change of a legacy state, want a header and 13 events", n)
	}
	sameState(t, "after the first change of a legacy state", loaded(t, ch, id), st)
}

// A batch's state rows are one insert, but should one be cut short (event
// rows without their header), the header's version decides: the loaded
// state is the one the header was written with, and applying the batch
// again writes the same rows.
func TestJourneyStateIncompleteBatch(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	p := newStateProjection(t, ch)
	id := benchTracking(2)
	applyBatch(t, p, trackingRecords(2, 10)...)
	before := loaded(t, ch, id)

	// What the failed batch would have written: its events without the header.
	retry := []*kgo.Record{benchEvent(2, 3, 1), benchEvent(2, 10, 0), benchEvent(2, 11, 0)}
	failed := newStateProjection(t, ch)
	if _, err := failed.apply(ctx, batchOf(retry)); err != nil {
		t.Fatal(err)
	}
	fs := failed.states[id]
	fs.NewAlerts(journey.Derive(fs)) // as write records them
	var rows [][]any
	for _, i := range fs.UnsavedEvents() {
		e := fs.Events[i]
		rows = append(rows, []any{id, uint32(i + 1), e.ID, e.Hash, string(e.Event), fs.Version})
	}
	// And a first batch of another tracking that wrote no header.
	rows = append(rows, []any{benchTracking(3), uint32(1), "x", "h", "{}", uint64(1)})
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	if err := clickhouse.Insert(ctx, ch.Conn, StateRowsTable(1), stateRowColumns, rows...); err != nil {
		t.Fatal(err)
	}
	sameState(t, "with a batch's event rows but not its header", loaded(t, ch, id), before)
	if st := loaded(t, ch, benchTracking(3)); st != nil {
		t.Fatalf("a tracking with event rows and no header loaded: %+v", st)
	}

	p = newStateProjection(t, ch)
	applyBatch(t, p, retry...)
	sameState(t, "the batch applied again", p.states[id], fs)
	sameState(t, "the batch applied again, loaded", loaded(t, ch, id), fs)
	testkit.Eventually(t, 20*time.Second, "the state rows merged to a header and 12 events", func() bool {
		if err := ch.Conn.Exec(ctx, "OPTIMIZE TABLE "+StateRowsTable(1)+" FINAL"); err != nil {
			t.Fatal(err)
		}
		return countRows(t, ch, "tracking_id = ?", id) == 13
	})
	sameState(t, "the batch applied again, merged", loaded(t, ch, id), fs)
}

// A header whose events have a hole fails the load (and so the batch)
// rather than projecting a journey without an event.
func TestJourneyStateHoleFailsTheLoad(t *testing.T) {
	ch := testenv.ClickHouse(t)
	p := newStateProjection(t, ch)
	h, _ := (&journey.State{TrackingID: "trk", AccountID: "a", Version: 5}).MarshalHeader()
	if err := clickhouse.Insert(context.Background(), ch.Conn, StateRowsTable(1), stateRowColumns,
		[]any{"trk", uint32(0), "", "", string(h), uint64(5)},
		[]any{"trk", uint32(1), "e1", "h", "{}", uint64(2)},
		[]any{"trk", uint32(3), "e3", "h", "{}", uint64(5)}); err != nil {
		t.Fatal(err)
	}
	if err := p.load(context.Background(), []string{"trk"}); err == nil || !strings.Contains(err.Error(), "lacks event 2") {
		t.Fatalf("load: %v", err)
	}
}

// trackingRecords are tracking n's subscription and its first events.
func trackingRecords(n, events int) []*kgo.Record {
	recs := []*kgo.Record{benchSubscription(n)}
	for e := range events {
		recs = append(recs, benchEvent(n, e, 0))
	}
	return recs
}

// The states in memory stay within Config.JourneyStateBytes: the least
// recently changed are dropped and, when their tracking changes again,
// read back from ClickHouse, with the same journeys as if they had stayed.
func TestJourneyStatesStayWithinTheirBound(t *testing.T) {
	ch := testenv.ClickHouse(t)
	if err := EnsureJourneyTables(context.Background(), ch.Conn, 1); err != nil {
		t.Fatal(err)
	}
	cfg := Config{JourneyStateBytes: 100 << 10}.WithDefaults()
	p := newJourneyProjection(cfg, Deps{CH: ch.Conn, Log: testenv.Log(t)}, 1)
	// 40 trackings of 10 events each, one batch per tracking: several
	// times the bound in all.
	for tr := range 40 {
		batch := []*kgo.Record{benchSubscription(tr)}
		for e := range 10 {
			batch = append(batch, benchEvent(tr, e, 0))
		}
		applyBatch(t, p, batch...)
		if limit := cfg.JourneyStateBytes + p.sizes[benchTracking(tr)]; p.bytes > limit {
			t.Fatalf("after tracking %d: %d bytes of states, over the bound %d", tr, p.bytes, cfg.JourneyStateBytes)
		}
	}
	var sum int64
	for id, st := range p.states {
		sum += stateBytes(st)
		if p.sizes[id] != stateBytes(st) {
			t.Fatalf("%s: accounted %d bytes, holds %d", id, p.sizes[id], stateBytes(st))
		}
	}
	t.Logf("%d of 40 states in memory, %d bytes (bound %d; one state about %d)", len(p.states), sum, cfg.JourneyStateBytes, p.sizes[benchTracking(39)])
	if sum != p.bytes || len(p.states) >= 40 || len(p.states) == 0 {
		t.Fatalf("%d states, %d bytes accounted, %d held", len(p.states), p.bytes, sum)
	}
	if _, ok := p.states[benchTracking(0)]; ok {
		t.Fatal("the least recently changed state is still in memory")
	}
	// Tracking 0 changes again: its state is read back and its journeys
	// are what a projection that never dropped it derives.
	applyBatch(t, p, benchEvent(0, 3, 1), benchEvent(0, 10, 0))
	kept := newStateProjection(t, testenv.ClickHouse(t))
	seed := []*kgo.Record{benchSubscription(0)}
	for e := range 10 {
		seed = append(seed, benchEvent(0, e, 0))
	}
	applyBatch(t, kept, seed...)
	applyBatch(t, kept, benchEvent(0, 3, 1), benchEvent(0, 10, 0))
	sameState(t, "reloaded after a drop", p.states[benchTracking(0)], kept.states[benchTracking(0)])
	sameJourneys(t, ch, p.states[benchTracking(0)])
}
