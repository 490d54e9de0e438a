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
// instead of paying for each. A carrier key has up to inflight records
// being produced at once (one: see newCombiner); a push that finds them all
// under way gathers with the others that do into the next record, which
// goes as soon as one of them is acknowledged, after Linger more. A push
// that finds a slot free goes at once, alone, without lingering: at low
// rates nothing waits. Every push is still answered only once the broker
// has the record that carries it. The normaliser parses and dead-letters
// each part on its own, so a combined push is processed as it would have
// been alone.
//
// Order: concurrent pushes never had one; a push made after another was
// answered is in a later record, produced after the earlier one was
// acknowledged.
type combiner struct {
	producer Producer
	linger   time.Duration
	// inflight is how many records of one key are produced at once.
	inflight int
	// maxParts and maxBytes bound one record: a full group goes and the
	// next gathers behind it.
	maxParts, maxBytes int
	build              func(g *pushGroup) (*kgo.Record, error)

	mu     sync.Mutex
	queues map[string]*pushQueue // by carrier key and environment
}

// pushQueue is one carrier key's pushes waiting for a produce, and how
// many of its senders run (each produces one record at a time).
type pushQueue struct {
	groups  []*pushGroup
	senders int
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

// newCombiner has one record of a key produced at a time: on Apache Kafka
// (acks=all, three replicas) 128 clients pushing single events got 8,500 to
// 10,200 answers/s so, against 3,900 to 5,300 with five records at once
// (docs/performance.md, issue 32); on the embedded broker neither was ahead.
func newCombiner(p Producer, linger time.Duration, build func(g *pushGroup) (*kgo.Record, error)) *combiner {
	return &combiner{producer: p, linger: linger, inflight: 1, maxParts: 500, maxBytes: MaxEventsBodyBytes / 2, build: build,
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
	if q.senders < c.inflight {
		q.senders++
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

// send produces key's groups one after the other until none waits. The
// first goes at once; each later one, the key being busy, lingers first.
func (c *combiner) send(key string, q *pushQueue) {
	for first := true; ; first = false {
		if c.linger > 0 && !first {
			time.Sleep(c.linger) // gathering pushes: the linger is the point
		}
		c.mu.Lock()
		if len(q.groups) == 0 {
			if q.senders--; q.senders == 0 {
				delete(c.queues, key)
			}
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
