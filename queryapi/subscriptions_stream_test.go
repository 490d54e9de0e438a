package queryapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/go-fuego/fuego"
	"github.com/google/uuid"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
)

// TestUnpagedSubscriptionsAreStreamed: GET /subscriptions without limit
// returns every subscription, in creation order, as one JSON document — but
// written while it is read, a chunk at a time, never built whole in memory.
// Proof of the streaming: once the answer has started (the client has read
// its first bytes and the server is blocked writing a body far larger than
// the socket buffers), the table is made unreadable; the answer then breaks
// instead of completing, which it could only do had it been read before
// the first byte was sent.
func TestUnpagedSubscriptionsAreStreamed(t *testing.T) {
	db := testenv.Postgres(t)
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		registerSubscriptions(s, Deps{Pool: db.Pool, TokenKey: []byte("test-token-key"), Log: testenv.Log(t)})
	})
	ctx := context.Background()
	key, k, err := api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "big", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	small := api.Key(auth.CreateKeyParams{ClientSlug: "small", Env: "sandbox"})
	const n = 60_000 // ~18 MB of JSON, more than loopback sockets buffer (tcp_wmem + tcp_rmem)
	tracking := uuid.NewString()
	if _, err := db.Pool.Exec(ctx, `INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
		VALUES ($1, $2, 'sandbox', 'MAEU', 'container', 'MSKU9070323', 'PENDING')`, tracking, k.Account.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
		SELECT gen_random_uuid(), $1, 'ref-' || lpad(i::text, 6, '0'), $2, 'MAEU', 'MSKU9070323', 'OPEN', now(), now() + interval '90 days'
		FROM generate_series(1, $3) i`, k.Account.ID, tracking, n); err != nil {
		t.Fatal(err)
	}
	// As autovacuum would have by then: the planner knows the table's size.
	if _, err := db.Pool.Exec(ctx, `ANALYZE subscriptions`); err != nil {
		t.Fatal(err)
	}
	get := func(key, query string) *http.Response {
		req, _ := http.NewRequest("GET", api.URL+"/subscriptions"+query, nil)
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	// Everything, in order, as one valid document; the same as the pages.
	resp := get(key, "")
	var all SubscriptionList
	if err := json.NewDecoder(resp.Body).Decode(&all); err != nil || resp.StatusCode != 200 {
		t.Fatalf("unpaged list: %d %v", resp.StatusCode, err)
	}
	resp.Body.Close()
	if len(all.Subscriptions) != n || all.NextToken != "" {
		t.Fatalf("%d subscriptions, nextToken %q; want %d and none", len(all.Subscriptions), all.NextToken, n)
	}
	for i, s := range all.Subscriptions {
		if want := fmt.Sprintf("ref-%06d", i+1); s.SubscriptionReference != want || s.SubscriptionStatus != "OPEN" || s.ConnectionStatus != "PENDING" {
			t.Fatalf("item %d: %+v, want %s", i, s, want)
		}
	}
	var page SubscriptionList
	r := get(key, "?limit=200&referencePrefix=ref-0012")
	if err := json.NewDecoder(r.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if len(page.Subscriptions) != 100 || page.Subscriptions[0] != all.Subscriptions[1199] {
		t.Fatalf("a filtered page differs from the stream: %d, %+v", len(page.Subscriptions), page.Subscriptions[:1])
	}
	// An empty list is a valid document too, and filters apply.
	r = get(small, "")
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 200 || string(b) != "{\"subscriptions\":[]}\n" {
		t.Fatalf("empty list: %d %s", r.StatusCode, b)
	}
	r = get(key, "?subscriptionStatus=CLOSED")
	b, _ = io.ReadAll(r.Body)
	r.Body.Close()
	if string(b) != "{\"subscriptions\":[]}\n" {
		t.Fatalf("no CLOSED subscriptions: %s", b)
	}

	// Start an answer, read a little, then make the table unreadable (on a
	// new connection, whose receive buffer has not grown).
	req, _ := http.NewRequest("GET", api.URL+"/subscriptions", nil)
	req.Header.Set("x-api-key", key)
	resp, err = (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if _, err := br.Peek(64); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `ALTER TABLE subscriptions RENAME TO subscriptions_gone`); err != nil {
		t.Fatal(err)
	}
	var broken SubscriptionList
	if err := json.NewDecoder(br).Decode(&broken); err == nil {
		t.Fatalf("the answer completed (%d subscriptions) after the table went away: it was built before it was sent", len(broken.Subscriptions))
	}
}
