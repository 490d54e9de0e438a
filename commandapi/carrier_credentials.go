package commandapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/schemas/carriers"
)

// Messages of the credentials endpoints.
const (
	msgCredentialsStored  = "Successful Configuration"
	msgCredentialsCleared = "Credentials cleared"
	msgNotCredentialsBody = "Body must be an object of per-carrier credentials"
	msgBadCarriersList    = "Missing or invalid 'carriers' list"
	msgBadHealthSCAC      = "Missing or unsupported 'scacCode'"
)

// MessageResponse is a body with only a message.
type MessageResponse struct {
	Message string `json:"message"`
}

// HealthCheckBody is POST /carrier/health-check's body.
type HealthCheckBody struct {
	ScacCode string `json:"scacCode"`
}

// HealthCheckResponse answers a health check.
type HealthCheckResponse struct {
	ScacCode string `json:"scacCode"`
	Status   string `json:"status"`
	HTTPCode int    `json:"httpCode"`
}

// DeleteCredentialsBody is DELETE /carrier/credentials' body.
type DeleteCredentialsBody struct {
	Carriers []string `json:"carriers"`
}

// CredentialsContext is the secretbox context of an account's credentials
// for one carrier: a ciphertext opens only in its own row.
func CredentialsContext(accountID, scac string) string {
	return secretbox.CarrierCredentialsContext(accountID, scac)
}

// credentialsBodySchema is POST /carrier/credentials' body: SCAC code →
// that carrier's credential fields.
var credentialsBodySchema = openapi3.NewObjectSchema().WithAdditionalProperties(
	openapi3.NewObjectSchema().WithAdditionalProperties(openapi3.NewStringSchema()))

func registerCredentials(s *fuego.Server, deps api) {
	h := credentialHandlers{deps}
	fuego.Post(s, "/carrier/credentials", h.store,
		option.OperationID("storeCarrierCredentials"),
		option.Summary("Store carrier credentials"),
		option.Description("Body: an object keyed by SCAC code, each value an object of that carrier's credential fields (clientId + clientSecret, or apiKey). An upsert per carrier: other carriers are untouched; re-posting a carrier replaces its whole set. Every carrier is checked before anything is stored. Secrets are encrypted at rest."),
		httpapi.JSONBody("SCAC code → that carrier's credential fields: clientId and clientSecret, or apiKey", credentialsBodySchema),
		option.AddResponse(400, "Invalid body, unsupported carrier or incomplete credentials", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Carrier credentials"),
	)
	fuego.Delete(s, "/carrier/credentials", h.delete,
		option.OperationID("deleteCarrierCredentials"),
		option.Summary("Clear carrier credentials"),
		option.RequestBody(fuego.RequestBody{Type: DeleteCredentialsBody{}}),
		option.AddResponse(400, "Missing or invalid list, unsupported carrier", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Carrier credentials"),
	)
	fuego.Post(s, "/carrier/health-check", h.healthCheck,
		option.OperationID("checkCarrierHealth"),
		option.Summary("Test connectivity to a carrier's API with the stored credentials"),
		option.Description("status: OK (the carrier answered and accepted the credentials), UNAUTHORIZED, UNREACHABLE (nothing answered, or the carrier is failing for every account; httpCode 0) or ERROR (the carrier answered with an error). "+
			"The call goes through the same limits as the account's polls of that carrier, and counts against the account's carrier probe budget (default 30 a minute)."),
		option.RequestBody(fuego.RequestBody{Type: HealthCheckBody{}}),
		option.AddResponse(400, "Missing or unsupported carrier, or no credentials stored", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(429, "Over the usage plan's rate; over the account's carrier probe budget (\"Too many carrier probes: …\"); or the account's calls to that carrier paused after repeated failures (\"Calls to <SCAC> with this account's credentials are paused after repeated failures; try again later\"). Retry-After.", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Carrier credentials"),
	)
}

type credentialHandlers struct{ deps api }

type carrierFields struct {
	scac   string
	fields map[string]string
}

// parseCredentials reads the body's carriers in order (Go maps lose it) and
// checks each against the registry.
func parseCredentials(raw []byte) ([]carrierFields, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, httpapi.BadRequest(msgNotCredentialsBody)
	}
	var out []carrierFields
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, httpapi.BadRequest(msgNotCredentialsBody)
		}
		given := tok.(string)
		var value map[string]any
		if err := dec.Decode(&value); err != nil || value == nil {
			return nil, httpapi.BadRequest(msgNotCredentialsBody)
		}
		scac := strings.ToUpper(strings.TrimSpace(given))
		c, ok := carriers.Lookup(scac)
		if !ok {
			return nil, httpapi.BadRequest(fmt.Sprintf("Unsupported carrier '%s'", given))
		}
		fields := map[string]string{}
		for _, f := range c.RequiredFields {
			v, _ := value[f].(string)
			if strings.TrimSpace(v) == "" {
				return nil, httpapi.BadRequest(fmt.Sprintf("Incomplete credentials for %s. Missing '%s'.", given, f))
			}
			if err := httpapi.CheckField(f, v); err != nil {
				return nil, err
			}
			fields[f] = v
		}
		out = append(out, carrierFields{scac: scac, fields: fields})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, httpapi.BadRequest(msgNotCredentialsBody)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, httpapi.BadRequest(msgNotCredentialsBody)
	}
	if len(out) == 0 {
		return nil, httpapi.BadRequest(msgNotCredentialsBody)
	}
	return out, nil
}

func (h credentialHandlers) store(c fuego.ContextNoBody) (MessageResponse, error) {
	k, _ := auth.FromContext(c.Context())
	raw, err := httpapi.ReadBody(c.Request())
	if err != nil {
		return MessageResponse{}, err
	}
	set, err := parseCredentials(raw)
	if err != nil {
		return MessageResponse{}, err
	}
	err = pgx.BeginFunc(c.Context(), h.deps.Pool, func(tx pgx.Tx) error {
		for _, cf := range set {
			plain, _ := json.Marshal(cf.fields)
			enc, err := h.deps.Box.Seal(plain, CredentialsContext(k.Account.ID, cf.scac))
			if err != nil {
				return err
			}
			if _, err := tx.Exec(c.Context(), `
				INSERT INTO carrier_credentials (account_id, scac, fields_enc) VALUES ($1, $2, $3)
				ON CONFLICT (account_id, scac) DO UPDATE SET fields_enc = EXCLUDED.fields_enc, updated_at = now()`,
				k.Account.ID, cf.scac, enc); err != nil {
				return fmt.Errorf("store credentials: %w", err)
			}
			// New credentials may fix a tracking waiting for them or refused by the carrier.
			if _, err := tx.Exec(c.Context(), `
				UPDATE trackings SET connection_status = 'PENDING', updated_at = now()
				WHERE account_id = $1 AND scac = $2 AND connection_status IN ('NO_CREDENTIALS', 'UNAUTHORIZED')`,
				k.Account.ID, cf.scac); err != nil {
				return fmt.Errorf("update trackings: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return MessageResponse{}, err
	}
	return MessageResponse{Message: msgCredentialsStored}, nil
}

func (h credentialHandlers) delete(c fuego.ContextNoBody) (MessageResponse, error) {
	k, _ := auth.FromContext(c.Context())
	raw, err := httpapi.ReadBody(c.Request())
	if err != nil {
		return MessageResponse{}, err
	}
	var body struct {
		Carriers []any `json:"carriers"`
	}
	if json.Unmarshal(raw, &body) != nil || len(body.Carriers) == 0 {
		return MessageResponse{}, httpapi.BadRequest(msgBadCarriersList)
	}
	// The list's shape first, then each carrier.
	for _, v := range body.Carriers {
		if s, ok := v.(string); !ok || strings.TrimSpace(s) == "" {
			return MessageResponse{}, httpapi.BadRequest(msgBadCarriersList)
		}
	}
	var scacs []string
	for _, v := range body.Carriers {
		s := v.(string)
		scac := strings.ToUpper(strings.TrimSpace(s))
		if _, ok := carriers.Lookup(scac); !ok {
			return MessageResponse{}, httpapi.BadRequest(fmt.Sprintf("Unsupported carrier '%s'", s))
		}
		scacs = append(scacs, scac)
	}
	err = pgx.BeginFunc(c.Context(), h.deps.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(c.Context(), `DELETE FROM carrier_credentials WHERE account_id = $1 AND scac = ANY($2)`, k.Account.ID, scacs); err != nil {
			return fmt.Errorf("delete credentials: %w", err)
		}
		_, err := tx.Exec(c.Context(), `UPDATE trackings SET connection_status = 'NO_CREDENTIALS', updated_at = now()
			WHERE account_id = $1 AND scac = ANY($2) AND connection_status <> 'NO_CREDENTIALS'`, k.Account.ID, scacs)
		return err
	})
	if err != nil {
		return MessageResponse{}, err
	}
	return MessageResponse{Message: msgCredentialsCleared}, nil
}

func (h credentialHandlers) healthCheck(c fuego.ContextNoBody) (HealthCheckResponse, error) {
	k, _ := auth.FromContext(c.Context())
	var body HealthCheckBody
	if err := httpapi.DecodeJSON(c.Request(), &body); err != nil {
		return HealthCheckResponse{}, httpapi.BadRequest(msgBadHealthSCAC)
	}
	scac := strings.ToUpper(strings.TrimSpace(body.ScacCode))
	if _, ok := carriers.Lookup(scac); !ok {
		// The account's carrier connector of that code, if any, carries its
		// own credentials.
		conn, found, err := LoadConnector(c.Context(), h.deps.Pool, h.deps.Box, k.Account.ID, scac)
		if err != nil {
			return HealthCheckResponse{}, err
		}
		if !found || scac == "" {
			return HealthCheckResponse{}, httpapi.BadRequest(msgBadHealthSCAC)
		}
		return connectorHandlers(h).health(c.Context(), k.Account.ID, conn)
	}
	creds, err := LoadCredentials(c.Context(), h.deps.Pool, h.deps.Box, k.Account.ID, scac)
	if err != nil {
		return HealthCheckResponse{}, err
	}
	if creds == nil {
		return HealthCheckResponse{}, httpapi.BadRequest(fmt.Sprintf("No credentials configured for %s. Save your credentials first.", strings.TrimSpace(body.ScacCode)))
	}
	if h.deps.Prober == nil {
		return HealthCheckResponse{}, errors.New("health-check: no prober configured")
	}
	if err := h.deps.probes.take(k.Account.ID, 1, h.deps.Now()); err != nil {
		return HealthCheckResponse{}, err
	}
	status, code, err := h.deps.Prober.Probe(c.Context(), k.Account.Env, scac, k.Account.ID, creds)
	var paused *ProbePausedError
	if errors.As(err, &paused) {
		return HealthCheckResponse{}, pausedError(scac, paused)
	}
	if err != nil {
		return HealthCheckResponse{}, fmt.Errorf("health-check: %w", err)
	}
	return HealthCheckResponse{ScacCode: scac, Status: status, HTTPCode: code}, nil
}

// Querier is what LoadCredentials reads through (a pool or a transaction).
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// LoadCredentials returns an account's decrypted credentials for scac, nil
// when none are stored.
func LoadCredentials(ctx context.Context, q Querier, box *secretbox.Box, accountID, scac string) (map[string]string, error) {
	var enc []byte
	err := q.QueryRow(ctx, `SELECT fields_enc FROM carrier_credentials WHERE account_id = $1 AND scac = $2`, accountID, scac).Scan(&enc)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read credentials: %w", err)
	}
	plain, err := box.Open(enc, CredentialsContext(accountID, scac))
	if err != nil {
		return nil, fmt.Errorf("open credentials: %w", err)
	}
	var fields map[string]string
	if err := json.Unmarshal(plain, &fields); err != nil {
		return nil, fmt.Errorf("decode credentials: %w", err)
	}
	return fields, nil
}
