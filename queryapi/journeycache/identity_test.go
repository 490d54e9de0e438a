package journeycache_test

import (
	"bytes"
	"sync"
	"testing"
	"unsafe"

	"github.com/contrack/contrack/queryapi/journeycache"
)

// A body pulled without gzip is inflated on its first pull and kept from
// its second, then served from memory (the same bytes, not inflated
// again); every answer is the body's uncompressed prefix.
func TestIdentitiesKeepBodiesPulledTwice(t *testing.T) {
	ids := journeycache.NewIdentities(1 << 20)
	b := body(t, 5000)
	want, err := b.AppendJSON(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	scratch := make([]byte, 0, 64)
	first, kept, err := ids.JSON(b, scratch)
	if err != nil || kept || !bytes.Equal(first, want) {
		t.Fatalf("first pull: kept %v, err %v, same %v", kept, err, bytes.Equal(first, want))
	}
	if ids.Bytes() != 0 {
		t.Fatalf("kept %d bytes after one pull", ids.Bytes())
	}
	second, kept, err := ids.JSON(b, scratch)
	if err != nil || !kept || !bytes.Equal(second, want) {
		t.Fatalf("second pull: kept %v, err %v, same %v", kept, err, bytes.Equal(second, want))
	}
	if ids.Bytes() != int64(len(want)) {
		t.Fatalf("keeps %d bytes, the body is %d", ids.Bytes(), len(want))
	}
	copyOfB := b // copies of a Body share what is kept
	third, kept, err := ids.JSON(copyOfB, nil)
	if err != nil || !kept || unsafe.SliceData(third) != unsafe.SliceData(second) {
		t.Fatalf("third pull not served from what was kept: kept %v, err %v", kept, err)
	}
}

// The bound holds: the least recently pulled bodies are dropped and, pulled
// again, inflated again, their answers unchanged; a zero bound keeps nothing.
func TestIdentitiesBound(t *testing.T) {
	const size = 3000
	prefixLen := func(b journeycache.Body) int {
		p, _ := b.AppendJSON(nil, nil)
		return len(p)
	}
	bodies := make([]journeycache.Body, 20)
	for i := range bodies {
		bodies[i] = body(t, size+i)
	}
	bound := int64(5 * prefixLen(bodies[0]))
	ids := journeycache.NewIdentities(bound)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 5 {
				for i := range bodies {
					b := bodies[(i+w+round)%len(bodies)]
					want, _ := b.AppendJSON(nil, nil)
					got, _, err := ids.JSON(b, nil)
					if err != nil || !bytes.Equal(got, want) {
						t.Errorf("body %d: wrong answer (err %v)", i, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if got := ids.Bytes(); got > bound || got == 0 {
		t.Fatalf("keeps %d bytes, bound %d", got, bound)
	}
	// A body of its own: what a keeper keeps lives with the body, and the
	// one above may still hold bodies[0].
	none, fresh := journeycache.NewIdentities(0), body(t, size)
	for range 3 {
		if _, kept, _ := none.JSON(fresh, nil); kept || none.Bytes() != 0 {
			t.Fatal("a zero bound kept a body")
		}
	}
	var disabled *journeycache.Identities
	if got, kept, err := disabled.JSON(bodies[1], nil); kept || err != nil || len(got) != prefixLen(bodies[1]) { // kept above, maybe
		t.Fatal("a nil keeper does not inflate")
	}
}
