// Package journeytest feeds sandbox journeys of every carrier format
// through the format's parser, as the normaliser would emit them: the
// events tests of the journey read model start from.
package journeytest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/contrack/contrack/ingest/sandbox"
	sj "github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/cosco"
	"github.com/contrack/contrack/normalize/iftsta"
	"github.com/contrack/contrack/normalize/tnt12"
	"github.com/contrack/contrack/normalize/tnt22"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// Parsers are the normaliser's parsers by source format.
var Parsers = map[carriers.Format]normalize.Parser{
	carriers.FormatTNT22:  tnt22.Parse,
	carriers.FormatTNT12:  tnt12.Parse,
	carriers.FormatIFTSTA: iftsta.Parse,
	carriers.FormatCOSCO:  cosco.Parse,
}

// Case is one sandbox journey.
type Case struct {
	SCAC  string
	Kind  sj.Kind
	Value string
}

// Cases are a container, a booking (three containers, two transshipments)
// and a bill journey of one carrier per source format.
func Cases() []Case {
	var cs []Case
	formats := map[carriers.Format]bool{}
	for _, c := range carriers.All() {
		if _, ok := Parsers[c.Format]; !ok || formats[c.Format] {
			continue
		}
		formats[c.Format] = true
		cs = append(cs,
			Case{c.SCAC, sj.KindContainer, sj.CompleteContainer(fmt.Sprintf("MSKU90703%d", len(cs)/3))},
			Case{c.SCAC, sj.KindBooking, "PAGU" + c.SCAC + "1"},
			Case{c.SCAC, sj.KindBill, c.SCAC + "77120"},
		)
	}
	return cs
}

// Polls are the times of one cycle of the journey around around (the
// sandbox repeats a number's journey with new event ids), every step of
// journey time from its booking to its end.
func (c Case) Polls(around time.Time, step time.Duration) []time.Time {
	j := sandbox.Journey(c.SCAC, c.Kind, c.Value, around)
	var out []time.Time
	for at := j.Booked; sandbox.Journey(c.SCAC, c.Kind, c.Value, at).Cycle == j.Cycle; at = at.Add(step) {
		out = append(out, at)
	}
	return out
}

// Poll is what the normaliser emits for one poll at at: the events whose
// content changed since the previous poll (seen, event id → hash, carries
// across polls).
func (c Case) Poll(accountID, trackingID string, at time.Time, seen map[string]string) ([]schemas.EventRecord, error) {
	format, raw, err := sandbox.Render(c.SCAC, c.Kind, c.Value, at)
	if err != nil {
		return nil, err
	}
	evs, err := normalize.Strict(Parsers[format](raw, normalize.Envelope{SCAC: c.SCAC, TrackingID: trackingID, ReceivedAt: at}))
	if err != nil {
		return nil, fmt.Errorf("%s %s: parse: %w", c.SCAC, c.Value, err)
	}
	var out []schemas.EventRecord
	for _, ev := range evs {
		body, _ := json.Marshal(ev)
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:8])
		if seen[ev.EventID] == hash {
			continue
		}
		seen[ev.EventID] = hash
		out = append(out, schemas.EventRecord{TrackingID: trackingID, AccountID: accountID, Env: "sandbox", SCAC: c.SCAC,
			EventID: ev.EventID, ContentHash: hash, Event: body, EmittedAt: at})
	}
	return out, nil
}
