package stage

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"

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
// (every partition, from the start, no consumer group), so pushed events
// reach every matching tracking whichever normaliser instance handles them.
// The SCAC is part of the key: a carrier key's events can only ever be
// looked up among its own carrier's trackings.
type routingIndex struct {
	mu    sync.RWMutex
	byKey map[string]map[string]Route // env|scac|kind|value → tracking id → route
	ready chan struct{}
	once  sync.Once
}

func newRoutingIndex() *routingIndex {
	return &routingIndex{byKey: map[string]map[string]Route{}, ready: make(chan struct{})}
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

// follow reads the subscriptions topic until ctx ends; the index is ready
// once it has caught up with the end of the topic as of the start.
func (ix *routingIndex) follow(ctx context.Context, brokers []string, log *slog.Logger) error {
	cl, err := kafka.NewClient(brokers, log,
		kgo.ConsumeTopics(schemas.TopicSubscriptions),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
	)
	if err != nil {
		return err
	}
	defer cl.Close()
	ends, err := endOffsets(ctx, cl)
	if err != nil {
		return err
	}
	seen := map[int32]int64{}
	caughtUp := func() bool {
		for p, end := range ends {
			if seen[p] < end {
				return false
			}
		}
		return true
	}
	if caughtUp() {
		ix.once.Do(func() { close(ix.ready) })
	}
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil || fs.IsClientClosed() {
			return nil
		}
		fs.EachRecord(func(r *kgo.Record) {
			var ch schemas.SubscriptionChanged
			if err := json.Unmarshal(r.Value, &ch); err == nil && ch.TrackingID != "" {
				ix.apply(ch)
			}
			seen[r.Partition] = r.Offset + 1
		})
		if caughtUp() {
			ix.once.Do(func() { close(ix.ready) })
		}
	}
}
