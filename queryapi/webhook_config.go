package queryapi

import (
	"errors"
	"fmt"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
)

// WebhookConfig is GET /webhook/configure's body.
type WebhookConfig struct {
	TargetURL string `json:"targetUrl"`
	Activated bool   `json:"activated"`
	Env       string `json:"env"`
}

func registerWebhookConfig(s *fuego.Server, deps Deps) {
	fuego.Get(s, "/webhook/configure", func(c fuego.ContextNoBody) (WebhookConfig, error) {
		k, _ := auth.FromContext(c.Context())
		out := WebhookConfig{Env: k.Account.Env}
		err := deps.Pool.QueryRow(c.Context(), `SELECT target_url, activated FROM webhooks WHERE account_id = $1`, k.Account.ID).
			Scan(&out.TargetURL, &out.Activated)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return WebhookConfig{}, fmt.Errorf("read webhook: %w", err)
		}
		return out, nil
	},
		option.OperationID("getWebhook"),
		option.Summary("The webhook configuration"),
		option.Description("targetUrl and whether the webhook is activated; targetUrl is \"\" and activated false while none is configured."),
		option.Tags("Webhooks"),
	)
}
