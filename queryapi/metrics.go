package queryapi

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
)

// Window bounds of GET /carrier/metrics, in days.
const (
	DefaultMetricsWindow = 7
	MaxMetricsWindow     = 90
)

// CarrierMetrics is one carrier's polling rollup for the caller's account.
type CarrierMetrics struct {
	ScacCode      string        `json:"scacCode"`
	Attempts      uint64        `json:"attempts"`
	Success       uint64        `json:"success"`
	NoData        uint64        `json:"noData"`
	Errors        uint64        `json:"errors"`
	ErrorRate     float64       `json:"errorRate"` // errors / attempts, 0..1
	AvgLatencyMs  float64       `json:"avgLatencyMs"`
	P95LatencyMs  float64       `json:"p95LatencyMs"`
	LastAttemptAt *httpapi.Time `json:"lastAttemptAt"`
	// DataQuality is what the carrier's answers to the account's polls
	// needed over the window (docs/normalize.md).
	DataQuality DataQuality `json:"dataQuality"`
}

// DataQuality counts, over the window, the events read from a carrier's
// answers, the deviations from its standard repaired (by kind, as
// docs/normalize.md lists them), and the elements refused and
// dead-lettered, with the latest refusal's reason.
type DataQuality struct {
	EventsRead  uint64            `json:"eventsRead"`
	Repairs     map[string]uint64 `json:"repairs"`
	Refused     uint64            `json:"refused"`
	LastRefusal string            `json:"lastRefusal,omitempty"`
}

// MetricsResponse is GET /carrier/metrics' body.
type MetricsResponse struct {
	Window   int              `json:"window"`
	Carriers []CarrierMetrics `json:"carriers"`
}

func registerMetrics(s *fuego.Server, deps Deps) {
	fuego.Get(s, "/carrier/metrics", func(c fuego.ContextNoBody) (MetricsResponse, error) {
		k, _ := auth.FromContext(c.Context())
		window := DefaultMetricsWindow
		if q := c.Request().URL.Query(); q.Has("window") {
			n, err := strconv.Atoi(strings.TrimSpace(q.Get("window")))
			if err != nil {
				return MetricsResponse{}, httpapi.BadRequest("Query parameter 'window' must be an integer")
			}
			window = min(max(n, 1), MaxMetricsWindow)
		}
		out := MetricsResponse{Window: window, Carriers: []CarrierMetrics{}}
		if deps.CH == nil {
			return out, nil
		}
		since := deps.Now().UTC().AddDate(0, 0, -window).Truncate(time.Second)
		// Repeats of one attempt (a replayed record) count once.
		rows, err := deps.CH.Query(c.Context(), `
			SELECT c, count(), countIf(o = 'success'), countIf(o = 'noData'), countIf(o = 'error'),
			       toFloat64(avg(l)), toFloat64(quantile(0.95)(l)), max(t)
			FROM (
				-- aliases differ from the columns: ClickHouse 18.16 would
				-- otherwise read them into the WHERE clause
				SELECT attempt_id, any(scac) AS c, any(outcome) AS o, any(latency_ms) AS l, any(at) AS t
				FROM poll_attempts
				WHERE account_id = ? AND at >= ?
				GROUP BY attempt_id
			)
			GROUP BY c`, k.Account.ID, since)
		if err != nil {
			return MetricsResponse{}, fmt.Errorf("carrier metrics: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var m CarrierMetrics
			var last time.Time
			if err := rows.Scan(&m.ScacCode, &m.Attempts, &m.Success, &m.NoData, &m.Errors, &m.AvgLatencyMs, &m.P95LatencyMs, &last); err != nil {
				return MetricsResponse{}, fmt.Errorf("carrier metrics: %w", err)
			}
			if m.Attempts > 0 {
				m.ErrorRate = math.Round(float64(m.Errors)/float64(m.Attempts)*10000) / 10000
			}
			m.AvgLatencyMs = math.Round(m.AvgLatencyMs*10) / 10
			lt := httpapi.Time(last)
			m.LastAttemptAt = &lt
			out.Carriers = append(out.Carriers, m)
		}
		if err := rows.Err(); err != nil {
			return MetricsResponse{}, fmt.Errorf("carrier metrics: %w", err)
		}
		if err := addDataQuality(c.Context(), deps, k.Account, since, &out); err != nil {
			return MetricsResponse{}, err
		}
		// Worst first: highest error rate, then most errors, then SCAC.
		sort.Slice(out.Carriers, func(i, j int) bool {
			a, b := out.Carriers[i], out.Carriers[j]
			if a.ErrorRate != b.ErrorRate {
				return a.ErrorRate > b.ErrorRate
			}
			if a.Errors != b.Errors {
				return a.Errors > b.Errors
			}
			return a.ScacCode < b.ScacCode
		})
		return out, nil
	},
		option.OperationID("getCarrierMetrics"),
		option.QueryInt("window", "days to aggregate over, 1-90 (clamped), default 7"),
		option.Summary("Carrier polling metrics of the calling account"),
		option.Description("Per-carrier rollups of the account's polls over the window, worst first (highest error rate): attempts, success, noData, errors, errorRate, average and p95 latency, last attempt; and dataQuality: the events read from the carrier's answers, the deviations from its standard repaired by kind, the elements refused (dead-lettered) and the latest refusal's reason."),
		option.Tags("Account"),
	)
}

// addDataQuality adds the account's data-quality counts since since
// (normalize_repairs, by UTC day) to its carriers, adding a carrier that
// had counts but no poll attempt in the window.
func addDataQuality(ctx context.Context, deps Deps, acct auth.Account, since time.Time, out *MetricsResponse) error {
	for i := range out.Carriers {
		out.Carriers[i].DataQuality.Repairs = map[string]uint64{}
	}
	if deps.Pool == nil {
		return nil
	}
	rows, err := deps.Pool.Query(ctx, `
		SELECT scac, kind, sum(repairs)::bigint, (array_agg(last_value ORDER BY last_at DESC))[1]
		FROM normalize_repairs
		WHERE account_id = $1 AND env = $2 AND day >= $3::date
		GROUP BY scac, kind`, acct.ID, acct.Env, since.Format(time.DateOnly))
	if err != nil {
		return fmt.Errorf("carrier metrics: data quality: %w", err)
	}
	defer rows.Close()
	at := map[string]int{}
	for i, m := range out.Carriers {
		at[m.ScacCode] = i
	}
	for rows.Next() {
		var scac, kind, last string
		var n int64
		if err := rows.Scan(&scac, &kind, &n, &last); err != nil {
			return fmt.Errorf("carrier metrics: data quality: %w", err)
		}
		i, ok := at[scac]
		if !ok {
			out.Carriers = append(out.Carriers, CarrierMetrics{ScacCode: scac, DataQuality: DataQuality{Repairs: map[string]uint64{}}})
			i = len(out.Carriers) - 1
			at[scac] = i
		}
		q := &out.Carriers[i].DataQuality
		switch kind {
		case "events_read":
			q.EventsRead += uint64(n)
		case "refused":
			q.Refused += uint64(n)
			q.LastRefusal = last
		default:
			q.Repairs[kind] += uint64(n)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("carrier metrics: data quality: %w", err)
	}
	return nil
}
