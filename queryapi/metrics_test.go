package queryapi_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/queryapi"
)

func TestCarrierMetrics(t *testing.T) {
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, CH: ch.Conn, TokenKey: []byte("k"), Now: func() time.Time { return now }})
	})
	_, k, _ := api.Store.CreateKey(t.Context(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	other := api.Key(auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	var rows [][]any
	add := func(acct, scac, outcome string, age time.Duration, n int) {
		for range n {
			at := now.Add(-age).Truncate(time.Second)
			rows = append(rows, []any{fmt.Sprintf("a-%d", len(rows)), acct, "sandbox", scac, "trk", outcome, uint16(200), uint32(100), uint32(1),
				at, time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)})
		}
	}
	add(k.Account.ID, "MAEU", "success", time.Hour, 8)
	add(k.Account.ID, "MAEU", "error", time.Hour, 2)
	add(k.Account.ID, "HLCU", "error", 2*time.Hour, 3)
	add(k.Account.ID, "HLCU", "noData", 2*time.Hour, 1)
	add(k.Account.ID, "CMDU", "success", 20*24*time.Hour, 5) // outside the default window
	add("someone-else", "ONEY", "error", time.Hour, 9)
	rows = append(rows, rows[0]) // a replayed attempt counts once
	if err := clickhouse.Insert(t.Context(), ch.Conn, "poll_attempts",
		[]string{"attempt_id", "account_id", "env", "scac", "tracking_id", "outcome", "http_code", "latency_ms", "event_count", "at", "day"}, rows...); err != nil {
		t.Fatal(err)
	}
	r := api.Do("GET", "/carrier/metrics", key, nil)
	if r.Status != 200 || r.JSON["window"] != float64(7) {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	carriers := r.JSON["carriers"].([]any)
	if len(carriers) != 2 {
		t.Fatalf("carriers: %s", r.Raw)
	}
	worst := carriers[0].(map[string]any)
	if worst["scacCode"] != "HLCU" || worst["attempts"] != float64(4) || worst["errors"] != float64(3) || worst["noData"] != float64(1) || worst["errorRate"] != 0.75 {
		t.Fatalf("worst first: %v", worst)
	}
	maeu := carriers[1].(map[string]any)
	if maeu["scacCode"] != "MAEU" || maeu["attempts"] != float64(10) || maeu["success"] != float64(8) {
		t.Fatalf("MAEU: %v", maeu)
	}
	if q := fmt.Sprint(maeu["dataQuality"]); q != "map[eventsRead:0 refused:0 repairs:map[]]" {
		t.Errorf("MAEU's data quality with nothing counted: %s", q)
	}
	if r := api.Do("GET", "/carrier/metrics?window=30", key, nil); len(r.JSON["carriers"].([]any)) != 3 {
		t.Fatalf("window 30: %s", r.Raw)
	}
	for q, want := range map[string]float64{"0": 1, "-5": 1, "91": 90, "1000": 90, "30": 30} {
		if r := api.Do("GET", "/carrier/metrics?window="+q, key, nil); r.JSON["window"] != want {
			t.Errorf("window=%s: %s", q, r.Raw)
		}
	}
	if r := api.Do("GET", "/carrier/metrics?window=week", key, nil); r.Status != 400 || r.Message() != "Query parameter 'window' must be an integer" {
		t.Errorf("window=week: %d %s", r.Status, r.Raw)
	}
	if r := api.Do("GET", "/carrier/metrics", other, nil); string(r.Raw) != "{\"window\":7,\"carriers\":[]}\n" {
		t.Errorf("other account: %s", r.Raw)
	}
}

// The data quality of a carrier's answers: the events read, the repairs by
// kind and the refused elements with the latest reason, of the account's
// own polls in its environment over the window only.
func TestCarrierDataQuality(t *testing.T) {
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, CH: ch.Conn, TokenKey: []byte("k"), Now: func() time.Time { return now }})
	})
	key, k, err := api.Store.CreateKey(t.Context(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	add := func(acct, scac, env, kind string, day time.Time, n int, value string, at time.Time) {
		t.Helper()
		if _, err := db.Pool.Exec(t.Context(), `INSERT INTO normalize_repairs (account_id, scac, env, kind, day, repairs, last_path, last_value, last_at)
			VALUES ($1, $2, $3, $4, $5::date, $6, '', $7, $8)`, acct, scac, env, kind, day.Format(time.DateOnly), n, value, at); err != nil {
			t.Fatal(err)
		}
	}
	today, yesterday := now, now.AddDate(0, 0, -1)
	add(k.Account.ID, "MSCU", "sandbox", "events_read", today, 40, "", now)
	add(k.Account.ID, "MSCU", "sandbox", "events_read", yesterday, 60, "", yesterday)
	add(k.Account.ID, "MSCU", "sandbox", "member_case", today, 7, "", now)
	add(k.Account.ID, "MSCU", "sandbox", "member_case", yesterday, 5, "", yesterday)
	add(k.Account.ID, "MSCU", "sandbox", "refused", yesterday, 1, "tnt22: [0].eventDateTime: required", yesterday)
	add(k.Account.ID, "MSCU", "sandbox", "refused", today, 2, "tnt22: [3].eventType: required", now)
	add(k.Account.ID, "MSCU", "sandbox", "member_case", now.AddDate(0, 0, -30), 100, "", now.AddDate(0, 0, -30)) // outside the window
	add(k.Account.ID, "MSCU", "live", "member_case", today, 1000, "", now)                                       // another environment
	add("someone-else", "MSCU", "sandbox", "member_case", today, 1000, "", now)                                  // another account
	add("", "MSCU", "sandbox", "member_case", today, 1000, "", now)                                              // pushed, no account
	r := api.Do("GET", "/carrier/metrics", key, nil)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	carriers := r.JSON["carriers"].([]any)
	if len(carriers) != 1 {
		t.Fatalf("carriers: %s", r.Raw)
	}
	m := carriers[0].(map[string]any)
	q, _ := json.Marshal(m["dataQuality"])
	if m["scacCode"] != "MSCU" || m["attempts"] != float64(0) ||
		string(q) != `{"eventsRead":100,"lastRefusal":"tnt22: [3].eventType: required","refused":3,"repairs":{"member_case":12}}` {
		t.Errorf("MSCU: %s %s", m["scacCode"], q)
	}
}
