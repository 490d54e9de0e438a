package queryapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/deliveries"
	"github.com/contrack/contrack/schemas/eventfilter"
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
// payloads (deliveries.Payload), oldest first, and where to resume.
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
	deliveries.Payload
	VesselPosition *schemas.FeedVesselPosition `json:"vesselPosition,omitempty"`
}

// feedItemTNT3 is FeedItem for a request with API-Version 3: the TNT 3.0
// webhook payload, or a VESSEL_POSITION item as in FeedItem.
type feedItemTNT3 struct {
	Type string `json:"type,omitempty"`
	deliveries.PayloadTNT3
	VesselPosition *schemas.FeedVesselPosition `json:"vesselPosition,omitempty"`
}

// feedEntry is an item as read: a subscription's events, or (position
// set) a vessel position.
type feedEntry struct {
	deliveries.Stream
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
		return deliveries.FormatTNT3, true
	case v == "", v == "1", v == "2", strings.HasPrefix(v, "1."), strings.HasPrefix(v, "2."):
		return deliveries.FormatEventDomain, true
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
		option.Query("eventTypes", "only events of these types or milestone kinds (comma-separated or repeated): EQUIPMENT, TRANSPORT, ATD_POL, TRANSSHIPMENT, ETA_REVISION, ETA_POD, ATA_POD, DISCHARGE_POD, GATE_OUT_FULL_DESTINATION, EMPTY_RETURN; present and empty: no events (alerts only)"),
		option.Query("classifiers", "only events of these classifiers (comma-separated or repeated): ACT, PLN, EST"),
		option.QueryBool("milestonesOnly", "only events milestones are derived from"),
		option.Query("alertTypes", "alerts to include beside the events (comma-separated or repeated): ETA_CHANGED, ROLLED, ARRIVED, AVAILABLE_FOR_PICKUP, HOLD_PLACED, HOLD_RELEASED, LFD_APPROACHING, DEMURRAGE_STARTED; absent: none"),
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
	if format == deliveries.FormatTNT3 {
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
	filter, msg := feedFilter(q)
	if msg != "" {
		return FeedPage{}, httpapi.BadRequest(msg)
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
		page, last, _, err := h.read(ctx, acct, after, limit, filter, format)
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
		page, last, more, err := h.read(ctx, acct, after, limit, filter, format)
		if err != nil {
			return FeedPage{}, err
		}
		if len(page) > 0 {
			return h.page(acct, format, page, last)
		}
		after = last // past what the filters left out
		if more {
			// Items left to look at: read on at once, within the wait.
			select {
			case <-deadline.C:
				return h.page(acct, format, nil, after)
			case <-ctx.Done():
				return h.page(acct, format, nil, after)
			default:
				continue
			}
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
	if format == deliveries.FormatTNT3 {
		p.Items, p.itemsTNT3 = nil, make([]feedItemTNT3, 0, len(items))
		for _, it := range items {
			if it.position != nil {
				p.itemsTNT3 = append(p.itemsTNT3, feedItemTNT3{Type: schemas.FeedKindVesselPosition,
					PayloadTNT3: deliveries.PayloadTNT3{References: it.Refs, Events: []tnt3.Event{}}, VesselPosition: it.position})
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
				Payload: deliveries.Payload{References: it.Refs, Events: []json.RawMessage{}}, VesselPosition: it.position})
			continue
		}
		p.Items = append(p.Items, FeedItem{Payload: it.EventDomain()})
	}
	return p, nil
}

// feedScanItems bounds the items one read looks at: a reader whose filters
// match little gets a page short of its limit, its cursor past what was
// looked at, rather than a request that scans the account's month.
const feedScanItems = 50_000

// feedBatchesSQL reads an account's feed batches after a cursor, in order
// (migration 0071): an alert's row with the ETA move its subscription
// needs (the subscription's threshold, else the account's, else 360).
const feedBatchesSQL = `
	SELECT b.seq_from, b.kind, b.created_at, b.subscription_ids::text[], b.event_ids, b.content_hashes, b.tags, b.events,
	       b.alert_type, b.change_minutes,
	       CASE WHEN b.alert_type IS NOT NULL THEN coalesce(s.eta_threshold_minutes, a.eta_threshold_minutes, 360) END
	FROM feed_batches b
	LEFT JOIN subscriptions s ON s.id = b.subscription_id
	LEFT JOIN accounts a ON a.id = s.account_id
	WHERE b.account_id = @acct AND b.seq_to > @after
	ORDER BY b.seq_to
	LIMIT @rows`

// feedItem is one item of a batch picked for a page.
type feedItem struct {
	seq      int64
	sub      string
	kind     string
	event    []byte
	id, hash string
	at       time.Time
}

// read returns up to limit events of acct after seq, consecutive events of
// one subscription in one item, and the last seq read (after if none).
// Items the filters leave out count as read, so a reader whose filters
// match little does not scan the same items again; more says the read
// stopped at feedScanItems with items left to look at. Vessel positions
// (opted in per subscription) pass every filter. The 3.0-only events
// (SHIPMENT, IOT, REEFER) and their retractions are only for a read in
// format TNT_3.0.0: EVENT_DOMAIN 2.0.2 has no form for them.
func (h feedQueries) read(ctx context.Context, acct string, after int64, limit int, filter eventfilter.Filter,
	format string) (out []feedEntry, last int64, more bool, err error) {
	if filter.IsZero() {
		filter.AlertTypes = []string{} // no alert unless asked for
	}
	var picked []feedItem
	last = after
	scanned := 0
	// Batches hold up to 256 items: a couple fill most pages; a filtered
	// read asks for more each round.
	for rowsWanted := 2; len(picked) < limit; rowsWanted = min(rowsWanted*2, 64) {
		if scanned >= feedScanItems {
			more = true
			break
		}
		n, err := h.readBatches(ctx, acct, last, rowsWanted, limit, filter, format == deliveries.FormatTNT3, &picked, &last, &scanned)
		if err != nil {
			return nil, after, false, err
		}
		if n < rowsWanted {
			break // the end, as of this read
		}
	}
	if len(picked) == 0 {
		return nil, last, more, nil
	}
	refs, err := h.feedRefs(ctx, acct, picked)
	if err != nil {
		return nil, after, false, err
	}
	lastSub := ""
	for _, it := range picked {
		r, ok := refs[it.sub]
		if !ok {
			continue // no such subscription of the account (never written so)
		}
		if it.kind == schemas.FeedKindVesselPosition {
			// An item of its own; the events after it start a new one.
			var v schemas.FeedVesselPosition
			if err := json.Unmarshal(it.event, &v); err != nil {
				return nil, after, false, fmt.Errorf("read feed: vessel position %d: %w", it.seq, err)
			}
			out = append(out, feedEntry{Stream: deliveries.Stream{Refs: r}, position: &v})
			lastSub = ""
			continue
		}
		if len(out) == 0 || it.sub != lastSub || out[len(out)-1].position != nil {
			out = append(out, feedEntry{Stream: deliveries.Stream{Refs: r}})
			lastSub = it.sub
		}
		e := &out[len(out)-1]
		e.Events, e.IDs, e.Hashes, e.Emitted = append(e.Events, it.event), append(e.IDs, it.id), append(e.Hashes, it.hash), append(e.Emitted, it.at)
	}
	return out, last, more, nil
}

// readBatches reads up to rows batches after *last and appends the items
// the filter passes to *picked until it holds limit, moving *last past
// every item looked at (and *scanned by their number). It returns the
// batches read.
func (h feedQueries) readBatches(ctx context.Context, acct string, after int64, rows, limit int, filter eventfilter.Filter, tnt3Read bool,
	picked *[]feedItem, last *int64, scanned *int) (int, error) {
	res, err := h.deps.Pool.Query(ctx, feedBatchesSQL, pgx.NamedArgs{"acct": acct, "after": after, "rows": rows})
	if err != nil {
		return 0, fmt.Errorf("read feed: %w", err)
	}
	defer res.Close()
	var (
		n         int
		seqFrom   int64
		kind      string
		at        time.Time
		subs, ids []string
		hashes    []string
		tags      []*string
		events    [][]byte
		alertType *string
		change    *int32
		threshold *int32
	)
	full := false
	for res.Next() {
		n++
		if full {
			continue // the rest of the round's rows: read, not looked at
		}
		if err := res.Scan(&seqFrom, &kind, &at, &subs, &ids, &hashes, &tags, &events, &alertType, &change, &threshold); err != nil {
			return 0, fmt.Errorf("read feed: %w", err)
		}
		if len(subs) != len(ids) || len(ids) != len(hashes) || len(hashes) != len(tags) || len(tags) != len(events) {
			return 0, fmt.Errorf("read feed: batch at %d has arrays of different lengths", seqFrom)
		}
		for i := range ids {
			seq := seqFrom + int64(i)
			if seq <= *last {
				continue
			}
			*scanned++
			if (tnt3Read || !tnt3OnlyTags(tags[i])) && feedPasses(filter, kind, tags[i], alertType, change, threshold) {
				*picked = append(*picked, feedItem{seq: seq, sub: subs[i], kind: kind, event: events[i], id: ids[i], hash: hashes[i], at: at})
			}
			*last = seq
			if len(*picked) >= limit {
				full = true
				break
			}
		}
	}
	if err := res.Err(); err != nil {
		return 0, fmt.Errorf("read feed: %w", err)
	}
	return n, nil
}

// feedPasses says whether an item passes a reader's filters
// (schemas/eventfilter, as delivery applies a webhook's): an alert of a
// kind asked for (an ETA_CHANGED one when it moved at least its
// threshold), an event by its tags (nil: written before tags existed,
// passing every filter), a vessel position always.
func feedPasses(f eventfilter.Filter, kind string, tags *string, alertType *string, change, threshold *int32) bool {
	switch {
	case kind == schemas.FeedKindVesselPosition:
		return true
	case alertType != nil:
		if !f.MatchAlert(*alertType) {
			return false
		}
		return change == nil || threshold == nil || abs32(*change) >= *threshold
	case tags == nil:
		return true
	case *tags == "":
		return f.MatchEvent(nil)
	default:
		return f.MatchEvent(strings.Split(*tags, ","))
	}
}

// tnt3OnlyTags says an item's tags are a 3.0-only event's (a retraction is
// written with the tags of the version it withdraws).
func tnt3OnlyTags(tags *string) bool {
	if tags == nil {
		return false
	}
	typ, _, _ := strings.Cut(*tags, ",")
	return dcsa.IsTNT3Only(typ)
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// feedRefs reads the references of the subscriptions of picked, by id.
func (h feedQueries) feedRefs(ctx context.Context, acct string, picked []feedItem) (map[string]deliveries.References, error) {
	ids := make([]string, 0, 8)
	seen := make(map[string]bool, 8)
	for _, it := range picked {
		if !seen[it.sub] {
			seen[it.sub] = true
			ids = append(ids, it.sub)
		}
	}
	rows, err := h.deps.Pool.Query(ctx, `
		SELECT id::text, reference, container_number, bill_number, booking_number, scac
		FROM subscriptions WHERE id = ANY(@ids::uuid[]) AND account_id = @acct`, pgx.NamedArgs{"ids": ids, "acct": acct})
	if err != nil {
		return nil, fmt.Errorf("read feed: subscriptions: %w", err)
	}
	defer rows.Close()
	refs := make(map[string]deliveries.References, len(ids))
	for rows.Next() {
		var id string
		var r deliveries.References
		if err := rows.Scan(&id, &r.SubscriptionReference, &r.EquipmentNumber, &r.BillNumber, &r.BookingNumber, &r.ScacCode); err != nil {
			return nil, fmt.Errorf("read feed: subscriptions: %w", err)
		}
		refs[id] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read feed: subscriptions: %w", err)
	}
	return refs, nil
}

// feedFilter reads the feed's filter parameters (eventTypes, classifiers,
// alertTypes: comma-separated or repeated; milestonesOnly: true or false),
// or the message answering what is wrong.
func feedFilter(q url.Values) (eventfilter.Filter, string) {
	var f eventfilter.Filter
	list := func(name string) []string {
		if !q.Has(name) {
			return nil
		}
		out := []string{}
		for _, v := range q[name] {
			for _, p := range strings.Split(v, ",") {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
		}
		return out
	}
	var problems []string
	check := func(name string, allowed []string) []string {
		got, unknown := eventfilter.Normalize(list(name), allowed)
		if len(unknown) > 0 {
			problems = append(problems, fmt.Sprintf("'%s' has %s: use %s", name, httpapi.QuoteValues(unknown), strings.Join(allowed, ", ")))
		}
		return got
	}
	f.EventTypes = check("eventTypes", eventfilter.EventTypes)
	f.Classifiers = check("classifiers", eventfilter.Classifiers)
	if f.Classifiers != nil && len(f.Classifiers) == 0 {
		f.Classifiers = nil // classifiers= : all
	}
	f.AlertTypes = check("alertTypes", schemas.AlertTypes)
	if q.Has("milestonesOnly") {
		b, err := strconv.ParseBool(strings.TrimSpace(q.Get("milestonesOnly")))
		if err != nil {
			problems = append(problems, "'milestonesOnly' must be true or false")
		}
		f.MilestonesOnly = b
	}
	if len(problems) > 0 {
		return f, "Invalid query parameters: " + strings.Join(problems, "; ")
	}
	return f, ""
}

// clipHeader keeps a header value short in a message.
func clipHeader(v string) string {
	if len(v) > 32 {
		return v[:32] + "…"
	}
	return v
}
