package queryapi

import (
	"errors"
	"fmt"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/delivery"
	"github.com/contrack/contrack/platform/auth"
)

// WebhookConfig is GET /webhook/configure's body.
type WebhookConfig struct {
	TargetURL string `json:"targetUrl"`
	Activated bool   `json:"activated"`
	Env       string `json:"env"`
	// EventFormat is what deliveries carry: EVENT_DOMAIN_2.0.2 or TNT_3.0.0.
	EventFormat string `json:"eventFormat"`
}

func registerWebhookConfig(s *fuego.Server, deps Deps) {
	fuego.Get(s, "/webhook/configure", func(c fuego.ContextNoBody) (WebhookConfig, error) {
		k, _ := auth.FromContext(c.Context())
		out := WebhookConfig{Env: k.Account.Env, EventFormat: delivery.FormatEventDomain}
		err := deps.Pool.QueryRow(c.Context(), `SELECT target_url, activated, event_format FROM webhooks WHERE account_id = $1`, k.Account.ID).
			Scan(&out.TargetURL, &out.Activated, &out.EventFormat)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return WebhookConfig{}, fmt.Errorf("read webhook: %w", err)
		}
		return out, nil
	},
		option.OperationID("getWebhook"),
		option.Summary("The webhook configuration"),
		option.Description("targetUrl, whether the webhook is activated and what its deliveries carry (eventFormat); targetUrl is \"\" and activated false while none is configured."),
		option.Tags("Webhooks"),
	)
}
