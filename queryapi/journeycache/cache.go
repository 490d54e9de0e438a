// Package journeycache keeps the answers of journey lookups in memory,
// compressed (Body) and bounded in bytes, for GET /subscription/equipment.
// It is kept fresh by invalidation: the API follows the projector's journey
// changes, drops the entries of a changed lookup and reads them again. A
// read that raced an invalidation is not cached (Put checks the ticket from
// Ticket), so an answer never goes back to an older version.
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

// Entry is one lookup's answers: one Body per equipment filter ("" for
// the whole lookup), as pulls asked for them.
type Entry struct {
	variants []variant
	size     int64
}

type variant struct {
	filter string
	body   Body
	at     time.Time // when its read started
}

// Cache is an LRU of entries bounded by MaxBytes (keys and compressed answers).
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

// New returns a cache of at most maxBytes whose entries are reported stale
// after maxAge (a safety net should change notifications stop arriving:
// the reader reads them again; 0 = never).
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

// Get returns k's answer narrowed to filter. stale says it is older than
// the cache's maximum age: serve it, but read it again (Refresh).
func (c *Cache) Get(k Key, filter string) (b Body, ok, stale bool) {
	if c == nil || c.maxBytes <= 0 {
		return Body{}, false, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.nodes[k]
	if !ok {
		return Body{}, false, false
	}
	n := el.Value.(*node)
	for _, v := range n.entry.variants {
		if v.filter == filter {
			c.lru.MoveToFront(el)
			return v.body, true, c.maxAge > 0 && c.now().Sub(v.at) > c.maxAge
		}
	}
	return Body{}, false, false
}

// Filters are the equipment filters k holds answers for.
func (c *Cache) Filters(k Key) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.nodes[k]
	if !ok {
		return nil
	}
	var fs []string
	for _, v := range el.Value.(*node).entry.variants {
		fs = append(fs, v.filter)
	}
	return fs
}

// Put caches b as k's answer narrowed to filter unless k (or everything)
// was invalidated since t was taken, or the read took longer than the race
// window.
func (c *Cache) Put(k Key, filter string, b Body, t Ticket) {
	if c == nil || c.maxBytes <= 0 {
		return
	}
	size := int64(len(k.Account)+len(k.Kind)+len(k.Value)+len(filter)) + 128 + b.Size()
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
	// Every answer an entry holds was read after k's last invalidation
	// (which drops the entry): answers of other filters stay.
	var e Entry
	if el, ok := c.nodes[k]; ok {
		old := el.Value.(*node).entry
		for _, v := range old.variants {
			if v.filter != filter {
				e.variants = append(e.variants, v)
				size += int64(len(v.filter)) + v.body.Size()
			}
		}
		c.remove(el)
	}
	e.variants = append(e.variants, variant{filter, b, t.at})
	e.size = size
	c.nodes[k] = c.lru.PushFront(&node{k, e})
	c.bytes += size
	for c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

// Full says the cache is within 10% of its bound (warming stops there).
func (c *Cache) Full() bool {
	if c == nil || c.maxBytes <= 0 {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes >= c.maxBytes-c.maxBytes/10
}

// Len is the number of cached lookups.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.nodes)
}

// Invalidate drops k's entry and keeps reads in flight from caching it;
// it returns the filters the entry held (to read them again).
func (c *Cache) Invalidate(k Key) (filters []string) {
	if c == nil {
		return nil
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
		for _, v := range el.Value.(*node).entry.variants {
			filters = append(filters, v.filter)
		}
		c.remove(el)
	}
	return filters
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
