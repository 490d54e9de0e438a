// Package tnt22 normalises DCSA Track & Trace 2.2 GET /events responses (a
// JSON array mixing shipment, transport and equipment events, described by
// EVENT_DOMAIN 1.0.4) to DCSA EVENT_DOMAIN 2.0.2 events.
//
// Policy, documented in docs/normalize.md:
//   - SHIPMENT events are checked (id, classifier, timestamps) and dropped:
//     contrack's public interface carries only equipment and transport
//     events, and a shipment event (a document status such as "B/L drafted")
//     has no equipment, place or vessel to project into a journey.
//   - One bad element fails the whole payload with a *normalize.ParseError
//     naming the first bad element's path, e.g. "[3].eventDateTime: …".
//     Partial ingest would hide data problems behind a plausible-looking
//     journey; the dead-letter record keeps the payload for a replay once
//     the carrier (or the parser) is fixed.
package tnt22

import (
	"fmt"
	"strings"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/schemas/dcsa"
)

// Format is the ParseError.Format of this parser.
const Format = "tnt22"

// Options adapt the parser to other producers of the same event shape,
// namely carriers pushing TNT 2.2 / 2.0.2 events to POST /events.
type Options struct {
	// Format names the source in ParseErrors; Format ("tnt22") when empty.
	Format string
	// SingleObject also accepts a bare event object instead of an array. Its
	// error paths then start at the field ("eventDateTime: …").
	SingleObject bool
	// Lenient fills what pushing carriers commonly leave out and the public
	// interface does not list: a missing eventCreatedDateTime is the time
	// contrack received the event; a missing transportCall.modeOfTransport
	// is VESSEL; a timestamp without a zone is UTC. The standard's other
	// requirements stay.
	Lenient bool
	// CheckOnly maps and checks every event as usual but leaves eventID
	// empty: deriving the ids (a SHA-1 each) buys a caller that only wants
	// the verdict nothing (POST /events checks a push before answering; the
	// normaliser parses it again with ids).
	CheckOnly bool
	// VerdictOnly, with CheckOnly, keeps no events: the result is nil or
	// the error, as CheckOnly's would be, without the slice of events a
	// caller that only wants the verdict would drop at once.
	VerdictOnly bool
}

// Parse is a normalize.Parser for TNT 2.2 GET /events responses. An empty
// array is no events and no error.
//
// Envelope use: SCAC seeds every id and is emitted as carrierCode;
// TrackingID picks equipmentReference among a transport event's EQ
// references; ReceivedAt bounds eventCreatedDateTime (see
// validate.EventTimes) and may be zero to skip that check.
func Parse(raw []byte, env normalize.Envelope) ([]dcsa.Event, error) {
	return ParseWithOptions(raw, env, Options{})
}

// ParseWithOptions is Parse with Options.
func ParseWithOptions(raw []byte, env normalize.Envelope, opt Options) ([]dcsa.Event, error) {
	if opt.Format == "" {
		opt.Format = Format
	}
	events, err := parse(raw, env, opt)
	if err != nil {
		pe := &normalize.ParseError{Format: opt.Format, Reason: err.Error()}
		if p, ok := err.(*pathError); ok {
			pe.Path, pe.Reason = p.path, p.reason
		}
		if opt.VerdictOnly {
			// Read in place: the error's strings may alias raw.
			pe.Path, pe.Reason = strings.Clone(pe.Path), strings.Clone(pe.Reason)
		}
		return nil, pe
	}
	return events, nil
}

func parse(raw []byte, env normalize.Envelope, opt Options) ([]dcsa.Event, error) {
	var l *lexer
	if opt.VerdictOnly {
		l = newLexerInPlace(raw) // nothing of raw is kept
	} else {
		l = newLexer(raw)
	}
	m := &mapper{env: env, lenient: opt.Lenient, noIDs: opt.CheckOnly}
	switch c := l.peek(); {
	case c == '{' && opt.SingleObject:
		var s srcEvent
		if err := l.event(&s); err != nil {
			return nil, err
		}
		if err := l.end(); err != nil {
			return nil, err
		}
		ev, _, emit, err := m.mapEvent(&s)
		if err != nil || !emit || opt.VerdictOnly {
			return nil, err
		}
		return []dcsa.Event{ev}, nil
	case c == 0 && l.pos == len(raw):
		return nil, fail("empty payload: expected a JSON array of events")
	case c != '[':
		if err := l.skip(); err != nil {
			return nil, err
		}
		return nil, fail("expected a JSON array of events, got " + kind(c))
	}
	if _, err := l.openArray(); err != nil {
		return nil, err
	}
	// Events are ~1 KiB each in the wild; size the result once.
	var events []dcsa.Event
	if !opt.VerdictOnly {
		events = make([]dcsa.Event, 0, len(raw)/1024+1)
	}
	var seen map[string]int // source eventID → element index
	// One source event for every element: each escapes to the heap, and
	// what mapEvent keeps of it is copied or points elsewhere.
	var s srcEvent
	for i := 0; ; i++ {
		more, err := l.elem(i)
		if err != nil {
			return nil, at(index(i), err)
		}
		if !more {
			break
		}
		s = srcEvent{}
		if err := l.event(&s); err != nil {
			return nil, at(index(i), err)
		}
		ev, id, emit, err := m.mapEvent(&s)
		if err != nil {
			return nil, at(index(i), err)
		}
		if id != "" {
			if seen == nil {
				seen = make(map[string]int)
			}
			if first, dup := seen[id]; dup {
				// Two elements claiming one id would collapse into one
				// event downstream, silently losing one of them.
				return nil, at(index(i), at("eventID", fail(fmt.Sprintf("%s repeats the eventID of element [%d]", id, first))))
			}
			seen[id] = i
		}
		if emit && !opt.VerdictOnly {
			events = append(events, ev)
		}
	}
	if err := l.end(); err != nil {
		return nil, err
	}
	return events, nil
}
