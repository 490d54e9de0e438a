package commandapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
)

// bulkResults is the results array of a bulk answer, one "ref status message" line per item.
func bulkResults(t *testing.T, r testenv.Response) []string {
	t.Helper()
	list, ok := r.JSON["results"].([]any)
	if !ok {
		t.Fatalf("no results: %d %s", r.Status, r.Raw)
	}
	var out []string
	for i, x := range list {
		m := x.(map[string]any)
		if int(m["index"].(float64)) != i {
			t.Fatalf("result %d has index %v", i, m["index"])
		}
		out = append(out, fmt.Sprintf("%v %v %v", m["subscriptionReference"], m["status"], m["message"]))
	}
	return out
}

func postCSV(t *testing.T, api *testenv.API, key, body string) testenv.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", api.URL+"/subscriptions/equipment", strings.NewReader(body))
	req.Header.Set("x-api-key", key)
	req.Header.Set("Content-Type", "text/csv; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := testenv.Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.JSON)
	return out
}

// Every item gets the single endpoint's verdict: the same bodies sent one
// by one and in one batch get the same messages.
func TestBulkSubscribeChecksEachItemLikeTheSingleEndpoint(t *testing.T) {
	api, _ := newAPI(t)
	single := api.Key(auth.CreateKeyParams{ClientSlug: "one", Env: "sandbox"})
	bulk := api.Key(auth.CreateKeyParams{ClientSlug: "many", Env: "sandbox"})
	bodies := []map[string]string{
		sub("ok-1", "containerNumber", container),
		{"scacCode": "MAEU", "containerNumber": container},
		sub("two", "containerNumber", container, "bookingNumber", "B1"),
		sub("none"),
		{"scacCode": "ZZZZ", "subscriptionReference": "zz", "bookingNumber": "B1"},
		sub("digit", "containerNumber", "CSQU3054384"),
		sub("long", "bookingNumber", strings.Repeat("B", 65)),
		{"subscriptionReference": "undetermined", "containerNumber": container},
		sub("tab\tref", "bookingNumber", "B2"),
		sub("ok-2", "bookingNumber", "BK-2"),
		{"subscriptionReference": "inferred", "containerNumber": containerNumber("MSKU", 1)},
	}
	var want []string
	for _, b := range bodies {
		r := api.Do("POST", "/subscription/equipment", single, b)
		status := "CREATED"
		if r.Status != 200 {
			status = "INVALID"
		}
		want = append(want, fmt.Sprintf("%s %s %s", strings.TrimSpace(b["subscriptionReference"]), status, r.Message()))
	}
	r := api.Do("POST", "/subscriptions/equipment", bulk, bodies)
	if r.Status != 200 {
		t.Fatalf("bulk: %d %s", r.Status, r.Raw)
	}
	got := bulkResults(t, r)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("bulk verdicts differ from the single endpoint's:\n got %q\nwant %q", got, want)
	}
	if r.JSON["created"] != 3.0 || r.JSON["exists"] != 0.0 || r.JSON["invalid"] != 8.0 || r.JSON["dateOfRequest"] == nil {
		t.Fatalf("counts: %s", r.Raw)
	}
	// The inferred carrier is shown and stored, as the single endpoint does.
	if res := r.JSON["results"].([]any)[10].(map[string]any); res["scacCode"] != "MAEU" {
		t.Fatalf("inferred item: %v", res)
	}
	if g := api.Do("GET", "/subscription/inferred", bulk, nil); g.JSON["scacCode"] != "MAEU" || g.JSON["connectionStatus"] != "NO_CREDENTIALS" {
		t.Fatalf("inferred subscription: %s", g.Raw)
	}
	if got := fmt.Sprint(refs(api.Do("GET", "/subscriptions", bulk, nil))); got != "[ok-1 ok-2 inferred]" {
		t.Fatalf("stored: %s", got)
	}
}

// A batch sent again answers EXISTS for what it created, and an item whose
// reference came earlier in the same batch is EXISTS too; subscriptions of
// one shipment share one tracking, counted once per subscription.
func TestBulkSubscribeIsIdempotentPerReference(t *testing.T) {
	api, db := newAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if r := api.Do("POST", "/subscription/equipment", key, sub("old", "bookingNumber", "BK-OLD")); r.Status != 200 {
		t.Fatalf("single: %d %s", r.Status, r.Raw)
	}
	batch := []any{
		sub("a", "containerNumber", container),
		sub("b", "containerNumber", container), // same shipment, own subscription
		sub("a", "containerNumber", container), // repeated in the batch
		sub("a", "bookingNumber", "OTHER"),     // the reference, another shipment
		sub("old", "bookingNumber", "BK-OLD"),
		sub("old", "bookingNumber", "BK-NEW"),
		42,
		map[string]any{"subscriptionReference": "typed", "scacCode": 7},
	}
	want := []string{
		"a CREATED Successfully Subscribed",
		"b CREATED Successfully Subscribed",
		"a EXISTS Subscription Reference Already Exists",
		"a EXISTS Subscription Reference Already Exists for another shipment",
		"old EXISTS Subscription Reference Already Exists",
		"old EXISTS Subscription Reference Already Exists for another shipment",
		" INVALID Item must be an object",
		"typed INVALID Invalid JSON body: 'scacCode' must be a string, not number",
	}
	r := api.Do("POST", "/subscriptions/equipment", key, batch)
	if got := bulkResults(t, r); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("first:\n got %q\nwant %q", got, want)
	}
	again := api.Do("POST", "/subscriptions/equipment", key, batch)
	want[0], want[1] = "a EXISTS Subscription Reference Already Exists", "b EXISTS Subscription Reference Already Exists"
	if got := bulkResults(t, again); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("again:\n got %q\nwant %q", got, want)
	}
	var trackings, open, outbox int
	err := db.Pool.QueryRow(context.Background(), `SELECT count(*), sum(t.open_subscriptions) FROM trackings t
		JOIN accounts a ON a.id = t.account_id WHERE t.identifier = $1`, container).Scan(&trackings, &open)
	if err != nil || trackings != 1 || open != 2 {
		t.Fatalf("trackings of the container: %d with %d open subscriptions (%v), want 1 with 2", trackings, open, err)
	}
	// One outbox change per created subscription, as the single endpoint writes.
	err = db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE payload->>'identifier' = $1
		AND (payload->>'trackingOpen')::boolean`, container).Scan(&outbox)
	if err != nil || outbox != 2 {
		t.Fatalf("outbox changes for the container: %d (%v), want 2", outbox, err)
	}
	// Closing one leaves the tracking to the other, as with single creates.
	if r := api.Do("DELETE", "/subscription/a", key, nil); r.JSON["stoppedTracking"] != false {
		t.Fatalf("delete a: %s", r.Raw)
	}
	if r := api.Do("DELETE", "/subscription/b", key, nil); r.JSON["stoppedTracking"] != true {
		t.Fatalf("delete b: %s", r.Raw)
	}
}

func TestBulkSubscribeCSV(t *testing.T) {
	api, _ := newAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	body := "\xef\xbb\xbfsubscriptionReference,scacCode,containerNumber,bookingNumber,note\r\n" +
		"c-1,maeu,csqu 305438 3,,first\r\n" +
		"c-2,MAEU,,BK-9,\r\n" +
		"c-3,MAEU,CSQU3054384,,bad digit\r\n" +
		"c-4,MAEU\r\n" +
		"\"c,5\",MAEU,,\"BK \"\"10\"\"\",quoted\r\n"
	r := postCSV(t, api, key, body)
	want := []string{
		"c-1 CREATED Successfully Subscribed",
		"c-2 CREATED Successfully Subscribed",
		"c-3 INVALID Invalid container number 'CSQU3054384': wrong check digit (the last digit is 4; ISO 6346 gives 3 for CSQU305438)",
		"c-4 INVALID CSV row has 2 fields, the header 5",
		"c,5 CREATED Successfully Subscribed",
	}
	if got := bulkResults(t, r); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("csv:\n got %q\nwant %q", got, want)
	}
	if g := api.Do("GET", "/subscription/c-1", key, nil); g.JSON["equipmentNumber"] != container || g.JSON["scacCode"] != "MAEU" {
		t.Fatalf("c-1: %s", g.Raw)
	}
	for name, c := range map[string]struct {
		body   string
		status int
		msg    string
	}{
		"no header":   {"", 400, "CSV body must start with a header row naming its columns: scacCode, containerNumber, bookingNumber, billNumber, subscriptionReference"},
		"no known":    {"a,b\n1,2\n", 400, "CSV body must start with a header row naming its columns: scacCode, containerNumber, bookingNumber, billNumber, subscriptionReference"},
		"header only": {"subscriptionReference,scacCode\n", 400, "No subscriptions in the body"},
		"bare quote":  {"subscriptionReference,scacCode\nx\"y,MAEU\n", 400, "Malformed CSV body: bare \" in non-quoted-field on line 2"},
		"too many":    {"subscriptionReference,scacCode,bookingNumber\n" + strings.Repeat("r,MAEU,B\n", 1001), 413, "Too many subscriptions in one request: the limit is 1000"},
	} {
		t.Run(name, func(t *testing.T) {
			if r := postCSV(t, api, key, c.body); r.Status != c.status || r.Message() != c.msg {
				t.Fatalf("got %d %s, want %d %q", r.Status, r.Raw, c.status, c.msg)
			}
		})
	}
}

func TestBulkSubscribeLimits(t *testing.T) {
	api, _ := newAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	items := make([]map[string]string, 1001)
	for i := range items {
		items[i] = sub(fmt.Sprint("r-", i), "bookingNumber", fmt.Sprint("B", i))
	}
	for name, c := range map[string]struct {
		body   any
		status int
		msg    string
	}{
		"1001 items": {items, 413, "Too many subscriptions in one request: the limit is 1000"},
		"empty":      {"[]", 400, "No subscriptions in the body"},
		"no body":    {nil, 400, "Body must be a JSON array of subscriptions"},
		"object":     {sub("x", "bookingNumber", "B"), 400, "Body must be a JSON array of subscriptions"},
		"malformed":  {`[{"scacCode":`, 400, "Malformed JSON body: unexpected end of JSON input at byte 13"},
	} {
		t.Run(name, func(t *testing.T) {
			if r := api.Do("POST", "/subscriptions/equipment", key, c.body); r.Status != c.status || r.Message() != c.msg {
				t.Fatalf("got %d %s, want %d %q", r.Status, r.Raw, c.status, c.msg)
			}
		})
	}
	if got := refs(api.Do("GET", "/subscriptions", key, nil)); len(got) != 0 {
		t.Fatalf("a refused batch stored %d subscriptions", len(got))
	}
	// Exactly 1000 is taken, every item created.
	r := api.Do("POST", "/subscriptions/equipment", key, items[:1000])
	if r.Status != 200 || r.JSON["created"] != 1000.0 {
		t.Fatalf("1000 items: %d created=%v", r.Status, r.JSON["created"])
	}
	if o := api.Do("GET", "/openapi.json", "", nil); !strings.Contains(string(o.Raw), `"/subscriptions/equipment"`) || !strings.Contains(string(o.Raw), `"text/csv"`) {
		t.Fatal("POST /subscriptions/equipment is not in the OpenAPI document with its CSV body")
	}
}

// The plan's open subscriptions count bulk subscribes as single ones do:
// the items beyond the limit are INVALID with the single endpoint's 429
// message, the others created, and the account's count is exact.
func TestBulkSubscribeStopsAtThePlansOpenSubscriptions(t *testing.T) {
	api, db := newAPI(t)
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, `INSERT INTO usage_plans (name, id, display_name, rate_per_second, burst, open_subscriptions)
		VALUES ('three', 'plan-three', 'Three', 100, 100, 3)`); err != nil {
		t.Fatal(err)
	}
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox", Plan: "three"})
	if r := api.Do("POST", "/subscription/equipment", key, sub("single", "bookingNumber", "BK-0")); r.Status != 200 {
		t.Fatalf("single: %d %s", r.Status, r.Raw)
	}
	limit := "Subscription limit reached for this plan: 3 open subscriptions; close some (DELETE /subscription/{subscription_id}) or change plans"
	r := api.Do("POST", "/subscriptions/equipment", key, []any{
		sub("b-1", "bookingNumber", "BK-1"),
		sub("bad", "containerNumber", "CSQU3054384"),
		sub("b-2", "bookingNumber", "BK-2"),
		sub("b-3", "bookingNumber", "BK-3"),
		sub("single", "bookingNumber", "BK-0"),
	})
	want := []string{
		"b-1 CREATED Successfully Subscribed",
		"bad INVALID Invalid container number 'CSQU3054384': wrong check digit (the last digit is 4; ISO 6346 gives 3 for CSQU305438)",
		"b-2 CREATED Successfully Subscribed",
		"b-3 INVALID " + limit,
		"single EXISTS Subscription Reference Already Exists",
	}
	if got := bulkResults(t, r); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("at the limit:\n got %q\nwant %q", got, want)
	}
	var open int64
	if err := db.Pool.QueryRow(ctx, `SELECT open_subscriptions FROM accounts WHERE client_slug = 'acme'`).Scan(&open); err != nil || open != 3 {
		t.Fatalf("the account counts %d open subscriptions (%v), want 3", open, err)
	}
	// A close makes room for one more.
	api.Do("DELETE", "/subscription/b-1", key, nil)
	if got := bulkResults(t, api.Do("POST", "/subscriptions/equipment", key, []any{sub("b-3", "bookingNumber", "BK-3")})); fmt.Sprint(got) != "[b-3 CREATED Successfully Subscribed]" {
		t.Fatalf("after a close: %q", got)
	}
}
