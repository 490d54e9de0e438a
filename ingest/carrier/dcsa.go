package carrier

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

type tntVersion int

const (
	tnt22 tntVersion = iota // DCSA Track & Trace 2.2: JSON array pages, Next-Page cursors
	tnt12                   // DCSA Track & Trace 1.2: {"events": [...]}, one page
	tnt3                    // DCSA Track & Trace 3.0: {"events": [...]} pages, Next-Page-Cursor cursors
)

// tnt3Version is the API-Version sent to TNT 3.0 producers.
const tnt3Version = "3.0.0"

// pageLimit is the limit asked of TNT 2.2 carriers per page (DCSA's default).
const pageLimit = 100

// dcsaAdapter serves the DCSA Track & Trace carriers.
type dcsaAdapter struct {
	base
	path    string
	version tntVersion
	auth    authenticator
}

// queryParam names the identifier parameter per TNT version.
func (a *dcsaAdapter) queryParam(k IdentifierKind) string {
	if a.version == tnt12 {
		return map[IdentifierKind]string{KindContainer: "equipmentReference", KindBooking: "bookingReference", KindBill: "billOfLadingNumber"}[k]
	}
	return map[IdentifierKind]string{KindContainer: "equipmentReference", KindBooking: "carrierBookingReference", KindBill: "transportDocumentReference"}[k]
}

func (a *dcsaAdapter) Fetch(ctx context.Context, creds Credentials, q Query) (Result, error) {
	if err := q.Validate(); err != nil {
		return Result{}, err
	}
	return a.fetch(ctx, creds, q, a.opts.maxPages, pageLimit)
}

func (a *dcsaAdapter) Probe(ctx context.Context, creds Credentials) Health {
	return health(a.fetch(ctx, creds, Query{Kind: KindContainer, Value: ProbeContainer}, 1, 1))
}

func (a *dcsaAdapter) fetch(ctx context.Context, creds Credentials, q Query, maxPages, limit int) (Result, error) {
	params := url.Values{a.queryParam(q.Kind): {q.Value}}
	if a.version == tnt22 || a.version == tnt3 {
		params.Set("limit", strconv.Itoa(limit))
	}
	return a.fetchParams(ctx, creds, params, maxPages)
}

// fetchParams GETs the events with the query params, following the
// version's pagination for at most maxPages pages: 3.0 sends the cursor
// back with every original parameter, 2.2 follows the Next-Page link.
func (a *dcsaAdapter) fetchParams(ctx context.Context, creds Credentials, params url.Values, maxPages int) (Result, error) {
	start := time.Now()
	if f := a.missingField(creds); f != nil {
		return a.finish(start, f, nil, 0, 0)
	}
	endpoint := a.baseURL + a.path
	next := endpoint
	if len(params) > 0 {
		next += "?" + params.Encode()
	}
	var requests []string
	// fail reports a failure with the requests made up to it.
	fail := func(f *failure) (Result, error) {
		r, err := a.finish(start, f, nil, 0, 0)
		r.Requests = requests
		return r, err
	}
	var pages [][]byte
	count, code := 0, 0
	seen := map[string]bool{}
	truncated := false
	cursor := "" // the cursor that named next
	for next != "" {
		if len(pages) == maxPages {
			truncated = true
			break
		}
		cursor = ""
		target := next
		requests = append(requests, target)
		resp, f := a.call(ctx, a.auth, creds, func() (*http.Request, error) {
			req, err := http.NewRequest(http.MethodGet, target, nil)
			if err == nil {
				req.Header.Set("Accept", "application/json")
				switch a.version {
				case tnt22:
					req.Header.Set("API-Version", "2")
				case tnt3:
					req.Header.Set("API-Version", tnt3Version)
				}
			}
			return req, err
		})
		if f == nil && !isSuccess(resp.status) {
			f = responseFailure(resp, a.opts.clock())
			if len(pages) > 0 && f.outcome == OutcomeNoData {
				f.outcome, f.reason = OutcomeError, "next page not found (expired cursor?)"
			}
		}
		if f != nil {
			return fail(f)
		}
		n, ok := a.countEvents(resp.body)
		if !ok {
			return fail(&failure{outcome: OutcomeError, code: resp.status, reason: "malformed events body"})
		}
		pages = append(pages, resp.body)
		count, code = count+n, resp.status
		next = ""
		if c := resp.header.Get("Next-Page-Cursor"); a.version == tnt3 && c != "" {
			// 3.0: the cursor goes back with every original query
			// parameter; the last page has no Next-Page-Cursor (and may
			// be empty, so an empty page with one is followed too).
			if seen[c] {
				truncated = true
				break
			}
			seen[c] = true
			p := url.Values{}
			for k, v := range params {
				p[k] = v
			}
			p.Set("cursor", c)
			next, cursor = endpoint+"?"+p.Encode(), c
		}
		if a.version == tnt22 && n > 0 {
			if c := resp.header.Get("Next-Page"); c != "" {
				if seen[c] {
					truncated = true
					break
				}
				seen[c] = true
				var err error
				cursor = c
				if next, err = a.nextURL(endpoint, c); err != nil {
					return fail(&failure{outcome: OutcomeError, code: resp.status, reason: err.Error()})
				}
			}
		}
	}
	r, err := a.finish(start, nil, pages, count, code)
	r.Truncated, r.Requests = truncated, requests
	if truncated && len(pages) == maxPages {
		r.NextCursor = cursor
	}
	return r, err
}

// nextURL resolves a Next-Page header: DCSA calls it "a link to the next
// page", and carriers send either a full URL, a path, or a bare cursor for
// the cursor query parameter. A link that resolves to another origin than
// the base URL's (another scheme, host or port, a "//host" reference) is
// refused: the next request would carry the credentials there.
func (a *dcsaAdapter) nextURL(endpoint, next string) (string, error) {
	if u, err := url.Parse(next); err == nil && (u.IsAbs() || (len(next) > 0 && next[0] == '/')) {
		baseURL, _ := url.Parse(a.baseURL + "/")
		target := baseURL.ResolveReference(u)
		if origin(target) != origin(baseURL) {
			return "", fmt.Errorf("%w: Next-Page link to %s", ErrOtherOrigin, origin(target))
		}
		return target.String(), nil
	}
	return endpoint + "?" + url.Values{"cursor": {next}}.Encode(), nil
}

// countEvents counts the events of one page; ok is false for a body of the wrong shape.
func (a *dcsaAdapter) countEvents(body []byte) (int, bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return 0, true
	}
	var list []json.RawMessage
	// TNT 2.2 is an array, but some carriers wrap it as 1.2 and 3.0 do:
	// the normaliser reads either.
	if a.version == tnt3 || body[0] == '{' {
		var wrapper struct {
			Events *[]json.RawMessage `json:"events"`
		}
		if json.Unmarshal(body, &wrapper) != nil || wrapper.Events == nil {
			return 0, false
		}
		return len(*wrapper.Events), true
	}
	if json.Unmarshal(body, &list) != nil {
		return 0, false
	}
	return len(list), true
}
