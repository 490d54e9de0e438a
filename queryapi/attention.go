package queryapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/readiness"
)

// Limits of the readiness reads.
const (
	// attentionWindow: containers whose readiness changed within it are
	// looked at (as the alerts stage's default window).
	attentionWindow = 60 * 24 * time.Hour
	// maxAttentionContainers bounds the containers one answer looks at.
	maxAttentionContainers = 20_000
	// maxAttention bounds the subscriptions listed, the most urgent first.
	maxAttention = 1000
	// defaultAlerts, maxAlerts: a subscription's alerts per answer.
	defaultAlerts = 50
	maxAlerts     = 200
)

// AttentionList is GET /subscriptions/attention's body.
type AttentionList struct {
	Subscriptions []AttentionSubscription `json:"subscriptions"`
}

// AttentionSubscription is an open subscription with a container that
// needs attention: the subscription record, why (the containers' reasons,
// once each) and each such container's readiness.
type AttentionSubscription struct {
	SubscriptionRecord
	Attention  []string             `json:"attention"`
	Containers []AttentionContainer `json:"containers"`
}

// AttentionContainer is a container's readiness as the journey shows it.
type AttentionContainer struct {
	EquipmentNumber string              `json:"equipmentNumber"`
	Readiness       readiness.Readiness `json:"readiness"`
}

// SubscriptionAlerts is GET /subscription/{subscription_id}/alerts' body.
type SubscriptionAlerts struct {
	SubscriptionReference string          `json:"subscriptionReference"`
	Alerts                []schemas.Alert `json:"alerts"`
}

func registerAttention(s *fuego.Server, deps Deps) {
	h := attentionQueries{deps: deps, journeys: deps.Journeys}
	fuego.Get(s, "/subscriptions/attention", h.list,
		option.OperationID("listSubscriptionsNeedingAttention"),
		option.Summary("Subscriptions that need attention"),
		option.Description("The open subscriptions with a container in its terminal at the port of discharge that is on hold (HOLD), "+
			"whose last free day is within the account's warning days (LFD_SOON, default 2), past it (DEMURRAGE), or picked up and past "+
			"its detention free days without the empty return (DETENTION), under the account's free-time rules (PUT /account/free-time); "+
			"the most urgent first (fewest days to the last free day), at most 1000. Each lists its containers' readiness as the journey shows it."),
		option.Tags("Subscriptions"),
	)
	fuego.Get(s, "/subscription/{subscription_id}/alerts", h.alerts,
		option.OperationID("listSubscriptionAlerts"),
		option.Path("subscription_id", "the subscriptionReference"),
		option.QueryInt("limit", "alerts per answer, 1-200 (values outside are clamped); default 50"),
		option.Summary("A subscription's alerts"),
		option.Description("The alerts raised for the subscription (docs/alerts.md), newest first, as long as the account event feed keeps them "+
			"(at least 30 days): every kind, ETA_CHANGED only when it moved at least the subscription's, else the account's, threshold "+
			"(default 6 h), whatever a webhook's filters."),
		option.AddResponse(404, "No such subscription", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
}

type attentionQueries struct {
	deps     Deps
	journeys *Journeys
}

// terminalContainer is a container's latest readiness facts.
type terminalContainer struct {
	env, tracking, equipment, scac string
	facts                          readiness.Facts
}

func (h attentionQueries) list(c fuego.ContextNoBody) (AttentionList, error) {
	k, _ := auth.FromContext(c.Context())
	ctx := c.Context()
	cs, err := h.inTerminal(ctx, k.Account.ID)
	if err != nil {
		return AttentionList{}, err
	}
	out := AttentionList{Subscriptions: []AttentionSubscription{}}
	if len(cs) == 0 {
		return out, nil
	}
	ft := h.journeys.freeTime.Load()
	if ft == nil {
		return AttentionList{}, errors.New("list subscriptions needing attention: no free-time reader")
	}
	rules, err := ft.get(ctx, map[string]bool{k.Account.ID: true})
	if err != nil {
		return AttentionList{}, err
	}
	e, ok := rules[k.Account.ID]
	if !ok {
		e.warn = readiness.DefaultWarningDays
	}
	byTracking := map[string][]AttentionContainer{}
	var trackings []string
	for _, tc := range cs {
		now := ft.now()
		if tc.env == schemas.EnvSandbox {
			now = ft.sandboxNow()
		}
		v := readiness.Compute(tc.facts, e.rules, tc.scac, now, e.warn)
		if len(v.Attention) == 0 {
			continue
		}
		if byTracking[tc.tracking] == nil {
			trackings = append(trackings, tc.tracking)
		}
		byTracking[tc.tracking] = append(byTracking[tc.tracking], AttentionContainer{EquipmentNumber: tc.equipment, Readiness: v})
	}
	if len(trackings) == 0 {
		return out, nil
	}
	rows, err := h.deps.Pool.Query(ctx, selectSubscriptionTracking+`
		WHERE s.account_id = $1 AND s.status = 'OPEN' AND s.tracking_id = ANY($2::uuid[])
		ORDER BY s.seq`, k.Account.ID, trackings)
	if err != nil {
		return AttentionList{}, fmt.Errorf("list subscriptions needing attention: %w", err)
	}
	subs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AttentionSubscription, error) {
		var a AttentionSubscription
		var tracking string
		var created, expires time.Time
		err := row.Scan(&a.SubscriptionReference, &a.EquipmentNumber, &a.BookingNumber, &a.BillNumber, &a.ScacCode,
			&created, &expires, &a.SubscriptionStatus, &a.ConnectionStatus, &tracking)
		a.SubscriptionCreationDate, a.SubscriptionExpiryDate = httpapi.Time(created), httpapi.Time(expires)
		for _, ct := range byTracking[tracking] {
			// A container subscription shows its container only.
			if a.EquipmentNumber == "" || strings.EqualFold(a.EquipmentNumber, ct.EquipmentNumber) {
				a.Containers = append(a.Containers, ct)
			}
		}
		return a, err
	})
	if err != nil {
		return AttentionList{}, fmt.Errorf("list subscriptions needing attention: %w", err)
	}
	for _, a := range subs {
		if len(a.Containers) == 0 {
			continue
		}
		slices.SortFunc(a.Containers, func(x, y AttentionContainer) int { return cmp.Compare(urgency(x.Readiness), urgency(y.Readiness)) })
		seen := map[string]bool{}
		for _, ct := range a.Containers {
			for _, r := range ct.Readiness.Attention {
				seen[r] = true
			}
		}
		a.Attention = []string{}
		for _, r := range []string{readiness.AttentionDemurrage, readiness.AttentionLFDSoon, readiness.AttentionHold, readiness.AttentionDetention} {
			if seen[r] {
				a.Attention = append(a.Attention, r)
			}
		}
		out.Subscriptions = append(out.Subscriptions, a)
	}
	// The most urgent first: fewest days to the last free day (past it
	// first), then by creation (the query's order, kept by a stable sort).
	slices.SortStableFunc(out.Subscriptions, func(x, y AttentionSubscription) int {
		return cmp.Compare(urgency(x.Containers[0].Readiness), urgency(y.Containers[0].Readiness))
	})
	if len(out.Subscriptions) > maxAttention {
		out.Subscriptions = out.Subscriptions[:maxAttention]
	}
	return out, nil
}

// urgency orders containers: fewer days to the last free day first, those
// without one (on hold, no rule) after.
func urgency(v readiness.Readiness) int {
	if v.DaysToLastFreeDay != nil {
		return *v.DaysToLastFreeDay
	}
	return 1 << 30
}

// selectSubscriptionTracking is selectSubscription with the tracking id
// in place of the sequence number.
const selectSubscriptionTracking = `
	SELECT s.reference, s.container_number, s.booking_number, s.bill_number, s.scac,
	       s.created_at, s.expires_at, s.status, t.connection_status, s.tracking_id::text
	FROM subscriptions s JOIN trackings t ON t.id = s.tracking_id`

// inTerminal reads the latest readiness facts of the account's containers
// discharged or held at their port of discharge and not returned empty
// (ClickHouse readiness, written by the journey projection), whose
// readiness changed within attentionWindow.
func (h attentionQueries) inTerminal(ctx context.Context, account string) ([]terminalContainer, error) {
	rows, err := h.deps.CH.Query(ctx, `SELECT tracking_id, equipment_number, argMax(env, version), argMax(scac, version),
			argMax(facts_json, version), argMax(discharged_at, version) AS d, argMax(holds_open, version) AS held,
			argMax(returned_at, version) AS r
		FROM readiness
		WHERE account_id = ? AND updated_at >= ?
		GROUP BY tracking_id, equipment_number
		HAVING (d > toDateTime(0) OR held > 0) AND r = toDateTime(0)
		LIMIT ?`, account, time.Now().Add(-attentionWindow).UTC().Truncate(time.Second), maxAttentionContainers)
	if err != nil {
		return nil, fmt.Errorf("list subscriptions needing attention: read readiness: %w", err)
	}
	defer rows.Close()
	var out []terminalContainer
	for rows.Next() {
		var c terminalContainer
		var js string
		var d, r time.Time
		var held uint16
		if err := rows.Scan(&c.tracking, &c.equipment, &c.env, &c.scac, &js, &d, &held, &r); err != nil {
			return nil, fmt.Errorf("list subscriptions needing attention: read readiness: %w", err)
		}
		if err := json.Unmarshal([]byte(js), &c.facts); err != nil {
			return nil, fmt.Errorf("list subscriptions needing attention: readiness of %s: %w", c.equipment, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list subscriptions needing attention: read readiness: %w", err)
	}
	return out, nil
}

func (h attentionQueries) alerts(c fuego.ContextNoBody) (SubscriptionAlerts, error) {
	k, _ := auth.FromContext(c.Context())
	ref := c.PathParam("subscription_id")
	q := c.Request().URL.Query()
	limit := defaultAlerts
	if q.Has("limit") {
		n, err := strconv.Atoi(strings.TrimSpace(q.Get("limit")))
		if err != nil {
			return SubscriptionAlerts{}, httpapi.BadRequest(msgLimitNotInteger)
		}
		limit = min(max(n, 1), maxAlerts)
	}
	var subID string
	var threshold int
	err := h.deps.Pool.QueryRow(c.Context(), `SELECT s.id::text, coalesce(s.eta_threshold_minutes, a.eta_threshold_minutes, $3)
		FROM subscriptions s JOIN accounts a ON a.id = s.account_id
		WHERE s.account_id = $1 AND s.reference = $2`, k.Account.ID, ref, readiness.DefaultETAThresholdHours*60).Scan(&subID, &threshold)
	if errors.Is(err, pgx.ErrNoRows) {
		return SubscriptionAlerts{}, httpapi.NotFound(msgSubscriptionNotFound)
	}
	if err != nil {
		return SubscriptionAlerts{}, fmt.Errorf("read alerts: %w", err)
	}
	// An alert the feed got twice (after a failure) is one alert: its
	// newest row.
	rows, err := h.deps.Pool.Query(c.Context(), `
		SELECT event FROM (
			-- An alert's row holds it alone (migration 0071).
			SELECT DISTINCT ON (event_ids[1]) events[1] AS event, seq_to FROM feed_batches
			WHERE subscription_id = $1 AND kind = '`+schemas.FeedKindAlert+`'
			  AND (change_minutes IS NULL OR abs(change_minutes) >= $2)
			ORDER BY event_ids[1], seq_to DESC) a
		ORDER BY seq_to DESC
		LIMIT $3`, subID, threshold, limit)
	if err != nil {
		return SubscriptionAlerts{}, fmt.Errorf("read alerts: %w", err)
	}
	defer rows.Close()
	out := SubscriptionAlerts{SubscriptionReference: ref, Alerts: []schemas.Alert{}}
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return SubscriptionAlerts{}, fmt.Errorf("read alerts: %w", err)
		}
		var a schemas.Alert
		if err := json.Unmarshal(raw, &a); err != nil {
			return SubscriptionAlerts{}, fmt.Errorf("read alerts: decode: %w", err)
		}
		out.Alerts = append(out.Alerts, a)
	}
	if err := rows.Err(); err != nil {
		return SubscriptionAlerts{}, fmt.Errorf("read alerts: %w", err)
	}
	return out, nil
}
