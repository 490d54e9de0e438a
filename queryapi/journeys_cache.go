package queryapi

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/queryapi/journeycache"
	"github.com/contrack/contrack/schemas/journeys"
)

// warm loads the live generation's lookups into the cache until it is full.
func (j *Journeys) warm(ctx context.Context) error {
	if j.cfg.CacheBytes <= 0 {
		return nil
	}
	start := time.Now()
	gen := j.gen.Load()
	rows, err := j.ch.Query(ctx, `SELECT DISTINCT account_id, lookup_kind, lookup_value FROM `+journeys.JourneysTable(gen))
	if journeys.MissingTable(err) {
		return nil // no projector has run yet: nothing to warm
	}
	if err != nil {
		return fmt.Errorf("warm: list lookups: %w", err)
	}
	var keys []journeycache.Key
	for rows.Next() {
		var k journeycache.Key
		if err := rows.Scan(&k.Account, &k.Kind, &k.Value); err != nil {
			rows.Close()
			return fmt.Errorf("warm: list lookups: %w", err)
		}
		keys = append(keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("warm: list lookups: %w", err)
	}
	// Two readers: one batch is encoded while ClickHouse reads the next.
	var loaded atomic.Int64
	var next atomic.Int64
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			for ctx.Err() == nil && !j.cache.Full() && gen == j.gen.Load() {
				lo := int(next.Add(256)) - 256
				if lo >= len(keys) {
					break
				}
				batch := keys[lo:min(lo+256, len(keys))]
				loaded.Add(int64(len(batch)))
				// A lookup that changed while it was read is read again
				// (a few times at most: it is read on demand after that).
				for try := 0; len(batch) > 0 && try < 3; try++ {
					t := j.cache.Ticket()
					found, err := j.read(ctx, gen, batch)
					if err != nil {
						errs <- fmt.Errorf("warm: %w", err)
						return
					}
					var raced []journeycache.Key
					for _, k := range batch {
						// As pulls ask: a container by itself, a booking or bill whole.
						filter := ""
						if k.Kind == "container" {
							filter = k.Value
						}
						if b, err := encode(found[k], filter); err == nil && j.cache.Put(k, filter, b, t) {
							raced = append(raced, k)
						}
					}
					batch = raced
				}
			}
			errs <- nil
		}()
	}
	err = errors.Join(<-errs, <-errs)
	if err != nil {
		return err
	}
	j.log.Info("journeys: cache warmed", "lookups", loaded.Load(), "of", len(keys), "bytes", j.cache.Bytes(), "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// lookup returns the answer of an account's lookup narrowed to filter (an
// equipment number, or "" for all). A superseded cached answer is returned
// while it is read again, unless ifNoneMatch names it: that client has it
// already and must not get a 304 from it, so the new one is read. Whatever
// lookup returns may thus be answered 304 from its tag.
func (j *Journeys) lookup(ctx context.Context, k journeycache.Key, filter, ifNoneMatch string) (journeycache.Body, error) {
	cached := j.ready.Load()
	if cached {
		b, hit := j.cache.Get(k, filter)
		switch hit {
		case journeycache.Current:
			return b, nil
		case journeycache.Stale:
			j.queueRefresh(k)
			return b, nil
		case journeycache.Superseded:
			j.queueRefresh(k)
			if !httpapi.NoneMatch(ifNoneMatch, b.ETag) {
				return b, nil
			}
		}
	}
	// Concurrent misses of one lookup share one read, which a caller going
	// away does not cancel for the others.
	v, err, _ := j.flight.Do(k.Account+"\x00"+k.Kind+"\x00"+k.Value+"\x00"+filter, func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		t := j.cache.Ticket()
		gen := j.gen.Load()
		if !cached || gen == 0 {
			g, err := journeys.CurrentGeneration(ctx, j.ch)
			if err != nil {
				return nil, err
			}
			gen = g
		}
		found, err := j.read(ctx, gen, []journeycache.Key{k})
		if err != nil {
			return nil, err
		}
		b, err := encode(found[k], filter)
		if err != nil {
			return nil, err
		}
		if cached {
			j.cache.Put(k, filter, b, t)
		}
		return b, nil
	})
	if err != nil {
		return journeycache.Body{}, err
	}
	return v.(journeycache.Body), nil
}

// item is one container's encoded journey result.
type item struct {
	equipment string
	json      []byte
}

// encode is the answer of a lookup's results narrowed to filter.
func encode(items []item, filter string) (journeycache.Body, error) {
	size := 2
	for _, it := range items {
		size += len(it.json) + 1
	}
	body := make([]byte, 0, size)
	body = append(body, '[')
	n := 0
	for _, it := range items {
		if filter != "" && it.equipment != filter {
			continue
		}
		if n > 0 {
			body = append(body, ',')
		}
		body = append(body, it.json...)
		n++
	}
	body = append(body, ']')
	return journeycache.Encode(body, n)
}
