package journeycache

import "time"

// SetNow replaces the cache's clock.
func SetNow(c *Cache, now func() time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = now
}
