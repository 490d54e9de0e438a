package stage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
)

// Route is a tracking an event belongs to.
type Route struct {
	TrackingID string
	AccountID  string
	Env        string
	SCAC       string
}

// routingIndex maps (environment, carrier, shipment identifier) to the open
// trackings that follow them. The routes live in Postgres (normalize_routes),
// written by a follower of the whole subscriptions topic (every partition,
// from the start, no consumer group: the runtime's follower mode), so pushed
// events reach every matching tracking whichever normaliser instance
// handles them; a cache of at most cacheKeys looked-up keys sits in front,
// each key dropped when the follower applies a change of it. The SCAC is
// part of the key: a carrier key's events can only ever be looked up among
// its own carrier's trackings. Nothing here grows with the trackings.
type routingIndex struct {
	pool      *pgxpool.Pool
	cacheKeys int

	mu    sync.Mutex
	cache map[string][]Route
	order []string // cached keys, oldest first (dropped first when full)
	// seq counts invalidations; invalid holds each recently changed key's
	// seq, and floor the seq below which any look-up is untrusted (invalid
	// was emptied): a look-up that began before a change of its key
	// answers, but is not cached.
	seq     uint64
	invalid map[string]uint64
	floor   uint64

	ready chan struct{}
	once  sync.Once
	// err is set when following failed; slowAfter is when a wait for the
	// first catch-up is reported as an error.
	err       error
	slowAfter time.Time
	wait      time.Duration
}

func newRoutingIndex(pool *pgxpool.Pool, cacheKeys int, slowAfter time.Time, wait time.Duration) *routingIndex {
	return &routingIndex{pool: pool, cacheKeys: cacheKeys, cache: map[string][]Route{}, invalid: map[string]uint64{},
		ready: make(chan struct{}), slowAfter: slowAfter, wait: wait}
}

// errNotCaughtUp is transient: the batch is retried with the index later.
var errNotCaughtUp = errors.New("routing index has not caught up with the subscriptions topic yet")

// usable says whether pushed events can be routed now: nil once the index
// caught up; a Fatal error if following it failed; else errNotCaughtUp
// (the batch is aborted and retried, never routed to nobody).
func (ix *routingIndex) usable() error {
	select {
	case <-ix.ready:
		return nil
	default:
	}
	ix.mu.Lock()
	err := ix.err
	ix.mu.Unlock()
	if err != nil {
		return kafka.Fatal(fmt.Errorf("routing index failed: %w", err))
	}
	if time.Now().After(ix.slowAfter) {
		return fmt.Errorf("%w after %s (RoutingWait)", errNotCaughtUp, ix.wait)
	}
	return errNotCaughtUp
}

// failed records why following stopped.
func (ix *routingIndex) failed(err error) {
	ix.mu.Lock()
	ix.err = err
	ix.mu.Unlock()
}

func indexKey(env, scac, kind, value string) string {
	return env + "|" + strings.ToUpper(scac) + "|" + kind + "|" + value
}

// change is one subscription record for the routes table.
type change struct {
	key       string
	ch        schemas.SubscriptionChanged
	partition int32
	offset    int64
}

// apply writes a poll's changes to normalize_routes (each row only to a
// later record of its tracking), then drops their keys from the cache.
func (ix *routingIndex) apply(ctx context.Context, changes []change) error {
	if len(changes) == 0 {
		return nil
	}
	// The last change of each (key, tracking) in the poll: one row each.
	last := map[[2]string]int{}
	for i, c := range changes {
		last[[2]string{c.key, c.ch.TrackingID}] = i
	}
	n := len(last)
	keys, trackings, accounts, envs, scacs := make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n)
	opens, partitions, offsets := make([]bool, 0, n), make([]int32, 0, n), make([]int64, 0, n)
	for i, c := range changes {
		if last[[2]string{c.key, c.ch.TrackingID}] != i {
			continue
		}
		keys, trackings, accounts = append(keys, c.key), append(trackings, c.ch.TrackingID), append(accounts, c.ch.AccountID)
		envs, scacs, opens = append(envs, c.ch.Env), append(scacs, strings.ToUpper(c.ch.SCAC)), append(opens, c.ch.TrackingOpen)
		partitions, offsets = append(partitions, c.partition), append(offsets, c.offset)
	}
	_, err := ix.pool.Exec(ctx, `
		INSERT INTO normalize_routes (route_key, tracking_id, account_id, env, scac, open, src_partition, src_offset)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::int[], $8::bigint[])
		ORDER BY 1, 2
		ON CONFLICT (route_key, tracking_id) DO UPDATE SET
		    account_id = EXCLUDED.account_id, env = EXCLUDED.env, scac = EXCLUDED.scac, open = EXCLUDED.open,
		    src_partition = EXCLUDED.src_partition, src_offset = EXCLUDED.src_offset
		WHERE normalize_routes.src_partition <> EXCLUDED.src_partition OR normalize_routes.src_offset < EXCLUDED.src_offset`,
		keys, trackings, accounts, envs, scacs, opens, partitions, offsets)
	if err != nil {
		return fmt.Errorf("write routes: %w", err)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.seq++
	for _, k := range keys {
		delete(ix.cache, k)
		ix.invalid[k] = ix.seq
	}
	if len(ix.invalid) > 4*ix.cacheKeys+1024 {
		clear(ix.invalid)
		ix.floor = ix.seq
	}
	return nil
}

// lookup returns the open trackings of carrier scac in env following
// (kind, value); none for an empty scac.
func (ix *routingIndex) lookup(ctx context.Context, env, scac, kind, value string) ([]Route, error) {
	if scac == "" {
		return nil, nil
	}
	key := indexKey(env, scac, kind, value)
	ix.mu.Lock()
	if rs, ok := ix.cache[key]; ok {
		ix.mu.Unlock()
		return rs, nil
	}
	ticket := ix.seq
	ix.mu.Unlock()
	rows, err := ix.pool.Query(ctx, `SELECT tracking_id, account_id, env, scac FROM normalize_routes
		WHERE route_key = $1 AND open ORDER BY tracking_id`, key)
	if err != nil {
		return nil, fmt.Errorf("look up routes: %w", err)
	}
	var out []Route
	for rows.Next() {
		var r Route
		if err := rows.Scan(&r.TrackingID, &r.AccountID, &r.Env, &r.SCAC); err != nil {
			rows.Close()
			return nil, fmt.Errorf("look up routes: %w", err)
		}
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look up routes: %w", err)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ticket >= ix.floor && ix.invalid[key] <= ticket {
		if _, ok := ix.cache[key]; !ok {
			for len(ix.order) >= ix.cacheKeys {
				delete(ix.cache, ix.order[0])
				ix.order = ix.order[1:]
			}
			ix.order = append(ix.order, key)
		}
		ix.cache[key] = out
	}
	return out, nil
}

// cached is how many keys the cache holds (tests).
func (ix *routingIndex) cached() int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return len(ix.cache)
}

// follow reads the subscriptions topic until ctx ends (nil) or reading it
// fails (the error); the index is ready once it has caught up with the end
// of the topic as of the start. A malformed record is skipped and counted;
// a write of routes the store refused is retried under the loop
// "normalize-routing" (counted, /readyz red after a run), never skipped.
func (ix *routingIndex) follow(ctx context.Context, deps Deps, log *slog.Logger) error {
	writes := deps.Loops.Loop("normalize-routing", log)
	return deps.Router.Follow(ctx, RoutingRoute, kafka.FollowConfig{
		Log:           log,
		ReadCommitted: true,
		CaughtUp:      func() { ix.once.Do(func() { close(ix.ready) }) },
	}, func(ctx context.Context, b *kafka.Batch) error {
		changes := make([]change, 0, len(b.Records))
		for _, r := range b.Records {
			var ch schemas.SubscriptionChanged
			if err := json.Unmarshal(r.Value, &ch); err != nil || ch.TrackingID == "" {
				b.Skip(r, errors.New("routing index: malformed subscription record"))
				continue
			}
			changes = append(changes, change{key: indexKey(ch.Env, ch.SCAC, ch.IdentifierKind, ch.Identifier), ch: ch, partition: r.Partition, offset: r.Offset})
		}
		return writes.Do(ctx, func(ctx context.Context) error { return ix.apply(ctx, changes) })
	})
}
