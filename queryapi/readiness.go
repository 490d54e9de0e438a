package queryapi

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas/readiness"
)

func registerReadiness(s *fuego.Server, deps Deps) {
	fuego.Get(s, "/account/free-time", func(c fuego.ContextNoBody) (readiness.FreeTime, error) {
		k, _ := auth.FromContext(c.Context())
		out := readiness.FreeTime{Rules: []readiness.FreeTimeRule{}}
		var raw []byte
		err := deps.Pool.QueryRow(c.Context(), `SELECT rules FROM free_time_rules WHERE account_id = $1`, k.Account.ID).Scan(&raw)
		if errors.Is(err, pgx.ErrNoRows) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("read free-time rules: %w", err)
		}
		if err := json.Unmarshal(raw, &out.Rules); err != nil {
			return out, fmt.Errorf("decode free-time rules: %w", err)
		}
		return out, nil
	},
		option.OperationID("getFreeTime"),
		option.Summary("The account's free-time rules"),
		option.Description("As PUT /account/free-time stored them; [] when none."),
		option.Tags("Account"),
	)
	fuego.Get(s, "/account/alert-settings", func(c fuego.ContextNoBody) (readiness.AccountAlertSettings, error) {
		k, _ := auth.FromContext(c.Context())
		var minutes *int32
		var warn *int
		if err := deps.Pool.QueryRow(c.Context(), `SELECT eta_threshold_minutes, lfd_warning_days FROM accounts WHERE id = $1`, k.Account.ID).
			Scan(&minutes, &warn); err != nil {
			return readiness.AccountAlertSettings{}, fmt.Errorf("read alert settings: %w", err)
		}
		return readiness.AccountSettings(minutes, warn), nil
	},
		option.OperationID("getAccountAlertSettings"),
		option.Summary("The account's alert settings"),
		option.Description("etaChangeThresholdHours null: the default (6). lfdWarningDays: the days before the last free day LFD_APPROACHING is raised, the default (2) until the account sets its own."),
		option.Tags("Account"),
	)
	fuego.Get(s, "/subscription/{subscription_id}/alert-settings", func(c fuego.ContextNoBody) (readiness.AlertSettings, error) {
		k, _ := auth.FromContext(c.Context())
		var minutes *int32
		err := deps.Pool.QueryRow(c.Context(), `SELECT eta_threshold_minutes FROM subscriptions WHERE account_id = $1 AND reference = $2`,
			k.Account.ID, c.PathParam("subscription_id")).Scan(&minutes)
		if errors.Is(err, pgx.ErrNoRows) {
			return readiness.AlertSettings{}, httpapi.NotFound(msgSubscriptionNotFound)
		}
		if err != nil {
			return readiness.AlertSettings{}, fmt.Errorf("read alert settings: %w", err)
		}
		return readiness.AlertSettings{ETAChangeThresholdHours: readiness.ThresholdHours(minutes)}, nil
	},
		option.OperationID("getSubscriptionAlertSettings"),
		option.Path("subscription_id", "the subscriptionReference"),
		option.Summary("A subscription's alert settings"),
		option.Description("etaChangeThresholdHours null: the account's."),
		option.AddResponse(404, "No such subscription", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
}
