package queryapi

import (
	"encoding/json"
	"fmt"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/schemas/carriers"
)

// CredentialsResponse is GET /carrier/credentials' body: clientId in clear,
// secret values masked to their last four characters.
type CredentialsResponse struct {
	Env                string                       `json:"env"`
	CarrierCredentials map[string]map[string]string `json:"carrierCredentials"`
}

func registerCredentials(s *fuego.Server, deps Deps) {
	fuego.Get(s, "/carrier/credentials", func(c fuego.ContextNoBody) (CredentialsResponse, error) {
		k, _ := auth.FromContext(c.Context())
		rows, err := deps.Pool.Query(c.Context(), `SELECT scac, fields_enc FROM carrier_credentials WHERE account_id = $1 ORDER BY scac`, k.Account.ID)
		if err != nil {
			return CredentialsResponse{}, fmt.Errorf("read credentials: %w", err)
		}
		out := CredentialsResponse{Env: k.Account.Env, CarrierCredentials: map[string]map[string]string{}}
		var scac string
		var enc []byte
		_, err = pgx.ForEachRow(rows, []any{&scac, &enc}, func() error {
			plain, err := deps.Box.Open(enc, secretbox.CarrierCredentialsContext(k.Account.ID, scac))
			if err != nil {
				// Sealed under another CONTRACK_SECRET_KEY: shown as stored
				// but unreadable, so the rest of the answer still comes.
				deps.Log.Error("carrier credentials do not decrypt", "account_id", k.Account.ID, "carrier", scac)
				out.CarrierCredentials[scac] = map[string]string{}
				return nil
			}
			var fields map[string]string
			if err := json.Unmarshal(plain, &fields); err != nil {
				return err
			}
			shown := map[string]string{}
			for name, v := range fields {
				if carriers.IsSecretField(name) {
					v = secretbox.Mask(v)
				}
				shown[name] = v
			}
			out.CarrierCredentials[scac] = shown
			return nil
		})
		if err != nil {
			return CredentialsResponse{}, err
		}
		return out, nil
	},
		option.OperationID("getCarrierCredentials"),
		option.Summary("Stored carrier credentials, secrets masked"),
		option.Description("clientId is shown in clear; clientSecret and apiKey only as **** followed by their last four characters (**** alone for a secret shorter than 16 characters)."),
		option.Tags("Carrier credentials"),
	)
}
