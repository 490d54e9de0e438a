package contrack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// MaxBulkItems is the most subscriptions one POST /subscriptions/equipment takes.
const MaxBulkItems = 1000

// BulkItemResult is the outcome of one item of SubscribeBulk.
type BulkItemResult struct {
	// Index is the item's position in the slice given to SubscribeBulk.
	Index                 int    `json:"index"`
	SubscriptionReference string `json:"subscriptionReference"`
	// Status is CREATED, EXISTS (the reference was already taken: sending
	// a batch again is safe) or INVALID (Message says why, as the single
	// endpoint's 400 would).
	Status  string `json:"status"`
	Message string `json:"message"`
	// ScacCode is the carrier subscribed to (inferred when the item had
	// none); "" for an INVALID item.
	ScacCode string `json:"scacCode,omitempty"`
}

// SubscribeBulk subscribes to many shipments with POST /subscriptions/equipment,
// MaxBulkItems per request, and returns one result per item, in order.
// An item that is INVALID or EXISTS is a result, not an error: the error
// says a request failed, and the results of the requests before it are
// returned with it.
func (c *Client) SubscribeBulk(ctx context.Context, items []CreateSubscriptionBody) ([]BulkItemResult, error) {
	out := make([]BulkItemResult, 0, len(items))
	for start := 0; start < len(items); start += MaxBulkItems {
		chunk := items[start:min(start+MaxBulkItems, len(items))]
		results, err := c.subscribeChunk(ctx, chunk)
		if err != nil {
			return out, err
		}
		if len(results) != len(chunk) {
			return out, fmt.Errorf("contrack: POST /subscriptions/equipment answered %d results for %d items", len(results), len(chunk))
		}
		for i, r := range results {
			r.Index = start + i
			out = append(out, r)
		}
	}
	return out, nil
}

func (c *Client) subscribeChunk(ctx context.Context, chunk []CreateSubscriptionBody) ([]BulkItemResult, error) {
	body, err := json.Marshal(chunk)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.server+"/subscriptions/equipment", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.doer.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var answer struct {
		Results []BulkItemResult `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return nil, fmt.Errorf("contrack: POST /subscriptions/equipment: %w", err)
	}
	return answer.Results, nil
}
