// Package normalize turns every carrier source format into DCSA EVENT_DOMAIN
// 2.0.2 events. Each format has its own sub-package with a pure Parse
// function of the Parser shape; this package holds what they share.
package normalize

import (
	"errors"
	"fmt"
	"time"

	"github.com/contrack/contrack/schemas/dcsa"
)

// Envelope is what the pipeline knows about a raw payload besides its bytes.
type Envelope struct {
	// SCAC is the carrier the payload came from (the polled carrier, or the
	// carrier of the key that pushed it).
	SCAC string
	// TrackingID is the tracking the payload was polled for; empty for pushed events.
	TrackingID string
	// ReceivedAt is when contrack received the payload; parsers use it as
	// eventCreatedDateTime when the source gives none.
	ReceivedAt time.Time
}

// Parser turns one raw payload into DCSA 2.0.2 events. It never panics on any
// input: malformed input yields a *ParseError.
type Parser func(raw []byte, env Envelope) ([]dcsa.Event, error)

// ErrMalformed is wrapped by every ParseError, so callers can route any parse
// failure to the dead-letter topic with errors.Is.
var ErrMalformed = errors.New("normalize: malformed payload")

// ParseError says why a payload (or one element of it) could not be normalised.
type ParseError struct {
	Format string // e.g. "tnt22"
	Path   string // where in the payload, e.g. "[3].eventDateTime" or "segment 12 (DTM)"
	Reason string
}

func (e *ParseError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s: %s", e.Format, e.Reason)
	}
	return fmt.Sprintf("%s: %s: %s", e.Format, e.Path, e.Reason)
}

// Unwrap makes every ParseError match ErrMalformed.
func (e *ParseError) Unwrap() error { return ErrMalformed }
