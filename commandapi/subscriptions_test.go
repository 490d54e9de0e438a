package commandapi_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/queryapi"
)

// newAPI serves the command and query sides over a fresh database.
func newAPI(t testing.TB) (*testenv.API, testenv.PGDatabase) {
	t.Helper()
	db := testenv.Postgres(t)
	box, _ := secretbox.New("test")
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, Box: box, Log: testenv.Log(t), TokenKey: []byte("token-key")})
		commandapi.Register(s, commandapi.Config{AllowPrivateWebhooks: true}, commandapi.Deps{Pool: db.Pool, Box: box, Log: testenv.Log(t)})
	})
	return api, db
}

func sub(ref string, kv ...string) map[string]string {
	b := map[string]string{"scacCode": "MAEU", "subscriptionReference": ref}
	for i := 0; i+1 < len(kv); i += 2 {
		b[kv[i]] = kv[i+1]
	}
	return b
}

const container = "CSQU3054383" // valid ISO 6346

func TestCreateSubscriptionValidation(t *testing.T) {
	api, _ := newAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	cases := []struct {
		name string
		body any
		msg  string
	}{
		{"empty body", nil, "Missing Parameter 'subscriptionReference'"},
		// Without scacCode the same checks run, then inference (which
		// cannot resolve an owner code in no table without probes).
		{"no scac, no reference", map[string]string{"containerNumber": container}, "Missing Parameter 'subscriptionReference'"},
		{"no scac, blank scac", map[string]string{"scacCode": " ", "subscriptionReference": "r", "containerNumber": container}, "Could not determine the carrier for 'CSQU3054383'; provide scacCode"},
		{"no scac, two identifiers", map[string]string{"subscriptionReference": "r", "containerNumber": container, "billNumber": "B1"}, "Provide exactly one of: containerNumber, bookingNumber, billNumber"},
		{"no scac, bad check digit", map[string]string{"subscriptionReference": "r", "containerNumber": "TGHU1234568"}, "Invalid container number 'TGHU1234568': wrong check digit (the last digit is 8; ISO 6346 gives 7 for TGHU123456)"},
		{"no scac, too long", map[string]string{"subscriptionReference": "r", "bookingNumber": strings.Repeat("B", 65)}, "subscriptionReference is limited to 256 characters and identifiers to 64"},
		{"no scac, undetermined", map[string]string{"subscriptionReference": "r", "containerNumber": container}, "Could not determine the carrier for 'CSQU3054383'; provide scacCode"},
		{"no scac, bill without prefix", map[string]string{"subscriptionReference": "r", "billNumber": " 12345 "}, "Could not determine the carrier for '12345'; provide scacCode"},
		{"no reference", map[string]string{"scacCode": "MAEU", "containerNumber": container}, "Missing Parameter 'subscriptionReference'"},
		{"no identifier", sub("r"), "Provide exactly one of: containerNumber, bookingNumber, billNumber"},
		{"two identifiers", sub("r", "containerNumber", container, "bookingNumber", "B1"), "Provide exactly one of: containerNumber, bookingNumber, billNumber"},
		{"booking and bill", sub("r", "billNumber", "X", "bookingNumber", "B1"), "Provide exactly one of: containerNumber, bookingNumber, billNumber"},
		{"unsupported carrier", map[string]string{"scacCode": "ZZZZ", "subscriptionReference": "r", "bookingNumber": "B1"}, "Unsupported carrier 'ZZZZ'"},
		{"bad check digit", sub("r", "containerNumber", "CSQU3054384"), "Invalid container number 'CSQU3054384': wrong check digit (the last digit is 4; ISO 6346 gives 3 for CSQU305438)"},
		{"not a container", sub("r", "containerNumber", "hello"), "Invalid container number 'hello': a container number is 4 letters (the fourth U, J or Z) and 7 digits"},
		{"malformed json", `{"scacCode":`, "Malformed JSON body: unexpected end of JSON input at byte 12"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := api.Do("POST", "/subscription/equipment", key, c.body)
			if r.Status != 400 || r.Message() != c.msg {
				t.Fatalf("got %d %s, want 400 %q", r.Status, r.Raw, c.msg)
			}
		})
	}
	if r := api.Do("GET", "/subscriptions", key, nil); len(r.JSON["subscriptions"].([]any)) != 0 {
		t.Fatalf("a rejected request stored something: %s", r.Raw)
	}
}

func TestSubscribeReadAndDuplicate(t *testing.T) {
	api, _ := newAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	before := time.Now().UTC().Add(-time.Second)
	// Lower-case SCAC and a spaced container number are normalised.
	r := api.Do("POST", "/subscription/equipment", key, `{"scacCode":"maeu","containerNumber":"csqu 305438 3","subscriptionReference":"PO-1"}`)
	if r.Status != 200 || r.Message() != "Successfully Subscribed" || r.JSON["subscriptionReference"] != "PO-1" {
		t.Fatalf("subscribe: %d %s", r.Status, r.Raw)
	}
	if _, err := time.Parse(time.RFC3339, r.JSON["dateOfRequest"].(string)); err != nil {
		t.Fatalf("dateOfRequest: %v", err)
	}
	g := api.Do("GET", "/subscription/PO-1", key, nil)
	if g.Status != 200 {
		t.Fatalf("get: %d %s", g.Status, g.Raw)
	}
	want := map[string]any{"subscriptionReference": "PO-1", "equipmentNumber": container, "bookingNumber": "", "billNumber": "",
		"scacCode": "MAEU", "subscriptionStatus": "OPEN", "connectionStatus": "NO_CREDENTIALS"}
	for f, v := range want {
		if g.JSON[f] != v {
			t.Errorf("%s = %v, want %v", f, g.JSON[f], v)
		}
	}
	created, err1 := time.Parse(time.RFC3339, g.JSON["subscriptionCreationDate"].(string))
	expires, err2 := time.Parse(time.RFC3339, g.JSON["subscriptionExpiryDate"].(string))
	if err1 != nil || err2 != nil || created.Before(before) || expires.Sub(created) != 90*24*time.Hour {
		t.Errorf("dates: %v %v (%v %v)", created, expires, err1, err2)
	}
	// The reference is unique per account, even once closed.
	dup := api.Do("POST", "/subscription/equipment", key, sub("PO-1", "bookingNumber", "BK1"))
	if dup.Status != 400 || dup.Message() != "Subscription Reference Already Exists" || dup.JSON["dateOfRequest"] == nil {
		t.Fatalf("duplicate: %d %s", dup.Status, dup.Raw)
	}
	if _, ok := g.JSON["closedReason"]; ok || g.JSON["closedDateTime"] != nil {
		t.Errorf("an open subscription says it closed: %s", g.Raw)
	}
	api.Do("DELETE", "/subscription/PO-1", key, nil)
	// A closed subscription says when and why it closed.
	g = api.Do("GET", "/subscription/PO-1", key, nil)
	closedAt, err := time.Parse(time.RFC3339, fmt.Sprint(g.JSON["closedDateTime"]))
	if g.JSON["subscriptionStatus"] != "CLOSED" || g.JSON["closedReason"] != "DELETED" || err != nil || closedAt.Before(created) {
		t.Errorf("closed: %s", g.Raw)
	}
	dup = api.Do("POST", "/subscription/equipment", key, sub("PO-1", "bookingNumber", "BK1"))
	if dup.Status != 400 || dup.Message() != "Subscription Reference Already Exists" {
		t.Fatalf("duplicate of closed: %d %s", dup.Status, dup.Raw)
	}
	// A closed subscription does not block re-subscribing the shipment.
	if r := api.Do("POST", "/subscription/equipment", key, sub("PO-2", "containerNumber", container)); r.Status != 200 {
		t.Fatalf("re-subscribe: %d %s", r.Status, r.Raw)
	}
}

func TestDeleteStateTable(t *testing.T) {
	api, _ := newAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	for _, ref := range []string{"A", "B"} { // two subscriptions share one tracking
		if r := api.Do("POST", "/subscription/equipment", key, sub(ref, "containerNumber", container)); r.Status != 200 {
			t.Fatalf("subscribe %s: %d %s", ref, r.Status, r.Raw)
		}
	}
	r := api.Do("DELETE", "/subscription/A", key, nil)
	if r.Status != 200 || r.Message() != "Subscription deleted" || r.JSON["stoppedTracking"] != false || r.JSON["subscriptionReference"] != "A" || r.JSON["dateOfRequest"] == nil {
		t.Fatalf("first delete: %d %s", r.Status, r.Raw)
	}
	r = api.Do("DELETE", "/subscription/B", key, nil)
	if r.Status != 200 || r.Message() != "Subscription deleted" || r.JSON["stoppedTracking"] != true {
		t.Fatalf("last delete: %d %s", r.Status, r.Raw)
	}
	r = api.Do("DELETE", "/subscription/B", key, nil)
	if _, has := r.JSON["stoppedTracking"]; r.Status != 200 || r.Message() != "Subscription already closed" || has || r.JSON["dateOfRequest"] == nil {
		t.Fatalf("already closed: %d %s", r.Status, r.Raw)
	}
	if g := api.Do("GET", "/subscription/B", key, nil); g.JSON["subscriptionStatus"] != "CLOSED" {
		t.Fatalf("status after delete: %s", g.Raw)
	}
	r = api.Do("DELETE", "/subscription/nope", key, nil)
	if r.Status != 404 || r.Message() != "Subscription not found" || r.JSON["dateOfRequest"] == nil {
		t.Fatalf("delete missing: %d %s", r.Status, r.Raw)
	}
	r = api.Do("GET", "/subscription/nope", key, nil)
	if _, has := r.JSON["dateOfRequest"]; r.Status != 404 || r.Message() != "Subscription not found" || has {
		t.Fatalf("get missing: %d %s", r.Status, r.Raw)
	}
}

func refs(r testenv.Response) []string {
	var out []string
	list, _ := r.JSON["subscriptions"].([]any)
	for _, s := range list {
		out = append(out, s.(map[string]any)["subscriptionReference"].(string))
	}
	return out
}

func TestListFiltersAndPagination(t *testing.T) {
	api, _ := newAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	for i, ref := range []string{"po-1", "PO-2", "PO-3", "PO-4", "XO-5"} {
		api.Do("POST", "/subscription/equipment", key, sub(ref, "bookingNumber", fmt.Sprint("BK", i)))
	}
	api.Do("DELETE", "/subscription/PO-3", key, nil)

	all := api.Do("GET", "/subscriptions", key, nil)
	if got := fmt.Sprint(refs(all)); got != "[po-1 PO-2 PO-3 PO-4 XO-5]" || all.JSON["nextToken"] != nil {
		t.Fatalf("all: %s", all.Raw)
	}
	if got := fmt.Sprint(refs(api.Do("GET", "/subscriptions?referencePrefix=PO", key, nil))); got != "[PO-2 PO-3 PO-4]" {
		t.Fatalf("prefix (case-sensitive, all statuses): %s", got)
	}
	if got := fmt.Sprint(refs(api.Do("GET", "/subscriptions?referencePrefix=O-", key, nil))); got != "[]" {
		t.Fatalf("prefix is left-anchored: %s", got)
	}
	if got := fmt.Sprint(refs(api.Do("GET", "/subscriptions?subscriptionStatus=OPEN", key, nil))); got != "[po-1 PO-2 PO-4 XO-5]" {
		t.Fatalf("open: %s", got)
	}
	if got := fmt.Sprint(refs(api.Do("GET", "/subscriptions?subscriptionStatus=CLOSED", key, nil))); got != "[PO-3]" {
		t.Fatalf("closed: %s", got)
	}
	// Pages of two, following nextToken.
	var pages []string
	path := "/subscriptions?limit=2"
	for i := 0; i < 5; i++ {
		r := api.Do("GET", path, key, nil)
		if r.Status != 200 {
			t.Fatalf("page: %d %s", r.Status, r.Raw)
		}
		pages = append(pages, fmt.Sprint(refs(r)))
		tok, _ := r.JSON["nextToken"].(string)
		if tok == "" {
			break
		}
		path = "/subscriptions?limit=2&nextToken=" + url.QueryEscape(tok)
	}
	if got := fmt.Sprint(pages); got != "[[po-1 PO-2] [PO-3 PO-4] [XO-5]]" {
		t.Fatalf("pages: %s", got)
	}
	// limit is clamped to 1-200.
	if got := refs(api.Do("GET", "/subscriptions?limit=0", key, nil)); len(got) != 1 {
		t.Fatalf("limit=0: %v", got)
	}
	if got := refs(api.Do("GET", "/subscriptions?limit=500", key, nil)); len(got) != 5 {
		t.Fatalf("limit=500: %v", got)
	}
	for _, bad := range []string{"abc", "1.5", ""} {
		r := api.Do("GET", "/subscriptions?limit="+bad, key, nil)
		if r.Status != 400 || r.Message() != "Query parameter 'limit' must be an integer" {
			t.Fatalf("limit=%q: %d %s", bad, r.Status, r.Raw)
		}
	}
	if r := api.Do("GET", "/subscriptions?subscriptionStatus=PAUSED", key, nil); r.Status != 400 {
		t.Fatalf("bad status: %d", r.Status)
	}
}

func TestNextTokenIsTamperProofAndAccountBound(t *testing.T) {
	api, _ := newAPI(t)
	a := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	b := api.Key(auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	for i := range 3 {
		api.Do("POST", "/subscription/equipment", a, sub(fmt.Sprint("A-", i), "bookingNumber", fmt.Sprint("BK", i)))
	}
	api.Do("POST", "/subscription/equipment", b, sub("B-0", "bookingNumber", "BK0"))
	tok := api.Do("GET", "/subscriptions?limit=1", a, nil).JSON["nextToken"].(string)
	for name, c := range map[string]struct{ key, tok string }{
		"foreign":  {b, tok},
		"forged":   {a, tok[:len(tok)-2] + "xx"},
		"garbage":  {a, "not-a-token"},
		"filtered": {a, tok + "&referencePrefix=A"},
	} {
		r := api.Do("GET", "/subscriptions?limit=1&nextToken="+c.tok, c.key, nil)
		if r.Status != 400 {
			t.Errorf("%s token: %d %s", name, r.Status, r.Raw)
		}
	}
}

func TestSubscriptionsAreScopedToTheAccount(t *testing.T) {
	api, _ := newAPI(t)
	a := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	b := api.Key(auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	if r := api.Do("POST", "/subscription/equipment", a, sub("SHARED", "containerNumber", container)); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if r := api.Do("GET", "/subscription/SHARED", b, nil); r.Status != 404 {
		t.Fatalf("B reads A's subscription: %d %s", r.Status, r.Raw)
	}
	if r := api.Do("DELETE", "/subscription/SHARED", b, nil); r.Status != 404 {
		t.Fatalf("B deletes A's subscription: %d %s", r.Status, r.Raw)
	}
	if got := refs(api.Do("GET", "/subscriptions", b, nil)); len(got) != 0 {
		t.Fatalf("B lists A's subscriptions: %v", got)
	}
	// The same reference is free in another account.
	if r := api.Do("POST", "/subscription/equipment", b, sub("SHARED", "containerNumber", container)); r.Status != 200 {
		t.Fatalf("B's own SHARED: %d %s", r.Status, r.Raw)
	}
	if g := api.Do("GET", "/subscription/SHARED", a, nil); g.JSON["subscriptionStatus"] != "OPEN" {
		t.Fatalf("A's subscription changed: %s", g.Raw)
	}
}
