// Package tnt3test holds every 3.0 document contrack emits to the
// published standard: reference/dcsa/TNT_v3.0.0.yaml, loaded and checked
// by kin-openapi (an OpenAPI 3 validator, pinned in go.mod), never by
// contrack's own mapping code. Each function validates one kind of message
// exactly as it travels: status, headers and body.
package tnt3test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/contrack/contrack/reference"
)

var (
	once   sync.Once
	doc    *openapi3.T
	router routers.Router
	err    error
)

// load reads and validates the published document once per test binary.
func load() (*openapi3.T, routers.Router, error) {
	once.Do(func() {
		l := openapi3.NewLoader()
		if doc, err = l.LoadFromFile(reference.TNT3()); err != nil {
			err = fmt.Errorf("tnt3test: load %s: %w", reference.TNT3(), err)
			return
		}
		// Its one example of the eventTypes parameter is the serialised
		// query string ("EQUIPMENT,IOT,REEFER"), not the array value an
		// example must be: examples are not checked, everything else is.
		if err = doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
			err = fmt.Errorf("tnt3test: the published document does not validate: %w", err)
			return
		}
		// The document has no servers: routes match on the path alone.
		doc.Servers = openapi3.Servers{{URL: "/"}}
		router, err = legacy.NewRouter(doc, openapi3.DisableExamplesValidation())
	})
	return doc, router, err
}

// options assert formats (date-time) and fail on a status the document
// does not define.
func options() *openapi3filter.Options {
	return &openapi3filter.Options{
		IncludeResponseStatus: true,
		MultiError:            true,
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
	}
}

func route(method, path string) (*routers.Route, map[string]string, *http.Request, error) {
	_, r, err := load()
	if err != nil {
		return nil, nil, nil, err
	}
	u, _ := url.Parse(path)
	req := &http.Request{Method: method, URL: u, Header: http.Header{}}
	rt, params, err := r.FindRoute(req)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("tnt3test: route %s %s: %w", method, path, err)
	}
	return rt, params, req, nil
}

// GetEventsResponse checks an answer to GET /events (query is the
// request's query string, which is validated too: a producer must accept
// what it was asked).
func GetEventsResponse(query string, status int, header http.Header, body []byte) error {
	path := "/events"
	if query != "" {
		path += "?" + query
	}
	rt, params, req, err := route(http.MethodGet, path)
	if err != nil {
		return err
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: rt, Options: options()}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		return fmt.Errorf("tnt3test: GET /events request: %w", err)
	}
	return response(in, status, header, body)
}

// PostEventsRequest checks a POST /events request, as contrack sends it
// to a 3.0 webhook (body and headers).
func PostEventsRequest(header http.Header, body []byte) error {
	rt, params, req, err := route(http.MethodPost, "/events")
	if err != nil {
		return err
	}
	req.Header = header.Clone()
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: rt, Options: options()}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		return fmt.Errorf("tnt3test: POST /events request: %w", err)
	}
	return nil
}

// PostEventsResponse checks contrack's answer to a carrier's 3.0 POST
// /events (requestBody is what the carrier sent).
func PostEventsResponse(requestBody []byte, status int, header http.Header, body []byte) error {
	rt, params, req, err := route(http.MethodPost, "/events")
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Body = io.NopCloser(bytes.NewReader(requestBody))
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: rt, Options: options()}
	return response(in, status, header, body)
}

func response(in *openapi3filter.RequestValidationInput, status int, header http.Header, body []byte) error {
	h := header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if ct := h.Get("Content-Type"); ct == "" || strings.HasPrefix(ct, "application/json") {
		h.Set("Content-Type", "application/json")
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: h, Options: options()}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		return fmt.Errorf("tnt3test: %s %s answer %d: %w", in.Request.Method, in.Request.URL.Path, status, err)
	}
	return nil
}

// Event checks one event against the Event schema.
func Event(raw []byte) error {
	d, _, err := load()
	if err != nil {
		return err
	}
	v, err := decode(raw)
	if err != nil {
		return err
	}
	if err := d.Components.Schemas["Event"].Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
		return fmt.Errorf("tnt3test: event: %w", err)
	}
	return nil
}

// Schema checks raw against the named component schema (e.g.
// "PostEventsRequest").
func Schema(name string, raw []byte) error {
	d, _, err := load()
	if err != nil {
		return err
	}
	s := d.Components.Schemas[name]
	if s == nil {
		return fmt.Errorf("tnt3test: no schema %q", name)
	}
	v, err := decode(raw)
	if err != nil {
		return err
	}
	if err := s.Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
		return fmt.Errorf("tnt3test: %s: %w", name, err)
	}
	return nil
}

func decode(raw []byte) (any, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("tnt3test: not JSON: %w", err)
	}
	return v, nil
}

// Must fails tb with err.
func Must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
