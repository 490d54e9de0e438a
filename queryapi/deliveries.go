package queryapi

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas/deliveries"
)

const msgBadDeliveryStatus = "Query parameter 'status' must be PENDING, FAILED, DELIVERED or DEAD"

// deliveriesScope binds GET /webhook/deliveries cursors to this endpoint and
// its subscriptionReference filter (the cursor's prefix field carries it).
const deliveriesScope = "/webhook/deliveries?subscriptionReference="

// DeliveryRecord is one webhook delivery as GET /webhook/deliveries shows it.
type DeliveryRecord struct {
	// ID is also the webhook-id header of every attempt of the delivery.
	ID                    string `json:"id"`
	SubscriptionReference string `json:"subscriptionReference"` // "" for a test delivery
	// Test marks a test delivery (POST /webhook/test); absent otherwise.
	Test bool `json:"test,omitempty"`
	// Status is PENDING (not attempted yet), FAILED (failed, retrying),
	// DELIVERED (acknowledged) or DEAD (every attempt failed; replayable).
	Status   string `json:"status"`
	Attempts int    `json:"attempts"`
	// NextAttemptAt is null unless the delivery is PENDING or FAILED and the
	// webhook is activated (a deactivated webhook's deliveries wait for it).
	NextAttemptAt *httpapi.Time `json:"nextAttemptAt"`
	// LastHTTPCode is null before the first answer.
	LastHTTPCode *int         `json:"lastHttpCode"`
	LastError    string       `json:"lastError,omitempty"`
	CreatedAt    httpapi.Time `json:"createdAt"`
	EventCount   int          `json:"eventCount"`
}

// DeliveryList is GET /webhook/deliveries' body.
type DeliveryList struct {
	Deliveries []DeliveryRecord `json:"deliveries"`
	NextToken  string           `json:"nextToken,omitempty"`
}

func registerDeliveries(s *fuego.Server, deps Deps) {
	h := deliveryQueries{deps}
	fuego.Get(s, "/webhook/deliveries", h.list,
		option.OperationID("listWebhookDeliveries"),
		option.Query("status", "PENDING, FAILED (retrying), DELIVERED or DEAD"),
		option.Query("subscriptionReference", "only this subscription's deliveries"),
		option.QueryInt("limit", "page size 1-200, default 50 (values outside are clamped)"),
		option.Query("nextToken", "opaque cursor from the previous page; pass it back unchanged with the same filters"),
		option.Summary("List webhook deliveries"),
		option.Description("The calling account's webhook deliveries, newest first, a page at a time. A delivery is one signed POST of one or more events to the webhook; its id is the webhook-id header of every attempt. DEAD deliveries can be sent again with POST /webhook/deliveries/{id}/retry."),
		option.AddResponse(400, "Invalid query parameter or nextToken", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Webhooks"),
	)
}

type deliveryQueries struct{ deps Deps }

func (h deliveryQueries) list(c fuego.ContextNoBody) (DeliveryList, error) {
	k, _ := auth.FromContext(c.Context())
	q := c.Request().URL.Query()
	status := strings.ToUpper(strings.TrimSpace(q.Get("status")))
	switch status {
	case "", deliveries.StatusPending, deliveries.StatusFailed, deliveries.StatusDelivered, deliveries.StatusDead:
	default:
		return DeliveryList{}, httpapi.BadRequest(msgBadDeliveryStatus)
	}
	ref := q.Get("subscriptionReference")
	limit := DefaultPageSize
	if q.Has("limit") {
		n, err := strconv.Atoi(strings.TrimSpace(q.Get("limit")))
		if err != nil {
			return DeliveryList{}, httpapi.BadRequest(msgLimitNotInteger)
		}
		limit = min(max(n, 1), MaxPageSize)
	}
	// The signing and checking of cursors is GET /subscriptions'; the scope
	// in the prefix field keeps the two endpoints' tokens apart.
	tokens := subscriptionQueries{h.deps}
	var before int64
	if q.Has("nextToken") {
		cur, ok := tokens.openToken(q.Get("nextToken"))
		if !ok || cur.Account != k.Account.ID || cur.Status != status || cur.Prefix != deliveriesScope+ref {
			return DeliveryList{}, httpapi.BadRequest(msgBadToken)
		}
		before = cur.AfterSeq
		if !q.Has("limit") {
			limit = cur.Limit
		}
	}
	rows, err := h.deps.Pool.Query(c.Context(), `
		SELECT d.id::text, coalesce(s.reference, ''), d.kind = 'test', d.status, d.attempts, d.next_attempt_at, coalesce(w.activated, false),
		       d.last_http_code, d.last_error, d.created_at, d.event_count, d.seq
		FROM deliveries d
		LEFT JOIN subscriptions s ON s.id = d.subscription_id
		LEFT JOIN webhooks w ON w.account_id = d.account_id
		WHERE d.account_id = $1 AND d.kind <> 'verification' AND ($2 = '' OR d.status = $2) AND ($3 = '' OR s.reference = $3)
		  AND ($4 = 0 OR d.seq < $4)
		ORDER BY d.seq DESC
		LIMIT $5`, k.Account.ID, status, ref, before, limit+1)
	if err != nil {
		return DeliveryList{}, fmt.Errorf("list deliveries: %w", err)
	}
	type paged struct {
		DeliveryRecord
		seq int64
	}
	recs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (paged, error) {
		var r paged
		var next, created time.Time
		var activated bool
		err := row.Scan(&r.ID, &r.SubscriptionReference, &r.Test, &r.Status, &r.Attempts, &next, &activated,
			&r.LastHTTPCode, &r.LastError, &created, &r.EventCount, &r.seq)
		if activated && (r.Status == deliveries.StatusPending || r.Status == deliveries.StatusFailed) {
			t := httpapi.Time(next)
			r.NextAttemptAt = &t
		}
		r.CreatedAt = httpapi.Time(created)
		return r, err
	})
	if err != nil {
		return DeliveryList{}, fmt.Errorf("list deliveries: %w", err)
	}
	out := DeliveryList{Deliveries: make([]DeliveryRecord, 0, len(recs))}
	if len(recs) > limit {
		recs = recs[:limit]
		out.NextToken = tokens.sealToken(cursor{Account: k.Account.ID, Status: status, Prefix: deliveriesScope + ref,
			Limit: limit, AfterSeq: recs[len(recs)-1].seq})
	}
	for _, r := range recs {
		out.Deliveries = append(out.Deliveries, r.DeliveryRecord)
	}
	return out, nil
}
