package journeycache_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/queryapi/journeycache"
)

// body is an answer of n bytes of results that do not compress.
func body(t testing.TB, n int) journeycache.Body {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(n), 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(r.IntN(26))
	}
	out, err := journeycache.Encode([]byte(`["`+string(b)+`"]`), 1)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A read that started before an invalidation of its key is not cached: it
// may hold the rows from before the change.
func TestReadRacingAnInvalidationIsNotCached(t *testing.T) {
	c := journeycache.New(1<<20, 0, 0)
	k := journeycache.Key{Account: "a", Kind: "container", Value: "MSKU9070323"}
	t1 := c.Ticket()
	c.Invalidate(k)
	if raced := c.Put(k, "", body(t, 10), t1); !raced {
		t.Error("Put of a read older than the invalidation did not report the race: nobody would read it again")
	}
	if _, hit := c.Get(k, ""); hit.Served() {
		t.Fatal("a read older than the invalidation was cached")
	}
	if raced := c.Put(k, "", body(t, 10), c.Ticket()); raced {
		t.Error("Put of a read after the invalidation reported a race")
	}
	if _, hit := c.Get(k, ""); !hit.Served() {
		t.Fatal("a read after the invalidation was not cached")
	}
	// Another key's invalidation does not hold this one back.
	t2 := c.Ticket()
	c.Invalidate(journeycache.Key{Account: "b", Kind: "container", Value: "MSKU9070323"})
	if raced := c.Put(k, "", body(t, 20), t2); raced {
		t.Error("an unrelated invalidation reported a race")
	}
	if b, hit := c.Get(k, ""); hit != journeycache.Current || b.ETag != body(t, 20).ETag {
		t.Fatal("an unrelated invalidation blocked the put")
	}
	t3 := c.Ticket()
	c.Flush()
	c.Put(k, "", body(t, 10), t3)
	if _, hit := c.Get(k, ""); hit.Served() || c.Bytes() != 0 {
		t.Fatal("a read older than a flush was cached")
	}
}

// The cache never holds more than its bound: the least recently used go.
func TestBoundedInBytes(t *testing.T) {
	c := journeycache.New(100_000, 0, 0)
	for i := range 100 {
		k := journeycache.Key{Account: "a", Kind: "container", Value: strings.Repeat("C", i+1)}
		c.Put(k, "", body(t, 5_000), c.Ticket())
		if c.Bytes() > 100_000 {
			t.Fatalf("%d bytes after %d puts", c.Bytes(), i+1)
		}
	}
	if _, hit := c.Get(journeycache.Key{Account: "a", Kind: "container", Value: "C"}, ""); hit.Served() {
		t.Fatal("the oldest entry survived")
	}
	if _, hit := c.Get(journeycache.Key{Account: "a", Kind: "container", Value: strings.Repeat("C", 100)}, ""); !hit.Served() {
		t.Fatal("the newest entry is gone")
	}
	disabled := journeycache.New(0, 0, 0)
	disabled.Put(journeycache.Key{}, "", body(t, 1), disabled.Ticket())
	if disabled.Bytes() != 0 {
		t.Fatal("a zero bound cached")
	}
}

// An answer comes back byte for byte, gzip (one member a standard reader
// takes) or plain, with the per-request suffix after the cached results.
func TestBodyRoundTrip(t *testing.T) {
	results := `[{"equipmentNumber":"MSKU9070323","sourceEvents":[` + strings.Repeat(`{"eventID":"e","eventType":"EQUIPMENT"},`, 500) + `{}]}]`
	b, err := journeycache.Encode([]byte(results), 1)
	if err != nil {
		t.Fatal(err)
	}
	suffix := []byte(`"2026-11-23T12:00:00.000Z"}` + "\n")
	want := `{"results":` + results + `,"count":1,"dateOfRequest":` + string(suffix)
	plain, err := b.AppendJSON([]byte("x"), suffix)
	if err != nil || string(plain) != "x"+want {
		t.Fatalf("plain: %v\n%.200s", err, plain)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b.AppendGzip(nil, suffix)))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	got, err := io.ReadAll(zr) // checks the CRC and the length
	if err != nil || string(got) != want {
		t.Fatalf("gzip: %v\n%.200s", err, got)
	}
	if b.Size() > int64(len(results))/5 {
		t.Fatalf("%d bytes kept for %d of results", b.Size(), len(results))
	}
	other, _ := journeycache.Encode([]byte(`[]`), 0)
	if b.ETag == other.ETag || !strings.HasPrefix(b.ETag, `W/"`) {
		t.Fatalf("tags %s %s", b.ETag, other.ETag)
	}
}

// Answers of one lookup narrowed to different containers are kept side by
// side; a change drops them all and names them to be read again.
func TestFiltersOfALookup(t *testing.T) {
	c := journeycache.New(1<<20, 0, 0)
	k := journeycache.Key{Account: "a", Kind: "booking", Value: "B1"}
	c.Put(k, "", body(t, 10), c.Ticket())
	c.Put(k, "MSKU9070323", body(t, 11), c.Ticket())
	if b, hit := c.Get(k, "MSKU9070323"); hit != journeycache.Current || b.ETag != body(t, 11).ETag {
		t.Fatal("the narrowed answer is missing")
	}
	if b, hit := c.Get(k, ""); hit != journeycache.Current || b.ETag != body(t, 10).ETag {
		t.Fatal("the whole answer is missing")
	}
	if _, hit := c.Get(k, "OTHER"); hit.Served() {
		t.Fatal("an answer for a filter never read")
	}
	fs := c.Invalidate(k)
	slices.Sort(fs)
	if !slices.Equal(fs, []string{"", "MSKU9070323"}) || c.Len() != 0 || c.Bytes() != 0 {
		t.Fatalf("invalidated %q, %d left, %d bytes", fs, c.Len(), c.Bytes())
	}
}

// An answer older than the maximum age is still served, marked stale.
func TestStaleAfterMaxAge(t *testing.T) {
	c := journeycache.New(1<<20, time.Minute, 0)
	k := journeycache.Key{Account: "a", Kind: "container", Value: "C"}
	old := c.Ticket()
	c.Put(k, "C", body(t, 10), old)
	if _, hit := c.Get(k, "C"); hit != journeycache.Current {
		t.Fatalf("fresh: %v", hit)
	}
	journeycache.SetNow(c, func() time.Time { return time.Now().Add(2 * time.Minute) })
	if _, hit := c.Get(k, "C"); hit != journeycache.Stale {
		t.Fatalf("old: %v", hit)
	}
	c.Put(k, "C", body(t, 12), c.Ticket())
	if _, hit := c.Get(k, "C"); hit != journeycache.Current {
		t.Fatalf("read again: %v", hit)
	}
}

// TestMissesOfOneAccountDoNotEvictAnothersAnswers: an account asking for
// random identifiers (every answer empty) fills only its own miss budget;
// another account's answers all stay cached.
func TestMissesOfOneAccountDoNotEvictAnothersAnswers(t *testing.T) {
	c := journeycache.New(4<<20, 0, 0)
	c.SetMissBudget(100)
	var keys []journeycache.Key
	for i := range 200 {
		k := journeycache.Key{Account: "quiet", Kind: "container", Value: fmt.Sprintf("MSKU%07d", i)}
		keys = append(keys, k)
		c.Put(k, "", body(t, 2000), c.Ticket())
	}
	empty, err := journeycache.Encode([]byte(`[]`), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100_000 {
		k := journeycache.Key{Account: "noisy", Kind: "booking", Value: fmt.Sprintf("RANDOM%012d", i)}
		c.Put(k, "", empty, c.Ticket())
		if i%1000 == 0 {
			// The newest misses are served: the budget keeps the recent ones.
			if _, hit := c.Get(k, ""); hit != journeycache.Current {
				t.Fatalf("the noisy account's newest miss is not cached: %v", hit)
			}
		}
	}
	for _, k := range keys {
		if _, hit := c.Get(k, ""); hit != journeycache.Current {
			t.Fatalf("%s of the quiet account was evicted by another account's misses (%v)", k.Value, hit)
		}
	}
	if n := c.Misses("noisy"); n != 100 {
		t.Fatalf("the noisy account holds %d misses, want its budget of 100", n)
	}
	// The byte share binds too: a cache of 64 KiB lets an account hold
	// misses worth 1 KiB.
	small := journeycache.New(64<<10, 0, 0)
	quiet := journeycache.Key{Account: "quiet", Kind: "container", Value: "MSKU9070323"}
	small.Put(quiet, "", body(t, 8000), small.Ticket())
	for i := range 10_000 {
		small.Put(journeycache.Key{Account: "noisy", Kind: "bill", Value: fmt.Sprintf("B%d", i)}, "", empty, small.Ticket())
	}
	if _, hit := small.Get(quiet, ""); hit != journeycache.Current {
		t.Fatalf("misses evicted the quiet account's answer in a small cache (%v)", hit)
	}
	if n := small.Misses("noisy"); n < 1 || n > 10 {
		t.Fatalf("the noisy account holds %d misses in a 64 KiB cache", n)
	}
	// An answer that gains results stops counting as a miss.
	k := journeycache.Key{Account: "noisy", Kind: "container", Value: "MSKU1234565"}
	c.Put(k, "", empty, c.Ticket())
	c.Put(k, "", body(t, 100), c.Ticket())
	if n := c.Misses("noisy"); n != 99 {
		t.Fatalf("after an answer gained results the account holds %d misses", n)
	}
}
