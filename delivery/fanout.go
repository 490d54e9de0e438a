package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
)

// maxGroup bounds the events queued in one transaction.
const maxGroup = 256

// handle queues one event record for its subscriptions and returns once
// that is committed (the consume loop commits the offset after). Store
// errors are transient (the loop retries the record); a record that cannot
// be decoded is dead-lettered.
func (s *stage) handle(ctx context.Context, r *kgo.Record) error {
	if t := kafka.Header(r, schemas.HeaderType); t != "" && t != schemas.TypeEvent {
		return nil
	}
	var ev schemas.EventRecord
	if err := json.Unmarshal(r.Value, &ev); err != nil {
		return kafka.Permanent(fmt.Errorf("delivery: undecodable event record: %w", err))
	}
	if ev.EventID == "" || ev.ContentHash == "" || len(ev.Event) == 0 || ev.Event[0] != '{' || !json.Valid(ev.Event) {
		return kafka.Permanent(errors.New("delivery: event record without event id, content hash or event object"))
	}
	tid, err := uuid.Parse(ev.TrackingID)
	if err != nil {
		return nil // not a tracking of any subscription
	}
	if err := s.queue.add(ctx, queued{ev: ev, tracking: tid}); err != nil {
		return fmt.Errorf("delivery: queue event %s: %w", ev.EventID, err)
	}
	return nil
}

// queueWriter commits the events of concurrent handlers (one per assigned
// partition) together: whatever arrived while the previous transaction ran
// goes into the next, so a busy stage pays one commit for many events and
// an idle one waits for nobody.
type queueWriter struct {
	store *store
	log   *slog.Logger
	now   func() time.Time
	poke  func()
	reqs  chan *queueReq
}

type queueReq struct {
	q    queued
	done chan error
}

func newQueueWriter(st *store, log *slog.Logger, now func() time.Time, poke func()) *queueWriter {
	return &queueWriter{store: st, log: log, now: now, poke: poke, reqs: make(chan *queueReq, maxGroup)}
}

// add queues q and waits for its transaction. An error leaves the outcome
// unknown: the record is handled again, which queues nothing twice.
func (w *queueWriter) add(ctx context.Context, q queued) error {
	r := &queueReq{q: q, done: make(chan error, 1)}
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

// run writes groups until stop is closed and no request is left.
func (w *queueWriter) run(ctx context.Context, stop <-chan struct{}) {
	var next []*queueReq // held back: same tracking as one in the group
	for {
		group := next
		next = nil
		if len(group) == 0 {
			select {
			case r := <-w.reqs:
				group = append(group, r)
			case <-stop:
				return
			}
		}
		seen := map[uuid.UUID]bool{}
		for _, r := range group {
			seen[r.q.tracking] = true
		}
	gather:
		for len(group) < maxGroup {
			select {
			case r := <-w.reqs:
				// One event per tracking per transaction: a second one waits
				// for the first (same subscriptions, so the order matters).
				if seen[r.q.tracking] {
					next = append(next, r)
					continue
				}
				seen[r.q.tracking] = true
				group = append(group, r)
			default:
				break gather
			}
		}
		w.write(ctx, group)
	}
}

func (w *queueWriter) write(ctx context.Context, group []*queueReq) {
	evs := make([]queued, len(group))
	for i, r := range group {
		evs[i] = r.q
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	opened, err := w.store.enqueue(ctx, evs, w.now())
	cancel()
	if err != nil && len(group) > 1 {
		// One bad event must not fail the others: each on its own.
		for _, r := range group {
			w.write(ctx, []*queueReq{r})
		}
		return
	}
	if opened {
		w.poke()
	}
	for _, r := range group {
		r.done <- err
	}
}
