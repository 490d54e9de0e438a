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
	// COSCO's published answers (code 0, "//" comments as its
	// documentation prints them) are handed on unchanged: the parser
	// reads that shape too.
	if n, ok := publishedEvents(resp.body); ok {
		if n < 0 {
			return a.finish(start, &failure{outcome: OutcomeError, code: resp.status, reason: "COSCO error code in the published shape"}, nil, 0, 0)
		}
		return a.finish(start, nil, [][]byte{resp.body}, n, resp.status)
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

// publishedEvents reads body as COSCO's published shape: ok when it is one
// (its code a number), with the count of container statuses and vessel
// legs it carries, or n < 0 for an error code.
func publishedEvents(raw []byte) (n int, ok bool) {
	body, _ := cosco.StripComments(raw)
	var r cosco.PublishedResponse
	if json.Unmarshal(body, &r) != nil || r.Code == "" {
		return 0, false
	}
	code, err := r.Code.Int64()
	if err != nil {
		return 0, false
	}
	if code != cosco.PublishedCodeOK {
		if r.Data == nil || code == http.StatusOK {
			return 0, false // a documented-shape code sent as a number
		}
		return -1, true
	}
	if r.Data == nil || r.Data.Content == nil {
		return 0, true
	}
	c := r.Data.Content
	for _, ctr := range c.Containers {
		n += len(ctr.CircleStatus) + len(ctr.Histories)
	}
	for _, g := range c.ContainerStatus {
		n += len(g.Containers)
	}
	return n + 2*len(c.ActualShipment), true
}
