package queryapi

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-fuego/fuego"

	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/readiness"
)

// readinessWorld serves the query API over fresh stores, its sandbox
// clock at now.
type readinessWorld struct {
	api *testenv.API
	h   *dt.Harness
	ch  testenv.CHDatabase
}

func newReadinessWorld(t *testing.T, now time.Time) readinessWorld {
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	clock := func() time.Time { return now }
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		Register(s, Deps{Pool: db.Pool, CH: ch.Conn, TokenKey: []byte("k"), Now: clock, SandboxNow: clock})
	})
	return readinessWorld{api: api, h: dt.NewOn(t, db, false), ch: ch}
}

// facts writes a container's readiness row as the journey projection does.
func (w readinessWorld) facts(t *testing.T, acct, tracking, container string, f readiness.Facts, version uint64) {
	t.Helper()
	js, _ := json.Marshal(f)
	at := func(s string) time.Time {
		if s == "" {
			return time.Unix(0, 0).UTC()
		}
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UTC()
	}
	open := uint16(0)
	for _, h := range f.Holds {
		if h.ReleasedDateTime == "" {
			open++
		}
	}
	cols := []string{"account_id", "env", "tracking_id", "equipment_number", "scac", "pod", "discharged_at",
		"available_at", "picked_up_at", "returned_at", "holds", "holds_open", "facts_json", "updated_at", "version"}
	if err := clickhouse.InsertInBlocks(context.Background(), w.ch.Conn, projector.ReadinessTable, cols, 0, []any{acct, "sandbox", tracking,
		container, "MAEU", f.UNLocationCode, at(f.DischargedDateTime), at(f.AvailableDateTime), at(f.PickedUpDateTime),
		at(f.EmptyReturnedDateTime), uint16(len(f.Holds)), open, string(js), time.Now().UTC().Truncate(time.Second), version}); err != nil {
		t.Fatal(err)
	}
}

func discharged(day string) readiness.Facts {
	return readiness.Facts{UNLocationCode: "USLAX", DischargedDateTime: day + "T10:00:00Z"}
}

// GET /subscriptions/attention lists the open subscriptions with a
// container in its terminal on hold, near or past its last free day, or
// on detention — the most urgent first, each with those containers'
// readiness — and none of another account's, nor closed, calm, returned or
// (without a rule) only discharged ones.
func TestSubscriptionsNeedingAttention(t *testing.T) {
	w := newReadinessWorld(t, time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	ctx := context.Background()
	key, k, err := w.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	otherKey, o, _ := w.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	acct := k.Account.ID
	if r := w.api.Do("GET", "/subscriptions/attention", key, nil); r.Status != 200 || string(r.Raw) != `{"subscriptions":[]}`+"\n" {
		t.Fatalf("before anything: %d %s", r.Status, r.Raw)
	}
	// Three free days, $100 a day.
	w.h.Exec(`INSERT INTO free_time_rules (account_id, rules) VALUES ($1, '[{"port":"*","scacCode":"*","demurrageDays":3,"detentionDays":3,"demurrageRate":100,"currency":"USD"}]')`, acct)
	sub := func(ref string, f readiness.Facts) dt.Sub {
		s := w.h.Subscribe(acct, ref)
		w.facts(t, acct, s.Tracking, s.Container, f, 1)
		return s
	}
	late := sub("late", discharged("2026-11-20")) // last free day 11-23: 3 days of demurrage
	soon := sub("soon", discharged("2026-11-24")) // last free day 11-27: tomorrow
	held := discharged("2026-11-26")              // last free day 11-29, on hold
	held.Holds = []readiness.Hold{{HoldType: "CUSTOMS", HoldCode: "CUSI", PlacedDateTime: "2026-11-26T11:00:00Z"}}
	heldSub := sub("held", held)
	sub("calm", discharged("2026-11-26"))
	gone := discharged("2026-11-20")
	gone.PickedUpDateTime, gone.EmptyReturnedDateTime = "2026-11-21T09:00:00Z", "2026-11-23T09:00:00Z"
	sub("returned", gone)
	detained := discharged("2026-11-18")
	detained.PickedUpDateTime = "2026-11-19T09:00:00Z" // detention free until 11-22
	detainedSub := sub("detained", detained)
	closed := sub("closed", discharged("2026-11-20"))
	w.h.Exec(`UPDATE subscriptions SET status = 'CLOSED' WHERE id = $1`, closed.ID)
	// A newer version of late's facts wins; the older one (picked up) does not.
	older := discharged("2026-11-20")
	older.PickedUpDateTime = "2026-11-21T09:00:00Z"
	w.facts(t, acct, late.Tracking, late.Container, older, 0)
	// A booking of two containers: only the one past its last free day.
	book := w.h.Subscribe(acct, "booking")
	w.h.Exec(`UPDATE subscriptions SET container_number = '', booking_number = 'BK1' WHERE id = $1`, book.ID)
	w.facts(t, acct, book.Tracking, "MSKU0000001", discharged("2026-11-26"), 1)
	w.facts(t, acct, book.Tracking, "MSKU0000002", discharged("2026-11-21"), 1)
	// Another account's box, past its last free day under no rule of its
	// own, and under acme's rules nowhere.
	os := w.h.Subscribe(o.Account.ID, "theirs")
	w.facts(t, o.Account.ID, os.Tracking, os.Container, held, 1)

	r := w.api.Do("GET", "/subscriptions/attention", key, nil)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	var got AttentionList
	if err := json.Unmarshal(r.Raw, &got); err != nil {
		t.Fatal(err)
	}
	want := []string{ // the most urgent first
		"late [DEMURRAGE] " + late.Container + ": lfd 2026-11-23 (-3), 3 days, $300",
		"booking [DEMURRAGE] MSKU0000002: lfd 2026-11-24 (-2), 2 days, $200",
		"soon [LFD_SOON] " + soon.Container + ": lfd 2026-11-27 (1), 0 days, $0",
		"held [HOLD] " + heldSub.Container + ": lfd 2026-11-29 (3), 0 days, $0",
		"detained [DETENTION] " + detainedSub.Container + ": lfd 2026-11-21 (-), 0 days, $0",
	}
	if got := attentionSummary(t, r.Raw); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The other account: its box on hold, under no rule (no last free day).
	r = w.api.Do("GET", "/subscriptions/attention", otherKey, nil)
	if got := attentionSummary(t, r.Raw); !slices.Equal(got, []string{"theirs [HOLD] " + os.Container + ": lfd  (-), 0 days, $-"}) {
		t.Errorf("the other account's: %v", got)
	}
}

// attentionSummary is a line per subscription of a GET
// /subscriptions/attention answer: its reasons and its containers' last
// free day, days to it, demurrage days and cost.
func attentionSummary(t *testing.T, raw []byte) []string {
	t.Helper()
	var got AttentionList
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	var out []string
	for _, s := range got.Subscriptions {
		line := fmt.Sprintf("%s %v", s.SubscriptionReference, s.Attention)
		for _, c := range s.Containers {
			v := c.Readiness
			left, cost := "-", "-"
			if v.DaysToLastFreeDay != nil {
				left = fmt.Sprint(*v.DaysToLastFreeDay)
			}
			if v.EstimatedCost != nil {
				cost = fmt.Sprint(v.EstimatedCost.Demurrage)
			}
			line += fmt.Sprintf(" %s: lfd %s (%s), %d days, $%s", c.EquipmentNumber, v.LastFreeDay, left, v.DemurrageDays, cost)
		}
		out = append(out, line)
	}
	return out
}

// GET /subscription/{subscription_id}/alerts: the subscription's alerts
// from the feed, newest first, each once, ETA changes of at least its
// threshold (the subscription's, else the account's, else 6 h); limit
// clamps; another account's reference is not found.
func TestSubscriptionAlerts(t *testing.T) {
	w := newReadinessWorld(t, time.Now())
	ctx := context.Background()
	key, k, err := w.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	otherKey, _, _ := w.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	acct := k.Account.ID
	s := w.h.Subscribe(acct, "ref-a")
	o := w.h.Subscribe(acct, "ref-b")
	seq := 0
	write := func(sub dt.Sub, kind string, minutes *int, id string) {
		a := schemas.Alert{AlertID: id, AlertType: kind, EquipmentReference: sub.Container, AlertDateTime: "2026-11-20T10:00:00Z", ChangeMinutes: minutes}
		js, _ := json.Marshal(a)
		seq++
		var m any
		if minutes != nil {
			m = *minutes
		}
		w.h.Exec(`INSERT INTO feed_batches (account_id, seq_from, seq_to, kind, created_at, subscription_ids, event_ids, content_hashes, tags, events,
			subscription_id, alert_type, change_minutes)
			VALUES ($1, $2, $2, 'ALERT', now(), ARRAY[$3::uuid], ARRAY[$4::text], ARRAY['alert:x'], ARRAY[NULL::text], ARRAY[$5::bytea], $3, $6, $7)`,
			acct, seq, sub.ID, id, js, kind, m)
	}
	mins := func(n int) *int { return &n }
	write(s, schemas.AlertETAChanged, mins(120), "eta-2h")
	write(s, schemas.AlertETAChanged, mins(-400), "eta-early")
	write(o, schemas.AlertArrived, nil, "other-sub")
	write(s, schemas.AlertArrived, nil, "arrived")
	write(s, schemas.AlertHoldPlaced, nil, "hold")
	write(s, schemas.AlertArrived, nil, "arrived") // the feed got it again
	ids := func(key, path string) []string {
		t.Helper()
		r := w.api.Do("GET", path, key, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
		}
		var got SubscriptionAlerts
		if err := json.Unmarshal(r.Raw, &got); err != nil || got.SubscriptionReference != "ref-a" {
			t.Fatalf("%s: %v %s", path, err, r.Raw)
		}
		var out []string
		for _, a := range got.Alerts {
			out = append(out, a.AlertID)
		}
		return out
	}
	if got := ids(key, "/subscription/ref-a/alerts"); !slices.Equal(got, []string{"arrived", "hold", "eta-early"}) {
		t.Errorf("default threshold: %v", got)
	}
	w.h.Exec(`UPDATE accounts SET eta_threshold_minutes = 60 WHERE id = $1`, acct)
	if got := ids(key, "/subscription/ref-a/alerts"); !slices.Equal(got, []string{"arrived", "hold", "eta-early", "eta-2h"}) {
		t.Errorf("the account's threshold: %v", got)
	}
	w.h.Exec(`UPDATE subscriptions SET eta_threshold_minutes = 500 WHERE id = $1`, s.ID)
	if got := ids(key, "/subscription/ref-a/alerts"); !slices.Equal(got, []string{"arrived", "hold"}) {
		t.Errorf("the subscription's threshold: %v", got)
	}
	if got := ids(key, "/subscription/ref-a/alerts?limit=1"); !slices.Equal(got, []string{"arrived"}) {
		t.Errorf("limit=1: %v", got)
	}
	if got := ids(key, "/subscription/ref-a/alerts?limit=0"); !slices.Equal(got, []string{"arrived"}) {
		t.Errorf("limit=0 (clamped to 1): %v", got)
	}
	expectMessage(t, w.api.Do("GET", "/subscription/ref-a/alerts?limit=x", key, nil), 400, "Query parameter 'limit' must be an integer")
	expectMessage(t, w.api.Do("GET", "/subscription/ref-a/alerts", otherKey, nil), 404, "Subscription not found")
	expectMessage(t, w.api.Do("GET", "/subscription/nope/alerts", key, nil), 404, "Subscription not found")
}

func expectMessage(t *testing.T, r testenv.Response, status int, message string) {
	t.Helper()
	if r.Status != status || r.Message() != message {
		t.Errorf("got %d %s, want %d %q", r.Status, r.Raw, status, message)
	}
}
