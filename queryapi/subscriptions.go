package queryapi

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
)

// Pagination limits of GET /subscriptions.
const (
	DefaultPageSize = 50
	MaxPageSize     = 200
)

const (
	msgSubscriptionNotFound = "Subscription not found"
	msgLimitNotInteger      = "Query parameter 'limit' must be an integer"
	msgBadStatus            = "Query parameter 'subscriptionStatus' must be OPEN or CLOSED"
	msgBadToken             = "Invalid nextToken: pass back the value of the previous response unchanged, with the same filters"
)

// SubscriptionRecord is a subscription as the spec's read shape.
type SubscriptionRecord struct {
	SubscriptionReference    string       `json:"subscriptionReference"`
	EquipmentNumber          string       `json:"equipmentNumber"`
	BookingNumber            string       `json:"bookingNumber"`
	BillNumber               string       `json:"billNumber"`
	ScacCode                 string       `json:"scacCode"`
	SubscriptionCreationDate httpapi.Time `json:"subscriptionCreationDate"`
	SubscriptionExpiryDate   httpapi.Time `json:"subscriptionExpiryDate"`
	SubscriptionStatus       string       `json:"subscriptionStatus"`
	ConnectionStatus         string       `json:"connectionStatus"`
	// ClosedDateTime and ClosedReason say when and why a CLOSED
	// subscription closed (absent while OPEN): DELETED, EXPIRED,
	// JOURNEY_ENDED or IDLE (docs/api.md).
	ClosedDateTime *httpapi.Time `json:"closedDateTime,omitempty"`
	ClosedReason   string        `json:"closedReason,omitempty"`
}

// SubscriptionList is GET /subscriptions' body.
type SubscriptionList struct {
	Subscriptions []SubscriptionRecord `json:"subscriptions"`
	NextToken     string               `json:"nextToken,omitempty"`

	// stream, when set, writes the whole unpaged list instead (StreamJSON).
	stream func(w http.ResponseWriter, r *http.Request)
}

// StreamJSON writes an unpaged list as it reads it (httpapi.Streamer).
func (l SubscriptionList) StreamJSON(w http.ResponseWriter, r *http.Request) bool {
	if l.stream == nil {
		return false
	}
	l.stream(w, r)
	return true
}

// streamChunk is how many subscriptions an unpaged GET /subscriptions reads
// per query: memory per request stays bounded whatever the account's size,
// and no Postgres connection is held while the client reads slowly.
const streamChunk = 1000

func registerSubscriptions(s *fuego.Server, deps Deps) {
	h := subscriptionQueries{deps}
	fuego.Get(s, "/subscriptions", h.list,
		option.OperationID("listSubscriptions"),
		option.Query("subscriptionStatus", "OPEN or CLOSED"),
		option.Query("referencePrefix", "case-sensitive, left-anchored prefix of subscriptionReference; spans all statuses"),
		option.QueryInt("limit", "page size 1-200 (values outside are clamped); pagination is opt-in: without limit and nextToken every subscription is returned"),
		option.Query("nextToken", "opaque cursor from the previous page; pass it back unchanged with the same filters"),
		option.Summary("List subscriptions"),
		option.Description("The calling account's subscriptions in creation order. Without limit and nextToken the whole list is streamed as it is read (1,000 at a time), so it is not a snapshot: a subscription created or closed while it is written may or may not appear as such."),
		option.Tags("Subscriptions"),
	)
	fuego.Get(s, "/subscription/{subscription_id}", h.get,
		option.OperationID("getSubscription"),
		option.Path("subscription_id", "the subscriptionReference"),
		option.Summary("Read a subscription"),
		option.AddResponse(404, "No such subscription", fuego.Response{Type: httpapi.Body{}}),
		option.Header("If-None-Match", "an ETag of an earlier answer: 304 without a body while the subscription is unchanged"),
		option.AddResponse(304, "Not modified since the If-None-Match tag", fuego.Response{Type: httpapi.Body{}}),
		option.Middleware(httpapi.ETag),
		option.Tags("Subscriptions"),
	)
}

type subscriptionQueries struct{ deps Deps }

const selectSubscription = `
	SELECT s.reference, s.container_number, s.booking_number, s.bill_number, s.scac,
	       s.created_at, s.expires_at, s.status, t.connection_status, s.seq,
	       s.closed_at, coalesce(s.closed_reason, '')
	FROM subscriptions s JOIN trackings t ON t.id = s.tracking_id`

func scanSubscription(row pgx.CollectableRow) (pagedRecord, error) {
	var r pagedRecord
	var created, expires time.Time
	var closed *time.Time
	err := row.Scan(&r.SubscriptionReference, &r.EquipmentNumber, &r.BookingNumber, &r.BillNumber, &r.ScacCode,
		&created, &expires, &r.SubscriptionStatus, &r.ConnectionStatus, &r.seq, &closed, &r.ClosedReason)
	r.SubscriptionCreationDate = httpapi.Time(created)
	r.SubscriptionExpiryDate = httpapi.Time(expires)
	if closed != nil && r.SubscriptionStatus == "CLOSED" {
		at := httpapi.Time(*closed)
		r.ClosedDateTime = &at
	} else {
		r.ClosedReason = ""
	}
	return r, err
}

type pagedRecord struct {
	SubscriptionRecord
	seq int64
}

func (h subscriptionQueries) get(c fuego.ContextNoBody) (SubscriptionRecord, error) {
	k, _ := auth.FromContext(c.Context())
	rows, err := h.deps.Pool.Query(c.Context(), selectSubscription+` WHERE s.account_id = $1 AND s.reference = $2`,
		k.Account.ID, c.PathParam("subscription_id"))
	if err != nil {
		return SubscriptionRecord{}, fmt.Errorf("read subscription: %w", err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, scanSubscription)
	if errors.Is(err, pgx.ErrNoRows) {
		return SubscriptionRecord{}, httpapi.NotFound(msgSubscriptionNotFound)
	}
	if err != nil {
		return SubscriptionRecord{}, fmt.Errorf("read subscription: %w", err)
	}
	return r.SubscriptionRecord, nil
}

// cursor is the content of a nextToken: it is bound to the account and the
// filters, and signed, so a forged or foreign token is refused.
type cursor struct {
	Account  string `json:"a"`
	Status   string `json:"s,omitempty"`
	Prefix   string `json:"p,omitempty"`
	Limit    int    `json:"l"`
	AfterSeq int64  `json:"q"`
}

func (h subscriptionQueries) list(c fuego.ContextNoBody) (SubscriptionList, error) {
	k, _ := auth.FromContext(c.Context())
	q := c.Request().URL.Query()
	status := strings.ToUpper(strings.TrimSpace(q.Get("subscriptionStatus")))
	if status != "" && status != "OPEN" && status != "CLOSED" {
		return SubscriptionList{}, httpapi.BadRequest(msgBadStatus)
	}
	prefix := q.Get("referencePrefix")
	paginate := q.Has("limit") || q.Has("nextToken")
	limit := DefaultPageSize
	if q.Has("limit") {
		n, err := strconv.Atoi(strings.TrimSpace(q.Get("limit")))
		if err != nil {
			return SubscriptionList{}, httpapi.BadRequest(msgLimitNotInteger)
		}
		limit = min(max(n, 1), MaxPageSize)
	}
	var after int64
	if tok := q.Get("nextToken"); q.Has("nextToken") {
		cur, ok := h.openToken(tok)
		if !ok || cur.Account != k.Account.ID || cur.Status != status || cur.Prefix != prefix {
			return SubscriptionList{}, httpapi.BadRequest(msgBadToken)
		}
		after = cur.AfterSeq
		if !q.Has("limit") {
			limit = cur.Limit
		}
	}
	if !paginate {
		// Every subscription, however many: read and written a chunk at a
		// time. The first chunk is read here, so a store error is still an
		// error answer; later ones can only abort the response.
		first, err := h.chunk(c.Context(), k.Account.ID, status, prefix, 0, streamChunk)
		if err != nil {
			return SubscriptionList{}, err
		}
		return SubscriptionList{stream: func(w http.ResponseWriter, r *http.Request) {
			h.streamAll(w, r, k.Account.ID, status, prefix, first)
		}}, nil
	}
	recs, err := h.chunk(c.Context(), k.Account.ID, status, prefix, after, limit+1)
	if err != nil {
		return SubscriptionList{}, err
	}
	out := SubscriptionList{Subscriptions: make([]SubscriptionRecord, 0, len(recs))}
	if paginate && len(recs) > limit {
		recs = recs[:limit]
		out.NextToken = h.sealToken(cursor{Account: k.Account.ID, Status: status, Prefix: prefix, Limit: limit, AfterSeq: recs[len(recs)-1].seq})
	}
	for _, r := range recs {
		out.Subscriptions = append(out.Subscriptions, r.SubscriptionRecord)
	}
	return out, nil
}

// chunk reads up to n of the account's subscriptions after seq, in creation order.
func (h subscriptionQueries) chunk(ctx context.Context, acct, status, prefix string, after int64, n int) ([]pagedRecord, error) {
	rows, err := h.deps.Pool.Query(ctx, selectSubscription+`
		WHERE s.account_id = $1 AND ($2 = '' OR s.status = $2) AND starts_with(s.reference, $3) AND s.seq > $4
		ORDER BY s.seq
		LIMIT $5`, acct, status, prefix, after, n)
	if err != nil {
		return nil, fmt.Errorf("list subscriptions: %w", err)
	}
	recs, err := pgx.CollectRows(rows, scanSubscription)
	if err != nil {
		return nil, fmt.Errorf("list subscriptions: %w", err)
	}
	return recs, nil
}

// streamAll writes {"subscriptions":[…]} from first and the chunks after
// it, through a buffer that goes out to the client as it fills. A store
// error once the answer has started aborts it (the client sees a broken
// body, never a short list that parses).
func (h subscriptionQueries) streamAll(w http.ResponseWriter, r *http.Request, acct, status, prefix string, first []pagedRecord) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	// A failed write sticks to bw: later ones do nothing and Flush reports
	// it (a client gone also cancels r's context, which stops the chunks).
	bw := bufio.NewWriterSize(w, 32<<10)
	_, _ = bw.WriteString(`{"subscriptions":[`)
	recs, n := first, 0
	for {
		for _, rec := range recs {
			if n > 0 {
				_ = bw.WriteByte(',')
			}
			b, err := json.Marshal(rec.SubscriptionRecord)
			if err != nil {
				h.abort(r, err)
			}
			_, _ = bw.Write(b)
			n++
		}
		if len(recs) < streamChunk {
			break
		}
		var err error
		if recs, err = h.chunk(r.Context(), acct, status, prefix, recs[len(recs)-1].seq, streamChunk); err != nil {
			h.abort(r, err)
		}
	}
	_, _ = bw.WriteString("]}\n")
	if err := bw.Flush(); err != nil && r.Context().Err() == nil {
		h.deps.Log.Warn("list subscriptions: writing the answer", "err", err)
	}
}

// abort ends a streamed answer that cannot be completed.
func (h subscriptionQueries) abort(r *http.Request, err error) {
	if r.Context().Err() == nil {
		h.deps.Log.Error("list subscriptions: answer aborted", "path", r.URL.Path, "err", err)
	}
	panic(http.ErrAbortHandler)
}

func (h subscriptionQueries) sealToken(c cursor) string {
	payload, _ := json.Marshal(c)
	return h.sealPayload(payload)
}

// sealPayload signs payload as a token (base64 of it, a dot, base64 of its MAC).
func (h subscriptionQueries) sealPayload(payload []byte) string {
	mac := hmac.New(sha256.New, h.deps.TokenKey)
	mac.Write(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func (h subscriptionQueries) openToken(tok string) (cursor, bool) {
	c, ok := h.openSigned(tok)
	if !ok || c.Limit < 1 || c.Limit > MaxPageSize {
		return cursor{}, false
	}
	return c, true
}

// openSigned checks tok's signature and decodes it; the caller checks the
// account, scope and fields its endpoint binds.
func (h subscriptionQueries) openSigned(tok string) (cursor, bool) {
	var c cursor
	if !h.openJSON(tok, &c) {
		return cursor{}, false
	}
	return c, true
}

// openJSON checks tok's signature (current or previous key) and decodes
// its payload into v.
func (h subscriptionQueries) openJSON(tok string, v any) bool {
	p, s, ok := strings.Cut(tok, ".")
	if !ok {
		return false
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	sig, err2 := base64.RawURLEncoding.DecodeString(s)
	if err1 != nil || err2 != nil {
		return false
	}
	signed := false
	for _, key := range append([][]byte{h.deps.TokenKey}, h.deps.TokenKeysPrevious...) {
		mac := hmac.New(sha256.New, key)
		mac.Write(payload)
		signed = signed || hmac.Equal(sig, mac.Sum(nil))
	}
	return signed && json.Unmarshal(payload, v) == nil
}
