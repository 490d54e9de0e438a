package journeycache

import (
	"fmt"
	"time"
)

// SetNow replaces the cache's clock.
func SetNow(c *Cache, now func() time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = now
}

// Audit checks the byte accounting: every entry's size is what it holds,
// the cache's size their sum, the LRU and the index the same entries.
func Audit(c *Cache) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var sum int64
	n := 0
	for el := c.lru.Front(); el != nil; el = el.Next() {
		nd := el.Value.(*node)
		if c.nodes[nd.key] != el {
			return fmt.Errorf("%v: in the LRU, not indexed", nd.key)
		}
		if want := entrySize(nd.key, nd.entry.variants); nd.entry.size != want {
			return fmt.Errorf("%v: size %d, holds %d", nd.key, nd.entry.size, want)
		}
		sum += nd.entry.size
		n++
	}
	if n != len(c.nodes) || sum != c.bytes {
		return fmt.Errorf("%d entries of %d bytes, counted %d of %d", n, sum, len(c.nodes), c.bytes)
	}
	if c.bytes > c.maxBytes && c.maxBytes > 0 {
		return fmt.Errorf("%d bytes over the bound %d", c.bytes, c.maxBytes)
	}
	return nil
}
