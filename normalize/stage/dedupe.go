package stage

import (
	"container/list"
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// seenStore remembers the content hash last emitted per (tracking, event):
// Postgres is the store (so the state survives restarts), an LRU of at most
// capacity entries keeps memory bounded.
type seenStore struct {
	pool     *pgxpool.Pool
	mu       sync.Mutex
	capacity int
	order    *list.List // front = most recent
	entries  map[string]*list.Element
}

type seenEntry struct {
	key, hash string
}

func newSeenStore(pool *pgxpool.Pool, capacity int) *seenStore {
	return &seenStore{pool: pool, capacity: capacity, order: list.New(), entries: map[string]*list.Element{}}
}

func seenKey(tracking, event string) string { return tracking + "\x00" + event }

// cached returns the hash last emitted for key after preload, "" if none.
func (s *seenStore) cached(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.entries[key]; ok {
		s.order.MoveToFront(el)
		return el.Value.(*seenEntry).hash
	}
	return ""
}

// preload loads into the cache the state of every key not cached yet, with
// one query; keys without state are cached as "" (never emitted).
func (s *seenStore) preload(ctx context.Context, keys []seenUpdate) error {
	var trackings, events []string
	s.mu.Lock()
	asked := map[string]bool{}
	for _, k := range keys {
		key := seenKey(k.tracking, k.event)
		if _, ok := s.entries[key]; ok || asked[key] {
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
	rows, err := s.pool.Query(ctx, `
		SELECT n.tracking_id, n.event_id, n.content_hash
		FROM normalize_seen n JOIN unnest($1::text[], $2::text[]) AS k(tracking_id, event_id)
		  ON n.tracking_id = k.tracking_id AND n.event_id = k.event_id`, trackings, events)
	if err != nil {
		return fmt.Errorf("read dedupe state: %w", err)
	}
	found := map[string]string{}
	var t, e, h string
	if _, err := pgx.ForEachRow(rows, []any{&t, &e, &h}, func() error {
		found[seenKey(t, e)] = h
		return nil
	}); err != nil {
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
	if el, ok := s.entries[k]; ok {
		el.Value.(*seenEntry).hash = h
		s.order.MoveToFront(el)
		return
	}
	s.entries[k] = s.order.PushFront(&seenEntry{key: k, hash: h})
	for s.order.Len() > s.capacity {
		old := s.order.Back()
		s.order.Remove(old)
		delete(s.entries, old.Value.(*seenEntry).key)
	}
}

type seenUpdate struct{ tracking, event, hash string }

// save records emitted hashes, after the transaction that emitted them committed.
func (s *seenStore) save(ctx context.Context, ups []seenUpdate) error {
	if len(ups) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	for _, u := range ups {
		b.Queue(`INSERT INTO normalize_seen (tracking_id, event_id, content_hash) VALUES ($1, $2, $3)
			ON CONFLICT (tracking_id, event_id) DO UPDATE SET content_hash = EXCLUDED.content_hash, updated_at = now()`,
			u.tracking, u.event, u.hash)
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("save dedupe state: %w", err)
	}
	for _, u := range ups {
		s.remember(seenKey(u.tracking, u.event), u.hash)
	}
	return nil
}
