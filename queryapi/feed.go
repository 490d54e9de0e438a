package queryapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"

	"github.com/contrack/contrack/delivery"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/tnt3"
)

// Limits of GET /subscriptions/events.
const (
	DefaultFeedLimit = 100
	MaxFeedLimit     = 1000
	MaxFeedWait      = 20 // seconds
)

const (
	msgBadCursor      = "Invalid cursor"
	msgWaitNotInteger = "Query parameter 'wait' must be an integer (seconds, 0-20)"
	msgServerWaiters  = "Too many long-polls on this server: try again shortly"
	feedScope         = "feed"
)

// msgAccountWaiters is the 429 of a long-poll beyond the plan's.
func msgAccountWaiters(n int) string {
	return fmt.Sprintf("Too many long-polls: this plan allows %d at once per account; wait for one to return", n)
}

// waitSlots counts each account's long-polls in this process, so one
// tenant cannot take the notifier's whole bound (and the others' wake-ups).
type waitSlots struct {
	mu sync.Mutex
	n  map[string]int
}

// take reserves a slot of acct if it holds fewer than limit.
func (w *waitSlots) take(acct string, limit int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n[acct] >= limit {
		return false
	}
	w.n[acct]++
	return true
}

func (w *waitSlots) release(acct string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n[acct]--; w.n[acct] <= 0 {
		delete(w.n, acct)
	}
}

// FeedWaiter wakes long-polls when an account's feed grows (feed.Notifier).
type FeedWaiter interface {
	// Subscribe registers a waiter; wake receives after new events of the
	// account commit, and is closed when the process is stopping (answer
	// now). ok false: no room (the long-poll is refused with 503).
	Subscribe(accountID string) (wake <-chan struct{}, cancel func(), ok bool)
}

// FeedPage is GET /subscriptions/events' body: items shaped as webhook
// payloads (delivery.Payload), oldest first, and where to resume.
type FeedPage struct {
	Items      []FeedItem `json:"items"`
	NextCursor string     `json:"nextCursor"`
	// itemsTNT3 replace Items for a request with API-Version 3: items
	// shaped as TNT 3.0 webhook payloads.
	itemsTNT3 []feedItemTNT3
}

// FeedItem is one item of the feed: a subscription's events in the webhook
// payload's shape, or — for a subscription opted in with PUT
// /subscription/{subscription_id}/vessel-positions — a VESSEL_POSITION
// item: type, the references, events [] and vesselPosition. Its OpenAPI
// schema (and the SDKs' type) keeps the name the feed's items have always
// had, Payload, with the two optional fields added.
type FeedItem = Payload

// Payload is FeedItem under its schema's name.
type Payload struct {
	// Type is absent on event items (the webhook payload's shape,
	// unchanged) and VESSEL_POSITION on position items.
	Type string `json:"type,omitempty"`
	delivery.Payload
	VesselPosition *schemas.FeedVesselPosition `json:"vesselPosition,omitempty"`
}

// feedItemTNT3 is FeedItem for a request with API-Version 3: the TNT 3.0
// webhook payload, or a VESSEL_POSITION item as in FeedItem.
type feedItemTNT3 struct {
	Type string `json:"type,omitempty"`
	delivery.PayloadTNT3
	VesselPosition *schemas.FeedVesselPosition `json:"vesselPosition,omitempty"`
}

// feedEntry is an item as read: a subscription's events, or (position
// set) a vessel position.
type feedEntry struct {
	delivery.Stream
	position *schemas.FeedVesselPosition
}

// MarshalJSON writes the page in the format asked for.
func (p FeedPage) MarshalJSON() ([]byte, error) {
	if p.itemsTNT3 != nil {
		return json.Marshal(struct {
			Items      []feedItemTNT3 `json:"items"`
			NextCursor string         `json:"nextCursor"`
		}{p.itemsTNT3, p.NextCursor})
	}
	type plain FeedPage
	return json.Marshal(plain(p))
}

// msgUnsupportedAPIVersion answers an API-Version the feed does not serve.
const msgUnsupportedAPIVersion = "Unsupported API-Version '%s': send 3.x.x for DCSA Track & Trace 3.0 events, or leave it out for EVENT_DOMAIN 2.0.2"

// feedFormat reads the request's API-Version: 3.x asks for TNT 3.0 items;
// absent, 1.x or 2.x the interface's EVENT_DOMAIN 2.0.2; anything else is
// refused.
func feedFormat(v string) (string, bool) {
	v = strings.TrimSpace(v)
	switch {
	case tnt3.IsVersion3(v):
		return delivery.FormatTNT3, true
	case v == "", v == "1", v == "2", strings.HasPrefix(v, "1."), strings.HasPrefix(v, "2."):
		return delivery.FormatEventDomain, true
	}
	return "", false
}

func registerFeed(s *fuego.Server, deps Deps) {
	h := feedQueries{deps: deps, slots: &waitSlots{n: map[string]int{}}}
	fuego.Get(s, "/subscriptions/events", h.list,
		option.OperationID("readFeed"),
		option.Query("cursor", "opaque cursor: the nextCursor of the previous response, unchanged; without it the feed starts at the oldest retained event (events are kept at least 30 days)"),
		option.QueryInt("limit", "events per response, 1-1000 (values outside are clamped); default 100"),
		option.QueryInt("wait", "long-poll: with nothing after the cursor, wait up to this many seconds (0-20, clamped; default 0) for events to arrive"),
		option.Header("API-Version", "3.x.x: items carry DCSA Track & Trace 3.0 events (and the answer API-Version 3.0.0); absent: EVENT_DOMAIN 2.0.2"),
		option.Summary("Read the account event feed"),
		option.Description("Every event of the account's subscriptions, whether or not a webhook is configured, "+
			"in the order the webhook gets them per subscription. Each item has the webhook payload's shape; consecutive "+
			"events of one subscription share an item. Resume from nextCursor, which is always present. "+
			"A subscription opted in with PUT /subscription/{subscription_id}/vessel-positions also gets, while its shipment is at sea, "+
			"items {\"type\":\"VESSEL_POSITION\",\"references\":{…},\"events\":[],\"vesselPosition\":{…}} at most every intervalMinutes; "+
			"event items have no type."),
		option.AddResponse(400, "Invalid query parameter or cursor", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(429, "Over the usage plan's rate, or a long-poll (wait > 0) beyond the plan's long-polls at once per account: \"Too many long-polls: this plan allows <N> at once per account; wait for one to return\" (Retry-After)", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(503, "A long-poll while this server holds as many as it can: \"Too many long-polls on this server: try again shortly\" (Retry-After)", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
}

type feedQueries struct {
	deps  Deps
	slots *waitSlots
}

func (h feedQueries) list(c fuego.ContextNoBody) (FeedPage, error) {
	k, _ := auth.FromContext(c.Context())
	acct := k.Account.ID
	q := c.Request().URL.Query()
	v := c.Request().Header.Get(tnt3.HeaderAPIVersion)
	format, ok := feedFormat(v)
	if !ok {
		return FeedPage{}, httpapi.BadRequest(fmt.Sprintf(msgUnsupportedAPIVersion, clipHeader(v)))
	}
	if format == delivery.FormatTNT3 {
		c.Response().Header().Set(tnt3.HeaderAPIVersion, tnt3.Version)
	}
	limit := DefaultFeedLimit
	if q.Has("limit") {
		n, err := strconv.Atoi(strings.TrimSpace(q.Get("limit")))
		if err != nil {
			return FeedPage{}, httpapi.BadRequest(msgLimitNotInteger)
		}
		limit = min(max(n, 1), MaxFeedLimit)
	}
	wait := 0
	if q.Has("wait") {
		n, err := strconv.Atoi(strings.TrimSpace(q.Get("wait")))
		if err != nil {
			return FeedPage{}, httpapi.BadRequest(msgWaitNotInteger)
		}
		wait = min(max(n, 0), MaxFeedWait)
	}
	var after int64
	if tok := q.Get("cursor"); tok != "" {
		// Signed like GET /subscriptions' nextToken; the scope keeps the
		// endpoints' tokens apart, the account binds it to its caller.
		cur, ok := subscriptionQueries{h.deps}.openSigned(tok)
		if !ok || cur.Account != acct || cur.Prefix != feedScope || cur.AfterSeq < 0 {
			return FeedPage{}, httpapi.BadRequest(msgBadCursor)
		}
		after = cur.AfterSeq
	}

	ctx := c.Context()
	if wait == 0 || h.deps.Feed == nil {
		// Without a notifier nothing could wake a wait but polling, which
		// would cost a query per second per waiter: answer at once.
		page, last, err := h.read(ctx, acct, after, limit)
		if err != nil {
			return FeedPage{}, err
		}
		return h.page(acct, format, page, last)
	}
	// A long-poll holds one of the account's slots, then a waiter of the
	// process's notifier; it reads the table when woken, never on a timer.
	if max := k.Account.Limits().LongPolls; !h.slots.take(acct, max) {
		return FeedPage{}, &httpapi.Error{Status: http.StatusTooManyRequests, Message: msgAccountWaiters(max),
			Header: http.Header{"Retry-After": {"1"}}}
	}
	defer h.slots.release(acct)
	// Registered before the first read, so nothing committed after that
	// read goes unnoticed.
	wake, cancel, ok := h.deps.Feed.Subscribe(acct)
	defer cancel()
	if !ok {
		return FeedPage{}, &httpapi.Error{Status: http.StatusServiceUnavailable, Message: msgServerWaiters,
			Header: http.Header{"Retry-After": {"1"}}}
	}
	deadline := time.NewTimer(time.Duration(wait) * time.Second)
	defer deadline.Stop()
	for {
		page, last, err := h.read(ctx, acct, after, limit)
		if err != nil {
			return FeedPage{}, err
		}
		if len(page) > 0 {
			return h.page(acct, format, page, last)
		}
		select {
		case _, open := <-wake:
			if !open {
				return h.page(acct, format, nil, after) // shutting down
			}
		case <-deadline.C:
			return h.page(acct, format, nil, after)
		case <-ctx.Done():
			// The caller left; what it gets no longer matters.
			return h.page(acct, format, nil, after)
		}
	}
}

func (h feedQueries) page(acct, format string, items []feedEntry, last int64) (FeedPage, error) {
	p := FeedPage{Items: make([]FeedItem, 0, len(items)),
		NextCursor: subscriptionQueries{h.deps}.sealToken(cursor{Account: acct, Prefix: feedScope, AfterSeq: last})}
	if format == delivery.FormatTNT3 {
		p.Items, p.itemsTNT3 = nil, make([]feedItemTNT3, 0, len(items))
		for _, it := range items {
			if it.position != nil {
				p.itemsTNT3 = append(p.itemsTNT3, feedItemTNT3{Type: schemas.FeedKindVesselPosition,
					PayloadTNT3: delivery.PayloadTNT3{References: it.Refs, Events: []tnt3.Event{}}, VesselPosition: it.position})
				continue
			}
			t, err := it.TNT3()
			if err != nil {
				return FeedPage{}, err
			}
			p.itemsTNT3 = append(p.itemsTNT3, feedItemTNT3{PayloadTNT3: t})
		}
		return p, nil
	}
	for _, it := range items {
		if it.position != nil {
			p.Items = append(p.Items, FeedItem{Type: schemas.FeedKindVesselPosition,
				Payload: delivery.Payload{References: it.Refs, Events: []json.RawMessage{}}, VesselPosition: it.position})
			continue
		}
		p.Items = append(p.Items, FeedItem{Payload: it.EventDomain()})
	}
	return p, nil
}

// read returns up to limit events of acct after seq, consecutive events of
// one subscription in one item, and the last seq read (after if none).
func (h feedQueries) read(ctx context.Context, acct string, after int64, limit int) ([]feedEntry, int64, error) {
	rows, err := h.deps.Pool.Query(ctx, `
		SELECT f.seq, f.subscription_id::text, f.event, f.event_id, f.content_hash, f.created_at, f.kind,
		       s.reference, s.container_number, s.bill_number, s.booking_number, s.scac
		FROM feed_events f JOIN subscriptions s ON s.id = f.subscription_id
		WHERE f.account_id = $1 AND f.seq > $2
		ORDER BY f.seq
		LIMIT $3`, acct, after, limit)
	if err != nil {
		return nil, after, fmt.Errorf("read feed: %w", err)
	}
	defer rows.Close()
	var (
		out      []feedEntry
		kind     string
		lastSub  string
		seq      int64
		sub      string
		event    []byte
		id, hash string
		at       time.Time
		refs     delivery.References
	)
	last := after
	for rows.Next() {
		if err := rows.Scan(&seq, &sub, &event, &id, &hash, &at, &kind, &refs.SubscriptionReference, &refs.EquipmentNumber,
			&refs.BillNumber, &refs.BookingNumber, &refs.ScacCode); err != nil {
			return nil, after, fmt.Errorf("read feed: %w", err)
		}
		if kind == schemas.FeedKindVesselPosition {
			// An item of its own; the events after it start a new one.
			var v schemas.FeedVesselPosition
			if err := json.Unmarshal(event, &v); err != nil {
				return nil, after, fmt.Errorf("read feed: vessel position %d: %w", seq, err)
			}
			out = append(out, feedEntry{Stream: delivery.Stream{Refs: refs}, position: &v})
			lastSub, last = "", seq
			continue
		}
		if len(out) == 0 || sub != lastSub || out[len(out)-1].position != nil {
			out = append(out, feedEntry{Stream: delivery.Stream{Refs: refs}})
			lastSub = sub
		}
		it := &out[len(out)-1]
		it.Events, it.IDs, it.Hashes, it.Emitted = append(it.Events, event), append(it.IDs, id), append(it.Hashes, hash), append(it.Emitted, at)
		last = seq
	}
	if err := rows.Err(); err != nil {
		return nil, after, fmt.Errorf("read feed: %w", err)
	}
	return out, last, nil
}

// clipHeader keeps a header value short in a message.
func clipHeader(v string) string {
	if len(v) > 32 {
		return v[:32] + "…"
	}
	return v
}
