package commandapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas/readiness"
)

// Messages of the free-time and alert-settings endpoints.
const (
	msgFreeTimeSaved      = "Free-time rules saved"
	msgAlertSettingsSaved = "Alert settings saved"
)

// FreeTimeResponse is PUT /account/free-time's answer: the rules as stored.
type FreeTimeResponse struct {
	Message string                   `json:"message"`
	Rules   []readiness.FreeTimeRule `json:"rules"`
}

// AlertSettingsResponse is the answer of PUT
// /subscription/{id}/alert-settings: the settings as stored.
type AlertSettingsResponse struct {
	Message string `json:"message"`
	readiness.AlertSettings
}

// AccountAlertSettingsResponse is the answer of PUT /account/alert-settings:
// the settings now in force, as GET /account/alert-settings gives them.
type AccountAlertSettingsResponse struct {
	Message string `json:"message"`
	readiness.AccountAlertSettings
}

func registerReadiness(s *fuego.Server, deps api) {
	h := readinessHandlers{deps}
	fuego.Put(s, "/account/free-time", h.putFreeTime,
		option.OperationID("putFreeTime"),
		option.Summary("Set the account's free-time rules"),
		option.Description("Replaces every rule. A rule gives the demurrage and detention free days (and optional daily rates, with their currency) at a port (UN/LOCODE or *) for a carrier (SCAC or *); the most specific rule applies (port and carrier, then port, then carrier, then * and *). "+
			"excludeWeekends: Saturdays and Sundays are not free days. Journeys show the last free day, the days accrued and the estimated cost under them (readiness); [] removes every rule."),
		option.RequestBody(fuego.RequestBody{Type: readiness.FreeTime{}}),
		option.AddResponse(400, "Missing or invalid rules: every problem named", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Account"),
	)
	fuego.Put(s, "/account/alert-settings", h.putAccountAlerts,
		option.OperationID("putAccountAlertSettings"),
		option.Summary("Set the account's alert settings"),
		option.Description("etaChangeThresholdHours: the ETA move (hours) an ETA_CHANGED alert needs, unless the subscription sets its own (default 6); lfdWarningDays: LFD_APPROACHING is raised this many days before the last free day (default 2). null or absent: the default. The answer gives the settings now in force, lfdWarningDays always."),
		option.RequestBody(fuego.RequestBody{Type: readiness.AlertSettings{}}),
		option.AddResponse(400, "Invalid settings", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Account"),
	)
	fuego.Put(s, "/subscription/{subscription_id}/alert-settings", h.putSubscriptionAlerts,
		option.OperationID("putSubscriptionAlertSettings"),
		option.Path("subscription_id", "the subscriptionReference"),
		option.Summary("Set a subscription's alert settings"),
		option.Description("etaChangeThresholdHours: the ETA move (hours) this subscription's ETA_CHANGED alerts need; null or absent: the account's."),
		option.RequestBody(fuego.RequestBody{Type: readiness.AlertSettings{}}),
		option.AddResponse(400, "Invalid settings", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(404, "No such subscription", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
}

type readinessHandlers struct{ deps api }

func (h readinessHandlers) putFreeTime(c fuego.ContextNoBody) (FreeTimeResponse, error) {
	k, _ := auth.FromContext(c.Context())
	var body struct {
		Rules *[]readiness.FreeTimeRule `json:"rules"`
	}
	if err := httpapi.DecodeJSON(c.Request(), &body); err != nil {
		return FreeTimeResponse{}, err
	}
	if body.Rules == nil {
		return FreeTimeResponse{}, httpapi.BadRequest("Missing Parameter 'rules'")
	}
	rules, problems := readiness.Check(*body.Rules)
	if len(problems) > 0 {
		return FreeTimeResponse{}, httpapi.BadRequest("Invalid free-time rules: " + strings.Join(problems, "; "))
	}
	raw, err := json.Marshal(rules)
	if err != nil {
		return FreeTimeResponse{}, err
	}
	if _, err := h.deps.Pool.Exec(c.Context(), `INSERT INTO free_time_rules (account_id, rules, updated_at) VALUES ($1, $2, now())
		ON CONFLICT (account_id) DO UPDATE SET rules = EXCLUDED.rules, updated_at = now()`, k.Account.ID, raw); err != nil {
		return FreeTimeResponse{}, fmt.Errorf("store free-time rules: %w", err)
	}
	if h.deps.FreeTimeChanged != nil {
		h.deps.FreeTimeChanged(k.Account.ID)
	}
	return FreeTimeResponse{Message: msgFreeTimeSaved, Rules: rules}, nil
}

// thresholdMinutes is a threshold in hours as stored (minutes), or the
// message answering a bad one.
func thresholdMinutes(hours *float64) (*int32, string) {
	if hours == nil {
		return nil, ""
	}
	if math.IsNaN(*hours) || *hours < 0 || *hours > 24*90 {
		return nil, "Invalid 'etaChangeThresholdHours': use 0 to 2160 hours, or null for the default"
	}
	m := int32(math.Round(*hours * 60))
	return &m, ""
}

func (h readinessHandlers) putAccountAlerts(c fuego.ContextNoBody) (AccountAlertSettingsResponse, error) {
	k, _ := auth.FromContext(c.Context())
	var body readiness.AlertSettings
	if err := httpapi.DecodeJSON(c.Request(), &body); err != nil {
		return AccountAlertSettingsResponse{}, err
	}
	minutes, msg := thresholdMinutes(body.ETAChangeThresholdHours)
	if msg == "" && body.LFDWarningDays != nil && (*body.LFDWarningDays < 0 || *body.LFDWarningDays > 30) {
		msg = "Invalid 'lfdWarningDays': use 0 to 30 days, or null for the default"
	}
	if msg != "" {
		return AccountAlertSettingsResponse{}, httpapi.BadRequest(msg)
	}
	if _, err := h.deps.Pool.Exec(c.Context(), `UPDATE accounts SET eta_threshold_minutes = $2, lfd_warning_days = $3 WHERE id = $1`,
		k.Account.ID, minutes, body.LFDWarningDays); err != nil {
		return AccountAlertSettingsResponse{}, fmt.Errorf("store alert settings: %w", err)
	}
	return AccountAlertSettingsResponse{Message: msgAlertSettingsSaved, AccountAlertSettings: readiness.AccountSettings(minutes, body.LFDWarningDays)}, nil
}

func (h readinessHandlers) putSubscriptionAlerts(c fuego.ContextNoBody) (AlertSettingsResponse, error) {
	k, _ := auth.FromContext(c.Context())
	var body readiness.AlertSettings
	if err := httpapi.DecodeJSON(c.Request(), &body); err != nil {
		return AlertSettingsResponse{}, err
	}
	minutes, msg := thresholdMinutes(body.ETAChangeThresholdHours)
	if msg == "" && body.LFDWarningDays != nil {
		msg = "Invalid 'lfdWarningDays': an account setting (PUT /account/alert-settings)"
	}
	if msg != "" {
		return AlertSettingsResponse{}, httpapi.BadRequest(msg)
	}
	var id string
	err := h.deps.Pool.QueryRow(c.Context(), `UPDATE subscriptions SET eta_threshold_minutes = $3
		WHERE account_id = $1 AND reference = $2 RETURNING id`, k.Account.ID, c.PathParam("subscription_id"), minutes).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return AlertSettingsResponse{}, httpapi.NotFound(msgNotFound)
	}
	if err != nil {
		return AlertSettingsResponse{}, fmt.Errorf("store alert settings: %w", err)
	}
	return AlertSettingsResponse{Message: msgAlertSettingsSaved, AlertSettings: readiness.AlertSettings{ETAChangeThresholdHours: readiness.ThresholdHours(minutes)}}, nil
}
