package commandapi

import (
	"errors"
	"fmt"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"

	"github.com/contrack/contrack/delivery"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
)

// Messages of POST /webhook/deliveries/{id}/retry.
const (
	msgDeliveryRetried  = "Delivery queued for retry"
	msgDeliveryNotFound = "Delivery not found"
	msgDeliveryNotDead  = "Delivery is not dead-lettered"
)

// RetryDeliveryResponse answers POST /webhook/deliveries/{id}/retry.
type RetryDeliveryResponse struct {
	Message string `json:"message"`
	ID      string `json:"id"`
	Status  string `json:"status"`
}

func registerDeliveries(s *fuego.Server, deps Deps) {
	h := deliveryHandlers{deps}
	fuego.Post(s, "/webhook/deliveries/{id}/retry", h.retry,
		option.Path("id", "the delivery id (the webhook-id of its attempts)"),
		option.Summary("Send a dead-lettered delivery again"),
		option.Description("Puts a DEAD delivery back in the queue: PENDING, due at once, with a fresh retry schedule; its earlier attempts stay in its history and the attempt count goes on. It is sent with the same body and webhook-id as before, outside its subscription's ordered stream (later events were delivered after it died). If the webhook is deactivated, it waits for activation."),
		option.AddResponse(400, "The delivery is not dead-lettered", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(404, "No such delivery of this account", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Webhooks"),
	)
}

type deliveryHandlers struct{ deps Deps }

func (h deliveryHandlers) retry(c fuego.ContextNoBody) (RetryDeliveryResponse, error) {
	k, _ := auth.FromContext(c.Context())
	id := c.PathParam("id")
	err := delivery.Replay(c.Context(), h.deps.Pool, k.Account.ID, id, h.deps.Now().UTC())
	switch {
	case errors.Is(err, delivery.ErrNotFound):
		return RetryDeliveryResponse{}, httpapi.NotFound(msgDeliveryNotFound)
	case errors.Is(err, delivery.ErrNotDead):
		return RetryDeliveryResponse{}, httpapi.BadRequest(msgDeliveryNotDead)
	case err != nil:
		return RetryDeliveryResponse{}, fmt.Errorf("retry delivery: %w", err)
	}
	return RetryDeliveryResponse{Message: msgDeliveryRetried, ID: id, Status: delivery.StatusPending}, nil
}
