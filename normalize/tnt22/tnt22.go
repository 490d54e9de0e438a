// Package tnt22 normalises DCSA Track & Trace 2.2 GET /events responses (a
// JSON array mixing shipment, transport and equipment events, described by
// EVENT_DOMAIN 1.0.4) to DCSA EVENT_DOMAIN 2.0.2 events.
//
// Policy, documented in docs/normalize.md:
//   - SHIPMENT events are checked (id, classifier, timestamps) and dropped:
//     contrack's public interface carries only equipment and transport
//     events, and a shipment event (a document status such as "B/L drafted")
//     has no equipment, place or vessel to project into a journey.
//   - An element that cannot be read is refused on its own, with its path
//     ("[3].eventDateTime: …"); the others come out. Deviations real
//     carriers make are repaired and reported (normalize.Repair).
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
	// Admit, if set, judges each element's JSON before it is decoded: a
	// non-empty answer refuses the element with that reason (the pushed
	// format's interface rules).
	Admit func(elem []byte) (reason string)
}

// Parse is a normalize.Parser for TNT 2.2 GET /events responses: the
// standard's JSON array, or the same array inside {"events": [...]}. An
// empty array is no events and no error. An element that cannot be read is
// refused with its path (Result.Refused) and the others still come out.
//
// Envelope use: SCAC seeds every id and is emitted as carrierCode;
// TrackingID picks equipmentReference among a transport event's EQ
// references; ReceivedAt bounds eventCreatedDateTime (see
// validate.EventTimes) and may be zero to skip that check.
func Parse(raw []byte, env normalize.Envelope) (normalize.Result, error) {
	return ParseWithOptions(raw, env, Options{})
}

// ParseWithOptions is Parse with Options.
func ParseWithOptions(raw []byte, env normalize.Envelope, opt Options) (normalize.Result, error) {
	if opt.Format == "" {
		opt.Format = Format
	}
	p := payload{opt: opt, m: mapper{env: env, lenient: opt.Lenient, noIDs: opt.CheckOnly}}
	if opt.VerdictOnly {
		p.l = newLexerInPlace(raw) // nothing of raw is kept
	} else {
		p.l = newLexer(raw)
	}
	if err := p.read(len(raw)); err != nil {
		pe := p.parseError(-1, err)
		if opt.VerdictOnly {
			pe.Path, pe.Reason = strings.Clone(pe.Path), strings.Clone(pe.Reason)
		}
		return normalize.Result{}, pe
	}
	if opt.VerdictOnly {
		// Read in place: the strings may alias raw.
		for _, r := range p.res.Refused {
			r.Path, r.Reason = strings.Clone(r.Path), strings.Clone(r.Reason)
		}
		for i := range p.res.Repairs {
			r := &p.res.Repairs[i]
			r.Path, r.Value = strings.Clone(r.Path), strings.Clone(r.Value)
		}
	}
	return p.res, nil
}

// payload is the reading of one payload.
type payload struct {
	opt Options
	l   *lexer
	m   mapper
	res normalize.Result
	// seen maps a source eventID to the index of its element.
	seen map[string]int
}

func (p *payload) parseError(i int, err error) *normalize.ParseError {
	pe := &normalize.ParseError{Format: p.opt.Format, Element: max(i, 0), Reason: err.Error()}
	if e, ok := err.(*pathError); ok {
		pe.Path, pe.Reason = e.path, e.reason
	}
	return pe
}

// read reads the payload: an array of events, one event (SingleObject), or
// an {"events": [...]} envelope. An error is a payload that cannot be read
// at all; each element's own faults are refusals.
func (p *payload) read(size int) error {
	l := p.l
	switch c := l.peek(); {
	case c == '{' && p.envelope():
		p.res.Repairs = append(p.res.Repairs, normalize.Repair{Kind: normalize.RepairEventsEnvelope, Path: "events"})
		if _, err := l.openObject(); err != nil {
			return err
		}
		found := false
		if err := l.members(func(k string) (*string, func() error) {
			if k != "events" {
				return nil, nil
			}
			found = true
			return nil, func() error { return p.elements("events", size) }
		}); err != nil {
			return err
		}
		if !found {
			return fail("expected a JSON array of events or {\"events\": [...]}")
		}
	case c == '{' && p.opt.SingleObject:
		if err := p.element(-1, ""); err != nil {
			return err
		}
	case c == 0 && l.pos == len(l.data):
		return fail("empty payload: expected a JSON array of events")
	case c != '[':
		if err := l.skip(); err != nil {
			return err
		}
		return fail("expected a JSON array of events, got " + kind(c))
	default:
		if err := p.elements("", size); err != nil {
			return err
		}
	}
	return l.end()
}

// envelope says whether the object that starts here is {"events": [...]}
// (an events array member, and no eventType of its own) rather than an
// event: one scan of its top-level members, the lexer left where it was.
func (p *payload) envelope() bool {
	l := *p.l
	l.path, l.repairs = nil, nil
	if ok, err := l.openObject(); !ok || err != nil {
		return false
	}
	events := false
	for i := 0; ; i++ {
		k, more, err := l.key(i)
		if err != nil || !more {
			return events
		}
		switch strings.ToLower(k) {
		case "eventtype":
			return false
		case "events":
			events = l.peek() == '['
		}
		if l.skip() != nil {
			return false
		}
	}
}

// elements reads an open-to-be array of events; prefix is the path of the
// array ("" for a top-level one).
func (p *payload) elements(prefix string, size int) error {
	l := p.l
	if _, err := l.openArray(); err != nil {
		return err
	}
	// Events are ~1 KiB each in the wild; size the result once.
	if !p.opt.VerdictOnly && p.res.Events == nil {
		p.res.Events = make([]dcsa.Event, 0, size/1024+1)
	}
	for i := 0; ; i++ {
		more, err := l.elem(i)
		if err != nil {
			return at(prefix+index(i), err)
		}
		if !more {
			return nil
		}
		if err := p.element(i, prefix); err != nil {
			return err
		}
	}
}

// element reads one event (element i of the array at prefix; i < 0: the
// payload is the event). Its faults are refusals; an error is JSON that
// cannot be read on.
func (p *payload) element(i int, prefix string) error {
	l, m := p.l, &p.m
	path := ""
	if i >= 0 {
		path = prefix + index(i)
	}
	l.peek()
	if p.opt.Admit != nil {
		start := l.pos
		if err := l.skip(); err != nil {
			return p.below(path, err)
		}
		if reason := p.opt.Admit(l.data[start:l.pos]); reason != "" {
			p.res.Refused = append(p.res.Refused, &normalize.ParseError{Format: p.opt.Format, Element: max(i, 0), Path: path, Reason: reason})
			return nil
		}
		l.pos = start
	}
	// Repairs and their paths are the element's own while it is read.
	start, depth, outer := l.pos, l.depth, l.path
	l.path, l.repairs, m.repairs = outer[len(outer):], l.repairs[:0], m.repairs[:0]
	defer func() { l.path = outer }()
	// One source event for every element: it escapes to the heap, and
	// what mapEvent keeps of it is copied or points elsewhere.
	var s srcEvent
	if err := l.event(&s); err != nil {
		// Skip what is left of the element from its start: the payload
		// reads on if it is JSON at all.
		l.pos, l.depth = start, depth
		if serr := l.skip(); serr != nil {
			return p.below(path, err)
		}
		p.refuse(i, path, err)
		return nil
	}
	ev, id, emit, err := m.mapEvent(&s)
	if err == nil && id != "" {
		if p.seen == nil {
			p.seen = make(map[string]int)
		}
		if first, dup := p.seen[id]; dup {
			// Two elements claiming one id would collapse into one event
			// downstream, silently losing one of them.
			err = at("eventID", fail(fmt.Sprintf("%s repeats the eventID of element [%d]", clip(id), first)))
		} else {
			p.seen[id] = i
		}
	}
	if err != nil {
		p.refuse(i, path, err)
		return nil
	}
	for _, rs := range [...][]normalize.Repair{l.repairs, m.repairs} {
		for _, r := range rs {
			r.Path = join(path, r.Path)
			p.res.Repairs = append(p.res.Repairs, r)
		}
	}
	switch {
	case !emit:
		p.res.Repairs = append(p.res.Repairs, normalize.Repair{Kind: normalize.RepairNotCarriedLeftOut, Path: path, Value: shipmentLeftOut})
	case !p.opt.VerdictOnly:
		p.res.Events = append(p.res.Events, ev)
	}
	return nil
}

// shipmentLeftOut is the repair log's word for a SHIPMENT event, checked
// and left out.
const shipmentLeftOut = "SHIPMENT events have no EVENT_DOMAIN 2.0.2 form; contrack forwards EQUIPMENT and TRANSPORT events"

func (p *payload) refuse(i int, path string, err error) {
	p.res.Refused = append(p.res.Refused, p.parseError(i, p.below(path, err)))
}

// below puts err's path below the element's ("" for a single object).
func (p *payload) below(path string, err error) error {
	if path == "" {
		return err
	}
	return at(path, err)
}

// join is path a, then b below it.
func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}
