package carrier

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"time"
)

// iftstaAdapter reads OOCL's EDI mailbox: GET <path>?containerNo|bookingNo|blNo=…
// with an apiKey header answers an EDIFACT IFTSTA interchange; 404 or an
// empty body means no data.
type iftstaAdapter struct {
	base
	path string
	auth authenticator
}

var iftstaParams = map[IdentifierKind]string{KindContainer: "containerNo", KindBooking: "bookingNo", KindBill: "blNo"}

func (a *iftstaAdapter) Fetch(ctx context.Context, creds Credentials, q Query) (Result, error) {
	if err := q.Validate(); err != nil {
		return Result{}, err
	}
	return a.fetch(ctx, creds, q)
}

func (a *iftstaAdapter) Probe(ctx context.Context, creds Credentials) Health {
	return health(a.fetch(ctx, creds, Query{Kind: KindContainer, Value: ProbeContainer}))
}

func (a *iftstaAdapter) fetch(ctx context.Context, creds Credentials, q Query) (Result, error) {
	start := time.Now()
	if f := a.missingField(creds); f != nil {
		return a.finish(start, f, nil, 0, 0)
	}
	target := a.baseURL + a.path + "?" + url.Values{iftstaParams[q.Kind]: {q.Value}}.Encode()
	resp, f := a.call(ctx, a.auth, creds, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodGet, target, nil)
		if err == nil {
			req.Header.Set("Accept", "application/edifact, text/plain")
		}
		return req, err
	})
	if f == nil && !isSuccess(resp.status) {
		f = responseFailure(resp, a.opts.clock())
	}
	if f != nil {
		return a.finish(start, f, nil, 0, 0)
	}
	body := bytes.TrimSpace(resp.body)
	if len(body) == 0 {
		return a.finish(start, nil, nil, 0, resp.status)
	}
	n, ok := CountSTS(body)
	if !ok {
		return a.finish(start, &failure{outcome: OutcomeError, code: resp.status, reason: "not an EDIFACT interchange"}, nil, 0, 0)
	}
	return a.finish(start, nil, [][]byte{resp.body}, n, resp.status)
}

// CountSTS counts the STS (status) segments of an EDIFACT interchange,
// honouring the UNA service string advice (separators and release
// character) when present. ok is false when data does not start with UNA or UNB.
func CountSTS(data []byte) (n int, ok bool) {
	// A UTF-8 byte-order mark before the interchange, as some EDI
	// translators write one, is read past (the parser does the same).
	data = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(data), []byte("\xef\xbb\xbf")))
	elemSep, release, segTerm := byte('+'), byte('?'), byte('\'')
	if bytes.HasPrefix(data, []byte("UNA")) {
		if len(data) < 9 {
			return 0, false
		}
		elemSep, release, segTerm = data[4], data[6], data[8]
		data = data[9:]
	} else if !bytes.HasPrefix(data, []byte("UNB")) {
		return 0, false
	}
	if release == ' ' {
		release = 0 // a space declares no release character
	}
	segStart := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case release:
			i++ // the next character is literal
		case segTerm:
			seg := bytes.TrimSpace(data[segStart:i])
			if bytes.HasPrefix(seg, []byte("STS")) && (len(seg) == 3 || seg[3] == elemSep) {
				n++
			}
			segStart = i + 1
		}
	}
	return n, true
}
