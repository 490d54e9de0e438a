package journeycache

import (
	"bytes"
	"container/list"
	"sync"
	"sync/atomic"
)

// identity is a Body's uncompressed prefix while Identities keeps it,
// shared by every copy of the Body.
type identity struct {
	json     atomic.Pointer[[]byte]
	inflated atomic.Bool // inflated once already: the next inflate keeps it
	el       *list.Element
}

// Identities keeps the uncompressed form of the bodies pulled without
// gzip most recently, bounded in bytes, so a client that does not accept
// gzip is answered from memory rather than by inflating the body on every
// request (issue 32: inflating made such pulls four times slower than
// gzip ones). A body is kept from its second uncompressed pull on, so a
// stream of one-off pulls costs no copies. The zero bound keeps nothing.
// Safe for concurrent use.
type Identities struct {
	maxBytes int64
	mu       sync.Mutex
	bytes    int64
	lru      list.List // of *identity, most recent first
}

// NewIdentities returns a keeper of at most maxBytes of uncompressed answers.
func NewIdentities(maxBytes int64) *Identities {
	return &Identities{maxBytes: maxBytes}
}

// Bytes is what it holds.
func (c *Identities) Bytes() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// JSON returns b's uncompressed prefix (the answer up to its per-request
// suffix): the kept bytes, shared (kept is true: the caller must not change
// them), or else b inflated into scratch (which it may grow).
func (c *Identities) JSON(b Body, scratch []byte) (prefix []byte, kept bool, err error) {
	id := b.ident
	if c != nil && id != nil { // a nil keeper keeps nothing: inflate
		if p := id.json.Load(); p != nil {
			c.touch(id)
			return *p, true, nil
		}
	}
	if prefix, err = b.AppendJSON(scratch[:0], nil); err != nil {
		return nil, false, err
	}
	if c != nil && id != nil && int64(len(prefix)) <= c.maxBytes/4 && id.inflated.Swap(true) {
		prefix = c.keep(id, prefix)
		return prefix, true, nil
	}
	return prefix, false, nil
}

func (c *Identities) touch(id *identity) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if id.el != nil {
		c.lru.MoveToFront(id.el)
	}
}

// keep stores a copy of prefix as id's and returns what id holds.
func (c *Identities) keep(id *identity, prefix []byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := id.json.Load(); p != nil { // another pull kept it meanwhile
		return *p
	}
	prefix = bytes.Clone(prefix)
	id.json.Store(&prefix)
	id.el = c.lru.PushFront(id)
	c.bytes += int64(len(prefix))
	for c.bytes > c.maxBytes {
		old := c.lru.Remove(c.lru.Back()).(*identity)
		c.bytes -= int64(len(*old.json.Load()))
		old.json.Store(nil)
		old.el = nil
		old.inflated.Store(false)
	}
	return prefix
}
