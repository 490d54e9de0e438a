package commandapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/contrack/contrack/commandapi/subscription"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/iso6346"
)

// Subscription and connection statuses.
const (
	StatusOpen   = subscription.StatusOpen
	StatusClosed = subscription.StatusClosed

	ConnPending       = "PENDING"
	ConnNoCredentials = "NO_CREDENTIALS"
	// ConnPushOnly is a tracking of a carrier that is not in the registry
	// but pushes to POST /events: never polled, fed by pushed events alone.
	ConnPushOnly = "PUSH_ONLY"
)

// Messages of the subscription endpoints.
const (
	msgSubscribed          = "Successfully Subscribed"
	msgReferenceExists     = "Subscription Reference Already Exists"
	msgExactlyOne          = "Provide exactly one of: containerNumber, bookingNumber, billNumber"
	msgSubscriptionDeleted = "Subscription deleted"
	msgAlreadyClosed       = "Subscription already closed"
	msgNotFound            = "Subscription not found"
)

// msgSubscriptionLimit is the 429 of a subscribe beyond the plan's open
// subscriptions.
func msgSubscriptionLimit(limit int64) string {
	return fmt.Sprintf("Subscription limit reached for this plan: %d open subscriptions; close some (DELETE /subscription/{subscription_id}) or change plans", limit)
}

// errSubscriptionLimit aborts a subscribe whose account is at its limit.
var errSubscriptionLimit = errors.New("commandapi: open subscriptions at the plan's limit")

// CreateSubscriptionBody is POST /subscription/equipment's body. Without
// scacCode the carrier is inferred from the identifier (GET /carrier/infer).
type CreateSubscriptionBody struct {
	ScacCode              string `json:"scacCode,omitempty"`
	ContainerNumber       string `json:"containerNumber,omitempty"`
	BookingNumber         string `json:"bookingNumber,omitempty"`
	BillNumber            string `json:"billNumber,omitempty"`
	SubscriptionReference string `json:"subscriptionReference"`
}

// SubscribeResponse answers a successful subscribe.
type SubscribeResponse struct {
	Message               string       `json:"message"`
	SubscriptionReference string       `json:"subscriptionReference"`
	DateOfRequest         httpapi.Time `json:"dateOfRequest"`
}

// DeleteResponse answers DELETE /subscription/{subscription_id};
// stoppedTracking is absent when the subscription was already closed.
type DeleteResponse struct {
	Message               string       `json:"message"`
	SubscriptionReference string       `json:"subscriptionReference"`
	StoppedTracking       *bool        `json:"stoppedTracking,omitempty"`
	DateOfRequest         httpapi.Time `json:"dateOfRequest"`
}

func registerSubscriptions(s *fuego.Server, deps api) {
	h := subscriptionHandlers{deps}
	fuego.Post(s, "/subscription/equipment", h.create,
		option.OperationID("createSubscription"),
		option.Summary("Subscribe to a shipment"),
		option.Description("Track a container, booking or bill of lading of a carrier. subscriptionReference and exactly one of containerNumber, bookingNumber, billNumber are required. scacCode is optional: without it the carrier is inferred as GET /carrier/infer does (owner code, bill prefix, else asking the carriers the account has credentials for), and exactly one candidate must result, else 400 \"Could not determine the carrier for '<value>'; provide scacCode\"; the subscription then shows the inferred scacCode. Container numbers must carry a valid ISO 6346 check digit. Subscribing before storing the carrier's credentials is allowed: connectionStatus is NO_CREDENTIALS until they are stored. A carrier not on the supported list that pushes its events (it has a carrier key in this environment) is accepted with connectionStatus PUSH_ONLY: never polled, fed by its pushed events."),
		option.RequestBody(fuego.RequestBody{Type: CreateSubscriptionBody{}}),
		option.AddResponse(400, "Validation error or reference already used", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(429, "Over the usage plan's rate; inferring the carrier would exceed the account's carrier probe budget (\"Too many carrier probes: …\"); or its open subscriptions are reached: \"Subscription limit reached for this plan: <N> open subscriptions; close some (DELETE /subscription/{subscription_id}) or change plans\" (with dateOfRequest)", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
	fuego.Delete(s, "/subscription/{subscription_id}", h.delete,
		option.OperationID("deleteSubscription"),
		option.Path("subscription_id", "the subscriptionReference"),
		option.Summary("Close a subscription"),
		option.Description("OPEN → CLOSED. Carrier polling stops only when no other open subscription shares the shipment (stoppedTracking). Closing an already closed subscription answers 200 without stoppedTracking."),
		option.AddResponse(404, "No such subscription", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
}

type subscriptionHandlers struct{ deps api }

// identifier is the one shipment identifier of a create body.
type identifier struct {
	kind  string // container | booking | bill
	value string // normalised (containers upper case, without spaces)
	given string // as the body spelled it, trimmed, for messages
}

// scacShape is what a SCAC looks like; anything else is not looked up.
var scacShape = regexp.MustCompile(`^[A-Z]{2,4}$`)

// PushOnlyCarrier reports whether scac, not in the registry, is a push-only
// carrier in env: at least one active carrier key of that SCAC exists in an
// account of env (`contrack admin create-key --role carrier --scac`).
func PushOnlyCarrier(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, env, scac string) (bool, error) {
	if !scacShape.MatchString(scac) {
		return false, nil
	}
	var ok bool
	err := q.QueryRow(ctx, `
		SELECT EXISTS (SELECT 1 FROM api_keys k JOIN accounts a ON a.id = k.account_id
		WHERE k.role = 'carrier' AND upper(k.carrier_scac) = $1 AND k.revoked_at IS NULL AND a.env = $2)`,
		scac, env).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look up push-only carrier: %w", err)
	}
	return ok, nil
}

// outside is what a SCAC outside the registry is to an account.
type outside int

const (
	inRegistry outside = iota // a registered carrier (or none given)
	unsupported
	pushOnly  // a push-only carrier: never polled
	connector // the account's own carrier connector (POST /carrier/connectors)
)

// OutsideRegistry answers for a scacCode the registry does not know: the
// account's carrier connector of that code first, else a push-only carrier
// of env, else unsupported.
func OutsideRegistry(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, accountID, env, scac string) (outside, error) {
	var own bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM carrier_connectors WHERE account_id = $1 AND code = $2)`,
		accountID, scac).Scan(&own); err != nil {
		return unsupported, fmt.Errorf("look up carrier connector: %w", err)
	}
	if own {
		return connector, nil
	}
	push, err := PushOnlyCarrier(ctx, q, env, scac)
	if err != nil || !push {
		return unsupported, err
	}
	return pushOnly, nil
}

// validate checks a create body in a fixed order and returns the first
// problem as the spec's 400, or the normalised SCAC and identifier. The SCAC
// is empty when the body has none (blank counts as none): the caller infers
// it. other answers for a SCAC the registry does not know.
func (b *CreateSubscriptionBody) validate(other func(scac string) (outside, error)) (scac string, id identifier, kind outside, err error) {
	b.ScacCode = strings.TrimSpace(b.ScacCode)
	b.SubscriptionReference = strings.TrimSpace(b.SubscriptionReference)
	if b.SubscriptionReference == "" {
		return "", id, inRegistry, httpapi.BadRequest("Missing Parameter 'subscriptionReference'")
	}
	var given []identifier
	for _, c := range []identifier{{kind: "container", value: b.ContainerNumber}, {kind: "booking", value: b.BookingNumber}, {kind: "bill", value: b.BillNumber}} {
		if v := strings.TrimSpace(c.value); v != "" {
			given = append(given, identifier{kind: c.kind, value: v, given: v})
		}
	}
	if len(given) != 1 {
		return "", id, inRegistry, httpapi.BadRequest(msgExactlyOne)
	}
	id = given[0]
	// Stored identifiers take no control characters (tab and line breaks
	// pass the body check; NUL and invalid UTF-8 never get this far).
	for _, f := range [][2]string{{"scacCode", b.ScacCode}, {"subscriptionReference", b.SubscriptionReference},
		{"containerNumber", b.ContainerNumber}, {"bookingNumber", b.BookingNumber}, {"billNumber", b.BillNumber}} {
		if err := httpapi.CheckField(f[0], f[1]); err != nil {
			return "", id, inRegistry, err
		}
	}
	scac = strings.ToUpper(b.ScacCode)
	if _, ok := carriers.Lookup(scac); !ok && scac != "" {
		if kind, err = other(scac); err != nil {
			return "", id, inRegistry, err
		}
		if kind == unsupported {
			return "", id, inRegistry, httpapi.BadRequest(fmt.Sprintf("Unsupported carrier '%s'", b.ScacCode))
		}
	}
	if id.kind == "container" {
		norm := strings.ToUpper(strings.ReplaceAll(id.value, " ", ""))
		if !iso6346.Valid(norm) {
			return "", id, inRegistry, httpapi.BadRequest(msgInvalidContainer(id.value, norm))
		}
		id.value = norm
	}
	if len(b.SubscriptionReference) > 256 || len(id.value) > 64 {
		return "", id, inRegistry, httpapi.BadRequest("subscriptionReference is limited to 256 characters and identifiers to 64")
	}
	return scac, id, kind, nil
}

func (h subscriptionHandlers) create(c fuego.ContextNoBody) (SubscribeResponse, error) {
	now := h.deps.Now().UTC()
	k, _ := auth.FromContext(c.Context())
	var body CreateSubscriptionBody
	if err := httpapi.DecodeJSON(c.Request(), &body); err != nil {
		return SubscribeResponse{}, err
	}
	scac, id, kind, err := body.validate(func(scac string) (outside, error) {
		return OutsideRegistry(c.Context(), h.deps.Pool, k.Account.ID, k.Account.Env, scac)
	})
	if err != nil {
		return SubscribeResponse{}, err
	}
	if scac == "" {
		// After every check of the body, before the reference's: inference
		// may ask carriers, so a body that fails anyway never does.
		candidates, _, err := h.deps.inferCarrier(c.Context(), k.Account, id.kind, id.value)
		if err != nil {
			return SubscribeResponse{}, err
		}
		if len(candidates) != 1 {
			return SubscribeResponse{}, httpapi.BadRequest(msgUndetermined(id.given))
		}
		scac = candidates[0].ScacCode
	}
	limit := k.Account.Limits().OpenSubscriptions
	err = pgx.BeginFunc(c.Context(), h.deps.Pool, func(tx pgx.Tx) error {
		return h.subscribe(c.Context(), tx, k.Account, limit, scac, id, kind, body.SubscriptionReference, now)
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "subscriptions_account_id_reference_key" {
		return SubscribeResponse{}, httpapi.BadRequest(msgReferenceExists).Dated(now)
	}
	if errors.Is(err, errSubscriptionLimit) {
		return SubscribeResponse{}, (&httpapi.Error{Status: http.StatusTooManyRequests, Message: msgSubscriptionLimit(limit)}).Dated(now)
	}
	if err != nil {
		return SubscribeResponse{}, fmt.Errorf("subscribe: %w", err)
	}
	return SubscribeResponse{Message: msgSubscribed, SubscriptionReference: body.SubscriptionReference, DateOfRequest: httpapi.Time(now)}, nil
}

// subscribe counts the subscription against the account's limit of open
// ones, inserts it, creates or reuses its tracking and writes the change to
// the outbox, all in tx.
func (h subscriptionHandlers) subscribe(ctx context.Context, tx pgx.Tx, acct auth.Account, limit int64, scac string, id identifier, kind outside, ref string, now time.Time) error {
	// First, so an account's subscribes and closes take its row before any
	// tracking's (closeLocked does the same): the count is exact under the
	// lock and no two transactions wait on each other in opposite orders.
	tag, err := tx.Exec(ctx, `UPDATE accounts SET open_subscriptions = open_subscriptions + 1
		WHERE id = $1 AND open_subscriptions < $2`, acct.ID, limit)
	if err != nil {
		return fmt.Errorf("count open subscriptions: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return errSubscriptionLimit
	}
	var hasCreds bool
	// carrier_credentials may not exist yet on older schemas; the query is
	// the contract with the credentials endpoints.
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM carrier_credentials WHERE account_id = $1 AND scac = $2)`,
		acct.ID, scac).Scan(&hasCreds); err != nil {
		return fmt.Errorf("look up credentials: %w", err)
	}
	conn := ConnPending
	switch {
	case kind == pushOnly:
		conn = ConnPushOnly
	case kind == connector: // its credentials are its own
	case !hasCreds:
		conn = ConnNoCredentials
	}
	// One tracking per (account, shipment): reuse it and count the new subscription.
	var trackingID string
	err = tx.QueryRow(ctx, `
		INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status, open_subscriptions)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 1)
		ON CONFLICT (account_id, scac, identifier_kind, identifier) DO UPDATE
		SET open_subscriptions = trackings.open_subscriptions + 1,
		    -- a tracking reopened after its last subscription closed starts afresh
		    connection_status = CASE WHEN trackings.open_subscriptions = 0
		        THEN EXCLUDED.connection_status ELSE trackings.connection_status END,
		    -- the new subscription is owed the events there are
		    -- (subscriptions.history_pending): polled for it now
		    next_poll_at = least(trackings.next_poll_at, now()),
		    -- and a connector's next poll asks for every event, not only
		    -- the ones updated since the last (migration 0110)
		    poll_since = NULL,
		    updated_at = now()
		RETURNING id`,
		uuid.NewString(), acct.ID, acct.Env, scac, id.kind, id.value, conn).Scan(&trackingID)
	if err != nil {
		return fmt.Errorf("upsert tracking: %w", err)
	}
	subID := uuid.NewString()
	var container, booking, bill string
	switch id.kind {
	case "container":
		container = id.value
	case "booking":
		booking = id.value
	case "bill":
		bill = id.value
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, booking_number, bill_number, status, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'OPEN', $9, $10)`,
		subID, acct.ID, ref, trackingID, scac, container, booking, bill, now, now.Add(h.deps.SubscriptionLifetime))
	if err != nil {
		return err // a duplicate reference is reported by the caller
	}
	return subscription.EnqueueChange(ctx, tx, schemas.SubscriptionChanged{
		AccountID: acct.ID, Env: acct.Env, TrackingID: trackingID, SubscriptionID: subID,
		SCAC: scac, IdentifierKind: id.kind, Identifier: id.value,
		Status: StatusOpen, TrackingOpen: true, OccurredAt: now,
	})
}

func (h subscriptionHandlers) delete(c fuego.ContextNoBody) (DeleteResponse, error) {
	now := h.deps.Now().UTC()
	k, _ := auth.FromContext(c.Context())
	ref := c.PathParam("subscription_id")
	var resp DeleteResponse
	err := pgx.BeginFunc(c.Context(), h.deps.Pool, func(tx pgx.Tx) error {
		var subID, trackingID, status, scac, container, booking, bill string
		err := tx.QueryRow(c.Context(), `
			SELECT id, tracking_id, status, scac, container_number, booking_number, bill_number
			FROM subscriptions WHERE account_id = $1 AND reference = $2 FOR UPDATE`,
			k.Account.ID, ref).Scan(&subID, &trackingID, &status, &scac, &container, &booking, &bill)
		if errors.Is(err, pgx.ErrNoRows) {
			return httpapi.NotFound(msgNotFound).Dated(now)
		}
		if err != nil {
			return fmt.Errorf("read subscription: %w", err)
		}
		if status == StatusClosed {
			resp = DeleteResponse{Message: msgAlreadyClosed, SubscriptionReference: ref, DateOfRequest: httpapi.Time(now)}
			return nil
		}
		stopped, err := subscription.Close(c.Context(), tx, subscription.Locked{ID: subID, AccountID: k.Account.ID, Env: k.Account.Env, TrackingID: trackingID, SCAC: scac}, subscription.ClosedDeleted, now)
		resp = DeleteResponse{Message: msgSubscriptionDeleted, SubscriptionReference: ref, StoppedTracking: &stopped, DateOfRequest: httpapi.Time(now)}
		return err
	})
	if err != nil {
		return DeleteResponse{}, err
	}
	return resp, nil
}
