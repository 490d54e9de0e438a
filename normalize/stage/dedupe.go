package stage

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/postgres"
)

// seenStore remembers the content hash last emitted per (tracking, event):
// Postgres is the store (so the state survives restarts), an LRU of at most
// capacity entries keeps memory bounded.
type seenStore struct {
	pool  *pgxpool.Pool
	mu    sync.Mutex
	cache *seenCache
	// unsaved are hashes committed to Kafka and not yet written to
	// Postgres, by key; wake tells saveLoop there are some.
	unsaved map[string]seenUpdate
	wake    chan struct{}
}

func newSeenStore(pool *pgxpool.Pool, capacity int) *seenStore {
	return &seenStore{pool: pool, cache: newSeenCache(capacity), wake: make(chan struct{}, 1)}
}

func seenKey(tracking, event string) string { return tracking + "\x00" + event }

// cached returns the hash last emitted for key after preload, "" if none.
func (s *seenStore) cached(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, _ := s.cache.get(key)
	return h
}

// preload loads into the cache the state of every key not cached yet, with
// one query; keys without state are cached as "" (never emitted).
func (s *seenStore) preload(ctx context.Context, keys []seenUpdate) error {
	var trackings, events []string
	s.mu.Lock()
	asked := map[string]bool{}
	for _, k := range keys {
		key := seenKey(k.tracking, k.event)
		if s.cache.has(key) || asked[key] {
			continue
		}
		asked[key] = true
		trackings = append(trackings, k.tracking)
		events = append(events, k.event)
	}
	s.mu.Unlock()
	if len(trackings) == 0 {
		return nil
	}
	// A fenced per-key probe (LATERAL … OFFSET 0): the plan stays index
	// look-ups whatever the statistics say. A join let the planner hash
	// the whole table on every batch while its statistics were young.
	found := map[string]string{}
	b := &pgx.Batch{}
	b.Queue(postgres.GenericPlan)
	b.Queue(`
		SELECT k.tracking_id, k.event_id, n.content_hash
		FROM unnest($1::text[], $2::text[]) AS k(tracking_id, event_id)
		CROSS JOIN LATERAL (SELECT content_hash FROM normalize_seen n
		                    WHERE n.tracking_id = k.tracking_id AND n.event_id = k.event_id OFFSET 0) n`, trackings, events).
		Query(func(rows pgx.Rows) error {
			var t, e, h string
			_, err := pgx.ForEachRow(rows, []any{&t, &e, &h}, func() error {
				found[seenKey(t, e)] = h
				return nil
			})
			return err
		})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("read dedupe state: %w", err)
	}
	for key := range asked {
		s.remember(key, found[key])
	}
	return nil
}

func (s *seenStore) remember(k, h string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache.put(k, h)
}

// seenCache is a least-recently-used map of content hashes by key. Its
// entries live in one slice, linked by position, each holding its key and
// hash in one string: a full cache (200,000 entries by default) is one
// object per entry for the garbage collector to visit on every cycle,
// where a container/list LRU is four.
type seenCache struct {
	capacity   int
	slots      []seenSlot
	index      map[string]int32 // keys are substrings of their slot's keyHash
	head, tail int32            // the most and the least recent slot; -1 when empty
}

type seenSlot struct {
	keyHash    string // the key, then the hash
	keyLen     int32
	prev, next int32 // towards head and tail; -1 at the ends
}

func newSeenCache(capacity int) *seenCache {
	return &seenCache{capacity: max(capacity, 1), index: map[string]int32{}, head: -1, tail: -1}
}

func (c *seenCache) has(key string) bool {
	_, ok := c.index[key]
	return ok
}

// get returns key's hash and makes it the most recent.
func (c *seenCache) get(key string) (string, bool) {
	i, ok := c.index[key]
	if !ok {
		return "", false
	}
	c.toFront(i)
	sl := &c.slots[i]
	return sl.keyHash[sl.keyLen:], true
}

// put sets key's hash and makes it the most recent; a new key beyond
// capacity takes the least recent one's slot.
func (c *seenCache) put(key, hash string) {
	if i, ok := c.index[key]; ok {
		sl := &c.slots[i]
		if sl.keyHash[sl.keyLen:] != hash {
			delete(c.index, key)
			sl.keyHash = key + hash
			c.index[sl.keyHash[:sl.keyLen]] = i
		}
		c.toFront(i)
		return
	}
	var i int32
	if len(c.slots) < c.capacity {
		i = int32(len(c.slots))
		c.slots = append(c.slots, seenSlot{prev: -1, next: -1})
	} else {
		i = c.tail
		c.unlink(i)
		old := &c.slots[i]
		delete(c.index, old.keyHash[:old.keyLen])
	}
	c.slots[i] = seenSlot{keyHash: key + hash, keyLen: int32(len(key)), prev: -1, next: -1}
	c.index[c.slots[i].keyHash[:len(key)]] = i
	c.pushFront(i)
}

func (c *seenCache) toFront(i int32) {
	if c.head == i {
		return
	}
	c.unlink(i)
	c.pushFront(i)
}

func (c *seenCache) unlink(i int32) {
	sl := &c.slots[i]
	if sl.prev >= 0 {
		c.slots[sl.prev].next = sl.next
	} else {
		c.head = sl.next
	}
	if sl.next >= 0 {
		c.slots[sl.next].prev = sl.prev
	} else {
		c.tail = sl.prev
	}
	sl.prev, sl.next = -1, -1
}

func (c *seenCache) pushFront(i int32) {
	sl := &c.slots[i]
	sl.prev, sl.next = -1, c.head
	if c.head >= 0 {
		c.slots[c.head].prev = i
	}
	c.head = i
	if c.tail < 0 {
		c.tail = i
	}
}

func (c *seenCache) len() int { return len(c.index) }

type seenUpdate struct{ tracking, event, hash string }

// committed records in the cache the hashes a committed transaction
// emitted and hands them to the saver. The next batch reads the cache, so
// the Postgres write is off the transaction's path: a crash before it lands
// re-emits those events once with the same id and hash, as a crash between
// commit and save always could, and consumers drop them.
func (s *seenStore) committed(ups []seenUpdate) {
	if len(ups) == 0 {
		return
	}
	for _, u := range ups {
		s.remember(seenKey(u.tracking, u.event), u.hash)
	}
	s.mu.Lock()
	if s.unsaved == nil {
		s.unsaved = map[string]seenUpdate{}
	}
	for _, u := range ups {
		s.unsaved[seenKey(u.tracking, u.event)] = u // a later hash of a key replaces an earlier one
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// saveLoop writes the unsaved hashes until stop is closed, then once more
// (within flushTimeout), as saveOffPath does.
func (s *seenStore) saveLoop(ctx context.Context, stop <-chan struct{}, saver *loop.Loop, log *slog.Logger) {
	saveOffPath(ctx, stop, s.wake, s.flush, saver, log, "dedupe state", "repeats may be emitted once")
}

// saveOffPath runs flush whenever wake says there is something to write,
// off the transactions' path, until stop is closed, then once more (within
// flushTimeout). A failed write is kept by flush and retried after the
// loop's backoff together with what arrived meanwhile; every failure is the
// loop's (counted, /readyz red after a run), the one at shutdown too. what
// names what is written; lost says what a write lost at shutdown costs.
func saveOffPath(ctx context.Context, stop <-chan struct{}, wake chan struct{}, flush func(context.Context) error, saver *loop.Loop, log *slog.Logger, what, lost string) {
	for {
		select {
		case <-wake:
			// Let more commits' state gather: the save is off the
			// transactions' path, and one upsert a moment is enough.
			select {
			case <-time.After(saveLinger):
			case <-stop:
			}
		case <-stop:
			fctx, cancel := context.WithTimeout(ctx, flushTimeout)
			defer cancel()
			if err := flush(fctx); err != nil {
				saver.Report(err)
				log.Error(what+" not saved at shutdown; "+lost, "err", err)
			}
			return
		}
		fctx, cancel := context.WithTimeout(ctx, flushTimeout)
		err := flush(fctx)
		cancel()
		if err == nil {
			saver.Succeeded()
			continue
		}
		wait := saver.Failed(fmt.Errorf("%s not saved yet: %w", what, err))
		select {
		case <-stop:
		case <-time.After(wait):
		}
		select {
		case wake <- struct{}{}:
		default:
		}
	}
}

// flushTimeout bounds one save (a hung store must not stop the saver).
const flushTimeout = 10 * time.Second

// saveLinger is how long the saver gathers committed state before a save:
// at 500 events/s it saved after nearly every transaction (four events
// each). A crash loses at most this much more state, which re-emits those
// events once with the same id and hash, as before.
const saveLinger = 50 * time.Millisecond

// flush writes every unsaved hash in one statement; on failure they stay
// unsaved (a newer hash of a key that arrived meanwhile wins).
func (s *seenStore) flush(ctx context.Context) error {
	s.mu.Lock()
	batch := s.unsaved
	s.unsaved = nil
	s.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := s.save(ctx, batch); err != nil {
		s.mu.Lock()
		for k, u := range s.unsaved {
			batch[k] = u
		}
		s.unsaved = batch
		s.mu.Unlock()
		return err
	}
	return nil
}

// save upserts hashes with one statement, rows in key order (two
// normalisers saving overlapping keys lock them in the same order).
func (s *seenStore) save(ctx context.Context, batch map[string]seenUpdate) error {
	keys := make([]string, 0, len(batch))
	for k := range batch {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	trackings, events, hashes := make([]string, len(keys)), make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		u := batch[k]
		trackings[i], events[i], hashes[i] = u.tracking, u.event, u.hash
	}
	_, err := s.pool.Exec(ctx, `
		INSERT INTO normalize_seen (tracking_id, event_id, content_hash)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
		ON CONFLICT (tracking_id, event_id) DO UPDATE SET content_hash = EXCLUDED.content_hash, updated_at = now()`,
		trackings, events, hashes)
	if err != nil {
		return fmt.Errorf("save dedupe state: %w", err)
	}
	return nil
}
