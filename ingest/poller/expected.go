package poller

import (
	"time"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/schemas/dcsa"
)

// parsedPoll is a poll's pages as the parsers read them: the events of
// the pages that parsed and whether every page did; ok is false when no
// parser reads the result's format (or none is configured). A poll's pages
// are parsed once, for its expected events and for its journey facts.
type parsedPoll struct {
	events  []dcsa.Event
	all, ok bool
}

func (p *poller) parsePoll(res carrier.Result, trackingID, scac string, now time.Time) parsedPoll {
	parse := p.deps.Parsers[res.Format]
	if parse == nil {
		return parsedPoll{}
	}
	pp := parsedPoll{all: true, ok: true}
	env := normalize.Envelope{SCAC: scac, TrackingID: trackingID, ReceivedAt: now}
	for _, page := range res.Pages {
		res, err := parse(page, env)
		if err != nil || len(res.Refused) > 0 {
			pp.all = false // the normaliser dead-letters it; polling goes on as usual
		}
		pp.events = append(pp.events, res.Events...)
	}
	return pp
}

// nextAfterExpected brings a tracking's next poll forward when the carrier
// expects an event before the regular poll: estimated or planned events
// (EST, PLN) — an ETA, a planned departure — due after now and before
// regular. The poll comes ExpectedGrace after the earliest of them, so the
// actual event is picked up soon after it happens instead of up to an
// interval later, and never sooner than MinInterval after now. Without a
// parser for the result's format (or with none configured) it is regular.
// expected says an expected event brought it forward.
func (p *poller) nextAfterExpected(res carrier.Result, trackingID, scac string, now, regular time.Time) (next time.Time, expected bool) {
	return p.nextAfterEvents(p.parsePoll(res, trackingID, scac, now), now, regular)
}

func (p *poller) nextAfterEvents(pp parsedPoll, now, regular time.Time) (next time.Time, expected bool) {
	if !pp.ok {
		return regular, false
	}
	next = regular
	for _, ev := range pp.events {
		if at, ok := expectedAt(ev); ok && at.After(now) {
			if due := at.Add(p.cfg.ExpectedGrace); due.Before(next) {
				next = due
			}
		}
	}
	if floor := now.Add(p.cfg.MinInterval); next.Before(floor) {
		next = floor
	}
	return next, next.Before(regular)
}

// expectedAt is when an estimated or planned event is expected to happen.
func expectedAt(ev dcsa.Event) (time.Time, bool) {
	if ev.EventClassifierCode != "EST" && ev.EventClassifierCode != "PLN" {
		return time.Time{}, false
	}
	at, err := time.Parse(time.RFC3339, ev.EventDateTime)
	return at, err == nil
}
