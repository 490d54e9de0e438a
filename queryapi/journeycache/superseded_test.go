package journeycache_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contrack/contrack/queryapi/journeycache"
)

// clock is a settable clock for the cache.
type clock struct{ ns atomic.Int64 }

func newClock(c *journeycache.Cache) *clock {
	k := &clock{}
	k.ns.Store(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC).UnixNano())
	journeycache.SetNow(c, func() time.Time { return time.Unix(0, k.ns.Load()) })
	return k
}

func (k *clock) advance(d time.Duration) { k.ns.Add(int64(d)) }

// versions are answers whose tag names their version (encoded once each).
type versions struct {
	mu     sync.Mutex
	byTag  map[string]int
	bodies map[int]journeycache.Body
}

func (vs *versions) body(t testing.TB, v int) journeycache.Body {
	t.Helper()
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if b, ok := vs.bodies[v]; ok {
		return b
	}
	b, err := journeycache.Encode(fmt.Appendf(nil, `[{"version":%d}]`, v), 1)
	if err != nil {
		t.Fatal(err)
	}
	if vs.byTag == nil {
		vs.byTag, vs.bodies = map[string]int{}, map[int]journeycache.Body{}
	}
	vs.byTag[b.ETag], vs.bodies[v] = v, b
	return b
}

func (vs *versions) of(b journeycache.Body) int {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	return vs.byTag[b.ETag]
}

func audit(t testing.TB, c *journeycache.Cache) {
	t.Helper()
	if err := journeycache.Audit(c); err != nil {
		t.Fatal(err)
	}
}

// A changed lookup's answer is served, marked superseded, until the read
// after the change is Put; a read that raced the change does not replace
// it; the bytes stay counted throughout.
func TestSupersededServedUntilTheRefreshLands(t *testing.T) {
	c := journeycache.New(1<<20, 0, 2*time.Second)
	clk := newClock(c)
	var vs versions
	k := journeycache.Key{Account: "a", Kind: "container", Value: "MSKU9070323"}
	c.Put(k, k.Value, vs.body(t, 1), c.Ticket())
	bytes := c.Bytes()
	raced := c.Ticket()
	if fs := c.Invalidate(k); len(fs) != 1 || fs[0] != k.Value {
		t.Fatalf("invalidate named %q", fs)
	}
	if b, hit := c.Get(k, k.Value); hit != journeycache.Superseded || vs.of(b) != 1 {
		t.Fatalf("after the change: %v version %d", hit, vs.of(b))
	}
	if c.Len() != 1 || c.Bytes() != bytes {
		t.Fatalf("superseded entry: %d lookups, %d bytes (was %d)", c.Len(), c.Bytes(), bytes)
	}
	audit(t, c)
	clk.advance(time.Second)
	c.Put(k, k.Value, vs.body(t, 1), raced) // read before the change
	if b, hit := c.Get(k, k.Value); hit != journeycache.Superseded || vs.of(b) != 1 {
		t.Fatalf("after a racing read: %v version %d", hit, vs.of(b))
	}
	c.Put(k, k.Value, vs.body(t, 2), c.Ticket())
	if b, hit := c.Get(k, k.Value); hit != journeycache.Current || vs.of(b) != 2 {
		t.Fatalf("after the refresh: %v version %d", hit, vs.of(b))
	}
	audit(t, c)
	// Long after: the refreshed answer is current, not superseded by the old change.
	clk.advance(time.Hour)
	if _, hit := c.Get(k, k.Value); hit != journeycache.Current {
		t.Fatalf("an hour later: %v", hit)
	}
}

// A read that raced a second change but started after the first is newer
// than the answer the first superseded: it replaces it, still superseded
// (and as old), so a pull that got it does not get the older one next.
func TestSupersededReplacedByANewerRacingRead(t *testing.T) {
	c, clk, vs, k := cachedAt1(t)
	beforeFirst := c.Ticket()
	c.Invalidate(k)
	afterFirst := c.Ticket()
	clk.advance(time.Second)
	c.Invalidate(k)
	c.Put(k, "", vs.body(t, 2), afterFirst)
	if b, hit := c.Get(k, ""); hit != journeycache.Superseded || vs.of(b) != 2 {
		t.Fatalf("after a newer racing read: %v version %d", hit, vs.of(b))
	}
	c.Put(k, "", vs.body(t, 1), beforeFirst)
	c.Put(k, "", vs.body(t, 1), afterFirst) // started before version 2 was put: maybe older
	if b, hit := c.Get(k, ""); hit != journeycache.Superseded || vs.of(b) != 2 {
		t.Fatalf("after older racing reads: %v version %d", hit, vs.of(b))
	}
	audit(t, c)
	clk.advance(1001 * time.Millisecond)
	if _, hit := c.Get(k, ""); hit != journeycache.Miss {
		t.Fatalf("2 s after the first change: %v", hit)
	}
}

// An answer superseded for longer than the bound is not served (the pull
// reads the source); the bound counts from the first change, not the last.
func TestSupersededBound(t *testing.T) {
	c, clk, vs, k := cachedAt1(t)
	c.Invalidate(k)
	clk.advance(1500 * time.Millisecond)
	c.Invalidate(k) // changed again: the answer is as old as the first change
	if _, hit := c.Get(k, ""); hit != journeycache.Superseded {
		t.Fatalf("1.5 s after the change: %v", hit)
	}
	clk.advance(500 * time.Millisecond)
	if _, hit := c.Get(k, ""); hit != journeycache.Superseded {
		t.Fatalf("at the bound: %v", hit)
	}
	clk.advance(time.Millisecond)
	if _, hit := c.Get(k, ""); hit != journeycache.Miss {
		t.Fatalf("past the bound: %v", hit)
	}
	c.Put(k, "", vs.body(t, 3), c.Ticket())
	if b, hit := c.Get(k, ""); hit != journeycache.Current || vs.of(b) != 3 {
		t.Fatalf("read again: %v version %d", hit, vs.of(b))
	}
	audit(t, c)

	// Without a bound a change drops the answer, as before.
	off := journeycache.New(1<<20, 0, -1)
	off.Put(k, "", vs.body(t, 1), off.Ticket())
	off.Invalidate(k)
	if _, hit := off.Get(k, ""); hit != journeycache.Miss || off.Bytes() != 0 {
		t.Fatalf("bound off: %v, %d bytes", hit, off.Bytes())
	}
}

// A flush (rebuilt generation) drops superseded answers too, and a read
// from before it is not cached.
func TestFlushDropsSuperseded(t *testing.T) {
	c, _, vs, k := cachedAt1(t)
	c.Invalidate(k)
	before := c.Ticket()
	c.Flush()
	if _, hit := c.Get(k, ""); hit != journeycache.Miss || c.Bytes() != 0 || c.Len() != 0 {
		t.Fatalf("after flush: %v, %d bytes", hit, c.Bytes())
	}
	c.Put(k, "", vs.body(t, 2), before)
	if _, hit := c.Get(k, ""); hit != journeycache.Miss {
		t.Fatalf("a read from before the flush: %v", hit)
	}
	audit(t, c)
}

// The answers of a lookup's filters are superseded together and replaced
// one by one; an answer too large to cache still ends the superseded one
// it replaces (never older after newer).
func TestSupersededFilters(t *testing.T) {
	c := journeycache.New(64<<10, 0, 2*time.Second)
	newClock(c)
	var vs versions
	k := journeycache.Key{Account: "a", Kind: "booking", Value: "B1"}
	c.Put(k, "", vs.body(t, 1), c.Ticket())
	c.Put(k, "MSKU9070323", vs.body(t, 1), c.Ticket())
	c.Invalidate(k)
	c.Put(k, "MSKU9070323", vs.body(t, 2), c.Ticket())
	if b, hit := c.Get(k, "MSKU9070323"); hit != journeycache.Current || vs.of(b) != 2 {
		t.Fatalf("narrowed: %v version %d", hit, vs.of(b))
	}
	if b, hit := c.Get(k, ""); hit != journeycache.Superseded || vs.of(b) != 1 {
		t.Fatalf("whole: %v version %d", hit, vs.of(b))
	}
	audit(t, c)
	racing := c.Ticket()
	c.Invalidate(k)                       // the narrowed answer is superseded again, the whole still is
	c.Put(k, "", body(t, 64<<10), racing) // raced a change, over a quarter of the bound
	if _, hit := c.Get(k, ""); hit != journeycache.Miss {
		t.Fatalf("superseded after a newer racing answer too large to cache: %v", hit)
	}
	if _, hit := c.Get(k, "MSKU9070323"); hit != journeycache.Superseded {
		t.Fatalf("narrowed after the large racing put: %v", hit)
	}
	audit(t, c)
	c.Put(k, "MSKU9070323", body(t, 64<<10), c.Ticket())
	if _, hit := c.Get(k, "MSKU9070323"); hit != journeycache.Miss || c.Len() != 0 {
		t.Fatalf("superseded after a newer answer too large to cache: %v, %d lookups", hit, c.Len())
	}
	audit(t, c)
	c.Put(k, "", vs.body(t, 3), c.Ticket())
	c.Put(k, "MSKU9070323", vs.body(t, 3), c.Ticket())
	c.Put(k, "", body(t, 64<<10), c.Ticket()) // current, over a quarter of the bound
	if _, hit := c.Get(k, ""); hit != journeycache.Miss {
		t.Fatalf("older after a newer answer too large to cache: %v", hit)
	}
	if _, hit := c.Get(k, "MSKU9070323"); hit != journeycache.Current {
		t.Fatalf("narrowed after the large put: %v", hit)
	}
	audit(t, c)
}

// Changes, reads and puts in any order: a pull never gets an older
// version after a newer one, a current answer is the source's version, a
// superseded one is at most the bound behind, and the bytes add up. The
// source changes, then its change is notified (Invalidate); a read sees
// the source at some moment between its ticket and its Put.
func TestNeverOlderAfterNewer(t *testing.T) {
	const bound = 2 * time.Second
	for seed := range uint64(100) {
		r := rand.New(rand.NewPCG(seed, 9))
		c := journeycache.New(1<<20, 0, bound)
		clk := newClock(c)
		var vs versions
		keys := []journeycache.Key{{Account: "a", Kind: "container", Value: "C1"}, {Account: "a", Kind: "container", Value: "C2"}}
		type read struct {
			k       journeycache.Key
			t       journeycache.Ticket
			minimum int // the source's version at the ticket
		}
		version := map[journeycache.Key]int{}
		changedAt := map[journeycache.Key]map[int]time.Time{} // version → when notified
		served := map[journeycache.Key]int{}
		var reads []read
		for step := range 300 {
			k := keys[r.IntN(len(keys))]
			now := time.Unix(0, clk.ns.Load())
			switch op := r.IntN(10); {
			case op < 2: // a change, notified
				version[k]++
				if changedAt[k] == nil {
					changedAt[k] = map[int]time.Time{}
				}
				changedAt[k][version[k]] = now
				c.Invalidate(k)
			case op < 4:
				reads = append(reads, read{k, c.Ticket(), version[k]})
			case op < 6 && len(reads) > 0: // a read lands, seeing some version since its ticket
				i := r.IntN(len(reads))
				rd := reads[i]
				reads = append(reads[:i], reads[i+1:]...)
				v := rd.minimum + r.IntN(version[rd.k]-rd.minimum+1)
				c.Put(rd.k, "", vs.body(t, v*2+int(rd.k.Value[1]-'1')), rd.t)
			case op < 9:
				b, hit := c.Get(k, "")
				if !hit.Served() {
					continue
				}
				v := vs.of(b) / 2
				if v < served[k] {
					t.Fatalf("seed %d step %d: %v served version %d after %d", seed, step, hit, v, served[k])
				}
				served[k] = v
				if hit == journeycache.Current && v != version[k] {
					t.Fatalf("seed %d step %d: current answer version %d, source %d", seed, step, v, version[k])
				}
				for ver, at := range changedAt[k] {
					if late := now.Sub(at); late > bound && v < ver {
						t.Fatalf("seed %d step %d: %v version %d served %s after version %d was notified", seed, step, hit, v, late, ver)
					}
				}
			default:
				clk.advance(time.Duration(r.IntN(800)) * time.Millisecond)
			}
			audit(t, c)
		}
	}
}

// Concurrent changes and puts of one lookup: once the changes stop, a
// read taken after the last one is cached as current and nothing older
// is served; the bytes add up (run with -race).
func TestConcurrentInvalidateAndPut(t *testing.T) {
	c := journeycache.New(1<<20, 0, 2*time.Second)
	var vs versions
	k := journeycache.Key{Account: "a", Kind: "container", Value: "C"}
	var version atomic.Int64
	bodies := make([]journeycache.Body, 2001)
	for i := range bodies {
		bodies[i] = vs.body(t, i)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 2000 {
			version.Add(1)
			c.Invalidate(k)
		}
	})
	for range 4 {
		wg.Go(func() {
			for range 2000 {
				tk := c.Ticket()
				c.Put(k, "", bodies[version.Load()], tk)
				if b, hit := c.Get(k, ""); hit == journeycache.Current && int64(vs.of(b)) > version.Load() {
					t.Errorf("current version %d ahead of the source", vs.of(b))
				}
			}
		})
	}
	wg.Wait()
	if b, hit := c.Get(k, ""); hit == journeycache.Current && vs.of(b) != 2000 {
		t.Fatalf("current answer version %d after the last change (2000)", vs.of(b))
	}
	c.Put(k, "", bodies[2000], c.Ticket())
	if b, hit := c.Get(k, ""); hit != journeycache.Current || vs.of(b) != 2000 {
		t.Fatalf("after a read following the last change: %v version %d", hit, vs.of(b))
	}
	audit(t, c)
}

// cachedAt1 is a cache (answers superseded for 2 s at most) on a test clock,
// holding version 1 of one lookup's whole answer.
func cachedAt1(t *testing.T) (*journeycache.Cache, *clock, *versions, journeycache.Key) {
	c := journeycache.New(1<<20, 0, 2*time.Second)
	clk := newClock(c)
	vs := &versions{}
	k := journeycache.Key{Account: "a", Kind: "container", Value: "C"}
	c.Put(k, "", vs.body(t, 1), c.Ticket())
	return c, clk, vs, k
}
