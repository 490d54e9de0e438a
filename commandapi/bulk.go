package commandapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/commandapi/subscription"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas"
)

// MaxBulkItems is the most subscriptions one POST /subscriptions/equipment takes.
const MaxBulkItems = 1000

// Statuses of one item of a bulk subscribe.
const (
	BulkCreated = "CREATED"
	BulkExists  = "EXISTS"
	BulkInvalid = "INVALID"
)

// Messages of bulk subscribe.
const (
	msgBulkNotArray     = "Body must be a JSON array of subscriptions"
	msgBulkEmpty        = "No subscriptions in the body"
	msgBulkTooMany      = "Too many subscriptions in one request: the limit is 1000"
	msgBulkNoHeader     = "CSV body must start with a header row naming its columns: scacCode, containerNumber, bookingNumber, billNumber, subscriptionReference"
	msgReferenceOther   = "Subscription Reference Already Exists for another shipment"
	bulkInferConcurrent = 16
	// bulkInferBudget bounds the carrier inference of all the items of one
	// request together; an item still undetermined then is INVALID.
	bulkInferBudget = 30 * time.Second
)

// BulkResult is one item's outcome, in the order of the request.
type BulkResult struct {
	// Index is the item's position in the request, from 0 (a CSV's first
	// row after the header is 0).
	Index                 int    `json:"index"`
	SubscriptionReference string `json:"subscriptionReference"`
	// Status is CREATED, EXISTS (the reference is taken: retrying a batch
	// is safe) or INVALID (message says why, as the single endpoint would).
	Status  string `json:"status"`
	Message string `json:"message"`
	// ScacCode is the carrier subscribed to (inferred when the item had
	// none); absent for an INVALID item.
	ScacCode string `json:"scacCode,omitempty"`
}

// BulkSubscribeResponse answers POST /subscriptions/equipment.
type BulkSubscribeResponse struct {
	Results       []BulkResult `json:"results"`
	Created       int          `json:"created"`
	Exists        int          `json:"exists"`
	Invalid       int          `json:"invalid"`
	DateOfRequest httpapi.Time `json:"dateOfRequest"`
}

func registerBulk(s *fuego.Server, deps api) {
	h := subscriptionHandlers{deps}
	fuego.Post(s, "/subscriptions/equipment", h.bulkCreate,
		option.OperationID("createSubscriptions"),
		option.Summary("Subscribe to many shipments at once"),
		option.Description("Up to 1000 create bodies of POST /subscription/equipment in one request: a JSON array of them, or text/csv with a header row naming the same columns "+
			"(scacCode, containerNumber, bookingNumber, billNumber, subscriptionReference; in any order, unknown columns ignored). "+
			"Each item is checked exactly as the single endpoint checks its body, and answered on its own, in order: "+
			"CREATED (message \"Successfully Subscribed\"), EXISTS (the subscriptionReference is already taken, by an earlier request or an earlier item of this one: "+
			"message \"Subscription Reference Already Exists\", or \"Subscription Reference Already Exists for another shipment\" when it names a different shipment), "+
			"or INVALID (message: the single endpoint's 400 message; an item beyond the plan's open subscriptions gets its 429 message, \"Subscription limit reached for this plan: …\"). One bad item never fails the others, and sending the same batch again is safe. "+
			"More than 1000 items: 413 \"Too many subscriptions in one request: the limit is 1000\"."),
		option.RequestBody(fuego.RequestBody{Type: []CreateSubscriptionBody{}, ContentTypes: []string{"application/json", "text/csv"}}),
		option.AddResponse(400, "Not an array of subscriptions, an empty one, or a CSV without a header row", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(413, "More than 1000 items, or a body over 1 MiB", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
}

// bulkItem is one item of a bulk request on its way through the checks.
type bulkItem struct {
	body   CreateSubscriptionBody
	result BulkResult
	scac   string
	id     identifier
	kind   outside
	// infer: the item has no scacCode and passed every other check.
	infer bool
	// rejected: the item failed the checks (INVALID whatever the store holds).
	rejected bool
}

func (it *bulkItem) invalid(msg string) {
	it.result.Status, it.result.Message, it.rejected = BulkInvalid, msg, true
}

func (h subscriptionHandlers) bulkCreate(c fuego.ContextNoBody) (BulkSubscribeResponse, error) {
	ctx := c.Context()
	now := h.deps.Now().UTC()
	k, _ := auth.FromContext(ctx)
	items, err := readBulk(c.Request())
	if err != nil {
		return BulkSubscribeResponse{}, err
	}
	if err := h.checkBulk(ctx, k.Account, items); err != nil {
		return BulkSubscribeResponse{}, err
	}
	// A transaction that meets a reference taken since it looked is tried
	// again: the next look finds it and answers EXISTS.
	limit := k.Account.Limits().OpenSubscriptions
	for attempt := 0; ; attempt++ {
		err = pgx.BeginFunc(ctx, h.deps.Pool, func(tx pgx.Tx) error {
			return h.subscribeBulk(ctx, tx, k.Account, limit, items, now)
		})
		if !errors.Is(err, errReferenceRace) || attempt == 2 {
			break
		}
	}
	if err != nil {
		return BulkSubscribeResponse{}, fmt.Errorf("bulk subscribe: %w", err)
	}
	resp := BulkSubscribeResponse{Results: make([]BulkResult, len(items)), DateOfRequest: httpapi.Time(now)}
	for i, it := range items {
		resp.Results[i] = it.result
		switch it.result.Status {
		case BulkCreated:
			resp.Created++
		case BulkExists:
			resp.Exists++
		default:
			resp.Invalid++
		}
	}
	return resp, nil
}

// readBulk decodes a bulk body, JSON or CSV, into items; an item that is
// not an object is already INVALID.
func readBulk(r *http.Request) ([]*bulkItem, error) {
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mediaType == "text/csv" {
		return readBulkCSV(r)
	}
	b, err := httpapi.ReadBody(r)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '[' {
		return nil, httpapi.BadRequest(msgBulkNotArray)
	}
	var raws []json.RawMessage
	if err := httpapi.Unmarshal(b, &raws); err != nil {
		return nil, err
	}
	if err := checkBulkCount(len(raws)); err != nil {
		return nil, err
	}
	items := make([]*bulkItem, len(raws))
	for i, raw := range raws {
		it := &bulkItem{result: BulkResult{Index: i}}
		items[i] = it
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || raw[0] != '{' {
			it.invalid("Item must be an object")
			continue
		}
		if err := httpapi.Unmarshal(raw, &it.body); err != nil {
			it.invalid(err.Error())
			it.result.SubscriptionReference = referenceOf(raw)
		}
	}
	return items, nil
}

// referenceOf is an undecodable item's subscriptionReference, when it can
// be read on its own, so the caller can tell which item failed.
func referenceOf(raw []byte) string {
	var ref struct {
		SubscriptionReference string `json:"subscriptionReference"`
	}
	_ = json.Unmarshal(raw, &ref)
	return strings.TrimSpace(ref.SubscriptionReference)
}

func checkBulkCount(n int) error {
	switch {
	case n == 0:
		return httpapi.BadRequest(msgBulkEmpty)
	case n > MaxBulkItems:
		return &httpapi.Error{Status: http.StatusRequestEntityTooLarge, Message: msgBulkTooMany}
	}
	return nil
}

// csvColumns maps a CSV header (case-insensitive) to a create body field.
var csvColumns = map[string]func(*CreateSubscriptionBody) *string{
	"scaccode":              func(b *CreateSubscriptionBody) *string { return &b.ScacCode },
	"containernumber":       func(b *CreateSubscriptionBody) *string { return &b.ContainerNumber },
	"bookingnumber":         func(b *CreateSubscriptionBody) *string { return &b.BookingNumber },
	"billnumber":            func(b *CreateSubscriptionBody) *string { return &b.BillNumber },
	"subscriptionreference": func(b *CreateSubscriptionBody) *string { return &b.SubscriptionReference },
}

// readBulkCSV reads a text/csv body: a header row, then one item a row. A
// row with another number of fields than the header is INVALID; a body
// the CSV reader cannot follow (a stray quote) is a 400 naming the line.
func readBulkCSV(r *http.Request) ([]*bulkItem, error) {
	if r.Body == nil {
		return nil, httpapi.BadRequest(msgBulkNoHeader)
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &httpapi.Error{Status: http.StatusRequestEntityTooLarge, Message: httpapi.MsgTooLarge}
		}
		return nil, httpapi.BadRequest("Could not read request body")
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a spreadsheet's byte-order mark
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err != nil {
		return nil, httpapi.BadRequest(msgBulkNoHeader)
	}
	fields := make([]func(*CreateSubscriptionBody) *string, len(header))
	known := 0
	for i, name := range header {
		if f := csvColumns[strings.ToLower(strings.TrimSpace(name))]; f != nil {
			fields[i] = f
			known++
		}
	}
	if known == 0 {
		return nil, httpapi.BadRequest(msgBulkNoHeader)
	}
	var items []*bulkItem
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && pe.Err != csv.ErrFieldCount {
				return nil, httpapi.BadRequest(fmt.Sprintf("Malformed CSV body: %v on line %d", pe.Err, pe.Line))
			}
			return nil, httpapi.BadRequest("Malformed CSV body: " + err.Error())
		}
		if len(items) == MaxBulkItems {
			return nil, &httpapi.Error{Status: http.StatusRequestEntityTooLarge, Message: msgBulkTooMany}
		}
		it := &bulkItem{result: BulkResult{Index: len(items)}}
		items = append(items, it)
		for i, v := range row {
			if i < len(fields) && fields[i] != nil {
				*fields[i](&it.body) = v
			}
		}
		if len(row) != len(header) {
			it.invalid(fmt.Sprintf("CSV row has %d fields, the header %d", len(row), len(header)))
			it.result.SubscriptionReference = strings.TrimSpace(it.body.SubscriptionReference)
		}
	}
	if err := checkBulkCount(len(items)); err != nil {
		return nil, err
	}
	return items, nil
}

// checkBulk runs the single endpoint's checks on every item not already
// INVALID, then infers the carrier of those without one. Only a store
// failure fails the request.
func (h subscriptionHandlers) checkBulk(ctx context.Context, acct auth.Account, items []*bulkItem) error {
	others := map[string]outside{}
	for _, it := range items {
		if it.result.Status != "" {
			continue
		}
		scac, id, kind, err := it.body.validate(func(scac string) (outside, error) {
			if k, seen := others[scac]; seen {
				return k, nil
			}
			k, err := OutsideRegistry(ctx, h.deps.Pool, acct.ID, acct.Env, scac)
			if err == nil {
				others[scac] = k
			}
			return k, err
		})
		it.result.SubscriptionReference = it.body.SubscriptionReference
		var he *httpapi.Error
		switch {
		case errors.As(err, &he):
			it.invalid(he.Message)
			continue
		case err != nil:
			return err
		}
		it.scac, it.id, it.kind, it.infer = scac, id, kind, scac == ""
	}
	return h.inferBulk(ctx, acct, items)
}

// inferBulk finds the carrier of the items without a scacCode, as the
// single endpoint does, several at once and within bulkInferBudget in all.
func (h subscriptionHandlers) inferBulk(ctx context.Context, acct auth.Account, items []*bulkItem) error {
	ictx, cancel := context.WithTimeout(ctx, bulkInferBudget)
	defer cancel()
	sem := make(chan struct{}, bulkInferConcurrent)
	var wg sync.WaitGroup
	for _, it := range items {
		if !it.infer {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ictx.Done():
				return
			}
			candidates, _, err := h.deps.inferCarrier(ictx, acct, it.id.kind, it.id.value)
			if err == nil && len(candidates) == 1 {
				it.scac = candidates[0].ScacCode
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("infer carriers: %w", err)
	}
	for _, it := range items {
		if it.infer && it.scac == "" {
			it.invalid(msgUndetermined(it.id.given))
		}
	}
	return nil
}

// errReferenceRace: a reference was taken by another request between this
// transaction's look and its insert.
var errReferenceRace = errors.New("subscription reference taken concurrently")

// shipment is what a subscription tracks, for comparing a taken reference.
type shipment struct{ scac, container, booking, bill string }

func (it *bulkItem) shipment() shipment {
	s := shipment{scac: it.scac}
	switch it.id.kind {
	case "container":
		s.container = it.id.value
	case "booking":
		s.booking = it.id.value
	case "bill":
		s.bill = it.id.value
	}
	return s
}

// trackingKey is a tracking's identity within an account.
type trackingKey struct{ scac, kind, value string }

// subscribeBulk creates the valid items whose references are free, as
// many as the account's open subscriptions allow (limit), in tx: one
// statement per table for the whole batch (the account's count, trackings
// upserted with their counts, subscriptions, outbox rows), then one NOTIFY.
func (h subscriptionHandlers) subscribeBulk(ctx context.Context, tx pgx.Tx, acct auth.Account, limit int64, items []*bulkItem, now time.Time) error {
	// First, as a single subscribe does: the account's row before any
	// tracking's, so its count is exact under the lock and no two
	// transactions wait on each other in opposite orders.
	var open int64
	if err := tx.QueryRow(ctx, `SELECT open_subscriptions FROM accounts WHERE id = $1 FOR UPDATE`, acct.ID).Scan(&open); err != nil {
		return fmt.Errorf("count open subscriptions: %w", err)
	}
	room := max(limit-open, 0)
	// Earlier attempts' answers are redone from scratch.
	var refs []string
	for _, it := range items {
		if !it.rejected {
			it.result.Status, it.result.Message, it.result.ScacCode = "", "", ""
			refs = append(refs, it.body.SubscriptionReference)
		}
	}
	taken := map[string]shipment{}
	rows, err := tx.Query(ctx, `SELECT reference, scac, container_number, booking_number, bill_number
		FROM subscriptions WHERE account_id = $1 AND reference = ANY($2)`, acct.ID, refs)
	if err != nil {
		return fmt.Errorf("look up references: %w", err)
	}
	for rows.Next() {
		var ref string
		var s shipment
		if err := rows.Scan(&ref, &s.scac, &s.container, &s.booking, &s.bill); err != nil {
			rows.Close()
			return fmt.Errorf("look up references: %w", err)
		}
		taken[ref] = s
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("look up references: %w", err)
	}
	var creds []string
	if err := tx.QueryRow(ctx, `SELECT coalesce(array_agg(scac), '{}') FROM carrier_credentials WHERE account_id = $1`, acct.ID).Scan(&creds); err != nil {
		return fmt.Errorf("look up credentials: %w", err)
	}

	// Decide each item; count the new subscriptions of each tracking.
	var fresh []*bulkItem
	counts := map[trackingKey]int{}
	status := map[trackingKey]string{}
	for _, it := range items {
		if it.rejected {
			continue
		}
		ref := it.body.SubscriptionReference
		it.result.ScacCode = it.scac
		if s, ok := taken[ref]; ok {
			it.result.Status, it.result.Message = BulkExists, msgReferenceExists
			if s != it.shipment() {
				it.result.Message = msgReferenceOther
			}
			continue
		}
		if int64(len(fresh)) >= room {
			it.result.Status, it.result.Message, it.result.ScacCode = BulkInvalid, msgSubscriptionLimit(limit), ""
			continue
		}
		taken[ref] = it.shipment() // a later item with the same reference: EXISTS
		it.result.Status, it.result.Message = BulkCreated, msgSubscribed
		fresh = append(fresh, it)
		key := trackingKey{it.scac, it.id.kind, it.id.value}
		counts[key]++
		conn := ConnPending
		switch {
		case it.kind == pushOnly:
			conn = ConnPushOnly
		case it.kind == connector: // its credentials are its own
		case !slices.Contains(creds, it.scac):
			conn = ConnNoCredentials
		}
		status[key] = conn
	}
	if len(fresh) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE accounts SET open_subscriptions = open_subscriptions + $2 WHERE id = $1`, acct.ID, len(fresh)); err != nil {
		return fmt.Errorf("count open subscriptions: %w", err)
	}

	// Trackings in a fixed order, so two batches of one account lock shared
	// rows in the same order and never deadlock.
	keys := make([]trackingKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b trackingKey) int {
		return strings.Compare(a.scac+"\x00"+a.kind+"\x00"+a.value, b.scac+"\x00"+b.kind+"\x00"+b.value)
	})
	n := len(keys)
	ids, scacs, kinds, values, conns, opens := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]int32, n)
	for i, k := range keys {
		ids[i], scacs[i], kinds[i], values[i], conns[i], opens[i] = uuid.NewString(), k.scac, k.kind, k.value, status[k], int32(counts[k])
	}
	trackingOf := make(map[trackingKey]string, n)
	rows, err = tx.Query(ctx, `
		INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status, open_subscriptions)
		SELECT u.id, $1, $2, u.scac, u.kind, u.ident, u.conn, u.opens
		FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[]) WITH ORDINALITY AS u(id, scac, kind, ident, conn, opens, ord)
		ORDER BY u.ord
		ON CONFLICT (account_id, scac, identifier_kind, identifier) DO UPDATE
		SET open_subscriptions = trackings.open_subscriptions + EXCLUDED.open_subscriptions,
		    connection_status = CASE WHEN trackings.open_subscriptions = 0
		        THEN EXCLUDED.connection_status ELSE trackings.connection_status END,
		    -- the new subscription is owed the events there are
		    -- (subscriptions.history_pending): polled for it now
		    next_poll_at = least(trackings.next_poll_at, now()),
		    poll_since = NULL, -- a connector's next poll asks for every event
		    updated_at = now()
		RETURNING id, scac, identifier_kind, identifier`,
		acct.ID, acct.Env, ids, scacs, kinds, values, conns, opens)
	if err != nil {
		return fmt.Errorf("upsert trackings: %w", err)
	}
	for rows.Next() {
		var id string
		var k trackingKey
		if err := rows.Scan(&id, &k.scac, &k.kind, &k.value); err != nil {
			rows.Close()
			return fmt.Errorf("upsert trackings: %w", err)
		}
		trackingOf[k] = id
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("upsert trackings: %w", err)
	}

	m := len(fresh)
	subIDs, subRefs, subTrackings, subScacs := make([]string, m), make([]string, m), make([]string, m), make([]string, m)
	containers, bookings, bills := make([]string, m), make([]string, m), make([]string, m)
	recIDs, recKeys, payloads := make([]string, m), make([]string, m), make([]string, m)
	for i, it := range fresh {
		s := it.shipment()
		tid := trackingOf[trackingKey{it.scac, it.id.kind, it.id.value}]
		subIDs[i], subRefs[i], subTrackings[i], subScacs[i] = uuid.NewString(), it.body.SubscriptionReference, tid, it.scac
		containers[i], bookings[i], bills[i] = s.container, s.booking, s.bill
		ch := schemas.SubscriptionChanged{
			ID: uuid.NewString(), AccountID: acct.ID, Env: acct.Env, TrackingID: tid, SubscriptionID: subIDs[i],
			SCAC: it.scac, IdentifierKind: it.id.kind, Identifier: it.id.value,
			Status: StatusOpen, TrackingOpen: true, OccurredAt: now,
		}
		payload, err := json.Marshal(ch)
		if err != nil {
			return fmt.Errorf("marshal subscription change: %w", err)
		}
		recIDs[i], recKeys[i], payloads[i] = ch.ID, tid, string(payload)
	}
	tag, err := tx.Exec(ctx, `
		INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, booking_number, bill_number, status, created_at, expires_at)
		SELECT u.id, $1, u.ref, u.tracking, u.scac, u.container, u.booking, u.bill, 'OPEN', $2, $3
		FROM unnest($4::uuid[], $5::text[], $6::uuid[], $7::text[], $8::text[], $9::text[], $10::text[]) WITH ORDINALITY AS u(id, ref, tracking, scac, container, booking, bill, ord)
		ORDER BY u.ord
		ON CONFLICT (account_id, reference) DO NOTHING`,
		acct.ID, now, now.Add(h.deps.SubscriptionLifetime), subIDs, subRefs, subTrackings, subScacs, containers, bookings, bills)
	if err != nil {
		return fmt.Errorf("insert subscriptions: %w", err)
	}
	if int(tag.RowsAffected()) != m {
		return errReferenceRace
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO outbox (record_id, topic, record_key, record_type, account_id, payload)
		SELECT u.id, $1, u.key, $2, $3, u.payload
		FROM unnest($4::uuid[], $5::text[], $6::text[]::jsonb[]) WITH ORDINALITY AS u(id, key, payload, ord)
		ORDER BY u.ord`,
		schemas.TopicSubscriptions, schemas.TypeSubscriptionChanged, acct.ID, recIDs, recKeys, payloads)
	if err != nil {
		return fmt.Errorf("write outbox: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, '')`, subscription.OutboxChannel); err != nil {
		return fmt.Errorf("notify outbox: %w", err)
	}
	return nil
}
