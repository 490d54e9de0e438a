// Package ingest brings raw carrier data into the carrier-raw topic: carriers
// pushing to POST /events, and (in sub-packages) the poller calling each
// carrier's API through its adapter, and the sandbox carriers.
package ingest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// MsgAdded is POST /events' success message.
const MsgAdded = "Successfully Added Event"

// MsgBadSignature answers a Notification-Signature that does not verify.
const MsgBadSignature = "Invalid Notification-Signature"

// Producer acknowledges records once Kafka has them.
type Producer interface {
	ProduceSync(ctx context.Context, rs ...*kgo.Record) kgo.ProduceResults
}

var _ Producer = (*kgo.Client)(nil)

// SigningSecrets returns the shared secret of a carrier key, "" when the key
// has none (then Notification-Signature is not required).
type SigningSecrets interface {
	SigningSecret(ctx context.Context, keyID string) (string, error)
}

// EventsDeps are what POST /events needs.
type EventsDeps struct {
	Producer Producer
	Secrets  SigningSecrets
	Log      *slog.Logger
	// Check is the admission test of a body: the message to answer when it
	// is refused.
	Check func(raw []byte) (msg string, ok bool)
	Now   func() time.Time
}

// AddedResponse is the success body.
type AddedResponse struct {
	Message string `json:"message"`
}

// RegisterEvents adds POST and HEAD /events.
func RegisterEvents(s *fuego.Server, deps EventsDeps) {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	h := eventsHandler{deps}
	fuego.Post(s, "/events", h.post,
		option.Summary("Push carrier events (carriers only)"),
		option.Description("For carrier keys only. Body: one DCSA equipment or transport event, or a JSON array of them (each checked; nothing is stored when any fails). The raw body is acknowledged by Kafka before 200 is answered. When the carrier key has a shared secret, Notification-Signature: sha256=<hex HMAC-SHA256 of the body> is required."),
		option.Header("Notification-Signature", "sha256=<lowercase hex HMAC-SHA256 of the body>, required when the carrier key has a shared secret"),
		option.AddResponse(400, "Refused event", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Carrier events"),
	)
	// DCSA publishers check a callback URL with HEAD before sending to it.
	s.Mux.HandleFunc("HEAD /events", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
}

type eventsHandler struct{ deps EventsDeps }

func (h eventsHandler) post(c fuego.ContextNoBody) (AddedResponse, error) {
	ctx := c.Context()
	k, _ := auth.FromContext(ctx)
	if k.Role != auth.RoleCarrier {
		return AddedResponse{}, &httpapi.Error{Status: http.StatusForbidden, Message: httpapi.MsgForbidden}
	}
	raw, err := httpapi.ReadBody(c.Request())
	if err != nil {
		return AddedResponse{}, err
	}
	if err := h.verifySignature(ctx, k, raw, c.Request().Header.Get("Notification-Signature")); err != nil {
		return AddedResponse{}, err
	}
	if msg, ok := h.deps.Check(raw); !ok {
		return AddedResponse{}, httpapi.BadRequest(msg)
	}
	now := h.deps.Now().UTC()
	env := schemas.CarrierRaw{
		ID:         uuid.NewString(),
		Format:     string(carriers.FormatPushed),
		SCAC:       k.SCAC,
		Env:        k.Account.Env,
		RequestID:  requestID(c.Request()),
		ReceivedAt: now,
		Payload:    raw,
	}
	value, err := json.Marshal(env)
	if err != nil {
		return AddedResponse{}, fmt.Errorf("marshal raw envelope: %w", err)
	}
	rec := &kgo.Record{
		Topic: schemas.TopicCarrierRaw,
		// Pushed events have no tracking yet: keyed by the carrier, so one
		// carrier's pushes keep their order.
		Key:   []byte(k.SCAC + "/" + k.Account.Env),
		Value: value,
		Headers: []kgo.RecordHeader{
			{Key: schemas.HeaderType, Value: []byte(schemas.TypeCarrierRaw)},
			{Key: schemas.HeaderID, Value: []byte(env.ID)},
			{Key: schemas.HeaderEnv, Value: []byte(env.Env)},
		},
	}
	if err := h.deps.Producer.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return AddedResponse{}, fmt.Errorf("produce pushed event: %w", err)
	}
	return AddedResponse{Message: MsgAdded}, nil
}

// verifySignature checks a DCSA Notification-Signature when the key has a
// shared secret.
func (h eventsHandler) verifySignature(ctx context.Context, k auth.Key, body []byte, header string) error {
	if h.deps.Secrets == nil {
		return nil
	}
	secret, err := h.deps.Secrets.SigningSecret(ctx, k.ID)
	if err != nil {
		return fmt.Errorf("signing secret: %w", err)
	}
	if secret == "" {
		return nil
	}
	got, ok := strings.CutPrefix(strings.TrimSpace(header), "sha256=")
	sig, decErr := hex.DecodeString(got)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	if !ok || decErr != nil || !hmac.Equal(sig, mac.Sum(nil)) {
		return &httpapi.Error{Status: http.StatusForbidden, Message: MsgBadSignature}
	}
	return nil
}

func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 128 {
		return id
	}
	return uuid.NewString()
}
