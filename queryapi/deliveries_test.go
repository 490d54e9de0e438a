package queryapi

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/google/uuid"

	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
)

// deliveriesAPI serves GET /webhook/deliveries over a fresh database and
// returns a harness on it to make accounts, webhooks and subscriptions.
func deliveriesAPI(t *testing.T) (*testenv.API, *dt.Harness) {
	db := testenv.Postgres(t)
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		registerDeliveries(s, Deps{Pool: db.Pool, TokenKey: []byte("test-token-key")})
		registerSubscriptions(s, Deps{Pool: db.Pool, TokenKey: []byte("test-token-key")})
	})
	return api, dt.NewOn(t, db, false)
}

// insertDelivery writes a delivery row as the delivery stage leaves it.
func insertDelivery(h *dt.Harness, acct, sub, status string, attempts int, code any, created time.Time) string {
	id := uuid.NewString()
	h.Exec(`INSERT INTO deliveries (id, account_id, subscription_id, status, event_count, attempts, round_attempts,
			next_attempt_at, last_http_code, last_error, created_at, updated_at)
		VALUES ($1, $2, $3, $4, 2, $5, $5, $6, $7, $8, $6, $6)`,
		id, acct, sub, status, attempts, created, code, map[bool]string{true: "HTTP 500: oops"}[code == 500])
	return id
}

func TestListDeliveries(t *testing.T) {
	api, h := deliveriesAPI(t)
	key, k, err := api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	acct := k.Account.ID
	otherKey, other, _ := api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	h.Webhook(acct, "http://example.test/hook", true)
	a := h.Subscribe(acct, "ref-a")
	b := h.Subscribe(acct, "ref-b")
	o := h.Subscribe(other.Account.ID, "ref-o")
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	ids := []string{ // oldest first
		insertDelivery(h, acct, a.ID, "DELIVERED", 1, 200, t0),
		insertDelivery(h, acct, a.ID, "DEAD", 10, 500, t0.Add(time.Minute)),
		insertDelivery(h, acct, b.ID, "DELIVERED", 2, 200, t0.Add(2*time.Minute)),
		insertDelivery(h, acct, a.ID, "FAILED", 3, 500, t0.Add(3*time.Minute)),
		insertDelivery(h, acct, b.ID, "PENDING", 0, nil, t0.Add(4*time.Minute)),
	}
	insertDelivery(h, other.Account.ID, o.ID, "DELIVERED", 1, 200, t0)

	// Newest first, every field.
	r := api.Do("GET", "/webhook/deliveries", key, nil)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	var list struct {
		Deliveries []map[string]any `json:"deliveries"`
		NextToken  string           `json:"nextToken"`
	}
	if err := json.Unmarshal(r.Raw, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Deliveries) != 5 || list.NextToken != "" {
		t.Fatalf("list %s", r.Raw)
	}
	for i, d := range list.Deliveries {
		if d["id"] != ids[4-i] {
			t.Errorf("position %d: %v, want %s (newest first)", i, d["id"], ids[4-i])
		}
	}
	first, _ := json.Marshal(list.Deliveries[1]) // the FAILED one
	want := `{"attempts":3,"createdAt":"2026-11-20T10:03:00.000Z","eventCount":2,"id":"` + ids[3] +
		`","lastError":"HTTP 500: oops","lastHttpCode":500,"nextAttemptAt":"2026-11-20T10:03:00.000Z","status":"FAILED","subscriptionReference":"ref-a"}`
	if string(first) != want {
		t.Errorf("record\n got %s\nwant %s", first, want)
	}
	if d := list.Deliveries[0]; d["lastHttpCode"] != nil || d["nextAttemptAt"] == nil || d["status"] != "PENDING" {
		t.Errorf("pending delivery %v", d)
	}
	for _, d := range list.Deliveries[2:] {
		if d["nextAttemptAt"] != nil {
			t.Errorf("closed delivery with nextAttemptAt: %v", d)
		}
	}
	// A deactivated webhook's open deliveries have no next attempt.
	h.Exec(`UPDATE webhooks SET activated = false WHERE account_id = $1`, acct)
	r = api.Do("GET", "/webhook/deliveries?status=FAILED", key, nil)
	if err := json.Unmarshal(r.Raw, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Deliveries) != 1 || list.Deliveries[0]["nextAttemptAt"] != nil {
		t.Errorf("deactivated: %s", r.Raw)
	}

	// Filters.
	for q, want := range map[string][]string{
		"status=DEAD":                   {ids[1]},
		"status=delivered":              {ids[2], ids[0]},
		"subscriptionReference=ref-b":   {ids[4], ids[2]},
		"subscriptionReference=nothing": {},
	} {
		r := api.Do("GET", "/webhook/deliveries?"+q, key, nil)
		if err := json.Unmarshal(r.Raw, &list); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range list.Deliveries {
			got = append(got, d["id"].(string))
		}
		if r.Status != 200 || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("?%s: %d %v, want %v", q, r.Status, got, want)
		}
	}

	// Pages of two, the cursor bound to the account and the filters.
	var got []string
	tok := ""
	pages := 0
	for {
		q := "?limit=2"
		if tok != "" {
			q += "&nextToken=" + url.QueryEscape(tok)
		}
		r := api.Do("GET", "/webhook/deliveries"+q, key, nil)
		if r.Status != 200 {
			t.Fatalf("page %d: %d %s", pages, r.Status, r.Raw)
		}
		list.NextToken = ""
		if err := json.Unmarshal(r.Raw, &list); err != nil {
			t.Fatal(err)
		}
		pages++
		for _, d := range list.Deliveries {
			got = append(got, d["id"].(string))
		}
		if list.NextToken == "" {
			break
		}
		if pages == 1 {
			tok1 := list.NextToken
			for name, c := range map[string]struct{ key, q string }{
				"another account":    {otherKey, "?nextToken=" + url.QueryEscape(tok1)},
				"another filter":     {key, "?status=DEAD&nextToken=" + url.QueryEscape(tok1)},
				"a forged token":     {key, "?nextToken=" + url.QueryEscape(tok1[:len(tok1)-2]+"xx")},
				"subscriptions page": {key, "?nextToken=" + url.QueryEscape(subscriptionsToken(t, api, key))},
			} {
				if r := api.Do("GET", "/webhook/deliveries"+c.q, c.key, nil); r.Status != 400 || r.Message() != msgBadToken {
					t.Errorf("%s: %d %s", name, r.Status, r.Raw)
				}
			}
		}
		tok = list.NextToken
	}
	if pages != 3 || strings.Join(got, ",") != strings.Join([]string{ids[4], ids[3], ids[2], ids[1], ids[0]}, ",") {
		t.Errorf("%d pages: %v", pages, got)
	}

	// Scoped to the key's account; bad parameters.
	r = api.Do("GET", "/webhook/deliveries", otherKey, nil)
	if err := json.Unmarshal(r.Raw, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Deliveries) != 1 || list.Deliveries[0]["subscriptionReference"] != "ref-o" {
		t.Errorf("other account sees %s", r.Raw)
	}
	if r := api.Do("GET", "/webhook/deliveries?limit=ten", key, nil); r.Status != 400 || r.Message() != "Query parameter 'limit' must be an integer" {
		t.Errorf("limit=ten: %d %s", r.Status, r.Raw)
	}
	if r := api.Do("GET", "/webhook/deliveries?status=LOST", key, nil); r.Status != 400 || r.Message() != msgBadDeliveryStatus {
		t.Errorf("status=LOST: %d %s", r.Status, r.Raw)
	}
	if r := api.Do("GET", "/webhook/deliveries", "", nil); r.Status != 403 {
		t.Errorf("no key: %d", r.Status)
	}
}

// subscriptionsToken is a GET /subscriptions nextToken of key's account.
func subscriptionsToken(t *testing.T, api *testenv.API, key string) string {
	r := api.Do("GET", "/subscriptions?limit=1", key, nil)
	tok, _ := r.JSON["nextToken"].(string)
	if tok == "" {
		t.Fatalf("no subscriptions token: %s", r.Raw)
	}
	return tok
}
