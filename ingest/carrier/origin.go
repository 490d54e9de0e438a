package carrier

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ErrOtherOrigin is wrapped by the error a carrier client returns for a
// redirect to another origin: credentials travel only to the carrier's own
// origin (scheme, host and port of its base URL).
var ErrOtherOrigin = errors.New("carrier: refused to leave the carrier's origin")

// origin is scheme://host:port with the scheme's default port made explicit
// and the host lower-cased, so https://a.com and https://A.com:443 are one.
func origin(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(host, port)
}

// sameOriginClient returns a copy of c that follows a redirect only within
// the origin of the request that started the exchange. Go's client drops
// Authorization on a redirect to another host name, but copies every other
// header (Consumer-Key, X-IBM-Client-Secret, KeyId, apiKey, x-api-key …)
// and resends a 307/308 body (a token request's client secret), and it
// compares host names without ports: so any redirect that leaves the
// origin is refused before it is sent. c's own CheckRedirect, if any, runs
// after this one.
func sameOriginClient(c *http.Client) *http.Client {
	cp := *c
	inner := c.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && origin(req.URL) != origin(via[0].URL) {
			return fmt.Errorf("%w: redirect to %s", ErrOtherOrigin, origin(req.URL))
		}
		if len(via) >= 5 {
			return errors.New("carrier: stopped after 5 redirects")
		}
		if inner != nil {
			return inner(req, via)
		}
		return nil
	}
	return &cp
}
