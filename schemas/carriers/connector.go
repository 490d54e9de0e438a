package carriers

import (
	"fmt"
	"net/textproto"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// A Connector is a DCSA Track & Trace producer an account registered itself
// (POST /carrier/connectors): any carrier that implements DCSA TNT 2.2 or
// 3.0, reached by base URL and auth scheme. Its Code is the account's name
// for it, used as the scacCode of the account's subscriptions (and the scac
// of their trackings), so it is polled as the registry's carriers are. The
// command side stores it (table carrier_connectors, its secret sealed under
// ConnectorSecretContext), the poller polls with it. Secret is the one
// secret of its scheme (the API key, the client secret, the password): it
// is never shown, only masked (MaskSecret).
type Connector struct {
	AccountID string
	Code      string
	BaseURL   string
	Format    Format // FormatTNT22 or FormatTNT3
	Auth      ConnectorAuth
	// EventTypes, if set, is sent as the eventTypes filter of every poll.
	EventTypes []string
	Secret     string
}

// ConnectorAuth is how contrack authenticates to a connector's producer.
type ConnectorAuth struct {
	Scheme AuthScheme
	// HeaderName is the API key's header (AuthAPIKey).
	HeaderName string
	// TokenURL is the OAuth2 token endpoint (AuthOAuth2), ClientID the
	// client (its secret is Connector.Secret); Scope is sent when set.
	TokenURL string
	ClientID string
	Scope    string
	// Username is the Basic user (AuthBasic; the password is Connector.Secret).
	Username string
}

// AuthScheme names a connector's authentication.
type AuthScheme string

// Auth schemes of connectors.
const (
	AuthNone   AuthScheme = "NONE"
	AuthAPIKey AuthScheme = "API_KEY"
	// AuthOAuth2 is RFC 6749 §4.4, client credentials: a token fetched from
	// TokenURL, sent as "Authorization: Bearer", renewed before it expires
	// and after a 401.
	AuthOAuth2 AuthScheme = "OAUTH2_CLIENT_CREDENTIALS"
	AuthBasic  AuthScheme = "BASIC"
)

// Connector formats as the API spells them.
const (
	ConnectorFormatTNT22 = "TNT_2.2.0"
	ConnectorFormatTNT3  = "TNT_3.0.0"
)

// ConnectorFormat reads an API spelling of a connector's format (case
// insensitive; "TNT_2.2" and "TNT_3.0" too).
func ConnectorFormat(s string) (Format, bool) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "TNT_2.2.0", "TNT_2.2":
		return FormatTNT22, true
	case "TNT_3.0.0", "TNT_3.0":
		return FormatTNT3, true
	}
	return "", false
}

// ConnectorFormatName is the API spelling of a connector's Format.
func ConnectorFormatName(f Format) string {
	if f == FormatTNT3 {
		return ConnectorFormatTNT3
	}
	return ConnectorFormatTNT22
}

// connectorCode is a connector's code: 2 to 4 letters, the shape of a SCAC,
// since it is the carrierCode of the connector's events (EVENT_DOMAIN
// 2.0.2 allows 4 characters there). The carrier's own SCAC is a good choice.
var connectorCode = regexp.MustCompile(`^[A-Z]{2,4}$`)

// CheckConnectorCode returns the stored spelling of a connector code (upper
// case) or the problem with it. A registered carrier's SCAC is refused: the
// account's subscriptions to it mean that carrier.
func CheckConnectorCode(given string) (string, string) {
	code := strings.ToUpper(strings.TrimSpace(given))
	if !connectorCode.MatchString(code) {
		return "", "'code' must be 2 to 4 letters, as a SCAC is"
	}
	if _, ok := Lookup(code); ok {
		return "", fmt.Sprintf("'code' %s is a supported carrier's SCAC: store its credentials (POST /carrier/credentials) instead, or choose another code", code)
	}
	return code, ""
}

// MaxConnectorEventTypes bounds a connector's eventTypes.
var connectorEventTypes = []string{"EQUIPMENT", "TRANSPORT", "SHIPMENT", "IOT", "REEFER"}

// CheckEventTypes returns event types upper-cased, in the standard's
// order, without repeats, or the problems of the unknown ones. SHIPMENT is
// a 2.2 and 3.0 type; IOT and REEFER are 3.0 only.
func CheckEventTypes(field string, in []string, f Format) ([]string, []string) {
	var problems []string
	want := map[string]bool{}
	for _, t := range in {
		u := strings.ToUpper(strings.TrimSpace(t))
		ok := false
		for i, k := range connectorEventTypes {
			if u == k && (f == FormatTNT3 || i < 3) {
				ok = true
			}
		}
		if !ok {
			problems = append(problems, fmt.Sprintf("'%s' has %q: use %s", field, t, strings.Join(eventTypesOf(f), ", ")))
			continue
		}
		want[u] = true
	}
	var out []string
	for _, k := range eventTypesOf(f) {
		if want[k] {
			out = append(out, k)
		}
	}
	return out, problems
}

func eventTypesOf(f Format) []string {
	if f == FormatTNT3 {
		return connectorEventTypes
	}
	return connectorEventTypes[:3]
}

// CheckAuth checks a connector's auth for the secret given (empty: none
// given), and returns every problem, naming the field and never a value.
func (a ConnectorAuth) Check(secret string) []string {
	var p []string
	need := func(field, v string) {
		if strings.TrimSpace(v) == "" {
			p = append(p, fmt.Sprintf("'auth.%s' is required for %s", field, a.Scheme))
		}
	}
	switch a.Scheme {
	case AuthNone:
	case AuthAPIKey:
		need("headerName", a.HeaderName)
		need("apiKey", secret)
		if a.HeaderName != "" {
			canon := textproto.CanonicalMIMEHeaderKey(a.HeaderName)
			switch {
			case !httpguts.ValidHeaderFieldName(a.HeaderName) || len(a.HeaderName) > 64:
				p = append(p, "'auth.headerName' must be a header name (an RFC 7230 token of at most 64 characters)")
			case reservedRequestHeader(canon):
				p = append(p, fmt.Sprintf("'auth.headerName' %s is a header contrack sets itself", a.HeaderName))
			}
		}
	case AuthOAuth2:
		need("tokenUrl", a.TokenURL)
		need("clientId", a.ClientID)
		need("clientSecret", secret)
	case AuthBasic:
		need("username", a.Username)
		need("password", secret)
		if strings.Contains(a.Username, ":") {
			p = append(p, "'auth.username' must not contain ':'")
		}
	default:
		p = append(p, fmt.Sprintf("'auth.scheme' must be %s, %s, %s or %s", AuthNone, AuthAPIKey, AuthOAuth2, AuthBasic))
	}
	for _, f := range [][2]string{{"headerName", a.HeaderName}, {"clientId", a.ClientID}, {"username", a.Username}, {"scope", a.Scope}} {
		if strings.ContainsFunc(f[1], isControl) {
			p = append(p, fmt.Sprintf("'auth.%s' has a control character", f[0]))
		}
	}
	if strings.ContainsFunc(secret, isControl) || len(secret) > 4096 {
		p = append(p, "the secret has a control character or is longer than 4096 bytes")
	}
	return p
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// reservedRequestHeader: what an API key header may not replace.
func reservedRequestHeader(canon string) bool {
	switch canon {
	case "Host", "Content-Length", "Content-Type", "Connection", "Transfer-Encoding", "Accept", "Api-Version",
		"User-Agent", "Traceparent", "Tracestate", "Te", "Upgrade", "Cookie":
		return true
	}
	return strings.HasPrefix(canon, "Proxy-")
}

// SecretField is the API's name of the secret of a scheme ("" for none).
func (s AuthScheme) SecretField() string {
	switch s {
	case AuthAPIKey:
		return "apiKey"
	case AuthOAuth2:
		return "clientSecret"
	case AuthBasic:
		return "password"
	}
	return ""
}

// MaskSecret shows a secret as GET /carrier/credentials does: "****" and
// its last four characters ("****" alone when four or fewer).
func MaskSecret(s string) string {
	if r := []rune(s); len(r) > 4 {
		return "****" + string(r[len(r)-4:])
	}
	return "****"
}

// ConnectorOrigins are the origins (scheme://host:port) a connector sends
// its credentials to: its base URL's and, for OAuth2, its token URL's. A
// change of either needs the secret again, so it never follows a URL to
// another host.
func (c Connector) ConnectorOrigins() []string {
	out := []string{originOf(c.BaseURL)}
	if c.Auth.Scheme == AuthOAuth2 {
		out = append(out, originOf(c.Auth.TokenURL))
	}
	return out
}

func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// ConnectorQuery is what one fetch from a connector asks its producer: the
// references and the standard's filters. Empty fields are not sent; the
// values go as given (eventTypes comma-joined in their order, the times
// exactly as spelled), so a caller gets the very request it asked for.
type ConnectorQuery struct {
	CarrierBookingReference    string
	TransportDocumentReference string
	EquipmentReference         string
	EventTypes                 []string
	// UpdatedMin and UpdatedMax are RFC 3339 date-times: 3.0's
	// eventUpdatedDateTimeMin/Max, 2.2's eventCreatedDateTime:gte/:lte.
	UpdatedMin, UpdatedMax string
	// Limit is the page size asked (0: none sent).
	Limit int
	// Cursor, if set, asks for the page after the one that named it, with
	// the other fields as they were.
	Cursor string
}

// ConnectorFetch is what one fetch from a connector saw (POST
// /carrier/connectors/{code}/fetch).
type ConnectorFetch struct {
	// Outcome is success, noData, unauthorized, error or unreachable.
	Outcome  string
	HTTPCode int
	Reason   string
	// Requests are the URLs asked, in order (no credentials travel in them).
	Requests   []string
	Pages      [][]byte
	EventCount int
	// NextCursor is the producer's cursor for the next page when the fetch
	// stopped at its page bound ("" when the last page was reached).
	NextCursor string
}
