package sandbox

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/tnt3"
)

// Render returns the journey of (scac, kind, value) at now as the carrier's
// API would serve it in one response (every page of a paginated format at
// once), with the carrier's source format: what tests of later stages feed
// the matching parser to get sandbox events of every format.
func Render(scac string, kind journey.Kind, value string, now time.Time) (carriers.Format, []byte, error) {
	c, ok := carriers.Lookup(scac)
	if !ok {
		return "", nil, fmt.Errorf("sandbox: render: unknown carrier %q", scac)
	}
	s := &server{}
	j := s.journey(c.SCAC, kind, value, now)
	var b []byte
	var err error
	switch c.Format {
	case carriers.FormatTNT22:
		b, err = json.Marshal(renderTNT22(j))
	case carriers.FormatTNT12:
		b, err = json.Marshal(map[string]any{"events": renderTNT12(j)})
	case carriers.FormatIFTSTA:
		b = RenderIFTSTA(j, now)
	case carriers.FormatCOSCO:
		b, err = json.Marshal(RenderCOSCO(j))
	case carriers.FormatTNT3:
		b, err = json.Marshal(tnt3.Events{Events: renderTNT3(j, SpecialOf(value))})
	default:
		return "", nil, fmt.Errorf("sandbox: render: no renderer for format %s", c.Format)
	}
	if err != nil {
		return "", nil, fmt.Errorf("sandbox: render %s: %w", scac, err)
	}
	return c.Format, b, nil
}

// Journey is the journey the sandbox serves for (scac, kind, value) at now,
// test numbers' forced features included.
func Journey(scac string, kind journey.Kind, value string, now time.Time) journey.Journey {
	return (&server{}).journey(scac, kind, value, now)
}
