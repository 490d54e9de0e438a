package queryapi

import (
	"errors"
	"fmt"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
)

// VesselPositionsSetting is a subscription's VESSEL_POSITION opt-in;
// intervalMinutes is absent while it is off.
type VesselPositionsSetting struct {
	SubscriptionReference string `json:"subscriptionReference"`
	Enabled               bool   `json:"enabled"`
	IntervalMinutes       int    `json:"intervalMinutes,omitempty"`
}

func registerVesselPositions(s *fuego.Server, deps Deps) {
	fuego.Get(s, "/subscription/{subscription_id}/vessel-positions", func(c fuego.ContextNoBody) (VesselPositionsSetting, error) {
		k, _ := auth.FromContext(c.Context())
		ref := c.PathParam("subscription_id")
		out := VesselPositionsSetting{SubscriptionReference: ref}
		var minutes *int
		err := deps.Pool.QueryRow(c.Context(), `
			SELECT p.interval_minutes FROM subscriptions s
			LEFT JOIN feed_vessel_positions p ON p.subscription_id = s.id AND p.account_id = s.account_id
			WHERE s.account_id = $1 AND s.reference = $2`, k.Account.ID, ref).Scan(&minutes)
		if errors.Is(err, pgx.ErrNoRows) {
			return out, httpapi.NotFound(msgSubscriptionNotFound)
		}
		if err != nil {
			return out, fmt.Errorf("read vessel positions opt-in: %w", err)
		}
		if minutes != nil {
			out.Enabled, out.IntervalMinutes = true, *minutes
		}
		return out, nil
	},
		option.OperationID("getVesselPositions"),
		option.Path("subscription_id", "the subscriptionReference"),
		option.Summary("Whether the subscription receives vessel positions in the event feed"),
		option.Description("enabled, and the interval of its VESSEL_POSITION items in GET /subscriptions/events (PUT to opt in, DELETE to opt out)."),
		option.AddResponse(404, "No such subscription", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
}
