package queryapi_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/go-fuego/fuego"
	"github.com/google/uuid"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/queryapi"
)

// GET /subscription/{id} carries an ETag; If-None-Match with it answers 304
// without a body until the subscription changes; another tag, or none, 200.
func TestSubscriptionETag(t *testing.T) {
	db := testenv.Postgres(t)
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, TokenKey: []byte("k")})
	})
	ctx := context.Background()
	key, k, _ := api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	tracking := uuid.NewString()
	if _, err := db.Pool.Exec(ctx, `INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status, open_subscriptions)
		VALUES ($1, $2, 'sandbox', 'MAEU', 'container', 'MSKU9070323', 'PENDING', 1)`, tracking, k.Account.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
		VALUES ($1, $2, 'R1', $3, 'MAEU', 'MSKU9070323', 'OPEN', now(), now())`, uuid.NewString(), k.Account.ID, tracking); err != nil {
		t.Fatal(err)
	}
	first := api.Do("GET", "/subscription/R1", key, nil)
	tag := first.Header.Get("ETag")
	if first.Status != 200 || tag == "" {
		t.Fatalf("%d, ETag %q", first.Status, tag)
	}
	get := func(ifNoneMatch string) (int, []byte) {
		req, _ := http.NewRequest("GET", api.URL+"/subscription/R1", nil)
		req.Header.Set("x-api-key", key)
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if code, body := get(tag); code != 304 || len(body) != 0 {
		t.Fatalf("current tag: %d %q", code, body)
	}
	if code, _ := get(`"other", ` + tag); code != 304 {
		t.Fatalf("tag in a list: %d", code)
	}
	if code, body := get(`"other"`); code != 200 || string(body) != string(first.Raw) {
		t.Fatalf("other tag: %d %s", code, body)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE trackings SET connection_status = 'CONNECTED' WHERE id = $1`, tracking); err != nil {
		t.Fatal(err)
	}
	if code, _ := get(tag); code != 200 {
		t.Fatalf("changed subscription, old tag: %d", code)
	}
	// Errors carry no tag and are never 304.
	if r := api.Do("GET", "/subscription/NOPE", key, nil); r.Status != 404 || r.Header.Get("ETag") != "" {
		t.Fatalf("404: %d %q", r.Status, r.Header.Get("ETag"))
	}
}
