package queryapi

import (
	"errors"
	"fmt"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/schemas/deliveries"
	"github.com/contrack/contrack/schemas/eventfilter"
)

// WebhookConfig is GET /webhook/configure's body.
type WebhookConfig struct {
	TargetURL string `json:"targetUrl"`
	Activated bool   `json:"activated"`
	Env       string `json:"env"`
	// EventFormat is what deliveries carry: EVENT_DOMAIN_2.0.2 or TNT_3.0.0.
	EventFormat string `json:"eventFormat"`
	// Filters are what deliveries carry (POST /webhook/configure's
	// filters): eventTypes and classifiers null for all.
	Filters eventfilter.Filter `json:"filters"`
}

func registerWebhookConfig(s *fuego.Server, deps Deps) {
	fuego.Get(s, "/webhook/configure", func(c fuego.ContextNoBody) (WebhookConfig, error) {
		k, _ := auth.FromContext(c.Context())
		out := WebhookConfig{Env: k.Account.Env, EventFormat: deliveries.FormatEventDomain, Filters: eventfilter.Filter{AlertTypes: []string{}}}
		err := deps.Pool.QueryRow(c.Context(), `SELECT target_url, activated, event_format, filter_event_types, filter_classifiers,
				filter_milestones_only, alert_types FROM webhooks WHERE account_id = $1`, k.Account.ID).
			Scan(&out.TargetURL, &out.Activated, &out.EventFormat, &out.Filters.EventTypes, &out.Filters.Classifiers,
				&out.Filters.MilestonesOnly, &out.Filters.AlertTypes)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return WebhookConfig{}, fmt.Errorf("read webhook: %w", err)
		}
		return out, nil
	},
		option.OperationID("getWebhook"),
		option.Summary("The webhook configuration"),
		option.Description("targetUrl, whether the webhook is activated and what its deliveries carry (eventFormat, filters); targetUrl is \"\" and activated false while none is configured. filters: eventTypes and classifiers null select every event, alertTypes the alerts delivered beside them."),
		option.Tags("Webhooks"),
	)
}
