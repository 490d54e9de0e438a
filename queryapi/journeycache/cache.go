// Package journeycache keeps encoded journey lookups in memory, bounded in
// bytes, for GET /subscription/equipment. It is kept fresh by invalidation:
// the API follows the projector's journey changes and drops the entries of
// a changed lookup, so the next pull reads ClickHouse again. A read that
// raced an invalidation is not cached (Put checks the ticket from Ticket).
package journeycache

import (
	"container/list"
	"sync"
	"time"
)

// Key is a lookup: an account's trackings of one identifier.
type Key struct {
	Account, Kind, Value string
}

// Item is one container's encoded journey result.
type Item struct {
	Equipment string
	JSON      []byte
}

// Entry is one lookup's results, in response order.
type Entry struct {
	Items []Item
	at    time.Time
	size  int64
}

// Cache is an LRU of entries bounded by MaxBytes (keys and encoded results).
// The zero MaxBytes caches nothing. Safe for concurrent use.
type Cache struct {
	maxBytes int64
	maxAge   time.Duration
	now      func() time.Time

	mu    sync.Mutex
	lru   *list.List // of *node, most recent first
	nodes map[Key]*list.Element
	bytes int64
	// seq counts invalidations; recent maps a key to the seq of its last
	// invalidation, kept for raceWindow; flushed is the seq of the last Flush.
	seq     uint64
	recent  map[Key]invalidation
	flushed uint64
}

type node struct {
	key   Key
	entry Entry
}

type invalidation struct {
	seq uint64
	at  time.Time
}

// raceWindow bounds how long a read may take and still be cached.
const raceWindow = 30 * time.Second

// New returns a cache of at most maxBytes whose entries are also dropped
// after maxAge (a safety net should change notifications stop arriving;
// 0 = never).
func New(maxBytes int64, maxAge time.Duration) *Cache {
	return &Cache{maxBytes: maxBytes, maxAge: maxAge, now: time.Now, lru: list.New(),
		nodes: map[Key]*list.Element{}, recent: map[Key]invalidation{}}
}

// Ticket marks the start of a read whose result may be Put.
type Ticket struct {
	seq uint64
	at  time.Time
}

// Ticket is taken before reading the source.
func (c *Cache) Ticket() Ticket {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Ticket{c.seq, c.now()}
}

// Get returns the cached entry of k.
func (c *Cache) Get(k Key) (Entry, bool) {
	if c == nil || c.maxBytes <= 0 {
		return Entry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.nodes[k]
	if !ok {
		return Entry{}, false
	}
	n := el.Value.(*node)
	if c.maxAge > 0 && c.now().Sub(n.entry.at) > c.maxAge {
		c.remove(el)
		return Entry{}, false
	}
	c.lru.MoveToFront(el)
	return n.entry, true
}

// Put caches items as k's entry unless k (or everything) was invalidated
// since t was taken, or the read took longer than the race window.
func (c *Cache) Put(k Key, items []Item, t Ticket) {
	if c == nil || c.maxBytes <= 0 {
		return
	}
	size := int64(len(k.Account)+len(k.Kind)+len(k.Value)) + 128
	for _, it := range items {
		size += int64(len(it.Equipment)+len(it.JSON)) + 48
	}
	if size > c.maxBytes/4 {
		return // one huge lookup must not empty the cache
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if now.Sub(t.at) > raceWindow || c.flushed > t.seq {
		return
	}
	if inv, ok := c.recent[k]; ok && inv.seq > t.seq {
		return
	}
	if el, ok := c.nodes[k]; ok {
		c.remove(el)
	}
	c.nodes[k] = c.lru.PushFront(&node{k, Entry{Items: items, at: now, size: size}})
	c.bytes += size
	for c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

// Invalidate drops k's entry and keeps reads in flight from caching it.
func (c *Cache) Invalidate(k Key) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	now := c.now()
	c.recent[k] = invalidation{c.seq, now}
	if len(c.recent) > 4096 {
		for key, inv := range c.recent {
			if now.Sub(inv.at) > raceWindow {
				delete(c.recent, key)
			}
		}
	}
	if el, ok := c.nodes[k]; ok {
		c.remove(el)
	}
}

// Flush drops everything (the read model moved to a rebuilt generation).
func (c *Cache) Flush() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	c.flushed = c.seq
	c.lru.Init()
	clear(c.nodes)
	c.bytes = 0
}

// Bytes is the cache's current size.
func (c *Cache) Bytes() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

func (c *Cache) remove(el *list.Element) {
	n := c.lru.Remove(el).(*node)
	delete(c.nodes, n.key)
	c.bytes -= n.entry.size
}
