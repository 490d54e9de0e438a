package commandapi

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/signature"
	"github.com/contrack/contrack/platform/webhooktarget"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/deliveries"
	"github.com/contrack/contrack/schemas/eventfilter"
)

// Messages of the webhook endpoints.
const (
	msgConfigured       = "Successful Configuration"
	msgActivated        = "Successful Activation"
	msgAlreadyActivated = "Webhook already activated"
	msgNoWebhook        = "No Web-hook Configured"
	msgIncorrectSecret  = "Incorrect Secret"
)

// ConfigureWebhookBody is POST /webhook/configure's body.
type ConfigureWebhookBody struct {
	TargetURL string `json:"targetUrl"`
	// EventFormat is what the webhook receives: EVENT_DOMAIN_2.0.2 (the
	// default, also when absent or empty) or TNT_3.0.0.
	EventFormat string `json:"eventFormat,omitempty"`
	// Filters choose the events and alerts delivered (absent: every
	// event, no alert). Configuring again replaces them.
	Filters *eventfilter.Filter `json:"filters,omitempty"`
	// AuthHeaders are the headers the receiver authenticates with, name to
	// value (at most 5: an API-key header of any name, Authorization
	// Bearer or Basic), sent on every delivery attempt, stored encrypted,
	// shown masked. Absent or null: the stored ones are kept (unless
	// targetUrl moves to another host); {}: none.
	AuthHeaders map[string]string `json:"authHeaders,omitempty"`
}

// msgAuthHeadersHostChanged refuses keeping stored auth headers for a
// target on another host: credentials meant for one receiver never go to
// another without being sent again.
const msgAuthHeadersHostChanged = deliveries.MsgInvalidAuthHeaders + "targetUrl moves to another host, and the stored headers are not sent there: send authHeaders again ({} for none)"

// sameHost reports whether two target URLs have the same host[:port].
func sameHost(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && strings.EqualFold(ua.Host, ub.Host)
}

// checkFilters returns f in its stored form (values upper case, in a
// fixed order, without repeats), or the message answering what is wrong.
// Every list is checked, and every problem named.
func checkFilters(f *eventfilter.Filter, field string) (eventfilter.Filter, string) {
	if f == nil {
		return eventfilter.Filter{}, ""
	}
	var out eventfilter.Filter
	var unknown, problems []string
	out.EventTypes, unknown = eventfilter.Normalize(f.EventTypes, eventfilter.EventTypes)
	if len(unknown) > 0 {
		problems = append(problems, fmt.Sprintf("'%s.eventTypes' has %s: use %s", field, httpapi.QuoteValues(unknown), strings.Join(eventfilter.EventTypes, ", ")))
	}
	out.Classifiers, unknown = eventfilter.Normalize(f.Classifiers, eventfilter.Classifiers)
	if len(unknown) > 0 {
		problems = append(problems, fmt.Sprintf("'%s.classifiers' has %s: use %s", field, httpapi.QuoteValues(unknown), strings.Join(eventfilter.Classifiers, ", ")))
	} else if out.Classifiers != nil && len(out.Classifiers) == 0 {
		problems = append(problems, fmt.Sprintf("'%s.classifiers' is empty: list at least one of %s, or leave it out for all", field, strings.Join(eventfilter.Classifiers, ", ")))
	}
	out.AlertTypes, unknown = eventfilter.Normalize(f.AlertTypes, schemas.AlertTypes)
	if len(unknown) > 0 {
		problems = append(problems, fmt.Sprintf("'%s.alertTypes' has %s: use %s", field, httpapi.QuoteValues(unknown), strings.Join(schemas.AlertTypes, ", ")))
	}
	out.MilestonesOnly = f.MilestonesOnly
	if len(problems) > 0 {
		return eventfilter.Filter{}, "Invalid filters: " + strings.Join(problems, "; ")
	}
	return out, ""
}

// msgBadEventFormat answers an eventFormat that is neither format.
const msgBadEventFormat = "Invalid 'eventFormat': use " + deliveries.FormatEventDomain + " (the default) or " + deliveries.FormatTNT3

// eventFormat is the stored form of a configure body's eventFormat
// (case-insensitive; empty is the default); ok false for an unknown one.
func eventFormat(v string) (string, bool) {
	switch v = strings.TrimSpace(v); {
	case v == "", strings.EqualFold(v, deliveries.FormatEventDomain):
		return deliveries.FormatEventDomain, true
	case strings.EqualFold(v, deliveries.FormatTNT3):
		return deliveries.FormatTNT3, true
	}
	return "", false
}

// ActivateWebhookBody is POST /webhook/activate's body.
type ActivateWebhookBody struct {
	Secret string `json:"secret"`
}

// VerificationMessage is POSTed to a newly configured targetUrl (see
// deliveries.VerificationMessage).
type VerificationMessage = deliveries.VerificationMessage

// WebhookSecretContext is the secretbox context of an account's webhook secret.
func WebhookSecretContext(accountID string) string { return secretbox.WebhookSecretContext(accountID) }

func registerWebhooks(s *fuego.Server, deps api) {
	h := webhookHandlers{deps}
	fuego.Post(s, "/webhook/configure", h.configure,
		option.OperationID("configureWebhook"),
		option.Summary("Configure the webhook"),
		option.Description("Stores targetUrl (https for live keys; no loopback, private or link-local hosts), deactivates the webhook and issues a new secret, which is POSTed to targetUrl in a signed verification message {\"type\":\"webhook.verification\",\"secret\":...}. Send that secret to POST /webhook/activate. The verification is a delivery like any other: retried on the delivery schedule if targetUrl does not answer 2xx, and sent after a restart. "+
			"eventFormat (optional) chooses what deliveries carry: EVENT_DOMAIN_2.0.2 (default) or TNT_3.0.0 (DCSA Track & Trace 3.0 POST /events requests, API-Version 3.0.0). "+
			"filters (optional) choose what is delivered: eventTypes (EQUIPMENT, TRANSPORT and milestone kinds; absent: all, []: none), classifiers (ACT, PLN, EST; absent: all), "+
			"milestonesOnly (only events milestones are derived from) and alertTypes (the alerts to receive beside the events; absent: none). Events filtered out are never delivered and never counted as failed; configuring again replaces the filters. "+
			"authHeaders (optional, name to value, at most 5) are headers the receiver authenticates with — an API-key header of any name (X-API-Key: ...), Authorization: Bearer <token> or Authorization: Basic <base64 of user:password> — sent on every delivery attempt (the verification and test messages too), stored encrypted and shown masked by GET /webhook/configure. "+
			"Hop-by-hop and framing headers, and the headers contrack sets itself (X-Hook-Signature, webhook-id, webhook-timestamp, webhook-signature, User-Agent, API-Version, traceparent), are refused. Absent or null: the stored headers are kept (refused when targetUrl moves to another host: send them again); {}: none."),
		option.RequestBody(fuego.RequestBody{Type: ConfigureWebhookBody{}}),
		option.AddResponse(400, "Missing or invalid targetUrl, eventFormat, filters or authHeaders", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Webhooks"),
	)
	fuego.Post(s, "/webhook/activate", h.activate,
		option.OperationID("activateWebhook"),
		option.Summary("Activate the webhook with the secret from the verification message"),
		option.RequestBody(fuego.RequestBody{Type: ActivateWebhookBody{}}),
		option.AddResponse(400, "Missing secret, no webhook configured, or incorrect secret", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Webhooks"),
	)
}

type webhookHandlers struct{ deps api }

func (h webhookHandlers) configure(c fuego.ContextNoBody) (MessageResponse, error) {
	k, _ := auth.FromContext(c.Context())
	var body ConfigureWebhookBody
	if err := httpapi.DecodeJSON(c.Request(), &body); err != nil {
		return MessageResponse{}, err
	}
	url := strings.TrimSpace(body.TargetURL)
	if url == "" {
		return MessageResponse{}, httpapi.BadRequest("Missing Parameter 'targetUrl'")
	}
	if msg, ok := webhooktarget.Validate(url, k.Account.Env, h.deps.AllowPrivateWebhooks); !ok {
		return MessageResponse{}, httpapi.BadRequest(msg)
	}
	format, ok := eventFormat(body.EventFormat)
	if !ok {
		return MessageResponse{}, httpapi.BadRequest(msgBadEventFormat)
	}
	filters, msg := checkFilters(body.Filters, "filters")
	if msg != "" {
		return MessageResponse{}, httpapi.BadRequest(msg)
	}
	// Absent (nil) keeps the stored headers; {} clears them.
	keepHeaders := body.AuthHeaders == nil
	var headersEnc []byte
	if !keepHeaders {
		headers, problems := deliveries.CheckAuthHeaders(body.AuthHeaders)
		if len(problems) > 0 {
			return MessageResponse{}, httpapi.BadRequest(deliveries.MsgInvalidAuthHeaders + strings.Join(problems, "; "))
		}
		var err error
		if headersEnc, err = deliveries.SealAuthHeaders(h.deps.Box, k.Account.ID, headers); err != nil {
			return MessageResponse{}, err
		}
	}
	alertTypes := filters.AlertTypes
	if alertTypes == nil {
		alertTypes = []string{}
	}
	secret, err := signature.NewSecret()
	if err != nil {
		return MessageResponse{}, err
	}
	enc, err := h.deps.Box.Seal([]byte(secret), WebhookSecretContext(k.Account.ID))
	if err != nil {
		return MessageResponse{}, err
	}
	// The webhook and its verification message commit together: the
	// delivery stage sends the message (durable: it survives restarts).
	err = pgx.BeginFunc(c.Context(), h.deps.Pool, func(tx pgx.Tx) error {
		if keepHeaders {
			var oldURL string
			var hasHeaders bool
			err := tx.QueryRow(c.Context(), `SELECT target_url, auth_headers_enc IS NOT NULL FROM webhooks WHERE account_id = $1 FOR UPDATE`,
				k.Account.ID).Scan(&oldURL, &hasHeaders)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("read webhook: %w", err)
			}
			if hasHeaders && !sameHost(oldURL, url) {
				return httpapi.BadRequest(msgAuthHeadersHostChanged)
			}
		}
		_, err := tx.Exec(c.Context(), `
			INSERT INTO webhooks (account_id, target_url, activated, secret_enc, event_format,
				filter_event_types, filter_classifiers, filter_milestones_only, alert_types, auth_headers_enc)
			VALUES ($1, $2, false, $3, $4, $5, $6, $7, $8, $10)
			ON CONFLICT (account_id) DO UPDATE SET target_url = EXCLUDED.target_url, activated = false,
				secret_enc = EXCLUDED.secret_enc, event_format = EXCLUDED.event_format,
				filter_event_types = EXCLUDED.filter_event_types, filter_classifiers = EXCLUDED.filter_classifiers,
				filter_milestones_only = EXCLUDED.filter_milestones_only, alert_types = EXCLUDED.alert_types,
				auth_headers_enc = CASE WHEN $9 THEN webhooks.auth_headers_enc ELSE EXCLUDED.auth_headers_enc END,
				configured_at = now(), activated_at = NULL, updated_at = now()`,
			k.Account.ID, url, enc, format, filters.EventTypes, filters.Classifiers, filters.MilestonesOnly, alertTypes,
			keepHeaders, headersEnc)
		if err != nil {
			return fmt.Errorf("store webhook: %w", err)
		}
		_, err = deliveries.QueueVerification(c.Context(), tx, h.deps.Box, k.Account.ID, k.Account.Env, url, secret, h.deps.Now())
		return err
	})
	if err != nil {
		return MessageResponse{}, err
	}
	return MessageResponse{Message: msgConfigured}, nil
}

// loadWebhookSecret returns the account's webhook secret and activation; a
// pgx.ErrNoRows error when none is configured.
func loadWebhookSecret(ctx context.Context, deps api, accountID string) (secret string, activated bool, enc []byte, err error) {
	if err := deps.Pool.QueryRow(ctx, `SELECT secret_enc, activated FROM webhooks WHERE account_id = $1`, accountID).Scan(&enc, &activated); err != nil {
		return "", false, nil, err
	}
	plain, err := deps.Box.Open(enc, WebhookSecretContext(accountID))
	if err != nil {
		return "", false, nil, err
	}
	return string(plain), activated, enc, nil
}

func (h webhookHandlers) activate(c fuego.ContextNoBody) (MessageResponse, error) {
	k, _ := auth.FromContext(c.Context())
	var body ActivateWebhookBody
	if err := httpapi.DecodeJSON(c.Request(), &body); err != nil {
		return MessageResponse{}, err
	}
	body.Secret = strings.TrimSpace(body.Secret)
	if body.Secret == "" {
		return MessageResponse{}, httpapi.BadRequest("Missing Parameter 'secret'")
	}
	secret, activated, enc, err := loadWebhookSecret(c.Context(), h.deps, k.Account.ID)
	if errors.Is(err, pgx.ErrNoRows) {
		return MessageResponse{}, httpapi.BadRequest(msgNoWebhook)
	}
	if err != nil {
		return MessageResponse{}, fmt.Errorf("read webhook: %w", err)
	}
	if activated {
		return MessageResponse{Message: msgAlreadyActivated}, nil
	}
	if subtle.ConstantTimeCompare([]byte(secret), []byte(body.Secret)) != 1 {
		return MessageResponse{}, httpapi.BadRequest(msgIncorrectSecret)
	}
	// Compare-and-set on the ciphertext just checked: a re-configure in
	// between replaced it, and then the old secret activates nothing. The
	// verification, moot once activated, is cancelled with it.
	activatedNow := false
	err = pgx.BeginFunc(c.Context(), h.deps.Pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(c.Context(), `UPDATE webhooks SET activated = true, activated_at = now(), updated_at = now()
			WHERE account_id = $1 AND activated = false AND secret_enc = $2`, k.Account.ID, enc)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		activatedNow = true
		return deliveries.CancelVerification(c.Context(), tx, k.Account.ID)
	})
	if err != nil {
		return MessageResponse{}, fmt.Errorf("activate webhook: %w", err)
	}
	if !activatedNow {
		return MessageResponse{}, httpapi.BadRequest(msgIncorrectSecret)
	}
	return MessageResponse{Message: msgActivated}, nil
}
