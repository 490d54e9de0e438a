package commandapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/webhooktarget"
	"github.com/contrack/contrack/schemas/carriers"
)

// ConnectorFetcher makes one fetch from an account's carrier connector,
// for POST /carrier/connectors/{code}/fetch: the request series the query
// asks for, at most maxPages pages. Carrier problems are in the answer;
// err is for a connector that cannot be built or a cancelled ctx.
type ConnectorFetcher interface {
	FetchConnector(ctx context.Context, conn carriers.Connector, q carriers.ConnectorQuery, maxPages int) (carriers.ConnectorFetch, error)
}

// Messages of the connector endpoints.
const (
	msgConnectorRegistered = "Connector registered"
	msgConnectorUpdated    = "Connector updated"
	msgConnectorDeleted    = "Connector deleted"
	msgConnectorNotFound   = "Connector not found"
	msgInvalidConnector    = "Invalid connector: "
	msgInvalidFetch        = "Invalid fetch: "
	msgConnectorHostMoved  = "the base or token URL moves to another host, and the stored secret is not sent there: send auth again with its secret"
)

// maxFetchPages bounds the pages of one POST /carrier/connectors/{code}/fetch.
const maxFetchPages = 20

// ConnectorAuthBody is a connector's auth: scheme NONE, API_KEY
// (headerName, apiKey), OAUTH2_CLIENT_CREDENTIALS (tokenUrl, clientId,
// clientSecret, optional scope) or BASIC (username, password). Read back,
// the secret is masked.
type ConnectorAuthBody struct {
	Scheme       string `json:"scheme"`
	HeaderName   string `json:"headerName,omitempty"`
	APIKey       string `json:"apiKey,omitempty"`
	TokenURL     string `json:"tokenUrl,omitempty"`
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	Scope        string `json:"scope,omitempty"`
	Username     string `json:"username,omitempty"`
	Password     string `json:"password,omitempty"`
}

// ConnectorBody is POST /carrier/connectors' body.
type ConnectorBody struct {
	// Code is the account's name for the carrier (2-4 letters, as a SCAC;
	// not a supported carrier's): the scacCode its subscriptions name.
	Code string `json:"code"`
	// BaseURL is the producer's server URL; contrack GETs <baseUrl>/events.
	BaseURL string `json:"baseUrl"`
	// Format is TNT_2.2.0 or TNT_3.0.0.
	Format string             `json:"format"`
	Auth   *ConnectorAuthBody `json:"auth"`
	// EventTypes, if set, is the eventTypes filter of every poll.
	EventTypes []string `json:"eventTypes,omitempty"`
}

// PatchConnectorBody is PATCH /carrier/connectors/{code}'s body: the
// fields present replace the stored ones.
type PatchConnectorBody struct {
	BaseURL    *string            `json:"baseUrl,omitempty"`
	Format     *string            `json:"format,omitempty"`
	Auth       *ConnectorAuthBody `json:"auth,omitempty"`
	EventTypes *[]string          `json:"eventTypes,omitempty"`
}

// ConnectorView is a registered connector, its secret masked.
type ConnectorView struct {
	Code            string            `json:"code"`
	BaseURL         string            `json:"baseUrl"`
	Format          string            `json:"format"`
	Auth            ConnectorAuthBody `json:"auth"`
	EventTypes      []string          `json:"eventTypes"`
	CreatedDateTime httpapi.Time      `json:"createdDateTime"`
	UpdatedDateTime httpapi.Time      `json:"updatedDateTime"`
}

// ConnectorResponse answers a register or an update.
type ConnectorResponse struct {
	Message   string        `json:"message"`
	Connector ConnectorView `json:"connector"`
}

// ConnectorsResponse lists an account's connectors.
type ConnectorsResponse struct {
	Connectors []ConnectorView `json:"connectors"`
}

// ConnectorFetchBody is POST /carrier/connectors/{code}/fetch's body: the
// DCSA filters of one request, sent only when given and as given.
type ConnectorFetchBody struct {
	CarrierBookingReference    string   `json:"carrierBookingReference,omitempty"`
	TransportDocumentReference string   `json:"transportDocumentReference,omitempty"`
	EquipmentReference         string   `json:"equipmentReference,omitempty"`
	EventTypes                 []string `json:"eventTypes,omitempty"`
	EventUpdatedDateTimeMin    string   `json:"eventUpdatedDateTimeMin,omitempty"`
	EventUpdatedDateTimeMax    string   `json:"eventUpdatedDateTimeMax,omitempty"`
	Limit                      int      `json:"limit,omitempty"`
	Cursor                     string   `json:"cursor,omitempty"`
	// MaxPages is how many pages to follow (default 1: one request; at most 20).
	MaxPages int `json:"maxPages,omitempty"`
}

// ConnectorFetchResponse is what one fetch saw.
type ConnectorFetchResponse struct {
	Code string `json:"code"`
	// Outcome: success, noData, unauthorized, error or unreachable.
	Outcome    string            `json:"outcome"`
	HTTPCode   int               `json:"httpCode"`
	Reason     string            `json:"reason,omitempty"`
	Requests   []string          `json:"requests"`
	Pages      int               `json:"pages"`
	EventCount int               `json:"eventCount"`
	Events     []json.RawMessage `json:"events"`
	// NextCursor is the producer's cursor for the next page, when the
	// fetch stopped at maxPages: send it back as cursor with the same filters.
	NextCursor string `json:"nextCursor,omitempty"`
}

func registerConnectors(s *fuego.Server, deps api) {
	h := connectorHandlers{deps}
	tags := option.Tags("Carrier connectors")
	fuego.Post(s, "/carrier/connectors", h.create,
		option.OperationID("registerCarrierConnector"),
		option.Summary("Register a DCSA Track & Trace producer as a carrier of this account"),
		option.Description("Any DCSA Track & Trace 2.2 or 3.0 producer, by base URL (contrack GETs <baseUrl>/events), format (TNT_2.2.0 or TNT_3.0.0) and auth scheme: NONE, API_KEY (headerName, apiKey), OAUTH2_CLIENT_CREDENTIALS (tokenUrl, clientId, clientSecret, scope) or BASIC (username, password). "+
			"Its code (2-4 letters, as a SCAC; not a supported carrier's) is then a scacCode of this account's subscriptions, polled as the supported carriers are. "+
			"The URLs follow the webhook-target rules (https for live keys, no loopback, private or link-local addresses). The secret is stored encrypted and shown masked."),
		option.RequestBody(fuego.RequestBody{Type: ConnectorBody{}}),
		option.AddResponse(400, "Invalid connector (every problem named), or the code is taken", fuego.Response{Type: httpapi.Body{}}),
		tags,
	)
	fuego.Get(s, "/carrier/connectors", h.list,
		option.OperationID("listCarrierConnectors"),
		option.Summary("List this account's carrier connectors, secrets masked"),
		tags,
	)
	fuego.Get(s, "/carrier/connectors/{code}", h.get,
		option.OperationID("getCarrierConnector"),
		option.Path("code", "the connector's code"),
		option.Summary("Read a carrier connector, its secret masked"),
		option.AddResponse(404, "No such connector", fuego.Response{Type: httpapi.Body{}}),
		tags,
	)
	fuego.Patch(s, "/carrier/connectors/{code}", h.patch,
		option.OperationID("updateCarrierConnector"),
		option.Path("code", "the connector's code"),
		option.Summary("Change a carrier connector"),
		option.Description("The fields present replace the stored ones; auth is replaced as a whole. An auth without its secret keeps the stored one only while the scheme, the base URL's host and the token URL's host stay the same."),
		option.RequestBody(fuego.RequestBody{Type: PatchConnectorBody{}}),
		option.AddResponse(400, "Invalid connector", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(404, "No such connector", fuego.Response{Type: httpapi.Body{}}),
		tags,
	)
	fuego.Delete(s, "/carrier/connectors/{code}", h.delete,
		option.OperationID("deleteCarrierConnector"),
		option.Path("code", "the connector's code"),
		option.Summary("Delete a carrier connector"),
		option.Description("Its subscriptions stay open with connectionStatus NO_CREDENTIALS, unpolled, until a connector of that code is registered again."),
		option.AddResponse(404, "No such connector", fuego.Response{Type: httpapi.Body{}}),
		tags,
	)
	fuego.Post(s, "/carrier/connectors/{code}/fetch", h.fetch,
		option.OperationID("fetchFromCarrierConnector"),
		option.Path("code", "the connector's code"),
		option.Summary("Send one GET /events to a connector's producer with the filters given"),
		option.Description("Exactly the filters given are sent, as given (eventTypes joined with commas in their order, the date-times as spelled, limit and cursor only when given), with the connector's auth; maxPages (default 1) pages are followed. "+
			"The answer lists the requests made, the events received and, when it stopped at maxPages, nextCursor. The events are not ingested (subscriptions' polls are). Counts against the account's carrier probe budget."),
		option.RequestBody(fuego.RequestBody{Type: ConnectorFetchBody{}}),
		option.AddResponse(400, "Invalid filters", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(404, "No such connector", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(429, "Over the account's carrier probe budget", fuego.Response{Type: httpapi.Body{}}),
		tags,
	)
}

type connectorHandlers struct{ deps api }

// storedConnector is a row of carrier_connectors, its secret opened.
type storedConnector struct {
	carriers.Connector
	created, updated time.Time
}

func (s storedConnector) view() ConnectorView {
	a := ConnectorAuthBody{Scheme: string(s.Auth.Scheme), HeaderName: s.Auth.HeaderName, TokenURL: s.Auth.TokenURL,
		ClientID: s.Auth.ClientID, Scope: s.Auth.Scope, Username: s.Auth.Username}
	if s.Secret != "" {
		masked := carriers.MaskSecret(s.Secret)
		switch s.Auth.Scheme {
		case carriers.AuthAPIKey:
			a.APIKey = masked
		case carriers.AuthOAuth2:
			a.ClientSecret = masked
		case carriers.AuthBasic:
			a.Password = masked
		}
	}
	types := s.EventTypes
	if types == nil {
		types = []string{}
	}
	return ConnectorView{Code: s.Code, BaseURL: s.BaseURL, Format: carriers.ConnectorFormatName(s.Format), Auth: a,
		EventTypes: types, CreatedDateTime: httpapi.Time(s.created), UpdatedDateTime: httpapi.Time(s.updated)}
}

const connectorColumns = `code, base_url, format, auth_scheme, auth_header_name, auth_token_url, auth_client_id,
	auth_scope, auth_username, event_types, secret_enc, created_at, updated_at`

// scanConnector reads a row of connectorColumns and opens its secret.
func scanConnector(row pgx.Row, box *secretbox.Box, accountID string) (storedConnector, error) {
	var s storedConnector
	var format, scheme string
	var enc []byte
	if err := row.Scan(&s.Code, &s.BaseURL, &format, &scheme, &s.Auth.HeaderName, &s.Auth.TokenURL, &s.Auth.ClientID,
		&s.Auth.Scope, &s.Auth.Username, &s.EventTypes, &enc, &s.created, &s.updated); err != nil {
		return s, err
	}
	s.AccountID, s.Format, s.Auth.Scheme = accountID, carriers.Format(format), carriers.AuthScheme(scheme)
	if enc != nil {
		plain, err := box.Open(enc, secretbox.CarrierConnectorContext(accountID, s.Code))
		if err != nil {
			return s, fmt.Errorf("open connector secret: %w", err)
		}
		s.Secret = string(plain)
	}
	return s, nil
}

// LoadConnector returns an account's connector of code (its secret
// opened); ok false when there is none.
func LoadConnector(ctx context.Context, q Querier, box *secretbox.Box, accountID, code string) (carriers.Connector, bool, error) {
	s, err := loadConnector(ctx, q, box, accountID, code)
	if errors.Is(err, pgx.ErrNoRows) {
		return carriers.Connector{}, false, nil
	}
	return s.Connector, err == nil, err
}

func loadConnector(ctx context.Context, q Querier, box *secretbox.Box, accountID, code string) (storedConnector, error) {
	s, err := scanConnector(q.QueryRow(ctx, `SELECT `+connectorColumns+` FROM carrier_connectors WHERE account_id = $1 AND code = $2`,
		accountID, code), box, accountID)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("read connector: %w", err)
	}
	return s, err
}

// authOf reads an auth body: the scheme upper case, the secret its scheme's.
func authOf(b *ConnectorAuthBody) (carriers.ConnectorAuth, string) {
	a := carriers.ConnectorAuth{Scheme: carriers.AuthScheme(strings.ToUpper(strings.TrimSpace(b.Scheme))),
		HeaderName: strings.TrimSpace(b.HeaderName), TokenURL: strings.TrimSpace(b.TokenURL),
		ClientID: strings.TrimSpace(b.ClientID), Scope: strings.TrimSpace(b.Scope), Username: strings.TrimSpace(b.Username)}
	secret := ""
	switch a.Scheme {
	case carriers.AuthAPIKey:
		secret = b.APIKey
	case carriers.AuthOAuth2:
		secret = b.ClientSecret
	case carriers.AuthBasic:
		secret = b.Password
	}
	return a, strings.TrimSpace(secret)
}

// check returns every problem of a connector about to be stored.
func (h connectorHandlers) check(c carriers.Connector, env string, formatGiven string, types []string) (carriers.Connector, []string) {
	var p []string
	if strings.TrimSpace(c.BaseURL) == "" {
		p = append(p, "'baseUrl' is required")
	} else if msg, ok := webhooktarget.ValidateField("baseUrl", c.BaseURL, env, h.deps.AllowPrivateWebhooks); !ok {
		p = append(p, msg)
	}
	c.BaseURL = strings.TrimRight(strings.TrimSpace(c.BaseURL), "/")
	f, ok := carriers.ConnectorFormat(formatGiven)
	if !ok {
		p = append(p, "'format' must be "+carriers.ConnectorFormatTNT22+" or "+carriers.ConnectorFormatTNT3)
	}
	c.Format = f
	if ok {
		var tp []string
		c.EventTypes, tp = carriers.CheckEventTypes("eventTypes", types, f)
		p = append(p, tp...)
	}
	p = append(p, c.Auth.Check(c.Secret)...)
	if c.Auth.Scheme == carriers.AuthOAuth2 && c.Auth.TokenURL != "" {
		if msg, ok := webhooktarget.ValidateField("auth.tokenUrl", c.Auth.TokenURL, env, h.deps.AllowPrivateWebhooks); !ok {
			p = append(p, msg)
		}
	}
	for _, f := range [][2]string{{"baseUrl", c.BaseURL}, {"auth.tokenUrl", c.Auth.TokenURL}} {
		if len(f[1]) > 2048 {
			p = append(p, fmt.Sprintf("'%s' is longer than 2048 characters", f[0]))
		}
	}
	return c, p
}

func (h connectorHandlers) create(c fuego.ContextNoBody) (ConnectorResponse, error) {
	k, _ := auth.FromContext(c.Context())
	var body ConnectorBody
	if err := httpapi.DecodeJSON(c.Request(), &body); err != nil {
		return ConnectorResponse{}, err
	}
	var problems []string
	code, msg := carriers.CheckConnectorCode(body.Code)
	if strings.TrimSpace(body.Code) == "" {
		msg = "'code' is required"
	}
	if msg != "" {
		problems = append(problems, msg)
	}
	conn := carriers.Connector{AccountID: k.Account.ID, Code: code, BaseURL: body.BaseURL}
	if body.Auth == nil {
		problems = append(problems, "'auth' is required: its scheme is NONE, API_KEY, OAUTH2_CLIENT_CREDENTIALS or BASIC")
		body.Auth = &ConnectorAuthBody{Scheme: string(carriers.AuthNone)}
	}
	conn.Auth, conn.Secret = authOf(body.Auth)
	conn, more := h.check(conn, k.Account.Env, body.Format, body.EventTypes)
	if problems = append(problems, more...); len(problems) > 0 {
		return ConnectorResponse{}, httpapi.BadRequest(msgInvalidConnector + strings.Join(problems, "; "))
	}
	var stored storedConnector
	err := pgx.BeginFunc(c.Context(), h.deps.Pool, func(tx pgx.Tx) error {
		var err error
		stored, err = h.store(c.Context(), tx, conn, true)
		return err
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return ConnectorResponse{}, httpapi.BadRequest(fmt.Sprintf("Connector '%s' already exists: change it with PATCH /carrier/connectors/%s", code, code))
	}
	if err != nil {
		return ConnectorResponse{}, err
	}
	return ConnectorResponse{Message: msgConnectorRegistered, Connector: stored.view()}, nil
}

// store inserts (fresh) or updates a connector, its secret sealed, and
// makes its trackings waiting for credentials (or refused) PENDING again,
// their next polls asking for every event.
func (h connectorHandlers) store(ctx context.Context, tx pgx.Tx, c carriers.Connector, fresh bool) (storedConnector, error) {
	var enc []byte
	if c.Secret != "" {
		var err error
		if enc, err = h.deps.Box.Seal([]byte(c.Secret), secretbox.CarrierConnectorContext(c.AccountID, c.Code)); err != nil {
			return storedConnector{}, err
		}
	}
	types := c.EventTypes
	if types == nil {
		types = []string{}
	}
	args := []any{c.AccountID, c.Code, c.BaseURL, string(c.Format), string(c.Auth.Scheme), c.Auth.HeaderName, c.Auth.TokenURL,
		c.Auth.ClientID, c.Auth.Scope, c.Auth.Username, types, enc}
	sql := `INSERT INTO carrier_connectors (account_id, code, base_url, format, auth_scheme, auth_header_name, auth_token_url,
			auth_client_id, auth_scope, auth_username, event_types, secret_enc)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING ` + connectorColumns
	if !fresh {
		sql = `UPDATE carrier_connectors SET base_url = $3, format = $4, auth_scheme = $5, auth_header_name = $6,
			auth_token_url = $7, auth_client_id = $8, auth_scope = $9, auth_username = $10, event_types = $11,
			secret_enc = $12, updated_at = now()
		WHERE account_id = $1 AND code = $2 RETURNING ` + connectorColumns
	}
	stored, err := scanConnector(tx.QueryRow(ctx, sql, args...), h.deps.Box, c.AccountID)
	if err != nil {
		return stored, fmt.Errorf("store connector: %w", err)
	}
	if _, err := tx.Exec(ctx, `
		UPDATE trackings SET poll_since = NULL, next_poll_at = least(next_poll_at, now()), updated_at = now(),
		    connection_status = CASE WHEN connection_status IN ('NO_CREDENTIALS', 'UNAUTHORIZED') THEN 'PENDING' ELSE connection_status END
		WHERE account_id = $1 AND scac = $2 AND open_subscriptions > 0`, c.AccountID, c.Code); err != nil {
		return stored, fmt.Errorf("update trackings: %w", err)
	}
	return stored, nil
}

func (h connectorHandlers) list(c fuego.ContextNoBody) (ConnectorsResponse, error) {
	k, _ := auth.FromContext(c.Context())
	rows, err := h.deps.Pool.Query(c.Context(), `SELECT `+connectorColumns+` FROM carrier_connectors WHERE account_id = $1 ORDER BY code`, k.Account.ID)
	if err != nil {
		return ConnectorsResponse{}, fmt.Errorf("list connectors: %w", err)
	}
	defer rows.Close()
	out := ConnectorsResponse{Connectors: []ConnectorView{}}
	for rows.Next() {
		s, err := scanConnector(rows, h.deps.Box, k.Account.ID)
		if err != nil {
			return ConnectorsResponse{}, fmt.Errorf("list connectors: %w", err)
		}
		out.Connectors = append(out.Connectors, s.view())
	}
	if err := rows.Err(); err != nil {
		return ConnectorsResponse{}, fmt.Errorf("list connectors: %w", err)
	}
	return out, nil
}

// pathCode is the {code} of the path, as stored (upper case).
func pathCode(c fuego.ContextNoBody) string {
	return strings.ToUpper(strings.TrimSpace(c.PathParam("code")))
}

func (h connectorHandlers) get(c fuego.ContextNoBody) (ConnectorView, error) {
	k, _ := auth.FromContext(c.Context())
	s, err := loadConnector(c.Context(), h.deps.Pool, h.deps.Box, k.Account.ID, pathCode(c))
	if errors.Is(err, pgx.ErrNoRows) {
		return ConnectorView{}, httpapi.NotFound(msgConnectorNotFound)
	}
	if err != nil {
		return ConnectorView{}, err
	}
	return s.view(), nil
}

func (h connectorHandlers) patch(c fuego.ContextNoBody) (ConnectorResponse, error) {
	k, _ := auth.FromContext(c.Context())
	var body PatchConnectorBody
	if err := httpapi.DecodeJSON(c.Request(), &body); err != nil {
		return ConnectorResponse{}, err
	}
	var stored storedConnector
	err := pgx.BeginFunc(c.Context(), h.deps.Pool, func(tx pgx.Tx) error {
		old, err := scanConnector(tx.QueryRow(c.Context(), `SELECT `+connectorColumns+` FROM carrier_connectors
			WHERE account_id = $1 AND code = $2 FOR UPDATE`, k.Account.ID, pathCode(c)), h.deps.Box, k.Account.ID)
		if errors.Is(err, pgx.ErrNoRows) {
			return httpapi.NotFound(msgConnectorNotFound)
		}
		if err != nil {
			return fmt.Errorf("read connector: %w", err)
		}
		next := old.Connector
		format := carriers.ConnectorFormatName(old.Format)
		if body.BaseURL != nil {
			next.BaseURL = *body.BaseURL
		}
		if body.Format != nil {
			format = *body.Format
		}
		types := old.EventTypes
		if body.EventTypes != nil {
			types = *body.EventTypes
		}
		var problems []string
		kept := true // the stored secret, not one sent now
		if body.Auth != nil {
			given := ""
			next.Auth, given = authOf(body.Auth)
			next.Secret = given
			kept = given == "" && next.Auth.Scheme == old.Auth.Scheme
			if kept {
				next.Secret = old.Secret
			}
		}
		if kept && next.Secret != "" && !slices.Equal(
			carriers.Connector{BaseURL: strings.TrimRight(strings.TrimSpace(next.BaseURL), "/"), Auth: next.Auth}.ConnectorOrigins(),
			old.ConnectorOrigins()) {
			// Credentials meant for one host never go to another unless sent again.
			next.Secret = ""
			problems = append(problems, msgConnectorHostMoved)
		}
		next, more := h.check(next, k.Account.Env, format, types)
		if len(problems) == 0 {
			problems = more
		}
		if len(problems) > 0 {
			return httpapi.BadRequest(msgInvalidConnector + strings.Join(problems, "; "))
		}
		stored, err = h.store(c.Context(), tx, next, false)
		return err
	})
	if err != nil {
		return ConnectorResponse{}, err
	}
	return ConnectorResponse{Message: msgConnectorUpdated, Connector: stored.view()}, nil
}

func (h connectorHandlers) delete(c fuego.ContextNoBody) (MessageResponse, error) {
	k, _ := auth.FromContext(c.Context())
	code := pathCode(c)
	err := pgx.BeginFunc(c.Context(), h.deps.Pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(c.Context(), `DELETE FROM carrier_connectors WHERE account_id = $1 AND code = $2`, k.Account.ID, code)
		if err != nil {
			return fmt.Errorf("delete connector: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return httpapi.NotFound(msgConnectorNotFound)
		}
		_, err = tx.Exec(c.Context(), `UPDATE trackings SET connection_status = 'NO_CREDENTIALS', updated_at = now()
			WHERE account_id = $1 AND scac = $2 AND connection_status <> 'NO_CREDENTIALS'`, k.Account.ID, code)
		return err
	})
	if err != nil {
		return MessageResponse{}, err
	}
	return MessageResponse{Message: msgConnectorDeleted}, nil
}

func (h connectorHandlers) fetch(c fuego.ContextNoBody) (ConnectorFetchResponse, error) {
	k, _ := auth.FromContext(c.Context())
	var body ConnectorFetchBody
	if err := httpapi.DecodeJSON(c.Request(), &body); err != nil {
		return ConnectorFetchResponse{}, err
	}
	conn, ok, err := LoadConnector(c.Context(), h.deps.Pool, h.deps.Box, k.Account.ID, pathCode(c))
	if err != nil {
		return ConnectorFetchResponse{}, err
	}
	if !ok {
		return ConnectorFetchResponse{}, httpapi.NotFound(msgConnectorNotFound)
	}
	q, maxPages, problems := fetchQuery(body, conn.Format)
	if len(problems) > 0 {
		return ConnectorFetchResponse{}, httpapi.BadRequest(msgInvalidFetch + strings.Join(problems, "; "))
	}
	if h.deps.Connectors == nil {
		return ConnectorFetchResponse{}, errors.New("connector fetch: no fetcher configured")
	}
	if err := h.deps.probes.take(k.Account.ID, 1, h.deps.Now()); err != nil {
		return ConnectorFetchResponse{}, err
	}
	res, err := h.deps.Connectors.FetchConnector(c.Context(), conn, q, maxPages)
	if err != nil {
		return ConnectorFetchResponse{}, fmt.Errorf("connector fetch: %w", err)
	}
	out := ConnectorFetchResponse{Code: conn.Code, Outcome: res.Outcome, HTTPCode: res.HTTPCode, Reason: res.Reason,
		Requests: res.Requests, Pages: len(res.Pages), EventCount: res.EventCount, Events: []json.RawMessage{}, NextCursor: res.NextCursor}
	if out.Requests == nil {
		out.Requests = []string{}
	}
	for _, page := range res.Pages {
		out.Events = append(out.Events, pageEvents(page)...)
	}
	return out, nil
}

// probeContainer is the ISO 6346-valid container a connector's health
// check asks for: a producer answers it with no events (or 404).
const probeContainer = "NOFU0000001"

// health answers POST /carrier/health-check for a connector: one request
// for a container with no events, one event a page. OK when the producer
// answers 2xx or 404 (it accepted the credentials), UNAUTHORIZED on 401 or
// 403, UNREACHABLE when nothing answered, else ERROR.
func (h connectorHandlers) health(ctx context.Context, accountID string, conn carriers.Connector) (HealthCheckResponse, error) {
	if h.deps.Connectors == nil {
		return HealthCheckResponse{}, errors.New("health-check: no connector fetcher configured")
	}
	if err := h.deps.probes.take(accountID, 1, h.deps.Now()); err != nil {
		return HealthCheckResponse{}, err
	}
	res, err := h.deps.Connectors.FetchConnector(ctx, conn, carriers.ConnectorQuery{EquipmentReference: probeContainer, Limit: 1}, 1)
	if err != nil {
		return HealthCheckResponse{}, fmt.Errorf("health-check: %w", err)
	}
	status := "ERROR"
	switch res.Outcome {
	case "success", "noData":
		status = "OK"
	case "unauthorized":
		status = "UNAUTHORIZED"
	case "unreachable":
		status, res.HTTPCode = "UNREACHABLE", 0
	}
	return HealthCheckResponse{ScacCode: conn.Code, Status: status, HTTPCode: res.HTTPCode}, nil
}

// fetchQuery checks a fetch body: the references and cursor are text, the
// event types the format's (upper-cased, order kept, repeats dropped), the
// date-times RFC 3339 (sent as spelled), limit 1-1000, maxPages 1-20.
func fetchQuery(b ConnectorFetchBody, f carriers.Format) (carriers.ConnectorQuery, int, []string) {
	var p []string
	q := carriers.ConnectorQuery{
		CarrierBookingReference:    strings.TrimSpace(b.CarrierBookingReference),
		TransportDocumentReference: strings.TrimSpace(b.TransportDocumentReference),
		EquipmentReference:         strings.TrimSpace(b.EquipmentReference),
		UpdatedMin:                 strings.TrimSpace(b.EventUpdatedDateTimeMin),
		UpdatedMax:                 strings.TrimSpace(b.EventUpdatedDateTimeMax),
		Cursor:                     strings.TrimSpace(b.Cursor),
		Limit:                      b.Limit,
	}
	for _, field := range [][2]string{{"carrierBookingReference", q.CarrierBookingReference}, {"transportDocumentReference", q.TransportDocumentReference},
		{"equipmentReference", q.EquipmentReference}, {"cursor", q.Cursor}} {
		if httpapi.BadText(field[1]) || len(field[1]) > 4096 {
			p = append(p, fmt.Sprintf("'%s' has a control character or is too long", field[0]))
		}
	}
	for _, field := range [][2]string{{"eventUpdatedDateTimeMin", q.UpdatedMin}, {"eventUpdatedDateTimeMax", q.UpdatedMax}} {
		if _, err := time.Parse(time.RFC3339Nano, field[1]); field[1] != "" && err != nil {
			p = append(p, fmt.Sprintf("'%s' must be an RFC 3339 date-time (2025-01-23T01:23:45Z)", field[0]))
		}
	}
	known, tp := carriers.CheckEventTypes("eventTypes", b.EventTypes, f)
	p = append(p, tp...)
	if len(tp) == 0 {
		for _, t := range b.EventTypes {
			if u := strings.ToUpper(strings.TrimSpace(t)); slices.Contains(known, u) && !slices.Contains(q.EventTypes, u) {
				q.EventTypes = append(q.EventTypes, u)
			}
		}
	}
	if q.Limit < 0 || q.Limit > 1000 {
		p = append(p, "'limit' must be 1 to 1000 (or absent: none sent)")
	}
	maxPages := b.MaxPages
	if maxPages == 0 {
		maxPages = 1
	}
	if maxPages < 1 || maxPages > maxFetchPages {
		p = append(p, fmt.Sprintf("'maxPages' must be 1 to %d", maxFetchPages))
	}
	return q, maxPages, p
}

// pageEvents are a DCSA page's events: 3.0's {"events": [...]}, 2.2's
// array (or the array wrapped as 3.0 does).
func pageEvents(page []byte) []json.RawMessage {
	page = bytes.TrimSpace(page)
	var list []json.RawMessage
	if len(page) > 0 && page[0] == '[' {
		_ = json.Unmarshal(page, &list)
		return list
	}
	var wrapped struct {
		Events []json.RawMessage `json:"events"`
	}
	_ = json.Unmarshal(page, &wrapped)
	return wrapped.Events
}
