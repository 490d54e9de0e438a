// Package queryapi serves the read side of the public interface: GET
// endpoints over Postgres (account data) and ClickHouse (read models).
package queryapi

import (
	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
)

// AccountResponse is GET /account's body, field for field as the spec's table.
type AccountResponse struct {
	ClientName  *string    `json:"clientName"`
	DisplayName string     `json:"displayName"`
	Environment string     `json:"environment"`
	AuthMethod  string     `json:"authMethod"`
	UsagePlan   *UsagePlan `json:"usagePlan"`
}

// UsagePlan is the account's plan as GET /account shows it.
type UsagePlan struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
}

func registerAccount(s *fuego.Server) {
	fuego.Get(s, "/account", getAccount,
		option.OperationID("getAccount"),
		option.Summary("The calling key's account"),
		option.Description("Confirms which client, environment (live or sandbox) and usage plan the API key is scoped to."),
		option.Tags("Account"),
	)
}

func getAccount(c fuego.ContextNoBody) (AccountResponse, error) {
	k, ok := auth.FromContext(c.Context())
	if !ok {
		return AccountResponse{}, &httpapi.Error{Status: 403, Message: httpapi.MsgForbidden}
	}
	a := k.Account
	resp := AccountResponse{
		DisplayName: a.DisplayName,
		Environment: a.Env,
		AuthMethod:  "api-key",
	}
	if a.ClientSlug != "" {
		slug := a.ClientSlug
		resp.ClientName = &slug
	}
	// The plan's row as the key was resolved (usage_plans); nil: no plan.
	if p := a.UsagePlan; p != nil {
		resp.UsagePlan = &UsagePlan{ID: p.ID, Name: p.Name, DisplayName: p.DisplayName}
	}
	return resp, nil
}
