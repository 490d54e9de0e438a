package commandapi

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas"
)

// Messages of the VESSEL_POSITION opt-in.
const (
	msgPositionsOn     = "Vessel positions enabled"
	msgPositionsOff    = "Vessel positions disabled"
	msgPositionsClosed = "Subscription is closed: vessel positions go to open subscriptions only"
)

// msgBadInterval answers an intervalMinutes out of bounds or not whole.
var msgBadInterval = fmt.Sprintf("Invalid 'intervalMinutes': it must be a whole number of minutes from %d to %d",
	schemas.MinVesselPositionInterval, schemas.MaxVesselPositionInterval)

// VesselPositionsBody is PUT /subscription/{subscription_id}/vessel-positions' body.
type VesselPositionsBody struct {
	// IntervalMinutes spaces the subscription's VESSEL_POSITION items at
	// least this far apart (by the positions' times): 5 to 1440, default 60.
	IntervalMinutes *float64 `json:"intervalMinutes,omitempty"`
}

// VesselPositionsResponse answers the opt-in and the opt-out;
// intervalMinutes is absent on the opt-out.
type VesselPositionsResponse struct {
	Message               string `json:"message"`
	SubscriptionReference string `json:"subscriptionReference"`
	IntervalMinutes       int    `json:"intervalMinutes,omitempty"`
}

func registerVesselPositions(s *fuego.Server, deps api) {
	h := vesselPositionHandlers{deps}
	fuego.Put(s, "/subscription/{subscription_id}/vessel-positions", h.enable,
		option.OperationID("enableVesselPositions"),
		option.Path("subscription_id", "the subscriptionReference"),
		option.Summary("Receive the vessel's positions in the event feed"),
		option.Description("Opts the subscription in to VESSEL_POSITION items in GET /subscriptions/events: while its shipment is at sea, "+
			"the vessel's reported position at most every intervalMinutes (5-1440, default 60; measured on the positions' times). "+
			"Setting it again changes the interval. Items start within a minute or so (CONTRACK_FEED_POSITIONS_REFRESH) of the opt-in or the vessel's departure."),
		option.RequestBody(fuego.RequestBody{Type: VesselPositionsBody{}}),
		option.AddResponse(400, "intervalMinutes out of bounds, or the subscription is closed", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(404, "No such subscription", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
	fuego.Delete(s, "/subscription/{subscription_id}/vessel-positions", h.disable,
		option.OperationID("disableVesselPositions"),
		option.Path("subscription_id", "the subscriptionReference"),
		option.Summary("Stop the vessel's positions in the event feed"),
		option.Description("Opts the subscription out of VESSEL_POSITION items; items already in the feed stay. Answers 200 also when it was not opted in."),
		option.AddResponse(404, "No such subscription", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
}

type vesselPositionHandlers struct{ deps api }

// interval reads a body's intervalMinutes (absent: the default).
func (b VesselPositionsBody) interval() (int, bool) {
	if b.IntervalMinutes == nil {
		return schemas.DefaultVesselPositionInterval, true
	}
	v := *b.IntervalMinutes
	if v != math.Trunc(v) || v < schemas.MinVesselPositionInterval || v > schemas.MaxVesselPositionInterval {
		return 0, false
	}
	return int(v), true
}

func (h vesselPositionHandlers) enable(c fuego.ContextNoBody) (VesselPositionsResponse, error) {
	k, _ := auth.FromContext(c.Context())
	ref := c.PathParam("subscription_id")
	var body VesselPositionsBody
	if err := httpapi.DecodeJSON(c.Request(), &body); err != nil {
		return VesselPositionsResponse{}, err
	}
	minutes, ok := body.interval()
	if !ok {
		return VesselPositionsResponse{}, httpapi.BadRequest(msgBadInterval)
	}
	var subID, status string
	err := h.deps.Pool.QueryRow(c.Context(), `SELECT id::text, status FROM subscriptions WHERE account_id = $1 AND reference = $2`,
		k.Account.ID, ref).Scan(&subID, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return VesselPositionsResponse{}, httpapi.NotFound(msgNotFound)
	}
	if err != nil {
		return VesselPositionsResponse{}, fmt.Errorf("read subscription: %w", err)
	}
	if status != StatusOpen {
		return VesselPositionsResponse{}, httpapi.BadRequest(msgPositionsClosed)
	}
	// A new interval keeps the last position's time: the spacing holds
	// across a change.
	if _, err := h.deps.Pool.Exec(c.Context(), `
		INSERT INTO feed_vessel_positions (subscription_id, account_id, interval_minutes) VALUES ($1, $2, $3)
		ON CONFLICT (subscription_id) DO UPDATE SET interval_minutes = EXCLUDED.interval_minutes`,
		subID, k.Account.ID, minutes); err != nil {
		return VesselPositionsResponse{}, fmt.Errorf("store vessel positions opt-in: %w", err)
	}
	return VesselPositionsResponse{Message: msgPositionsOn, SubscriptionReference: ref, IntervalMinutes: minutes}, nil
}

func (h vesselPositionHandlers) disable(c fuego.ContextNoBody) (VesselPositionsResponse, error) {
	k, _ := auth.FromContext(c.Context())
	ref := c.PathParam("subscription_id")
	var found bool
	err := h.deps.Pool.QueryRow(c.Context(), `
		WITH s AS (SELECT id FROM subscriptions WHERE account_id = $1 AND reference = $2),
		     d AS (DELETE FROM feed_vessel_positions p USING s WHERE p.subscription_id = s.id AND p.account_id = $1)
		SELECT EXISTS (SELECT 1 FROM s)`, k.Account.ID, ref).Scan(&found)
	if err != nil {
		return VesselPositionsResponse{}, fmt.Errorf("remove vessel positions opt-in: %w", err)
	}
	if !found {
		return VesselPositionsResponse{}, httpapi.NotFound(msgNotFound)
	}
	return VesselPositionsResponse{Message: msgPositionsOff, SubscriptionReference: ref}, nil
}
