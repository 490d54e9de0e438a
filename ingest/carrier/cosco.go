package carrier

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/contrack/contrack/schemas/cosco"
)

// coscoAdapter calls COSCO's cargo tracking API: GET <path>?trackingType=
// CONTAINER|BOOKING|BL&trackingNo=…, HMAC-signed; the answer is a
// cosco.Response whose code mirrors the HTTP status.
type coscoAdapter struct {
	base
	path string
	auth authenticator
}

var coscoTypes = map[IdentifierKind]string{KindContainer: cosco.TrackingContainer, KindBooking: cosco.TrackingBooking, KindBill: cosco.TrackingBill}

func (a *coscoAdapter) Fetch(ctx context.Context, creds Credentials, q Query) (Result, error) {
	if err := q.Validate(); err != nil {
		return Result{}, err
	}
	return a.fetch(ctx, creds, q)
}

func (a *coscoAdapter) Probe(ctx context.Context, creds Credentials) Health {
	return health(a.fetch(ctx, creds, Query{Kind: KindContainer, Value: ProbeContainer}))
}

func (a *coscoAdapter) fetch(ctx context.Context, creds Credentials, q Query) (Result, error) {
	start := time.Now()
	if f := a.missingField(creds); f != nil {
		return a.finish(start, f, nil, 0, 0)
	}
	target := a.baseURL + a.path + "?" + url.Values{"trackingType": {coscoTypes[q.Kind]}, "trackingNo": {q.Value}}.Encode()
	resp, f := a.call(ctx, a.auth, creds, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodGet, target, nil)
		if err == nil {
			req.Header.Set("Accept", "application/json")
		}
		return req, err
	})
	if f == nil && !isSuccess(resp.status) {
		f = responseFailure(resp, a.opts.clock())
	}
	if f != nil {
		return a.finish(start, f, nil, 0, 0)
	}
	var body cosco.Response
	if err := json.Unmarshal(resp.body, &body); err != nil {
		return a.finish(start, &failure{outcome: OutcomeError, code: resp.status, reason: "malformed COSCO body"}, nil, 0, 0)
	}
	// COSCO sometimes reports failures with HTTP 200 and an error code.
	if body.Code != cosco.CodeOK {
		status, err := strconv.Atoi(body.Code)
		if err != nil {
			status = http.StatusInternalServerError
		}
		f := statusFailure(status)
		f.code = resp.status
		f.reason = "COSCO code " + body.Code + ": " + f.reason
		return a.finish(start, f, nil, 0, 0)
	}
	n := 0
	if body.Data != nil {
		for _, c := range body.Data.Content.Containers {
			n += len(c.Events)
		}
	}
	return a.finish(start, nil, [][]byte{resp.body}, n, resp.status)
}
