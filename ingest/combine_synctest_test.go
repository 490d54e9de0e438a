package ingest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/auth"
)

// gatedProducer acknowledges records in memory, each produce waiting until
// gate is closed, as a slow broker round trip would. It notes when each
// produce started and how many pushes its record carried.
type gatedProducer struct {
	gate chan struct{}

	mu      sync.Mutex
	started []time.Time
	parts   []int
}

func (p *gatedProducer) ProduceSync(_ context.Context, rs ...*kgo.Record) kgo.ProduceResults {
	p.mu.Lock()
	p.started = append(p.started, time.Now())
	p.parts = append(p.parts, len(rs[0].Headers))
	p.mu.Unlock()
	<-p.gate
	out := make(kgo.ProduceResults, len(rs))
	for i, r := range rs {
		out[i] = kgo.ProduceResult{Record: r}
	}
	return out
}

func (p *gatedProducer) produces() ([]time.Time, []int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Time(nil), p.started...), append([]int(nil), p.parts...)
}

// buildParts makes a record with one header per push, so the producer
// can tell how many pushes a record carries.
func buildParts(g *pushGroup) (*kgo.Record, error) {
	r := &kgo.Record{}
	for i := range g.parts {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: fmt.Sprint("part-", i)})
	}
	return r, nil
}

// The linger is counted from the acknowledgement of a busy key's record:
// the pushes that gathered meanwhile go exactly Linger after it, in one
// record, however long the broker took. Run in a synctest bubble, so the
// times are the combiner's own, not the scheduler's.
func TestCombinerLingerFollowsTheAcknowledgement(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const linger, roundTrip = 50 * time.Millisecond, 300 * time.Millisecond
		prod := &gatedProducer{gate: make(chan struct{})}
		c := newCombiner(prod, linger, buildParts)
		key := auth.Key{ID: "key-1", SCAC: "MAEU", Account: auth.Account{Env: "sandbox"}}
		start := time.Now()
		var wg sync.WaitGroup
		answered := make([]time.Time, 4)
		push := func(i int) {
			wg.Go(func() {
				if _, _, err := c.push(context.Background(), key, "r", []byte(`{}`), time.Now()); err != nil {
					t.Error(err)
				}
				answered[i] = time.Now()
			})
		}
		push(0)
		synctest.Wait() // the first push's produce is under way, held
		for i := 1; i < 4; i++ {
			push(i)
		}
		synctest.Wait() // the other three wait behind it
		time.Sleep(roundTrip)
		close(prod.gate)
		wg.Wait()
		time.Sleep(linger) // the sender's last linger, after which it finds nothing and ends
		synctest.Wait()

		started, parts := prod.produces()
		if len(started) != 2 || parts[0] != 1 || parts[1] != 3 {
			t.Fatalf("records of %v pushes, want [1 3]", parts)
		}
		if d := started[0].Sub(start); d != 0 {
			t.Fatalf("the first push went after %s, want at once", d)
		}
		if d := started[1].Sub(start); d != roundTrip+linger {
			t.Fatalf("the gathered record went after %s, want the round trip %s and the linger %s", d, roundTrip, linger)
		}
		if d := answered[0].Sub(start); d != roundTrip {
			t.Fatalf("the first push answered after %s, want at its acknowledgement %s", d, roundTrip)
		}
		for i := 1; i < 4; i++ {
			if d := answered[i].Sub(start); d != roundTrip+linger {
				t.Fatalf("gathered push %d answered after %s, want %s", i, d, roundTrip+linger)
			}
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.queues) != 0 {
			t.Fatalf("queues left after the senders ended: %v", c.queues)
		}
	})
}

// A push to an idle key (none produced within the linger) goes at once:
// at low rates nothing waits, however long the linger.
func TestCombinerIdleKeyDoesNotLinger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const linger = time.Second
		prod := &gatedProducer{gate: make(chan struct{})}
		close(prod.gate)
		c := newCombiner(prod, linger, buildParts)
		key := auth.Key{ID: "key-1", SCAC: "MAEU", Account: auth.Account{Env: "sandbox"}}
		for i := range 3 {
			pushed := time.Now()
			if _, parts, err := c.push(context.Background(), key, "r", []byte(`{}`), pushed); err != nil || parts != 1 {
				t.Fatalf("push %d to an idle key: %d parts, %v", i, parts, err)
			}
			if d := time.Since(pushed); d != 0 {
				t.Fatalf("push %d to an idle key answered after %s, want at once", i, d)
			}
			time.Sleep(2 * linger) // quiet traffic: the next push comes after the key went idle
		}
		if started, _ := prod.produces(); len(started) != 3 {
			t.Fatalf("%d produces for 3 pushes, want 3", len(started))
		}
	})
}
