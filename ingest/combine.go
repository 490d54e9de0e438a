package ingest

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/auth"
)

// combiner joins the single-event pushes one carrier key makes at the same
// time into one carrier-raw record (CarrierRaw.Parts), so they share one
// produce, one record through the normaliser and one transaction slot
// instead of paying for each: while a carrier key's record is being
// produced, its next pushes gather, and go together as soon as that
// produce is acknowledged (after Linger more, if set). Every push is still
// answered only once the broker has the record that carries it. The
// normaliser parses and dead-letters each part on its own, so a combined
// push is processed as it would have been alone.
type combiner struct {
	producer Producer
	linger   time.Duration
	// maxParts and maxBytes bound one record: a full group goes and the
	// next gathers behind it.
	maxParts, maxBytes int
	build              func(g *pushGroup) (*kgo.Record, error)

	mu     sync.Mutex
	queues map[string]*pushQueue // by carrier key and environment
}

// pushQueue is one carrier key's pushes waiting for a produce; busy while
// its sender runs.
type pushQueue struct {
	groups []*pushGroup
	busy   bool
}

// pushGroup is the pushes of one record.
type pushGroup struct {
	key   auth.Key
	parts [][]byte
	size  int
	// first is the first push's context and requestID its request's id
	// (both travel with the record); at is when the last push joined.
	first     context.Context
	requestID string
	at        time.Time
	// recordID is the carrier-raw record's id, set before done closes.
	recordID string
	done     chan struct{}
	err      error
}

func newCombiner(p Producer, linger time.Duration, build func(g *pushGroup) (*kgo.Record, error)) *combiner {
	return &combiner{producer: p, linger: linger, maxParts: 500, maxBytes: MaxEventsBodyBytes / 2, build: build,
		queues: map[string]*pushQueue{}}
}

// errPushNotStored answers a push whose request ended before its record was
// acknowledged: it may still be stored (at least once), as with any
// produce cut short.
var errPushNotStored = errors.New("push not acknowledged before the request ended")

// push adds body (one event object, checked) to the next record of k and
// waits until that record is acknowledged or ctx ends. It returns the
// record's id and how many pushes it carries ("" and 0 when ctx ended first).
func (c *combiner) push(ctx context.Context, k auth.Key, requestID string, body []byte, now time.Time) (recordID string, parts int, err error) {
	key := k.ID + "/" + k.Account.Env
	c.mu.Lock()
	q := c.queues[key]
	if q == nil {
		q = &pushQueue{}
		c.queues[key] = q
	}
	var g *pushGroup
	if n := len(q.groups); n > 0 {
		if last := q.groups[n-1]; len(last.parts) < c.maxParts && last.size+len(body)+1 <= c.maxBytes {
			g = last
		}
	}
	if g == nil {
		g = &pushGroup{key: k, first: ctx, requestID: requestID, done: make(chan struct{})}
		q.groups = append(q.groups, g)
	}
	g.parts = append(g.parts, body)
	g.size += len(body) + 1
	g.at = now
	if !q.busy {
		q.busy = true
		go c.send(key, q)
	}
	c.mu.Unlock()
	select {
	case <-g.done:
		return g.recordID, len(g.parts), g.err
	case <-ctx.Done():
		return "", 0, errors.Join(errPushNotStored, ctx.Err())
	}
}

// send produces key's groups one after the other until none waits.
func (c *combiner) send(key string, q *pushQueue) {
	for {
		if c.linger > 0 {
			time.Sleep(c.linger) // gathering pushes: the linger is the point
		}
		c.mu.Lock()
		if len(q.groups) == 0 {
			q.busy = false
			delete(c.queues, key)
			c.mu.Unlock()
			return
		}
		g := q.groups[0]
		q.groups = q.groups[1:]
		c.mu.Unlock()
		g.err = c.produce(g)
		close(g.done)
	}
}

func (c *combiner) produce(g *pushGroup) error {
	rec, err := c.build(g)
	if err != nil {
		return err
	}
	// Not the first push's context: its request may end while the others
	// still wait for the record. The client's own timeouts bound it.
	return c.producer.ProduceSync(context.WithoutCancel(g.first), rec).FirstErr()
}
