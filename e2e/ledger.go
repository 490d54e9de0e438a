package main

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"time"
)

// base is the eventDateTime of every container's event 0; event n happens n
// seconds later, so (equipmentReference, eventDateTime) names an event
// whatever id the pipeline gives it.
var base = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func eventTime(seq int) string {
	return base.Add(time.Duration(seq) * time.Second).Format(time.RFC3339)
}

func eventSeq(s string) (int, bool) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return 0, false
	}
	d := t.Sub(base)
	if d < 0 || d%time.Second != 0 {
		return 0, false
	}
	return int(d / time.Second), true
}

type eventKey struct {
	container string
	seq       int
}

type sentEvent struct {
	scheduled time.Time // when the open model wanted it sent
	sentAt    time.Time // when its request started
	ackedAt   time.Time // when its request was answered 200; zero if not
	received  time.Time // first receipt
	recvOrder uint64    // position of the first receipt among all events received (payload order within a delivery)
	copies    int
}

// ledger balances what carriers sent and what the subscriber received.
type ledger struct {
	mu           sync.Mutex
	events       map[eventKey]*sentEvent
	unknown      int // received events the generator never sent
	misaddressed int // events delivered under another container's references
	refused      int // events in requests answered other than 200
	sendErrors   map[string]int
	receipts     uint64
}

func newLedger() *ledger {
	return &ledger{events: map[eventKey]*sentEvent{}, sendErrors: map[string]int{}}
}

func (l *ledger) sent(keys []eventKey, scheduled, at time.Time) {
	l.mu.Lock()
	for _, k := range keys {
		l.events[k] = &sentEvent{scheduled: scheduled, sentAt: at}
	}
	l.mu.Unlock()
}

func (l *ledger) acked(keys []eventKey, ok bool, why string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		if ok {
			l.events[k].ackedAt = at
		}
	}
	if !ok {
		l.refused += len(keys)
		l.sendErrors[why] += len(keys)
	}
}

// received records one event of a delivery; refContainer is the delivery's
// references.equipmentNumber.
func (l *ledger) received(container, eventDateTime, refContainer string, at time.Time) {
	seq, ok := eventSeq(eventDateTime)
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.events[eventKey{container, seq}]
	if !ok || e == nil {
		l.unknown++
		return
	}
	if refContainer != container {
		l.misaddressed++
	}
	e.copies++
	if e.copies > 1 {
		return // a duplicate (at least once): not an order question
	}
	e.received = at
	l.receipts++
	e.recvOrder = l.receipts
}

// outstanding counts acknowledged events scheduled since from and not yet
// received.
func (l *ledger) outstanding(from time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.events {
		if !e.scheduled.Before(from) && !e.ackedAt.IsZero() && e.copies == 0 {
			n++
		}
	}
	return n
}

// summary is the ledger's verdict over the events scheduled at or after from.
type summary struct {
	Sent, Acked, Refused, Delivered, Missing, Duplicates, OrderErrors, Unknown, Misaddressed int
	Throughput                                                                               float64 // delivered per second, first schedule to last receipt
	P50, P99, P999, Max                                                                      time.Duration
	SendErrors                                                                               map[string]int
}

// summary balances the events scheduled since from (a warm-up before it is
// left out).
func (l *ledger) summary(from time.Time) summary {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := summary{OrderErrors: l.orderViolations(from), Unknown: l.unknown, Misaddressed: l.misaddressed, Refused: l.refused, SendErrors: l.sendErrors}
	var lat []time.Duration
	var first, last time.Time
	for _, e := range l.events {
		if e.scheduled.Before(from) {
			continue
		}
		s.Sent++
		acked := !e.ackedAt.IsZero()
		if acked {
			s.Acked++
		}
		if e.copies > 0 {
			s.Delivered++
			s.Duplicates += e.copies - 1
			lat = append(lat, e.received.Sub(e.scheduled))
			if first.IsZero() || e.scheduled.Before(first) {
				first = e.scheduled
			}
			if e.received.After(last) {
				last = e.received
			}
		} else if acked {
			s.Missing++
		}
	}
	if len(lat) > 0 {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
		s.P50, s.P99, s.P999, s.Max = q(0.50), q(0.99), q(0.999), lat[len(lat)-1]
		if d := last.Sub(first).Seconds(); d > 0 {
			s.Throughput = float64(s.Delivered) / d
		}
	}
	return s
}

// recovery is how long after from the last event delayed by more than slow
// arrived: the time the pipeline took to deliver at normal latency again
// after a fault at from (0 if no event was delayed that much).
func (l *ledger) recovery(from time.Time, slow time.Duration) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var last time.Time
	for _, e := range l.events {
		if e.copies == 0 || e.received.Before(from) || e.received.Sub(e.scheduled) <= slow {
			continue
		}
		if e.received.After(last) {
			last = e.received
		}
	}
	if last.IsZero() {
		return 0
	}
	return last.Sub(from)
}

func (s summary) balanced() bool { return s.Missing == 0 && s.Unknown == 0 && s.Misaddressed == 0 }

func (s summary) print(w io.Writer, label string) {
	verdict := "balanced"
	if !s.balanced() {
		verdict = "NOT BALANCED"
	}
	fmt.Fprintf(w, "%-28s sent %d  acknowledged %d  refused %d  delivered %d  missing %d  duplicates %d  order violations %d  unknown %d  misaddressed %d  → %s\n",
		label, s.Sent, s.Acked, s.Refused, s.Delivered, s.Missing, s.Duplicates, s.OrderErrors, s.Unknown, s.Misaddressed, verdict)
	fmt.Fprintf(w, "%-28s throughput %.0f events/s  latency from scheduled send to receipt p50 %s  p99 %s  p99.9 %s  max %s\n",
		"", s.Throughput, ms(s.P50), ms(s.P99), ms(s.P999), ms(s.Max))
	for why, n := range s.SendErrors {
		fmt.Fprintf(w, "%-28s refused: %d events: %s\n", "", n, why)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }

// orderViolations counts events received before an event of the same
// container that had been acknowledged before they were even sent: the
// pipeline promises per-subscription order for what it accepted in order.
// (Events of one container in flight at the same time have no order.)
func (l *ledger) orderViolations(from time.Time) int {
	byContainer := map[string][]*sentEvent{}
	for k, e := range l.events {
		if e.copies > 0 && !e.scheduled.Before(from) {
			byContainer[k.container] = append(byContainer[k.container], e)
		}
	}
	n := 0
	for _, evs := range byContainer {
		sort.Slice(evs, func(i, j int) bool { return evs[i].recvOrder < evs[j].recvOrder })
		// Walking back from the last receipt, minAck is the earliest
		// acknowledgement among the events received after evs[i].
		var minAck time.Time
		for i := len(evs) - 1; i >= 0; i-- {
			e := evs[i]
			if !minAck.IsZero() && minAck.Before(e.sentAt) {
				n++
			}
			if !e.ackedAt.IsZero() && (minAck.IsZero() || e.ackedAt.Before(minAck)) {
				minAck = e.ackedAt
			}
		}
	}
	return n
}

// receivedAll reports whether every key has been received at least once.
func (l *ledger) receivedAll(keys []eventKey) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		if e := l.events[k]; e == nil || e.copies == 0 {
			return false
		}
	}
	return true
}

// timeline prints, per window of schedule time, how many events were
// scheduled and their latency p99 and max: where a fault paused the pipeline.
func (l *ledger) timeline(w io.Writer, from time.Time, window time.Duration) {
	l.mu.Lock()
	buckets := map[int][]time.Duration{}
	last := 0
	for _, e := range l.events {
		if e.scheduled.Before(from) || e.copies == 0 {
			continue
		}
		b := int(e.scheduled.Sub(from) / window)
		buckets[b] = append(buckets[b], e.received.Sub(e.scheduled))
		last = max(last, b)
	}
	l.mu.Unlock()
	fmt.Fprintf(w, "latency by time of schedule (window %s):\n", window)
	for b := 0; b <= last; b++ {
		lat := buckets[b]
		if len(lat) == 0 {
			continue
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		fmt.Fprintf(w, "  %5.0fs  %6d events  p50 %9s  p99 %9s  max %9s\n", (time.Duration(b) * window).Seconds(), len(lat),
			ms(lat[len(lat)/2]), ms(lat[min(len(lat)-1, len(lat)*99/100)]), ms(lat[len(lat)-1]))
	}
}
