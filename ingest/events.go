// Package ingest brings raw carrier data into the carrier-raw topic: carriers
// pushing to POST /events, and (in sub-packages) the poller calling each
// carrier's API through its adapter, and the sandbox carriers.
package ingest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/signature"
	"github.com/contrack/contrack/platform/tracing"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/tnt3"
)

// MsgAdded is POST /events' success message.
const MsgAdded = "Successfully Added Event"

// MsgBadSignature answers a Notification-Signature that does not verify.
const MsgBadSignature = "Invalid Notification-Signature"

// Refusals of the timestamped (Standard Webhooks) signature.
const (
	MsgBadStandardSignature = "Invalid webhook-signature"
	MsgBadTimestamp         = "Invalid webhook-timestamp: it must be the Unix time in seconds, within 5 minutes of the server's"
	MsgTimestampRequired    = "This carrier key requires a timestamped signature: send webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks)"
	MsgSecretRequired       = "This live carrier key has no signing secret: pushes must be signed; ask the operator to set one"
)

// PushTolerance is how far webhook-timestamp may be from the server's time,
// either side; a webhook-id is remembered for as long on each side (the
// replay window).
const PushTolerance = 5 * time.Minute

// MaxEventsBodyBytes is the largest POST /events body (720 KiB; 413
// beyond). The raw body travels base64-encoded (4/3 of its size) in one
// carrier-raw record, which must fit in kafka.MaxRecordBatchBytes with its
// envelope and headers: 737,280 bytes encode to 983,040, leaving 16,972
// bytes for an envelope of at most about 2 KiB (TestEventsBodyLimitFitsOneRecord).
const MaxEventsBodyBytes = 720 << 10

// MsgEventsTooLarge answers a body over MaxEventsBodyBytes, or one whose
// record the Kafka topic refuses as too large.
var MsgEventsTooLarge = fmt.Sprintf("Event body too large: the limit is %d bytes; send fewer events per request", MaxEventsBodyBytes)

// Producer acknowledges records once Kafka has them.
type Producer interface {
	ProduceSync(ctx context.Context, rs ...*kgo.Record) kgo.ProduceResults
}

var _ Producer = (*kgo.Client)(nil)

// SigningSecrets returns the shared secret of an authenticated carrier key,
// "" when the key has none (then Notification-Signature is not required).
type SigningSecrets interface {
	KeySigningSecret(k auth.Key) (string, error)
}

// PushIDs remembers the webhook-ids of accepted pushes for a window.
type PushIDs interface {
	// Claim records id for keyID; fresh is false when it was recorded
	// within window already (a replay or a retry of a stored push).
	Claim(ctx context.Context, keyID, id string, now time.Time, window time.Duration) (fresh bool, err error)
	// Release forgets a claimed id whose push was not stored.
	Release(ctx context.Context, keyID, id string) error
}

// EventsDeps are what POST /events needs.
type EventsDeps struct {
	Producer Producer
	// Namespace prefixes the Kafka topics of this deployment
	// (CONTRACK_KAFKA_NAMESPACE); empty: the names as they are.
	Namespace schemas.Namespace
	Secrets   SigningSecrets
	// PushIDs refuses replayed webhook-ids; nil remembers none.
	PushIDs PushIDs
	Log     *slog.Logger
	// Check is the admission test of a body: the message to answer when it
	// is refused.
	Check func(raw []byte) (msg string, ok bool)
	// CheckTNT3 judges a DCSA Track & Trace 3.0 body (events_tnt3.go) for
	// the key's SCAC at now; nil refuses 3.0 bodies.
	CheckTNT3 func(raw []byte, scac string, now time.Time) tnt3.Verdict
	Now       func() time.Time
	// Combine has single-event pushes of one carrier key made at the same
	// time share one carrier-raw record and one produce (CarrierRaw.Parts;
	// see combiner); Linger is how long such a record waits for more
	// before it is produced (0: only the pushes that arrive while the key's
	// records in flight are being produced).
	Combine bool
	Linger  time.Duration
}

// AddedResponse is the success body. A 3.0 push is also answered with
// 3.0's PostEventsResponse member, feedbackElements, when some events were
// not processed as sent.
type AddedResponse struct {
	Message          string                 `json:"message"`
	FeedbackElements []tnt3.FeedbackElement `json:"feedbackElements,omitempty"`
}

// pushedEventsSchema is POST /events' body: one event or an array of them.
var pushedEventsSchema = openapi3.NewOneOfSchema(openapi3.NewObjectSchema(), openapi3.NewArraySchema().WithItems(openapi3.NewObjectSchema()))

// RegisterEvents adds POST and HEAD /events.
func RegisterEvents(s *fuego.Server, deps EventsDeps) {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Log == nil {
		deps.Log = slog.New(slog.DiscardHandler)
	}
	h := eventsHandler{deps: deps}
	if deps.Combine {
		h.combine = newCombiner(deps.Producer, deps.Linger, h.combined)
	}
	fuego.Post(s, "/events", h.post,
		option.OperationID("pushEvents"),
		option.Summary("Push carrier events (carriers only)"),
		option.Description("For carrier keys only. Body: one DCSA equipment or transport event, or a JSON array of them, bare or as {\"events\": [...]} (each checked; nothing is stored when any fails, and the answer names the element that failed: \"[3].equipmentReference is required\"), at most 737280 bytes (413 beyond). The events reach only subscriptions to the carrier key's own SCAC. The raw body is acknowledged by Kafka before 200 is answered. "+
			"When the carrier key has a shared secret (always, for live keys) the body is signed: with the Standard Webhooks headers webhook-id, webhook-timestamp (Unix seconds, within 5 minutes of the server's time) and webhook-signature (v1,<base64 HMAC-SHA256 of \"id.timestamp.body\">, keyed with the bytes after whsec_), where a webhook-id accepted in the last 10 minutes is acknowledged without being processed again; "+
			"or, unless the key requires the timestamped scheme, with Notification-Signature: sha256=<hex HMAC-SHA256 of the body>. "+
			"DCSA Track & Trace 3.0 (API-Version 3.x, or a body {\"events\": [...]} of 3.0 events) is answered as 3.0's Event Consumer: each event on its own, feedbackElements naming those not processed as sent (ERROR refused, WARN not forwarded), 400 when none could be, API-Version 3.0.0 on every answer."),
		httpapi.JSONBody("one DCSA event (eventType EQUIPMENT or TRANSPORT), or a JSON array of them; or a DCSA Track & Trace 3.0 {\"events\": [...]}", pushedEventsSchema),
		option.Header("Notification-Signature", "sha256=<lowercase hex HMAC-SHA256 of the body>, when the carrier key has a shared secret and the Standard Webhooks headers are not sent"),
		option.Header("webhook-id", "Standard Webhooks: the message id, unique per push (a repeat within 10 minutes is not processed again)"),
		option.Header("webhook-timestamp", "Standard Webhooks: Unix time in seconds, within 5 minutes of the server's"),
		option.Header("webhook-signature", "Standard Webhooks: v1,<base64 HMAC-SHA256 of \"webhook-id.webhook-timestamp.body\">, space-separated entries"),
		option.Header("API-Version", "3.x.x for a DCSA Track & Trace 3.0 body (also recognised by its shape); absent for the interface's events"),
		option.AddResponse(400, "Refused event", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(403, "Missing, unknown or revoked x-api-key; not a carrier key; or a signature that does not verify: \"Invalid Notification-Signature\", \"Invalid webhook-signature\", \"Invalid webhook-timestamp: …\", \"This carrier key requires a timestamped signature: …\", \"This live carrier key has no signing secret: …\"", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(413, "Body over 737280 bytes", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Carrier events"),
	)
	// DCSA publishers check a callback URL with HEAD before sending to it.
	s.Mux.HandleFunc("HEAD /events", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
}

type eventsHandler struct {
	deps EventsDeps
	// combine joins concurrent single-event pushes of a key into one record.
	combine *combiner
}

func (h eventsHandler) post(c fuego.ContextNoBody) (_ AddedResponse, err error) {
	// The trace of the pushed events starts here; the record carries it on
	// to the normaliser and delivery.
	ctx, span := tracing.StartPublic(c.Context(), c.Request().Header, "POST /events",
		attribute.String("http.request.method", http.MethodPost), attribute.String("http.route", "/events"))
	defer func() { tracing.End(span, err) }()
	k, _ := auth.FromContext(ctx)
	if k.Role != auth.RoleCarrier {
		return AddedResponse{}, &httpapi.Error{Status: http.StatusForbidden, Message: httpapi.MsgForbidden}
	}
	raw, err := readEventsBody(c.Request())
	if err != nil {
		return AddedResponse{}, err
	}
	now := h.deps.Now().UTC()
	pushID, err := h.verifySignature(k, raw, c.Request().Header, now)
	if err != nil {
		return AddedResponse{}, err
	}
	// What a stored body is answered (also a push whose id was stored
	// already), in the format it came in.
	answer, format, store := AddedResponse{Message: MsgAdded}, carriers.FormatPushed, true
	if isTNT3(c.Request().Header, raw) {
		c.Response().Header().Set(tnt3.HeaderAPIVersion, tnt3.Version)
		format = carriers.FormatPushedTNT3
		if answer, store, err = h.checkTNT3(k, raw, now); err != nil {
			return AddedResponse{}, err
		}
	} else if msg, ok := h.deps.Check(raw); !ok {
		return AddedResponse{}, httpapi.BadRequest(msg)
	}
	if !store {
		return answer, nil
	}
	if pushID != "" && h.deps.PushIDs != nil {
		// A signed push is processed once: its id seen in the window is a
		// replay, or the retry of a push stored already. Acknowledged, not
		// processed again (as Standard Webhooks receivers deduplicate).
		var fresh bool
		if fresh, err = h.deps.PushIDs.Claim(ctx, k.ID, pushID, now, 2*PushTolerance); err != nil {
			return AddedResponse{}, err
		}
		if !fresh {
			return answer, nil
		}
		defer func() {
			if err == nil {
				return
			}
			// Not stored: the carrier's retry of this id must be processed.
			if rerr := h.deps.PushIDs.Release(context.WithoutCancel(ctx), k.ID, pushID); rerr != nil {
				h.deps.Log.Error("pushed event not stored and its webhook-id kept: a retry of it would be dropped",
					"carrier_key_id", k.ID, "err", rerr)
			}
		}()
	}
	if err = h.store(ctx, c.Request(), k, raw, format, now); err != nil {
		if format == carriers.FormatPushedTNT3 {
			err = asTNT3(err)
		}
		return AddedResponse{}, err
	}
	return answer, nil
}

// store writes a checked body to the carrier-raw topic and returns once
// Kafka has it. A single event pushed in the interface's format joins the
// other pushes of its key under way (combiner).
func (h eventsHandler) store(ctx context.Context, r *http.Request, k auth.Key, raw []byte, format carriers.Format, now time.Time) error {
	if h.combine != nil && format == carriers.FormatPushed && singleObject(raw) {
		id, parts, err := h.combine.push(ctx, k, requestID(r), raw, now)
		// The record carries the trace of its first push only: every
		// push's span names the record it went in.
		trace.SpanFromContext(ctx).SetAttributes(attribute.String("contrack.carrier_raw_id", id),
			attribute.Int("contrack.combined_pushes", parts))
		return h.produced(err, len(raw))
	}
	rec, err := h.record(ctx, k, schemas.CarrierRaw{Format: string(format), RequestID: requestID(r), ReceivedAt: now, Payload: raw})
	if err != nil {
		return err
	}
	return h.produced(h.deps.Producer.ProduceSync(ctx, rec).FirstErr(), len(raw))
}

// record is the carrier-raw record of env, pushed with k.
func (h eventsHandler) record(ctx context.Context, k auth.Key, env schemas.CarrierRaw) (*kgo.Record, error) {
	// The key's SCAC travels with the payload: the normaliser routes the
	// events only to trackings of this carrier, whatever the body says.
	scac := strings.ToUpper(k.SCAC)
	if env.ID == "" {
		env.ID = uuid.NewString()
	}
	env.SCAC, env.Env, env.CarrierKeyID = scac, k.Account.Env, k.ID
	value, err := schemas.EncodeCarrierRaw(&env)
	if err != nil {
		return nil, fmt.Errorf("marshal raw envelope: %w", err)
	}
	rec := &kgo.Record{
		Topic: h.deps.Namespace.Topic(schemas.TopicCarrierRaw),
		// Pushed events have no tracking yet: keyed by the carrier, so one
		// carrier's pushes keep their order.
		Key:   []byte(scac + "/" + k.Account.Env),
		Value: value,
		Headers: schemas.Headers{
			Type: schemas.TypeCarrierRaw, ID: env.ID, Env: env.Env, SCAC: scac, CarrierKey: k.ID,
		}.Kafka(),
	}
	tracing.Inject(ctx, rec)
	if RecordSizeBound(rec) > kafka.MaxRecordBatchBytes {
		return nil, tooLarge()
	}
	return rec, nil
}

// combined is the record of pushes that share one: a single push as it
// came, more as a JSON array of them (CarrierRaw.Parts), received when the
// last joined.
func (h eventsHandler) combined(g *pushGroup) (*kgo.Record, error) {
	g.recordID = uuid.NewString()
	env := schemas.CarrierRaw{ID: g.recordID, Format: string(carriers.FormatPushed), RequestID: g.requestID, ReceivedAt: g.at}
	if len(g.parts) == 1 {
		env.Payload = g.parts[0]
	} else {
		env.Parts = len(g.parts)
		env.Payload = make([]byte, 0, g.size+1)
		for i, p := range g.parts {
			env.Payload = append(env.Payload, "[,"[min(i, 1)])
			env.Payload = append(env.Payload, p...)
		}
		env.Payload = append(env.Payload, ']')
	}
	return h.record(g.first, g.key, env)
}

// produced answers a produce's outcome.
func (h eventsHandler) produced(err error, bytes int) error {
	if err == nil {
		return nil
	}
	var he *httpapi.Error
	if errors.As(err, &he) {
		return err
	}
	if errors.Is(err, kerr.MessageTooLarge) {
		// The topic's max.message.bytes is below what the body limit
		// assumes (a cluster configured smaller): still the client's 413.
		h.deps.Log.Warn("pushed event refused by Kafka as too large; check the carrier-raw topic's max.message.bytes",
			"bytes", bytes, "err", err)
		return tooLarge()
	}
	return fmt.Errorf("produce pushed event: %w", err)
}

// singleObject says a checked body is one event object, not an array.
func singleObject(raw []byte) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}

// verifySignature checks a pushed body's signature when the key has a
// shared secret (a live key must have one): the timestamped Standard
// Webhooks headers when sent (then their webhook-id is returned), else the
// DCSA body-only Notification-Signature, unless the key requires the
// timestamped scheme.
func (h eventsHandler) verifySignature(k auth.Key, body []byte, hdr http.Header, now time.Time) (pushID string, err error) {
	if h.deps.Secrets == nil {
		return "", nil
	}
	secret, err := h.deps.Secrets.KeySigningSecret(k)
	if err != nil {
		return "", fmt.Errorf("signing secret: %w", err)
	}
	if secret == "" {
		if k.Account.Env == schemas.EnvLive {
			return "", &httpapi.Error{Status: http.StatusForbidden, Message: MsgSecretRequired}
		}
		return "", nil
	}
	id, err := signature.VerifyStandard(secret, hdr, body, now, PushTolerance)
	switch {
	case err == nil:
		return id, nil
	case errors.Is(err, signature.ErrTimestamp):
		return "", &httpapi.Error{Status: http.StatusForbidden, Message: MsgBadTimestamp}
	case !errors.Is(err, signature.ErrNoStandardHeaders):
		return "", &httpapi.Error{Status: http.StatusForbidden, Message: MsgBadStandardSignature}
	case k.SigningTimestampedOnly:
		return "", &httpapi.Error{Status: http.StatusForbidden, Message: MsgTimestampRequired}
	}
	got, ok := strings.CutPrefix(strings.TrimSpace(hdr.Get("Notification-Signature")), "sha256=")
	sig, decErr := hex.DecodeString(got)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	if !ok || decErr != nil || !hmac.Equal(sig, mac.Sum(nil)) {
		return "", &httpapi.Error{Status: http.StatusForbidden, Message: MsgBadSignature}
	}
	return "", nil
}

func tooLarge() error {
	return &httpapi.Error{Status: http.StatusRequestEntityTooLarge, Message: MsgEventsTooLarge}
}

// readEventsBody reads at most MaxEventsBodyBytes (413 beyond).
func readEventsBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := readAtMost(r.Body, r.ContentLength, MaxEventsBodyBytes+1)
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, tooLarge()
	case err != nil:
		return nil, httpapi.BadRequest("Could not read request body")
	case len(b) > MaxEventsBodyBytes:
		return nil, tooLarge()
	}
	if err := httpapi.CheckJSONText(b); err != nil {
		return nil, err
	}
	return b, nil
}

// readAtMost reads body up to limit bytes into one buffer of the announced
// size (io.ReadAll grows from 512 bytes, copying: about three times a
// body's bytes in garbage), grown only if the body is longer than announced.
func readAtMost(body io.Reader, announced int64, limit int) ([]byte, error) {
	b := make([]byte, 0, min(max(int(announced), 0), limit-1)+1)
	for len(b) < limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grows as append does
		}
		n, err := body.Read(b[len(b):min(cap(b), limit)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// RecordSizeBound is an upper bound of r's size in a record batch of its
// own, as franz-go measures it against ProducerBatchMaxBytes: the batch
// header (61 bytes) and the record's fields, each varint counted at its
// largest (5 bytes).
func RecordSizeBound(r *kgo.Record) int {
	n := 61 + 5 + 1 + 5 + 5 + 5 + len(r.Key) + 5 + len(r.Value) + 5
	for _, h := range r.Headers {
		n += 5 + len(h.Key) + 5 + len(h.Value)
	}
	return n
}

func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 128 {
		return id
	}
	return uuid.NewString()
}
