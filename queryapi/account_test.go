package queryapi_test

import (
	"encoding/json"
	"testing"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/queryapi"
)

func TestGetAccountIsScopedToTheKey(t *testing.T) {
	db := testenv.Postgres(t)
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) { queryapi.Register(s, queryapi.Deps{}) })
	acme := api.Key(auth.CreateKeyParams{ClientSlug: "acme-corp", Env: "sandbox", DisplayName: "ACME Corporation"})
	globex := api.Key(auth.CreateKeyParams{ClientSlug: "globex", Env: "live", Plan: "enterprise"})
	noPlan := api.Key(auth.CreateKeyParams{ClientSlug: "initech", Env: "live", Plan: auth.PlanNone})

	cases := []struct{ key, want string }{
		{acme, `{"clientName":"acme-corp","displayName":"ACME Corporation","environment":"sandbox","authMethod":"api-key","usagePlan":{"id":"plan-sandbox","name":"sandbox","displayName":"Sandbox"}}`},
		{globex, `{"clientName":"globex","displayName":"globex","environment":"live","authMethod":"api-key","usagePlan":{"id":"plan-enterprise","name":"enterprise","displayName":"Enterprise"}}`},
		{noPlan, `{"clientName":"initech","displayName":"initech","environment":"live","authMethod":"api-key","usagePlan":null}`},
	}
	for _, c := range cases {
		r := api.Do("GET", "/account", c.key, nil)
		if r.Status != 200 {
			t.Fatalf("status %d %s", r.Status, r.Raw)
		}
		var got, want any
		if err := json.Unmarshal(r.Raw, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if string(gb) != string(wb) {
			t.Errorf("GET /account\n got %s\nwant %s", gb, wb)
		}
	}
	if r := api.Do("GET", "/account", "", nil); r.Status != 403 || r.Message() != "Forbidden" {
		t.Fatalf("no key: %d %s", r.Status, r.Raw)
	}
}
