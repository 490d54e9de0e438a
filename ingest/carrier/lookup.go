package carrier

import (
	"context"
	"errors"
)

// Shipment lookup statuses, for carrier inference: does this carrier know
// the shipment? Only LookupFound means yes; the others say why not.
const (
	LookupFound        = "FOUND"     // the carrier answered with events
	LookupNotFound     = "NOT_FOUND" // a 404 or an empty answer
	LookupUnauthorized = "UNAUTHORIZED"
	LookupError        = "ERROR"       // any other carrier answer (5xx, 429, malformed)
	LookupUnreachable  = "UNREACHABLE" // nothing answered
	LookupTimeout      = "TIMEOUT"     // ctx ended first
)

// Lookup is one carrier's answer to LookupShipment.
type Lookup struct {
	Status string
	// HTTPCode is the status of the last response; 0 when nothing answered.
	HTTPCode int
}

// LookupShipment asks a carrier whether it knows q, with the same request a
// poll makes (Fetch). The caller bounds it with ctx: when ctx ends first the
// answer is LookupTimeout, never an error.
func LookupShipment(ctx context.Context, a Adapter, creds Credentials, q Query) Lookup {
	r, err := a.Fetch(ctx, creds, q)
	return LookupOf(ctx, r, err)
}

// LookupOf is the Lookup of a Fetch's answer (r, err) made with ctx.
func LookupOf(ctx context.Context, r Result, err error) Lookup {
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return Lookup{Status: LookupTimeout}
	case err != nil: // a bad query
		return Lookup{Status: LookupError}
	}
	switch r.Outcome {
	case OutcomeSuccess:
		return Lookup{Status: LookupFound, HTTPCode: r.HTTPCode}
	case OutcomeNoData:
		return Lookup{Status: LookupNotFound, HTTPCode: r.HTTPCode}
	case OutcomeUnauthorized:
		return Lookup{Status: LookupUnauthorized, HTTPCode: r.HTTPCode}
	case OutcomeUnreachable:
		if ctx.Err() != nil { // the client's timeout raced ctx's
			return Lookup{Status: LookupTimeout}
		}
		return Lookup{Status: LookupUnreachable}
	}
	return Lookup{Status: LookupError, HTTPCode: r.HTTPCode}
}
