package commandapi_test

import (
	"strings"
	"testing"

	"github.com/contrack/contrack/platform/auth"
)

// Free-time rules are stored whole and returned as stored; every wrong
// value is named at once and nothing is stored; accounts never see each
// other's. Alert settings: the account's and a subscription's, null for
// the default.
func TestFreeTimeAndAlertSettings(t *testing.T) {
	api, _ := webhookAPI(t, true)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	other := api.Key(auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	if g := api.Do("GET", "/account/free-time", key, nil); g.Status != 200 || norm(t, g.Raw) != `{"rules":[]}` {
		t.Fatalf("GET before any rule: %d %s", g.Status, g.Raw)
	}
	expect(t, api.Do("PUT", "/account/free-time", key, `{}`), 400, "Missing Parameter 'rules'")
	body := `{"rules":[{"port":"uslax","scacCode":"*","demurrageDays":4,"detentionDays":4,"demurrageRate":150,"detentionRate":100,"currency":"usd"},
		{"port":"*","scacCode":"ZIMU","demurrageDays":5,"detentionDays":3,"excludeWeekends":true}]}`
	r := api.Do("PUT", "/account/free-time", key, body)
	stored := `{"port":"USLAX","scacCode":"*","demurrageDays":4,"detentionDays":4,"demurrageRate":150,"detentionRate":100,"currency":"USD"},` +
		`{"port":"*","scacCode":"ZIMU","demurrageDays":5,"detentionDays":3,"excludeWeekends":true}`
	if r.Status != 200 || r.Message() != "Free-time rules saved" || !strings.Contains(string(r.Raw), stored) {
		t.Fatalf("PUT: %d %s", r.Status, r.Raw)
	}
	if g := api.Do("GET", "/account/free-time", key, nil); strings.TrimSpace(string(g.Raw)) != `{"rules":[`+stored+`]}` {
		t.Fatalf("GET: %s", g.Raw)
	}
	expect(t, api.Do("PUT", "/account/free-time", key, `{"rules":[{"port":"LAX","scacCode":"*","demurrageDays":-1},{"port":"USNYC","scacCode":"*","demurrageRate":10}]}`), 400,
		"Invalid free-time rules: rules[0].port must be a UN/LOCODE (5 characters, e.g. USLAX) or *; rules[0].demurrageDays must be 0 to 365; "+
			"rules[1].currency must be an ISO 4217 code (e.g. USD) when a rate is given")
	if g := api.Do("GET", "/account/free-time", key, nil); strings.TrimSpace(string(g.Raw)) != `{"rules":[`+stored+`]}` {
		t.Fatalf("a refused PUT changed the rules: %s", g.Raw)
	}
	if g := api.Do("GET", "/account/free-time", other, nil); norm(t, g.Raw) != `{"rules":[]}` {
		t.Fatalf("another account sees: %s", g.Raw)
	}

	// The first read gives the warning days in force: the default.
	if g := api.Do("GET", "/account/alert-settings", key, nil); norm(t, g.Raw) != `{"etaChangeThresholdHours":null,"lfdWarningDays":2}` {
		t.Fatalf("alert settings before: %s", g.Raw)
	}
	expect(t, api.Do("PUT", "/account/alert-settings", key, `{"etaChangeThresholdHours":-1}`), 400, "Invalid 'etaChangeThresholdHours': use 0 to 2160 hours, or null for the default")
	expect(t, api.Do("PUT", "/account/alert-settings", key, `{"lfdWarningDays":31}`), 400, "Invalid 'lfdWarningDays': use 0 to 30 days, or null for the default")
	if p := api.Do("PUT", "/account/alert-settings", key, `{"etaChangeThresholdHours":1.5,"lfdWarningDays":3}`); norm(t, p.Raw) != `{"etaChangeThresholdHours":1.5,"lfdWarningDays":3,"message":"Alert settings saved"}` {
		t.Fatalf("PUT: %d %s", p.Status, p.Raw)
	}
	if g := api.Do("GET", "/account/alert-settings", key, nil); norm(t, g.Raw) != `{"etaChangeThresholdHours":1.5,"lfdWarningDays":3}` {
		t.Fatalf("alert settings: %s", g.Raw)
	}
	if g := api.Do("GET", "/account/alert-settings", other, nil); norm(t, g.Raw) != `{"etaChangeThresholdHours":null,"lfdWarningDays":2}` {
		t.Fatalf("another account's alert settings: %s", g.Raw)
	}
	// Back to the default: null stores nothing, and the default is given.
	if p := api.Do("PUT", "/account/alert-settings", key, `{"etaChangeThresholdHours":1.5,"lfdWarningDays":null}`); norm(t, p.Raw) != `{"etaChangeThresholdHours":1.5,"lfdWarningDays":2,"message":"Alert settings saved"}` {
		t.Fatalf("PUT null: %d %s", p.Status, p.Raw)
	}
	expect(t, api.Do("PUT", "/subscription/nope/alert-settings", key, `{"etaChangeThresholdHours":2}`), 404, "Subscription not found")
	if r := api.Do("POST", "/subscription/equipment", key, `{"scacCode":"MAEU","containerNumber":"MSKU1234565","subscriptionReference":"ref-1"}`); r.Status != 200 {
		t.Fatalf("subscribe: %d %s", r.Status, r.Raw)
	}
	expect(t, api.Do("PUT", "/subscription/ref-1/alert-settings", key, `{"lfdWarningDays":2}`), 400, "Invalid 'lfdWarningDays': an account setting (PUT /account/alert-settings)")
	expect(t, api.Do("PUT", "/subscription/ref-1/alert-settings", key, `{"etaChangeThresholdHours":12}`), 200, "Alert settings saved")
	if g := api.Do("GET", "/subscription/ref-1/alert-settings", key, nil); norm(t, g.Raw) != `{"etaChangeThresholdHours":12}` {
		t.Fatalf("subscription alert settings: %s", g.Raw)
	}
	expect(t, api.Do("PUT", "/subscription/ref-1/alert-settings", other, `{"etaChangeThresholdHours":12}`), 404, "Subscription not found")
}
