package commandapi

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"strings"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/delivery/signature"
	"github.com/contrack/contrack/delivery/target"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/secretbox"
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
}

// ActivateWebhookBody is POST /webhook/activate's body.
type ActivateWebhookBody struct {
	Secret string `json:"secret"`
}

// VerificationMessage is POSTed to a newly configured targetUrl. It carries
// the secret the consumer sends back to POST /webhook/activate, proving it
// controls the URL; it is signed like every delivery.
type VerificationMessage struct {
	Type      string `json:"type"` // "webhook.verification"
	Secret    string `json:"secret"`
	TargetURL string `json:"targetUrl"`
	Env       string `json:"env"`
	Timestamp string `json:"timestamp"`
}

// WebhookSecretContext is the secretbox context of an account's webhook secret.
func WebhookSecretContext(accountID string) string { return secretbox.WebhookSecretContext(accountID) }

func registerWebhooks(s *fuego.Server, deps Deps) {
	h := webhookHandlers{deps}
	fuego.Post(s, "/webhook/configure", h.configure,
		option.Summary("Configure the webhook"),
		option.Description("Stores targetUrl (https for live keys; no loopback, private or link-local hosts), deactivates the webhook and issues a new secret, which is POSTed to targetUrl in a signed verification message {\"type\":\"webhook.verification\",\"secret\":...}. Send that secret to POST /webhook/activate. The verification is retried with backoff if targetUrl does not answer 2xx."),
		option.RequestBody(fuego.RequestBody{Type: ConfigureWebhookBody{}}),
		option.AddResponse(400, "Missing or invalid targetUrl", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Webhooks"),
	)
	fuego.Post(s, "/webhook/activate", h.activate,
		option.Summary("Activate the webhook with the secret from the verification message"),
		option.RequestBody(fuego.RequestBody{Type: ActivateWebhookBody{}}),
		option.AddResponse(400, "Missing secret, no webhook configured, or incorrect secret", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Webhooks"),
	)
}

type webhookHandlers struct{ deps Deps }

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
	if msg, ok := target.Validate(url, k.Account.Env, h.deps.AllowPrivateWebhooks); !ok {
		return MessageResponse{}, httpapi.BadRequest(msg)
	}
	secret, err := signature.NewSecret()
	if err != nil {
		return MessageResponse{}, err
	}
	enc, err := h.deps.Box.Seal([]byte(secret), WebhookSecretContext(k.Account.ID))
	if err != nil {
		return MessageResponse{}, err
	}
	_, err = h.deps.Pool.Exec(c.Context(), `
		INSERT INTO webhooks (account_id, target_url, activated, secret_enc)
		VALUES ($1, $2, false, $3)
		ON CONFLICT (account_id) DO UPDATE SET target_url = EXCLUDED.target_url, activated = false,
			secret_enc = EXCLUDED.secret_enc, configured_at = now(), activated_at = NULL, updated_at = now()`,
		k.Account.ID, url, enc)
	if err != nil {
		return MessageResponse{}, fmt.Errorf("store webhook: %w", err)
	}
	// After the commit, and never blocking the answer.
	go h.verify(k.Account.ID, k.Account.Env, url, secret)
	return MessageResponse{Message: msgConfigured}, nil
}

// verify POSTs the verification message until targetUrl answers 2xx, the
// backoff schedule ends, the webhook is re-configured (a newer secret), or
// the process shuts down.
func (h webhookHandlers) verify(accountID, env, url, secret string) {
	ctx := h.deps.Background
	log := h.deps.Log.With("account_id", accountID)
	msg := VerificationMessage{Type: "webhook.verification", Secret: secret, TargetURL: url, Env: env,
		Timestamp: h.deps.Now().UTC().Format(time.RFC3339)}
	body, _ := json.Marshal(msg)
	client := h.deps.WebhookClient
	if client == nil {
		client = target.NewClient(h.deps.AllowPrivateWebhooks, 15*time.Second)
	}
	msgID := "verify_" + uuid.NewString()
	for attempt := 0; ; attempt++ {
		if !h.current(ctx, accountID, secret) {
			return // re-configured meanwhile: the newer secret has its own verification
		}
		code, err := h.send(ctx, client, url, msgID, secret, body)
		if err == nil && code >= 200 && code < 300 {
			log.Info("webhook verification delivered", "attempt", attempt+1, "http_code", code)
			return
		}
		if attempt >= len(h.deps.VerificationBackoff) {
			log.Warn("webhook verification not delivered; giving up", "attempts", attempt+1, "http_code", code, "err", err)
			return
		}
		wait := h.deps.VerificationBackoff[attempt]
		log.Warn("webhook verification failed, retrying", "attempt", attempt+1, "http_code", code, "err", err, "retry_in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

func (h webhookHandlers) send(ctx context.Context, client *http.Client, url, msgID, secret string, body []byte) (int, error) {
	headers, err := signature.Headers(secret, msgID, h.deps.Now(), body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header = headers
	req.Header.Set("User-Agent", "contrack-webhooks/"+h.deps.Version)
	resp, err := client.Do(req)
	if err != nil {
		// The URL may carry tokens in its query: log the cause only.
		var uerr *neturl.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return 0, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// current reports whether secret is still the account's webhook secret and
// the webhook still waits for activation (else the verification is moot).
func (h webhookHandlers) current(ctx context.Context, accountID, secret string) bool {
	stored, activated, _, err := loadWebhookSecret(ctx, h.deps, accountID)
	return err == nil && !activated && subtle.ConstantTimeCompare([]byte(stored), []byte(secret)) == 1
}

// loadWebhookSecret returns the account's webhook secret and activation; a
// pgx.ErrNoRows error when none is configured.
func loadWebhookSecret(ctx context.Context, deps Deps, accountID string) (secret string, activated bool, enc []byte, err error) {
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
	// between replaced it, and then the old secret activates nothing.
	tag, err := h.deps.Pool.Exec(c.Context(), `UPDATE webhooks SET activated = true, activated_at = now(), updated_at = now()
		WHERE account_id = $1 AND activated = false AND secret_enc = $2`, k.Account.ID, enc)
	if err != nil {
		return MessageResponse{}, fmt.Errorf("activate webhook: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return MessageResponse{}, httpapi.BadRequest(msgIncorrectSecret)
	}
	return MessageResponse{Message: msgActivated}, nil
}
