package commandapi

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas/deliveries"
)

// Messages of POST /webhook/deliveries/{id}/retry.
const (
	msgDeliveryRetried  = "Delivery queued for retry"
	msgDeliveryNotFound = "Delivery not found"
	msgDeliveryNotDead  = "Delivery is not dead-lettered"
)

// Messages of POST /webhook/test.
const (
	msgTestQueued       = "Test delivery queued"
	msgNotActivated     = "Webhook not activated"
	msgTooManyTestsForm = "Too many test deliveries: at most %d a minute"
)

// TestDeliveryResponse answers POST /webhook/test.
type TestDeliveryResponse struct {
	Message string `json:"message"`
	// ID is the test delivery's id: its webhook-id, and its id in GET
	// /webhook/deliveries.
	ID     string `json:"id"`
	Status string `json:"status"`
}

// RetryDeliveryResponse answers POST /webhook/deliveries/{id}/retry.
type RetryDeliveryResponse struct {
	Message string `json:"message"`
	ID      string `json:"id"`
	Status  string `json:"status"`
}

func registerDeliveries(s *fuego.Server, deps api) {
	h := deliveryHandlers{deps}
	fuego.Post(s, "/webhook/deliveries/{id}/retry", h.retry,
		option.OperationID("retryWebhookDelivery"),
		option.Path("id", "the delivery id (the webhook-id of its attempts)"),
		option.Summary("Send a dead-lettered delivery again"),
		option.Description("Puts a DEAD delivery back in the queue: PENDING, due at once, with a fresh retry schedule; its earlier attempts stay in its history and the attempt count goes on. It is sent with the same body and webhook-id as before, outside its subscription's ordered stream (later events were delivered after it died). If the webhook is deactivated, it waits for activation."),
		option.AddResponse(400, "The delivery is not dead-lettered", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(404, "No such delivery of this account", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Webhooks"),
	)
	fuego.Post(s, "/webhook/test", h.test,
		option.OperationID("testWebhook"),
		option.Summary("Send a test delivery to the webhook"),
		option.Description(fmt.Sprintf("Queues a signed test delivery {\"type\":\"webhook.test\",\"targetUrl\":...,\"env\":...,\"timestamp\":...} to the activated webhook. It goes the way every delivery goes (signed, retried on the schedule, behind the endpoint's circuit breaker, logged) and is listed by GET /webhook/deliveries with \"test\": true. At most %d a minute per account.", deliveries.TestDeliveriesPerWindow)),
		option.AddResponse(400, "No webhook configured, or not activated", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(429, "Too many test deliveries (Retry-After says when the next is allowed)", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Webhooks"),
	)
}

func (h deliveryHandlers) test(c fuego.ContextNoBody) (TestDeliveryResponse, error) {
	k, _ := auth.FromContext(c.Context())
	id, retryAfter, err := deliveries.QueueTest(c.Context(), h.deps.Pool, h.deps.Box, k.Account.ID, h.deps.Now().UTC())
	switch {
	case errors.Is(err, deliveries.ErrNoWebhook):
		return TestDeliveryResponse{}, httpapi.BadRequest(msgNoWebhook)
	case errors.Is(err, deliveries.ErrNotActivated):
		return TestDeliveryResponse{}, httpapi.BadRequest(msgNotActivated)
	case errors.Is(err, deliveries.ErrTooManyTests):
		secs := int(math.Ceil(retryAfter.Seconds()))
		return TestDeliveryResponse{}, &httpapi.Error{Status: http.StatusTooManyRequests,
			Message: fmt.Sprintf(msgTooManyTestsForm, deliveries.TestDeliveriesPerWindow),
			Header:  http.Header{"Retry-After": []string{strconv.Itoa(secs)}}}
	case err != nil:
		return TestDeliveryResponse{}, err
	}
	return TestDeliveryResponse{Message: msgTestQueued, ID: id, Status: deliveries.StatusPending}, nil
}

type deliveryHandlers struct{ deps api }

func (h deliveryHandlers) retry(c fuego.ContextNoBody) (RetryDeliveryResponse, error) {
	k, _ := auth.FromContext(c.Context())
	id := c.PathParam("id")
	err := deliveries.Replay(c.Context(), h.deps.Pool, k.Account.ID, id, h.deps.Now().UTC())
	switch {
	case errors.Is(err, deliveries.ErrNotFound):
		return RetryDeliveryResponse{}, httpapi.NotFound(msgDeliveryNotFound)
	case errors.Is(err, deliveries.ErrNotDead):
		return RetryDeliveryResponse{}, httpapi.BadRequest(msgDeliveryNotDead)
	case err != nil:
		return RetryDeliveryResponse{}, fmt.Errorf("retry delivery: %w", err)
	}
	return RetryDeliveryResponse{Message: msgDeliveryRetried, ID: id, Status: deliveries.StatusPending}, nil
}
