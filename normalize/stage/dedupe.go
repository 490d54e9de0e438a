package stage

import (
	"container/list"
	"context"
	"errors"
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

// last returns the hash last emitted for (tracking, event), "" if none.
func (s *seenStore) last(ctx context.Context, tracking, event string) (string, error) {
	k := seenKey(tracking, event)
	s.mu.Lock()
	if el, ok := s.entries[k]; ok {
		s.order.MoveToFront(el)
		h := el.Value.(*seenEntry).hash
		s.mu.Unlock()
		return h, nil
	}
	s.mu.Unlock()
	var h string
	err := s.pool.QueryRow(ctx, `SELECT content_hash FROM normalize_seen WHERE tracking_id = $1 AND event_id = $2`, tracking, event).Scan(&h)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read dedupe state: %w", err)
	}
	s.remember(k, h)
	return h, nil
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
