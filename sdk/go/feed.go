package contrack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"time"
)

// FeedEvent is one event of the account event feed
// (GET /subscriptions/events): every event of the account's subscriptions,
// in the order their webhook gets them.
type FeedEvent struct {
	// References are the event's subscription's, as in a webhook delivery.
	References References
	// Event is the DCSA EVENT_DOMAIN 2.0.2 event, as JSON.
	Event json.RawMessage
	// Cursor is where to resume once this event is handled: store it, and
	// pass it to Feed after a restart. Resuming from it never skips an
	// event; unless the event was the last of the page it came in, the
	// rest of that page is read again (dedupe by subscriptionReference and
	// eventID where that matters).
	Cursor string
}

// FeedOptions tune Feed; the zero value long-polls for 20 s at a time and
// never ends by itself.
type FeedOptions struct {
	// Limit is the events per request, 1-1000; the API's default (100) when 0.
	Limit int
	// Wait is how long one request waits for a new event, up to 20 s; 20 s when 0.
	Wait time.Duration
	// UntilCaughtUp ends the iteration when a read finds no new event,
	// instead of waiting for more: for a job that reads what is new and exits.
	UntilCaughtUp bool
}

// feedPage is FeedPage with the events kept as JSON.
type feedPage struct {
	Items []struct {
		References References        `json:"references"`
		Events     []json.RawMessage `json:"events"`
	} `json:"items"`
	NextCursor string `json:"nextCursor"`
}

// Feed iterates the account's events from cursor ("" starts at the oldest
// event kept, 30 days at least), long-polling for new ones until ctx ends,
// the loop breaks, or (with UntilCaughtUp) there is nothing new. Network
// errors and server faults are retried as the retry policy says; the error
// that ends the iteration is yielded last (an invalid cursor is an
// *APIError with Message "Invalid cursor").
func (c *Client) Feed(ctx context.Context, cursor string, opts FeedOptions) iter.Seq2[FeedEvent, error] {
	return func(yield func(FeedEvent, error) bool) {
		wait := 20
		if opts.Wait > 0 {
			wait = int((opts.Wait + time.Second - 1) / time.Second)
		}
		if opts.UntilCaughtUp {
			wait = 0
		}
		failures := 0
		for ctx.Err() == nil {
			params := &ReadFeedParams{Wait: &wait}
			if cursor != "" {
				params.Cursor = &cursor
			}
			if opts.Limit > 0 {
				params.Limit = &opts.Limit
			}
			page, err := c.readFeed(ctx, params)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				var apiErr *APIError
				if (!errors.As(err, &apiErr) || apiErr.StatusCode >= 500) && failures < c.doer.retry.MaxRetries {
					d, _ := c.doer.retry.wait(failures, http.Header{}, 0)
					failures++
					if sleep(ctx, d) == nil {
						continue
					}
					return
				}
				yield(FeedEvent{}, err)
				return
			}
			failures = 0
			events := 0
			for _, item := range page.Items {
				events += len(item.Events)
			}
			seen := 0
			for _, item := range page.Items {
				for _, ev := range item.Events {
					seen++
					resume := cursor
					if seen == events {
						resume = page.NextCursor
					}
					if !yield(FeedEvent{References: item.References, Event: ev, Cursor: resume}, nil) {
						return
					}
				}
			}
			cursor = page.NextCursor
			if events == 0 && opts.UntilCaughtUp {
				return
			}
		}
	}
}

func (c *Client) readFeed(ctx context.Context, params *ReadFeedParams) (*feedPage, error) {
	resp, err := c.ReadFeed(ctx, params)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("contrack: GET /subscriptions/events answered %s", resp.Status)
	}
	var page feedPage
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		return nil, fmt.Errorf("contrack: GET /subscriptions/events: %w", err)
	}
	if page.NextCursor == "" {
		return nil, errors.New("contrack: GET /subscriptions/events answered without nextCursor")
	}
	return &page, nil
}
