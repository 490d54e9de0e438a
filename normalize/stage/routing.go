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

	"github.com/twmb/franz-go/pkg/kgo"

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
// trackings that follow them, built from the whole subscriptions topic
// (every partition, from the start, no consumer group: the runtime's
// follower mode), so pushed events reach every matching tracking whichever
// normaliser instance handles them. The SCAC is part of the key: a carrier
// key's events can only ever be looked up among its own carrier's trackings.
type routingIndex struct {
	mu    sync.RWMutex
	byKey map[string]map[string]Route // env|scac|kind|value → tracking id → route
	ready chan struct{}
	once  sync.Once
	// err is set when following failed; slowAfter is when a wait for the
	// first catch-up is reported as an error.
	err       error
	slowAfter time.Time
	wait      time.Duration
}

func newRoutingIndex(slowAfter time.Time, wait time.Duration) *routingIndex {
	return &routingIndex{byKey: map[string]map[string]Route{}, ready: make(chan struct{}), slowAfter: slowAfter, wait: wait}
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
	ix.mu.RLock()
	err := ix.err
	ix.mu.RUnlock()
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

func (ix *routingIndex) apply(ch schemas.SubscriptionChanged) {
	k := indexKey(ch.Env, ch.SCAC, ch.IdentifierKind, ch.Identifier)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ch.TrackingOpen {
		delete(ix.byKey[k], ch.TrackingID)
		return
	}
	m := ix.byKey[k]
	if m == nil {
		m = map[string]Route{}
		ix.byKey[k] = m
	}
	m[ch.TrackingID] = Route{TrackingID: ch.TrackingID, AccountID: ch.AccountID, Env: ch.Env, SCAC: ch.SCAC}
}

// lookup returns the open trackings of carrier scac in env following
// (kind, value); none for an empty scac.
func (ix *routingIndex) lookup(env, scac, kind, value string) []Route {
	if scac == "" {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []Route
	for _, r := range ix.byKey[indexKey(env, scac, kind, value)] {
		out = append(out, r)
	}
	return out
}

// follow reads the subscriptions topic until ctx ends (nil) or reading it
// fails (the error); the index is ready once it has caught up with the end
// of the topic as of the start.
func (ix *routingIndex) follow(ctx context.Context, brokers []string, ns schemas.Namespace, log *slog.Logger) error {
	return kafka.Follow(ctx, kafka.FollowConfig{
		Brokers: brokers, Topics: ns.Topics(schemas.TopicSubscriptions), Name: "normalize-routing", Log: log,
		ReadCommitted: true,
		CaughtUp:      func() { ix.once.Do(func() { close(ix.ready) }) },
	}, func(_ context.Context, recs []*kgo.Record) error {
		for _, r := range recs {
			var ch schemas.SubscriptionChanged
			if err := json.Unmarshal(r.Value, &ch); err != nil || ch.TrackingID == "" {
				log.Error("routing index: skipping malformed subscription record", "partition", r.Partition, "offset", r.Offset)
				continue
			}
			ix.apply(ch)
		}
		return nil
	})
}
