package commandapi_test

import (
	"context"
	"testing"

	"github.com/contrack/contrack/platform/auth"
)

// A SCAC outside the registry is accepted once a carrier key of that SCAC
// exists in the caller's environment (a push-only carrier); its
// subscriptions start PUSH_ONLY. Without such a key the answer stays
// exactly `Unsupported carrier '<scacCode>'`, in the same validation order.
func TestSubscribeToPushOnlyCarrier(t *testing.T) {
	api, _ := newAPI(t)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	body := func(scac, ref, containerNumber string) map[string]string {
		return map[string]string{"scacCode": scac, "subscriptionReference": ref, "containerNumber": containerNumber}
	}
	unsupported := func(when, scac string) {
		t.Helper()
		r := api.Do("POST", "/subscription/equipment", key, body(scac, "r-"+when, container))
		if r.Status != 400 || r.Message() != "Unsupported carrier '"+scac+"'" {
			t.Fatalf("%s: %d %s", when, r.Status, r.Raw)
		}
	}
	unsupported("no carrier key", "xyzq")
	unsupported("not a SCAC", "TOOLONG")

	// A key in the other environment, and a revoked one, do not count.
	api.Key(auth.CreateKeyParams{ClientSlug: "xyz-lines", Env: "live", Role: auth.RoleCarrier, SCAC: "XYZQ"})
	unsupported("live key only", "xyzq")
	revoked, _, err := api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "xyz-old", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "XYZQ"})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := api.Store.RevokeKey(context.Background(), revoked); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	unsupported("revoked key only", "xyzq")
	// A consumer key does not make a carrier.
	api.Key(auth.CreateKeyParams{ClientSlug: "xyz-consumer", Env: "sandbox", SCAC: "XYZQ"})
	unsupported("consumer key only", "xyzq")

	api.Key(auth.CreateKeyParams{ClientSlug: "xyz-lines", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "XYZQ"})
	// The carrier check still comes before the container check.
	if r := api.Do("POST", "/subscription/equipment", key, body("ZZZZ", "r-order", "CSQU3054384")); r.Message() != "Unsupported carrier 'ZZZZ'" {
		t.Fatalf("order: %d %s", r.Status, r.Raw)
	}
	if r := api.Do("POST", "/subscription/equipment", key, body("xyzq", "r-bad", "CSQU3054384")); r.Status != 400 || r.Message() != "Invalid container number 'CSQU3054384': wrong check digit (the last digit is 4; ISO 6346 gives 3 for CSQU305438)" {
		t.Fatalf("bad container: %d %s", r.Status, r.Raw)
	}
	if r := api.Do("POST", "/subscription/equipment", key, body("xyzq", "push-1", container)); r.Status != 200 || r.Message() != "Successfully Subscribed" {
		t.Fatalf("subscribe: %d %s", r.Status, r.Raw)
	}
	g := api.Do("GET", "/subscription/push-1", key, nil)
	if g.Status != 200 || g.JSON["scacCode"] != "XYZQ" || g.JSON["connectionStatus"] != "PUSH_ONLY" {
		t.Fatalf("get: %d %s", g.Status, g.Raw)
	}
	// A registry carrier is unaffected: NO_CREDENTIALS until credentials are stored.
	if r := api.Do("POST", "/subscription/equipment", key, body("MAEU", "poll-1", container)); r.Status != 200 {
		t.Fatalf("registry carrier: %d %s", r.Status, r.Raw)
	}
	if g := api.Do("GET", "/subscription/poll-1", key, nil); g.JSON["connectionStatus"] != "NO_CREDENTIALS" {
		t.Fatalf("registry carrier status: %s", g.Raw)
	}
}
