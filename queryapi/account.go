// Package queryapi serves the read side of the public interface: GET
// endpoints over Postgres (account data) and ClickHouse (read models).
package queryapi

import (
	"fmt"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
)

// AccountResponse is GET /account's body, field for field as the spec's table.
type AccountResponse struct {
	ClientName  *string    `json:"clientName"`
	DisplayName string     `json:"displayName"`
	Environment string     `json:"environment"`
	AuthMethod  string     `json:"authMethod"`
	UsagePlan   *UsagePlan `json:"usagePlan"`
	// PollingCapacity is, per carrier the account polls, what it gets of
	// its plan's poll rate (beyond the spec's table, so optional in the
	// OpenAPI document: absent until the poller has written figures, within
	// seconds of the first credentials).
	PollingCapacity []CarrierCapacity `json:"pollingCapacity,omitempty"`
}

// CarrierCapacity is one carrier's polling of the account's trackings: how
// many there are, how often each is polled in fact against the configured
// interval, and the polls per second used of the plan's rate. An achieved
// interval well above the configured one means the rate is too low for the
// trackings: every interval stretches alike (new subscriptions still get
// their first poll first); a higher --carrier-rate plan shortens them.
type CarrierCapacity struct {
	ScacCode string `json:"scacCode"`
	// Trackings is the open trackings (shipments with at least one open
	// subscription) of this carrier; AwaitingFirstPoll those not yet polled.
	Trackings         int `json:"trackings"`
	AwaitingFirstPoll int `json:"awaitingFirstPoll"`
	// ConfiguredIntervalSeconds is the interval a tracking is polled at when
	// the rate allows; IntervalP50Seconds and IntervalP95Seconds are the
	// achieved ones (the newest 512 re-polls), null before any re-poll.
	ConfiguredIntervalSeconds float64  `json:"configuredIntervalSeconds"`
	IntervalP50Seconds        *float64 `json:"intervalP50Seconds"`
	IntervalP95Seconds        *float64 `json:"intervalP95Seconds"`
	// PollsPerSecond is the polls made per second over the last few
	// seconds; AllowedPollsPerSecond the plan's carrier rate.
	PollsPerSecond        float64 `json:"pollsPerSecond"`
	AllowedPollsPerSecond float64 `json:"allowedPollsPerSecond"`
	// UpdatedAt is when the poller wrote these figures (every 10 s).
	UpdatedAt httpapi.Time `json:"updatedAt"`
}

// UsagePlan is the account's plan as GET /account shows it.
type UsagePlan struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
}

func registerAccount(s *fuego.Server, deps Deps) {
	fuego.Get(s, "/account", func(c fuego.ContextNoBody) (AccountResponse, error) { return getAccount(c, deps) },
		option.OperationID("getAccount"),
		option.Summary("The calling key's account"),
		option.Description("Confirms which client, environment (live or sandbox) and usage plan the API key is scoped to. "+
			"pollingCapacity shows, per carrier, the open trackings, the poll interval achieved (p50, p95) against the configured one, "+
			"and the polls per second used of the plan's carrier rate."),
		option.Tags("Account"),
	)
}

func getAccount(c fuego.ContextNoBody, deps Deps) (AccountResponse, error) {
	k, ok := auth.FromContext(c.Context())
	if !ok {
		return AccountResponse{}, &httpapi.Error{Status: 403, Message: httpapi.MsgForbidden}
	}
	a := k.Account
	resp := AccountResponse{
		DisplayName: a.DisplayName,
		Environment: a.Env,
		AuthMethod:  "api-key",
	}
	if a.ClientSlug != "" {
		slug := a.ClientSlug
		resp.ClientName = &slug
	}
	// The plan's row as the key was resolved (usage_plans); nil: no plan.
	if p := a.UsagePlan; p != nil {
		resp.UsagePlan = &UsagePlan{ID: p.ID, Name: p.Name, DisplayName: p.DisplayName}
	}
	capacity, err := pollingCapacity(c, deps, a.ID)
	if err != nil {
		return AccountResponse{}, err
	}
	resp.PollingCapacity = capacity
	return resp, nil
}

// pollingCapacity reads the account's rows of poll_capacity (the poller's).
func pollingCapacity(c fuego.ContextNoBody, deps Deps, accountID string) ([]CarrierCapacity, error) {
	out := []CarrierCapacity{}
	if deps.Pool == nil {
		return out, nil
	}
	rows, err := deps.Pool.Query(c.Context(), `
		SELECT scac, trackings, awaiting_first_poll, configured_interval_ms, interval_p50_ms, interval_p95_ms,
		       polls_per_second, allowed_per_second, updated_at
		FROM poll_capacity WHERE account_id = $1 ORDER BY scac`, accountID)
	if err != nil {
		return nil, fmt.Errorf("read polling capacity: %w", err)
	}
	defer rows.Close()
	seconds := func(ms *int64) *float64 {
		if ms == nil {
			return nil
		}
		s := float64(*ms) / 1000
		return &s
	}
	for rows.Next() {
		var cc CarrierCapacity
		var configured int64
		var p50, p95 *int64
		var at time.Time
		if err := rows.Scan(&cc.ScacCode, &cc.Trackings, &cc.AwaitingFirstPoll, &configured, &p50, &p95,
			&cc.PollsPerSecond, &cc.AllowedPollsPerSecond, &at); err != nil {
			return nil, fmt.Errorf("read polling capacity: %w", err)
		}
		cc.ConfiguredIntervalSeconds = float64(configured) / 1000
		cc.IntervalP50Seconds, cc.IntervalP95Seconds = seconds(p50), seconds(p95)
		cc.PollsPerSecond = float64(int64(cc.PollsPerSecond*100+0.5)) / 100
		cc.UpdatedAt = httpapi.Time(at)
		out = append(out, cc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read polling capacity: %w", err)
	}
	return out, nil
}
