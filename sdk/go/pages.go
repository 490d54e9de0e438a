package contrack

import (
	"context"
	"errors"
	"iter"
)

// SubscriptionPages iterates GET /subscriptions a page at a time,
// following nextToken until the last page. params filter as the endpoint
// does; params.Limit is the page size (1-200), 200 when nil. params.NextToken
// starts from a page an earlier listing stopped at. After an error the
// iteration ends.
func (c *Client) SubscriptionPages(ctx context.Context, params ListSubscriptionsParams) iter.Seq2[*SubscriptionList, error] {
	return func(yield func(*SubscriptionList, error) bool) {
		if params.Limit == nil {
			params.Limit = Ptr(200)
		}
		for {
			resp, err := c.ListSubscriptionsWithResponse(ctx, &params)
			if err == nil && resp.JSON200 == nil {
				err = errors.New("contrack: GET /subscriptions answered " + resp.Status() + " without a list")
			}
			if err != nil {
				yield(nil, err)
				return
			}
			page := resp.JSON200
			if !yield(page, nil) || page.NextToken == "" {
				return
			}
			params.NextToken = Ptr(page.NextToken)
		}
	}
}

// Subscriptions iterates every subscription params select, reading
// GET /subscriptions a page at a time (see SubscriptionPages).
func (c *Client) Subscriptions(ctx context.Context, params ListSubscriptionsParams) iter.Seq2[SubscriptionRecord, error] {
	return func(yield func(SubscriptionRecord, error) bool) {
		for page, err := range c.SubscriptionPages(ctx, params) {
			if err != nil {
				yield(SubscriptionRecord{}, err)
				return
			}
			for _, s := range page.Subscriptions {
				if !yield(s, nil) {
					return
				}
			}
		}
	}
}
