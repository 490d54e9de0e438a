// Package journeycache keeps the answers of journey lookups in memory,
// compressed (Body) and bounded in bytes, for GET /subscription/equipment.
// It is kept fresh by invalidation: the API follows the projector's journey
// changes, marks the answers of a changed lookup superseded and reads them
// again. A superseded answer is still served (stale-while-revalidate) until
// the new one is Put or for at most the cache's superseded bound, so pulls
// of a hot lookup that keeps changing do not all wait for ClickHouse. A read
// that raced an invalidation is not cached as current (Put checks the
// ticket from Ticket), so an answer never goes back to an older version,
// and a superseded answer is never served once a newer one is cached.
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
	landed uint64    // the tick of its Put
	// superseded is when the lookup changed after this answer was read
	// (zero: current); the first change counts, the answer is that old.
	superseded time.Time
}

// Hit says what Get found.
type Hit int

const (
	// Miss: nothing to serve; read the source.
	Miss Hit = iota
	// Current: the newest answer known.
	Current
	// Stale: current, but older than the cache's maximum age: serve it and
	// read it again.
	Stale
	// Superseded: the lookup changed since this answer was read and the new
	// one is not cached yet: serve it (it is at most the superseded bound
	// behind) and make sure it is read again. It is not the current answer:
	// an If-None-Match naming its tag must not be answered 304 from it.
	Superseded
)

func (h Hit) String() string {
	return [...]string{"miss", "current", "stale", "superseded"}[h]
}

// Served says the hit has a body to serve.
func (h Hit) Served() bool { return h != Miss }

// Cache is an LRU of entries bounded by MaxBytes (keys and compressed answers).
// The zero MaxBytes caches nothing. Safe for concurrent use.
//
// Misses — lookups with no result, which anyone can make by asking for
// random identifiers — are bounded per account as well: an account holds at
// most its miss budget of them (SetMissBudget) and at most 1/64 of MaxBytes
// in them, its least recently used miss going first, so one tenant's made-up
// lookups evict only its own misses and never another tenant's answers.
type Cache struct {
	maxBytes      int64
	maxAge        time.Duration
	maxSuperseded time.Duration
	missBudget    int
	now           func() time.Time

	mu    sync.Mutex
	lru   *list.List // of *node, most recent first
	nodes map[Key]*list.Element
	bytes int64
	// seq counts invalidations; recent maps a key to the seq of its last
	// invalidation, kept for raceWindow; flushed is the seq of the last Flush.
	seq     uint64
	recent  map[Key]invalidation
	flushed uint64
	// tick orders tickets and puts: a read whose ticket is after an
	// answer's Put is at least as new as that answer.
	tick uint64
	// misses lists each account's miss entries, most recently used first;
	// missBytes is their size.
	misses    map[string]*list.List
	missBytes map[string]int64
}

type node struct {
	key   Key
	entry Entry
	// miss is the node's element in its account's misses list (nil: the
	// entry has results).
	miss *list.Element
}

// DefaultMissBudget is the misses an account may hold in the cache (about
// 400 bytes each).
const DefaultMissBudget = 1000

type invalidation struct {
	seq uint64
	at  time.Time
}

// raceWindow bounds how long a read may take and still be cached.
const raceWindow = 30 * time.Second

// New returns a cache of at most maxBytes whose entries are reported stale
// after maxAge (a safety net should change notifications stop arriving:
// the reader reads them again; 0 = never). An invalidated answer is served
// as Superseded for up to maxSuperseded after its lookup changed (0 or
// negative: an invalidation drops the answers at once).
func New(maxBytes int64, maxAge, maxSuperseded time.Duration) *Cache {
	return &Cache{maxBytes: maxBytes, maxAge: maxAge, maxSuperseded: maxSuperseded, missBudget: DefaultMissBudget, now: time.Now, lru: list.New(),
		nodes: map[Key]*list.Element{}, recent: map[Key]invalidation{}, misses: map[string]*list.List{}, missBytes: map[string]int64{}}
}

// SetMissBudget sets how many misses (lookups without results) one account
// may hold (n ≥ 1; default DefaultMissBudget). Call it before use.
func (c *Cache) SetMissBudget(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.missBudget = max(n, 1)
}

// Ticket marks the start of a read whose result may be Put.
type Ticket struct {
	seq, tick uint64
	at        time.Time
}

// Ticket is taken before reading the source.
func (c *Cache) Ticket() Ticket {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tick++
	return Ticket{seq: c.seq, tick: c.tick, at: c.now()}
}

// Get returns k's answer narrowed to filter and what it is (Hit): Stale
// and Superseded answers are served while they are read again. An answer
// superseded for longer than the bound is a Miss.
func (c *Cache) Get(k Key, filter string) (Body, Hit) {
	if c == nil || c.maxBytes <= 0 {
		return Body{}, Miss
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.nodes[k]
	if !ok {
		return Body{}, Miss
	}
	n := el.Value.(*node)
	for _, v := range n.entry.variants {
		if v.filter != filter {
			continue
		}
		now := c.now()
		if !v.superseded.IsZero() {
			if now.Sub(v.superseded) > c.maxSuperseded {
				return Body{}, Miss // too far behind: the pull reads the source
			}
			c.touch(el)
			return v.body, Superseded
		}
		c.touch(el)
		if c.maxAge > 0 && now.Sub(v.at) > c.maxAge {
			return v.body, Stale
		}
		return v.body, Current
	}
	return Body{}, Miss
}

// Filters are the equipment filters k holds answers for (current or not).
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

// Put caches b as k's answer narrowed to filter, replacing what k held for
// filter (current or superseded), unless k (or everything) was invalidated
// since t was taken, or the read took longer than the race window. A read
// that raced a change but started after the superseded answer held was Put
// is at least as new as that answer: it replaces it, superseded since the
// same time (a pull that got it never gets the older one next).
//
// Put reports raced when k changed after t was taken and b is not kept as
// k's current answer: the caller reads k again if it wants it cached (a
// change that lands while a lookup is first read finds nothing to
// supersede, so nothing else would).
func (c *Cache) Put(k Key, filter string, b Body, t Ticket) (raced bool) {
	if c == nil || c.maxBytes <= 0 {
		return false
	}
	size := int64(len(k.Account)+len(k.Kind)+len(k.Value)+len(filter)) + 128 + b.Size()
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if now.Sub(t.at) > raceWindow || c.flushed > t.seq {
		return false
	}
	if inv, ok := c.recent[k]; ok && inv.seq > t.seq {
		c.putSuperseded(k, filter, b, t)
		return true
	}
	// The answers of other filters stay as they are (current, or
	// superseded since their own time).
	var e Entry
	if el, ok := c.nodes[k]; ok {
		old := el.Value.(*node).entry
		for _, v := range old.variants {
			if v.filter != filter {
				e.variants = append(e.variants, v)
			}
		}
		c.remove(el)
	}
	// One huge lookup must not empty the cache: not cached, but what it
	// replaces goes (never older after newer).
	if size <= c.maxBytes/4 {
		c.tick++
		e.variants = append(e.variants, variant{filter: filter, body: b, at: t.at, landed: c.tick})
	}
	if len(e.variants) == 0 {
		return false
	}
	e.size = entrySize(k, e.variants)
	c.insert(k, e)
	for c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
	return false
}

// insert adds k's entry as the most recently used, and keeps its account
// within its miss budget when the entry is a miss.
func (c *Cache) insert(k Key, e Entry) {
	n := &node{key: k, entry: e}
	c.nodes[k] = c.lru.PushFront(n)
	c.bytes += e.size
	if !e.miss() {
		return
	}
	l := c.misses[k.Account]
	if l == nil {
		l = list.New()
		c.misses[k.Account] = l
	}
	n.miss = l.PushFront(n)
	c.missBytes[k.Account] += e.size
	for l.Len() > c.missBudget || (l.Len() > 1 && c.missBytes[k.Account] > c.maxBytes/64) {
		c.remove(c.nodes[l.Back().Value.(*node).key])
	}
}

// touch marks el the most recently used, in the LRU and among its
// account's misses.
func (c *Cache) touch(el *list.Element) {
	c.lru.MoveToFront(el)
	if n := el.Value.(*node); n.miss != nil {
		c.misses[n.key.Account].MoveToFront(n.miss)
	}
}

// miss says every answer of the entry has no result.
func (e Entry) miss() bool {
	for _, v := range e.variants {
		if v.body.Count > 0 {
			return false
		}
	}
	return len(e.variants) > 0
}

// putSuperseded replaces k's superseded answer to filter by b if b's read
// started after that answer was Put.
func (c *Cache) putSuperseded(k Key, filter string, b Body, t Ticket) {
	el, ok := c.nodes[k]
	if !ok {
		return
	}
	n := el.Value.(*node)
	for i, v := range n.entry.variants {
		if v.filter != filter || v.superseded.IsZero() || t.tick < v.landed {
			continue
		}
		if entrySize(k, []variant{{filter: filter, body: b}}) > c.maxBytes/4 {
			// Too large to cache, but newer: the older one goes.
			vs := append(n.entry.variants[:i:i], n.entry.variants[i+1:]...)
			c.remove(el)
			if len(vs) > 0 {
				c.insert(k, Entry{variants: vs, size: entrySize(k, vs)})
			}
			return
		}
		c.tick++
		vs := n.entry.variants
		vs[i].body, vs[i].at, vs[i].landed = b, t.at, c.tick
		// Re-inserted: it may have become a miss, or stopped being one.
		c.remove(el)
		c.insert(k, Entry{variants: vs, size: entrySize(k, vs)})
		for c.bytes > c.maxBytes {
			c.remove(c.lru.Back())
		}
		return
	}
}

// entrySize is what an entry holds in memory: the key, the list and map
// bookkeeping (128), each answer and its filter.
func entrySize(k Key, vs []variant) int64 {
	size := int64(len(k.Account)+len(k.Kind)+len(k.Value)) + 128
	for _, v := range vs {
		size += int64(len(v.filter)) + v.body.Size()
	}
	return size
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

// Invalidate marks k's answers superseded (drops them if the cache serves
// no superseded answers) and keeps reads in flight from caching theirs; it
// returns the filters the entry held (to read them again).
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
	el, ok := c.nodes[k]
	if !ok {
		return nil
	}
	vs := el.Value.(*node).entry.variants
	for i := range vs {
		filters = append(filters, vs[i].filter)
		if vs[i].superseded.IsZero() {
			vs[i].superseded = now
		}
	}
	if c.maxSuperseded <= 0 {
		c.remove(el)
	}
	return filters
}

// KeysOf lists the cached lookups of account (a walk of the cache: for
// rare changes, such as the account's free-time rules).
func (c *Cache) KeysOf(account string) []Key {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Key
	for k := range c.nodes {
		if k.Account == account {
			out = append(out, k)
		}
	}
	return out
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
	clear(c.misses)
	clear(c.missBytes)
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
	if n.miss != nil {
		l := c.misses[n.key.Account]
		l.Remove(n.miss)
		c.missBytes[n.key.Account] -= n.entry.size
		if l.Len() == 0 {
			delete(c.misses, n.key.Account)
			delete(c.missBytes, n.key.Account)
		}
		n.miss = nil
	}
}

// Misses is how many misses account holds.
func (c *Cache) Misses(account string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l := c.misses[account]; l != nil {
		return l.Len()
	}
	return 0
}
