package queryapi

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/queryapi/journeycache"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/journeys"
)

// follow is the consume loop of journey changes, from the topic's end at
// the start: each drops the lookup's cached answers and has them read
// again; every GenerationCheck it looks for a rebuilt generation.
func (j *Journeys) follow(ctx context.Context, brokers []string, ns schemas.Namespace, started func()) error {
	next := time.Now().Add(j.cfg.GenerationCheck)
	router := kafka.RouterOr(j.router, kafka.RouterConfig{Brokers: brokers, Namespace: ns, Log: j.log, Metrics: j.metrics, Loops: j.loops})
	return router.Follow(ctx, JourneysRoute, kafka.FollowConfig{
		Log: j.log, FromEnd: true, PollTimeout: time.Second, Started: started,
	}, func(ctx context.Context, b *kafka.Batch) error {
		for _, r := range b.Records {
			var c schemas.JourneyChanged
			if err := json.Unmarshal(r.Value, &c); err != nil {
				b.Skip(r, fmt.Errorf("malformed journey change: %w", err))
				continue
			}
			j.changed(journeycache.Key{Account: c.AccountID, Kind: c.IdentifierKind, Value: c.Identifier})
		}
		if time.Now().After(next) {
			next = time.Now().Add(j.cfg.GenerationCheck)
			if g, err := journeys.CurrentGeneration(ctx, j.ch); err == nil && g != j.gen.Load() {
				j.gen.Store(g)
				j.cache.Flush()
				j.log.Info("journeys: reading a rebuilt generation", "generation", g)
			}
		}
		return nil
	})
}

// changed supersedes k's answers and, if it had any, has them read again.
func (j *Journeys) changed(k journeycache.Key) {
	if fs := j.cache.Invalidate(k); len(fs) > 0 {
		j.queueRefresh(k)
	}
}

// queueRefresh has k's cached answers read again unless that is already
// queued (a read in flight does not count: it may predate a change).
func (j *Journeys) queueRefresh(k journeycache.Key) {
	j.queuedMu.Lock()
	defer j.queuedMu.Unlock()
	if _, ok := j.queued[k]; ok {
		return
	}
	select {
	case j.refresh <- k:
		j.queued[k] = struct{}{}
	default: // behind: the next pull of it queues it again, or reads it
	}
}

// refresher reads queued lookups again, in batches of one query.
func (j *Journeys) refresher(ctx context.Context) {
	const batch = 128
	for {
		var keys []journeycache.Key
		select {
		case <-ctx.Done():
			return
		case k := <-j.refresh:
			keys = append(keys, k)
		}
	more:
		for len(keys) < batch {
			select {
			case k := <-j.refresh:
				keys = append(keys, k)
			default:
				break more
			}
		}
		// Off the queue before the ticket: a change from here on queues the
		// lookup again (this read may predate it and would not be cached).
		j.queuedMu.Lock()
		for _, k := range keys {
			delete(j.queued, k)
		}
		j.queuedMu.Unlock()
		if j.beforeRefresh != nil {
			j.beforeRefresh(keys)
		}
		t := j.cache.Ticket()
		filters := make(map[journeycache.Key][]string, len(keys))
		for _, k := range keys {
			if fs := j.cache.Filters(k); len(fs) > 0 { // evicted meanwhile: nothing to read
				filters[k] = fs
			}
		}
		if len(filters) == 0 {
			continue
		}
		keys = keys[:0]
		for k := range filters {
			keys = append(keys, k)
		}
		found, err := j.read(ctx, j.gen.Load(), keys)
		if err != nil {
			if ctx.Err() == nil {
				j.log.Warn("journeys: re-reading changed lookups failed; pulls read them", "lookups", len(keys), "err", err)
			}
			continue
		}
		for k, fs := range filters {
			for _, f := range fs {
				b, err := encode(found[k], f)
				if err != nil {
					j.log.Warn("journeys: encoding a re-read lookup failed; pulls read it", "err", err)
					continue
				}
				if j.cache.Put(k, f, b, t) {
					j.queueRefresh(k) // changed again while it was read
				}
			}
		}
	}
}
