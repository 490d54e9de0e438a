package journeycache_test

import (
	"strings"
	"testing"

	"github.com/contrack/contrack/queryapi/journeycache"
)

func items(n int) []journeycache.Item {
	return []journeycache.Item{{Equipment: "MSKU9070323", JSON: []byte(strings.Repeat("x", n))}}
}

// A read that started before an invalidation of its key is not cached: it
// may hold the rows from before the change.
func TestReadRacingAnInvalidationIsNotCached(t *testing.T) {
	c := journeycache.New(1<<20, 0)
	k := journeycache.Key{Account: "a", Kind: "container", Value: "MSKU9070323"}
	t1 := c.Ticket()
	c.Invalidate(k)
	c.Put(k, items(10), t1)
	if _, ok := c.Get(k); ok {
		t.Fatal("a read older than the invalidation was cached")
	}
	c.Put(k, items(10), c.Ticket())
	if _, ok := c.Get(k); !ok {
		t.Fatal("a read after the invalidation was not cached")
	}
	// Another key's invalidation does not hold this one back.
	t2 := c.Ticket()
	c.Invalidate(journeycache.Key{Account: "b", Kind: "container", Value: "MSKU9070323"})
	c.Put(k, items(20), t2)
	if e, ok := c.Get(k); !ok || len(e.Items[0].JSON) != 20 {
		t.Fatal("an unrelated invalidation blocked the put")
	}
	t3 := c.Ticket()
	c.Flush()
	c.Put(k, items(10), t3)
	if _, ok := c.Get(k); ok || c.Bytes() != 0 {
		t.Fatal("a read older than a flush was cached")
	}
}

// The cache never holds more than its bound: the least recently used go.
func TestBoundedInBytes(t *testing.T) {
	c := journeycache.New(100_000, 0)
	for i := range 100 {
		k := journeycache.Key{Account: "a", Kind: "container", Value: strings.Repeat("C", i+1)}
		c.Put(k, items(5_000), c.Ticket())
		if c.Bytes() > 100_000 {
			t.Fatalf("%d bytes after %d puts", c.Bytes(), i+1)
		}
	}
	if _, ok := c.Get(journeycache.Key{Account: "a", Kind: "container", Value: "C"}); ok {
		t.Fatal("the oldest entry survived")
	}
	if _, ok := c.Get(journeycache.Key{Account: "a", Kind: "container", Value: strings.Repeat("C", 100)}); !ok {
		t.Fatal("the newest entry is gone")
	}
	disabled := journeycache.New(0, 0)
	disabled.Put(journeycache.Key{}, items(1), disabled.Ticket())
	if disabled.Bytes() != 0 {
		t.Fatal("a zero bound cached")
	}
}
