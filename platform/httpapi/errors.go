// Package httpapi is the HTTP plumbing every API stage shares: a fuego server
// whose every error is the spec's {"message": ...} body, the x-api-key check,
// usage-plan rate limits, the 1 MiB body cap and /healthz.
package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Error is an API error: a status and the spec's message, with dateOfRequest
// on the endpoints where the spec adds it.
type Error struct {
	Status        int
	Message       string
	DateOfRequest *time.Time
	// Header holds extra response headers (e.g. Retry-After).
	Header http.Header
	// Feedback, when set, is written beside message as "feedbackElements":
	// the error shape of DCSA Track & Trace 3.0, on answers to 3.0 requests.
	Feedback any
}

func (e *Error) Error() string { return e.Message }

// StatusCode lets fuego read the status.
func (e *Error) StatusCode() int { return e.Status }

// Body is the JSON error body.
type Body struct {
	Message       string `json:"message"`
	DateOfRequest *Time  `json:"dateOfRequest,omitempty"`
}

// BadRequest is a 400 with message.
func BadRequest(message string) *Error {
	return &Error{Status: http.StatusBadRequest, Message: message}
}

// NotFound is a 404 with message.
func NotFound(message string) *Error { return &Error{Status: http.StatusNotFound, Message: message} }

// Dated adds dateOfRequest (now, UTC) to e.
func (e *Error) Dated(now time.Time) *Error {
	t := now.UTC()
	e.DateOfRequest = &t
	return e
}

// Messages of the plumbing itself.
const (
	MsgForbidden       = "Forbidden"
	MsgTooManyRequests = "Too Many Requests"
	MsgTooLarge        = "Request body too large: the limit is 1 MiB"
	MsgNotFound        = "Not Found"
	MsgNotAllowed      = "Method Not Allowed"
	MsgInternal        = "Internal Server Error"
	MsgUnavailable     = "Service Unavailable"
)

// unavailableRetryAfter is the Retry-After of a 503: stores restart in
// seconds.
const unavailableRetryAfter = "5"

// storeUnavailable says err is a store (Postgres, ClickHouse) being out of
// reach or restarting, rather than a fault of ours: the client should try
// again shortly, and a 503 says so where a 500 would not.
func storeUnavailable(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// 08: connection exception; 57P01-57P03: shutting down, starting up.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}

// WriteError writes err as the spec's error body. Errors that are not *Error
// are logged and answered 500 with a generic message: internals never leak.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var e *Error
	if !errors.As(err, &e) {
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		if storeUnavailable(err) && r.Context().Err() == nil {
			e = &Error{Status: http.StatusServiceUnavailable, Message: MsgUnavailable,
				Header: http.Header{"Retry-After": {unavailableRetryAfter}}}
		} else {
			e = &Error{Status: http.StatusInternalServerError, Message: MsgInternal}
		}
	}
	for k, vs := range e.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	b := Body{Message: e.Message}
	if e.DateOfRequest != nil {
		t := Time(*e.DateOfRequest)
		b.DateOfRequest = &t
	}
	if e.Feedback != nil {
		WriteJSON(w, e.Status, struct {
			Body
			FeedbackElements any `json:"feedbackElements"`
		}{b, e.Feedback})
		return
	}
	WriteJSON(w, e.Status, b)
}

// WriteJSON writes v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"message":"` + MsgInternal + `"}`)
	}
	b = append(b, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if status != http.StatusNoContent && status != http.StatusNotModified {
		// Sent whole, not chunked, whatever its size.
		h.Set("Content-Length", strconv.Itoa(len(b)))
	}
	w.WriteHeader(status)
	_, _ = w.Write(b) // a client gone mid-answer: no one to tell
}

// Streamer is a handler's answer that may write itself to the response as
// it is read, so a listing of any size is never built in memory. StreamJSON
// returns false when the answer is to be encoded as usual instead. Once it
// has written the status it cannot report an error: it logs it and aborts
// the response (panic(http.ErrAbortHandler)), so the client sees a broken
// body, never a short one that parses.
type Streamer interface {
	StreamJSON(w http.ResponseWriter, r *http.Request) bool
}

// Time is a timestamp as the API shows it: RFC 3339 in UTC with milliseconds
// (e.g. 2026-03-04T05:06:07.123Z), the same width everywhere.
type Time time.Time

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format("2006-01-02T15:04:05.000Z07:00") + `"`), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(b []byte) error {
	var tt time.Time
	if err := tt.UnmarshalJSON(b); err != nil {
		return err
	}
	*t = Time(tt)
	return nil
}
