package carrier

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/contrack/contrack/schemas/carriers"
)

// fieldPassword is a connector's Basic password in its Credentials.
const fieldPassword = "password"

// Connector polls a DCSA producer an account registered (carriers.Connector):
// the DCSA adapter of its version at <baseURL>/events, authenticated by its
// scheme. Its SCAC is the connector's code. Fetch asks for the tracking's
// reference with the connector's eventTypes and, with Query.Since, only
// the events updated since then; FetchQuery sends any combination of the
// standard's filters.
type Connector struct {
	dcsa *dcsaAdapter
	conn carriers.Connector
}

var _ Adapter = (*Connector)(nil)

// NewConnector returns the adapter of conn, sending through client (nil:
// one with a 30 s timeout; the poller and the API pass one that refuses
// internal addresses, as webhooks do). Its credentials are conn's own:
// Fetch and Probe ignore the creds they are given.
func NewConnector(conn carriers.Connector, client *http.Client, opts ...Option) (*Connector, error) {
	u, err := url.Parse(conn.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("connector %s: base URL must be an absolute http(s) URL", conn.Code)
	}
	o := options{clock: time.Now, maxPages: 50, maxTokens: 16}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxPages < 1 {
		return nil, fmt.Errorf("connector %s: max pages must be at least 1", conn.Code)
	}
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	b := base{
		carrier: carriers.Carrier{SCAC: conn.Code, Name: conn.Code, Format: conn.Format, Auth: string(conn.Auth.Scheme)},
		baseURL: strings.TrimRight(conn.BaseURL, "/"), client: sameOriginClient(client), opts: o,
	}
	a := &dcsaAdapter{base: b, path: "/events", version: tnt22}
	switch conn.Format {
	case carriers.FormatTNT22:
	case carriers.FormatTNT3:
		a.version = tnt3
	default:
		return nil, fmt.Errorf("connector %s: format %q is not DCSA TNT 2.2 or 3.0", conn.Code, conn.Format)
	}
	switch conn.Auth.Scheme {
	case carriers.AuthNone:
		a.auth = headerAuth{}
	case carriers.AuthAPIKey:
		a.auth = headerAuth{conn.Auth.HeaderName: carriers.FieldAPIKey}
	case carriers.AuthBasic:
		a.auth = basicAuth{user: conn.Auth.Username}
	case carriers.AuthOAuth2:
		t, err := url.Parse(conn.Auth.TokenURL)
		if err != nil || (t.Scheme != "http" && t.Scheme != "https") || t.Host == "" {
			return nil, fmt.Errorf("connector %s: token URL must be an absolute http(s) URL", conn.Code)
		}
		a.auth = newBearerAuth(b, oauth2TokenAt(b, conn.Auth.TokenURL, conn.Auth.Scope))
	default:
		return nil, fmt.Errorf("connector %s: unknown auth scheme %q", conn.Code, conn.Auth.Scheme)
	}
	return &Connector{dcsa: a, conn: conn}, nil
}

// SCAC is the connector's code.
func (c *Connector) SCAC() string { return c.conn.Code }

// credentials are the connector's own, as its authenticator reads them.
func (c *Connector) credentials() Credentials {
	creds := Credentials{}
	switch c.conn.Auth.Scheme {
	case carriers.AuthAPIKey:
		creds[carriers.FieldAPIKey] = c.conn.Secret
	case carriers.AuthOAuth2:
		creds[carriers.FieldClientID], creds[carriers.FieldClientSecret] = c.conn.Auth.ClientID, c.conn.Secret
	case carriers.AuthBasic:
		creds[fieldPassword] = c.conn.Secret
	}
	return creds
}

// Fetch asks the producer for q's reference, with the connector's
// eventTypes, pages of pageLimit, and only what was updated since q.Since
// when it is set.
func (c *Connector) Fetch(ctx context.Context, _ Credentials, q Query) (Result, error) {
	if err := q.Validate(); err != nil {
		return Result{}, err
	}
	cq := carriers.ConnectorQuery{EventTypes: c.conn.EventTypes, Limit: pageLimit}
	if !q.Since.IsZero() {
		cq.UpdatedMin = q.Since.UTC().Format(time.RFC3339Nano)
	}
	switch q.Kind {
	case KindContainer:
		cq.EquipmentReference = q.Value
	case KindBooking:
		cq.CarrierBookingReference = q.Value
	case KindBill:
		cq.TransportDocumentReference = q.Value
	}
	return c.FetchQuery(ctx, cq, c.dcsa.opts.maxPages)
}

// FetchQuery sends the filters of q (any combination, none at all too),
// following the pages up to maxPages (at least 1).
func (c *Connector) FetchQuery(ctx context.Context, q carriers.ConnectorQuery, maxPages int) (Result, error) {
	return c.dcsa.fetchParams(ctx, c.credentials(), c.params(q), max(maxPages, 1))
}

// Probe asks for a container with no events, one page of one event.
func (c *Connector) Probe(ctx context.Context, _ Credentials) Health {
	return health(c.FetchQuery(ctx, carriers.ConnectorQuery{EquipmentReference: ProbeContainer, Limit: 1}, 1))
}

// params are q's query parameters as the connector's version names them.
// 3.0: eventTypes (one comma-separated list), eventUpdatedDateTimeMin/Max.
// 2.2: eventType (comma-separated) and eventCreatedDateTime with the :gte
// and :lte operators, its one date filter.
func (c *Connector) params(q carriers.ConnectorQuery) url.Values {
	p := url.Values{}
	set := func(k, v string) {
		if v != "" {
			p.Set(k, v)
		}
	}
	set("carrierBookingReference", q.CarrierBookingReference)
	set("transportDocumentReference", q.TransportDocumentReference)
	set("equipmentReference", q.EquipmentReference)
	if c.dcsa.version == tnt3 {
		set("eventTypes", strings.Join(q.EventTypes, ","))
		set("eventUpdatedDateTimeMin", q.UpdatedMin)
		set("eventUpdatedDateTimeMax", q.UpdatedMax)
	} else {
		set("eventType", strings.Join(q.EventTypes, ","))
		set("eventCreatedDateTime:gte", q.UpdatedMin)
		set("eventCreatedDateTime:lte", q.UpdatedMax)
	}
	if q.Limit > 0 {
		p.Set("limit", strconv.Itoa(q.Limit))
	}
	set("cursor", q.Cursor)
	return p
}
