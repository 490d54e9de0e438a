package delivery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/tracing"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/eventfilter"
)

// maxGroup bounds the events queued in one transaction.
const maxGroup = 256

// handle queues one event record for its subscriptions and returns once
// that is committed (the consume loop commits the offset after). Store
// errors are transient (the loop retries the record); a record that cannot
// be decoded is dead-lettered.
func (s *stage) handle(ctx context.Context, r *kgo.Record) error {
	return s.handleRun(ctx, []*kgo.Record{r})
}

// handleRun queues a run of one tracking's event records (those that
// waited behind the one before) in one queue transaction, in order: a busy
// tracking is not held to an event per transaction. An undecodable record
// fails the run permanently, and the runtime hands its records to handle
// one at a time (which dead-letters that one).
func (s *stage) handleRun(ctx context.Context, run []*kgo.Record) (err error) {
	spans := make([]trace.Span, 0, len(run))
	defer func() {
		for _, span := range spans {
			tracing.End(span, err)
		}
	}()
	qs := make([]queued, 0, len(run))
	for _, r := range run {
		if !isEvent(r) {
			continue
		}
		_, span := fanOutSpan(ctx, r)
		spans = append(spans, span)
		q, ok, err := queuedOf(r, span)
		if err != nil {
			return err
		}
		if ok {
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 {
		return nil
	}
	if err := s.queue.add(ctx, qs...); err != nil {
		if len(qs) == 1 {
			return fmt.Errorf("delivery: queue event %s: %w", qs[0].ev.EventID, err)
		}
		return fmt.Errorf("delivery: queue %d events of tracking %s: %w", len(qs), qs[0].tracking, err)
	}
	return nil
}

// isEvent says r is an event record: a version of an event, or its
// retraction (queued like a version, see queueSQL). A 3.0-only event
// (schemas.TypeEventTNT3) is queued for TNT_3.0.0 webhooks only.
func isEvent(r *kgo.Record) bool {
	t := kafka.Header(r, schemas.HeaderType)
	return t == "" || t == schemas.TypeEvent || t == schemas.TypeEventRetracted || t == schemas.TypeAlert || t == schemas.TypeEventTNT3
}

// fanOutSpan starts the span of r's fan-out, continuing the trace the
// normaliser put on the record; the attempts delivering the event are its
// children (see trace.go).
func fanOutSpan(ctx context.Context, r *kgo.Record) (context.Context, trace.Span) {
	return tracing.Tracer().Start(tracing.Extract(ctx, r), "delivery fan-out", trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.String("messaging.destination.name", r.Topic),
			attribute.Int("messaging.destination.partition.id", int(r.Partition)), attribute.Int64("messaging.kafka.offset", r.Offset)))
}

// queuedOf decodes r into what to queue, carrying span's context (which
// whichever process sends an attempt continues); ok is false for an event
// of no tracking. An invalid record is a permanent error.
func queuedOf(r *kgo.Record, span trace.Span) (q queued, ok bool, err error) {
	var ev schemas.EventRecord
	if err := schemas.DecodeEventRecord(r.Value, &ev); err != nil {
		return q, false, kafka.Permanent(fmt.Errorf("delivery: undecodable event record: %w", err))
	}
	// Decoding checked the whole record, event included, is valid JSON.
	if ev.EventID == "" || ev.ContentHash == "" || len(ev.Event) == 0 || ev.Event[0] != '{' {
		return q, false, kafka.Permanent(errors.New("delivery: event record without event id, content hash or event object"))
	}
	tid, err := uuid.Parse(ev.TrackingID)
	if err != nil {
		return q, false, nil // not a tracking of any subscription
	}
	return queued{ev: ev, tracking: tid, traceparent: tracing.Traceparent(span.SpanContext()), filter: eventfilter.Of(&ev),
		historyFor: kafka.Header(r, schemas.HeaderHistoryFor), historyExcept: kafka.Header(r, schemas.HeaderHistoryExcept)}, true, nil
}

// queueWriter commits the events of concurrent handlers (one per tracking
// in flight, with one event or a run of them) together: whatever arrived
// while the previous transactions ran goes into the next, so a busy stage
// pays one commit for many events and an idle one waits for nobody. Up to
// queueWriters transactions run at once (one waits on its commit's disk
// flush while the next is built), never two with the same tracking, so a
// tracking's events are queued in the order they were added.
type queueWriter struct {
	store *store
	d     *dispatcher // sends the deliveries leased at birth
	log   *slog.Logger
	now   func() time.Time
	reqs  chan *queueReq
	// enqueue is store.enqueue; a test makes it report an error after
	// committing, as a lost answer does.
	enqueue func(ctx context.Context, evs []queued, g leaseGrant, now time.Time) ([]claimed, []string, error)
}

// queueWriters bounds the queue transactions in flight.
const queueWriters = 2

// queueReq is a handler's events (a tracking's, in order) waiting for a
// transaction.
type queueReq struct {
	qs   []queued
	done chan error
}

func newQueueWriter(st *store, d *dispatcher, log *slog.Logger, now func() time.Time) *queueWriter {
	return &queueWriter{store: st, d: d, log: log, now: now, reqs: make(chan *queueReq, maxGroup), enqueue: st.enqueue}
}

// add queues qs (in order, in one transaction) and waits for it. An error
// leaves the outcome unknown: the records are handled again, which queues
// nothing twice.
func (w *queueWriter) add(ctx context.Context, qs ...queued) error {
	r := &queueReq{qs: qs, done: make(chan error, 1)}
	select {
	case w.reqs <- r:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run writes groups until stop is closed (the handlers are done) and no
// request is left.
func (w *queueWriter) run(ctx context.Context, stop <-chan struct{}) {
	var (
		mu    sync.Mutex
		busy  = map[uuid.UUID]bool{} // trackings in a transaction now
		held  []*queueReq            // waiting for their tracking to be free
		slots = make(chan struct{}, queueWriters)
		freed = make(chan struct{}, 1) // a transaction ended
		wg    sync.WaitGroup
	)
	defer wg.Wait()
	for {
		slots <- struct{}{} // a writer is free
		var group []*queueReq
		events := 0
		inGroup := map[uuid.UUID]bool{}
		// take adds r to the group, or holds it while one of its trackings
		// is in a transaction or already in the group, or the group has no
		// room for its events; it reports whether the group has room for
		// more. mu is held.
		take := func(r *queueReq) bool {
			blocked := len(group) > 0 && events+len(r.qs) > maxGroup
			for _, q := range r.qs {
				blocked = blocked || busy[q.tracking] || inGroup[q.tracking]
			}
			if blocked {
				held = append(held, r)
			} else {
				for _, q := range r.qs {
					inGroup[q.tracking] = true
				}
				group = append(group, r)
				events += len(r.qs)
			}
			return events < maxGroup
		}
		retake := func() {
			mu.Lock()
			waiting := held
			held = nil
			for _, r := range waiting {
				take(r)
			}
			mu.Unlock()
		}
		retake()
		for len(group) == 0 {
			select {
			case r := <-w.reqs:
				mu.Lock()
				take(r)
				mu.Unlock()
			case <-freed:
				retake()
			case <-stop:
				mu.Lock()
				idle := len(held) == 0 && len(busy) == 0
				mu.Unlock()
				if idle && len(w.reqs) == 0 {
					return
				}
				if !idle {
					<-freed // wait for a transaction in flight, then look again
					retake()
				}
			}
		}
		mu.Lock()
	gather:
		for events < maxGroup {
			select {
			case r := <-w.reqs:
				if !take(r) {
					break gather
				}
			default:
				break gather
			}
		}
		for t := range inGroup {
			busy[t] = true
		}
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.write(ctx, group)
			mu.Lock()
			for t := range inGroup {
				delete(busy, t)
			}
			mu.Unlock()
			<-slots
			signal(freed)
		}()
	}
}

func (w *queueWriter) write(ctx context.Context, group []*queueReq) {
	var evs []queued
	for _, r := range group {
		evs = append(evs, r.qs...)
	}
	// Most events open one delivery; a tracking shared by accounts opens
	// more, which beyond the grant are claimed as usual.
	g := w.d.grant(2 * len(group))
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	leased, unleased, err := w.enqueue(tctx, evs, g, w.now())
	cancel()
	if err != nil {
		w.d.orphan(g)
	}
	if rejected := w.d.handoff(g, leased, unleased); len(rejected) > 0 {
		w.d.release(ctx, rejected)
		signal(w.d.poke)
	}
	if err != nil && len(group) > 1 {
		// One bad event must not fail the others: each on its own.
		for _, r := range group {
			w.write(ctx, []*queueReq{r})
		}
		return
	}
	for _, r := range group {
		r.done <- err
	}
}
