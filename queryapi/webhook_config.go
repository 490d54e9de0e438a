package queryapi

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
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
	// AuthHeaders are the headers sent for the receiver to authenticate
	// deliveries, name to masked value ({} when none).
	AuthHeaders map[string]string `json:"authHeaders"`
}

func registerWebhookConfig(s *fuego.Server, deps Deps) {
	fuego.Get(s, "/webhook/configure", func(c fuego.ContextNoBody) (WebhookConfig, error) {
		k, _ := auth.FromContext(c.Context())
		out := WebhookConfig{Env: k.Account.Env, EventFormat: deliveries.FormatEventDomain, Filters: eventfilter.Filter{AlertTypes: []string{}},
			AuthHeaders: map[string]string{}}
		var headersEnc []byte
		err := deps.Pool.QueryRow(c.Context(), `SELECT target_url, activated, event_format, filter_event_types, filter_classifiers,
				filter_milestones_only, alert_types, auth_headers_enc FROM webhooks WHERE account_id = $1`, k.Account.ID).
			Scan(&out.TargetURL, &out.Activated, &out.EventFormat, &out.Filters.EventTypes, &out.Filters.Classifiers,
				&out.Filters.MilestonesOnly, &out.Filters.AlertTypes, &headersEnc)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return WebhookConfig{}, fmt.Errorf("read webhook: %w", err)
		}
		headers, err := deliveries.OpenAuthHeaders(deps.Box, k.Account.ID, headersEnc)
		if err != nil {
			// Sealed under another CONTRACK_SECRET_KEY: the rest of the
			// configuration is still answered (deliveries fail as secret_error).
			deps.Log.Error("webhook auth headers do not decrypt", "account_id", k.Account.ID)
		}
		for _, h := range headers {
			out.AuthHeaders[h.Name] = MaskHeaderValue(h.Value)
		}
		return out, nil
	},
		option.OperationID("getWebhook"),
		option.Summary("The webhook configuration"),
		option.Description("targetUrl, whether the webhook is activated and what its deliveries carry (eventFormat, filters, authHeaders); targetUrl is \"\" and activated false while none is configured. filters: eventTypes and classifiers null select every event, alertTypes the alerts delivered beside them. "+
			"authHeaders: the headers sent for the receiver to authenticate, name to value masked as **** and its last four characters, **** alone under 16 characters (an Authorization value keeps its scheme: Bearer ****abcd); {} when none."),
		option.Tags("Webhooks"),
	)
}

// MaskHeaderValue masks an auth header's value as secretbox.Mask does, keeping an
// Authorization scheme ("Bearer ****wxyz"), which is not secret.
func MaskHeaderValue(v string) string {
	if scheme, cred, ok := strings.Cut(v, " "); ok && (strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "Basic")) {
		return scheme + " " + secretbox.Mask(strings.TrimLeft(cred, " "))
	}
	return secretbox.Mask(v)
}
