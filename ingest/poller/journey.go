package poller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/contrack/contrack/schemas/dcsa"
)

// journeyFacts reads two facts about a tracking from a poll, for the
// subscription lifecycle (commandapi/lifecycle) to act on:
//
//   - trackings.events_changed_at: when a poll last saw a new or changed
//     event (a new eventID, or a known one with another classifier or time),
//     set at the first successful poll too, so "no new event for a while"
//     counts from there. It returns the events' fingerprint when it differs
//     from the stored one (c.fingerprint), "" otherwise; the poll's finish
//     writes it and the time in the same statement as the next due time.
//   - trackings.journey_ended_at: when the journey a poll sees ended
//     (journeyEnded: the last container's empty return, as the carrier
//     dates it), written here when later than the one recorded. The
//     lifecycle closes only the subscriptions made before that time: a
//     journey that had ended before someone subscribed does not close the
//     subscription, which waits for the number's next journey.
//
// Without a parser for the result's format, or with a page it cannot
// read, nothing is recorded.
func (p *poller) journeyFacts(ctx context.Context, log *slog.Logger, c claim, pp parsedPoll) string {
	if !pp.ok || !pp.all {
		return "" // no facts from a page we cannot read (the normaliser dead-letters it)
	}
	if c.since != nil && len(pp.events) == 0 {
		return "" // a connector asked only for what is new: nothing changed
	}
	events := pp.events
	changed := ""
	if fp := fingerprint(events); fp != c.fingerprint {
		changed = fp
	}
	if c.since != nil {
		// Only what changed since the last poll: another container's
		// missing discharge or return may simply not be in it.
		return changed
	}
	ended, ok := journeyEnded(events)
	if !ok {
		return changed
	}
	tag, err := p.deps.Pool.Exec(ctx, `UPDATE trackings SET journey_ended_at = $2
		WHERE id = $1 AND (journey_ended_at IS NULL OR journey_ended_at < $2)`, c.id, ended)
	if err != nil {
		if ctx.Err() == nil {
			log.Error("record journey end", "err", err)
		}
		return changed
	}
	if tag.RowsAffected() > 0 {
		log.Info("journey ended: empty container returned")
	}
	return changed
}

// fingerprint identifies a set of events by what a consumer would see
// change: ids, classifiers and times.
func fingerprint(events []dcsa.Event) string {
	lines := make([]string, 0, len(events))
	for _, ev := range events {
		lines = append(lines, strings.Join([]string{ev.EventID, ev.EventClassifierCode, ev.EventDateTime,
			ev.EquipmentEventTypeCode, ev.TransportEventTypeCode, ev.EmptyIndicatorCode}, "|"))
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// journeyEnded reports whether every container of a shipment has been
// returned empty after its last discharge, and when the last of them was, in DCSA 2.0.2 terms: for each
// equipmentReference with an actual (ACT) EQUIPMENT event, there is an
// actual DISC, and after the latest actual DISC an actual GTIN (gate in) or
// DROP with emptyIndicatorCode EMPTY — the empty return to the depot that
// closes an import (IFTSTA "RD" and COSCO "ERT" map to this GTIN EMPTY).
// The empty pick-up before loading (GTOT EMPTY) precedes any discharge and
// so never counts; a new cycle of the same number starts without a
// discharge and is not ended. Estimated and planned events never count.
func journeyEnded(events []dcsa.Event) (time.Time, bool) {
	type state struct{ lastDisc, lastEmptyIn time.Time }
	byContainer := map[string]*state{}
	for _, ev := range events {
		if ev.EventType != dcsa.EventTypeEquipment || ev.EventClassifierCode != "ACT" || ev.EquipmentReference == "" {
			continue
		}
		at, err := time.Parse(time.RFC3339, ev.EventDateTime)
		if err != nil {
			continue
		}
		st := byContainer[ev.EquipmentReference]
		if st == nil {
			st = &state{}
			byContainer[ev.EquipmentReference] = st
		}
		switch {
		case ev.EquipmentEventTypeCode == "DISC":
			if at.After(st.lastDisc) {
				st.lastDisc = at
			}
		case (ev.EquipmentEventTypeCode == "GTIN" || ev.EquipmentEventTypeCode == "DROP") && ev.EmptyIndicatorCode == "EMPTY":
			if at.After(st.lastEmptyIn) {
				st.lastEmptyIn = at
			}
		}
	}
	if len(byContainer) == 0 {
		return time.Time{}, false
	}
	var last time.Time
	for _, st := range byContainer {
		if st.lastDisc.IsZero() || !st.lastEmptyIn.After(st.lastDisc) {
			return time.Time{}, false
		}
		if st.lastEmptyIn.After(last) {
			last = st.lastEmptyIn
		}
	}
	return last, true
}
