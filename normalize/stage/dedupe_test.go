package stage

import (
	"container/list"
	"fmt"
	"math/rand/v2"
	"testing"
)

// referenceLRU is the container/list LRU seenCache replaced.
type referenceLRU struct {
	capacity int
	order    *list.List // front = most recent
	entries  map[string]*list.Element
}

type referenceEntry struct{ key, hash string }

func (r *referenceLRU) get(key string) (string, bool) {
	el, ok := r.entries[key]
	if !ok {
		return "", false
	}
	r.order.MoveToFront(el)
	return el.Value.(*referenceEntry).hash, true
}

func (r *referenceLRU) put(key, hash string) {
	if el, ok := r.entries[key]; ok {
		el.Value.(*referenceEntry).hash = hash
		r.order.MoveToFront(el)
		return
	}
	r.entries[key] = r.order.PushFront(&referenceEntry{key, hash})
	for r.order.Len() > r.capacity {
		old := r.order.Back()
		r.order.Remove(old)
		delete(r.entries, old.Value.(*referenceEntry).key)
	}
}

// seenCache keeps and evicts what a list-based LRU does, through random
// gets and puts (new keys, repeats, changed hashes) at several capacities.
func TestSeenCacheIsAnLRU(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 14))
	for _, capacity := range []int{1, 2, 3, 17, 100} {
		c := newSeenCache(capacity)
		ref := &referenceLRU{capacity: capacity, order: list.New(), entries: map[string]*list.Element{}}
		for op := range 20_000 {
			key := fmt.Sprintf("trk-%d\x00ev-%d", rng.IntN(3), rng.IntN(capacity*2+3))
			if rng.IntN(3) == 0 {
				hash := fmt.Sprintf("%064x", rng.IntN(4))
				c.put(key, hash)
				ref.put(key, hash)
			} else {
				got, ok := c.get(key)
				want, wantOK := ref.get(key)
				if got != want || ok != wantOK {
					t.Fatalf("capacity %d, op %d: get %q = %q, %v; want %q, %v", capacity, op, key, got, ok, want, wantOK)
				}
			}
			if c.len() != ref.order.Len() || c.has(key) != (ref.entries[key] != nil) {
				t.Fatalf("capacity %d, op %d: %d entries, want %d", capacity, op, c.len(), ref.order.Len())
			}
		}
		// Least recent first, the same keys in the same order.
		i := c.tail
		for el := ref.order.Back(); el != nil; el = el.Prev() {
			sl := c.slots[i]
			if e := el.Value.(*referenceEntry); sl.keyHash != e.key+e.hash || sl.keyHash[:sl.keyLen] != e.key {
				t.Fatalf("capacity %d: recency order differs at %q", capacity, e.key)
			}
			i = sl.prev
		}
		if i != -1 {
			t.Fatalf("capacity %d: more slots linked than entries", capacity)
		}
	}
}
