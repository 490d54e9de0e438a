package poller

import (
	"os"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/tnt22"
	"github.com/contrack/contrack/schemas/carriers"
)

// A tracking is polled ExpectedGrace after an estimated or planned event
// due before its regular poll, never sooner than MinInterval from now, and
// on its regular schedule otherwise. The page is a TNT 2.2 journey whose
// EST arrival is 2024-07-20T03:00Z and PLN event 2024-07-21T08:00Z.
func TestPollSoonAfterExpectedEvents(t *testing.T) {
	page, err := os.ReadFile("../../normalize/tnt22/testdata/journey.input.json")
	if err != nil {
		t.Fatal(err)
	}
	p := &poller{
		cfg:  Config{ExpectedGrace: 2 * time.Minute, MinInterval: 10 * time.Minute}.WithDefaults(),
		deps: Deps{Parsers: map[carriers.Format]normalize.Parser{carriers.FormatTNT22: tnt22.Parse}},
	}
	res := carrier.Result{Outcome: carrier.OutcomeSuccess, Format: carriers.FormatTNT22, Pages: [][]byte{page}}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cases := []struct {
		name               string
		now, regular, want string
	}{
		{"EST before the regular poll", "2024-07-20T00:00:00Z", "2024-07-20T06:00:00Z", "2024-07-20T03:02:00Z"},
		{"EST after the regular poll", "2024-07-20T00:00:00Z", "2024-07-20T00:15:00Z", "2024-07-20T00:15:00Z"},
		{"EST passed, PLN before the regular poll", "2024-07-20T03:30:00Z", "2024-07-22T00:00:00Z", "2024-07-21T08:02:00Z"},
		{"EST passed, PLN after the regular poll", "2024-07-20T03:30:00Z", "2024-07-20T03:45:00Z", "2024-07-20T03:45:00Z"},
		{"no sooner than MinInterval", "2024-07-20T02:59:00Z", "2024-07-20T06:00:00Z", "2024-07-20T03:09:00Z"},
		{"everything in the past", "2024-08-01T00:00:00Z", "2024-08-01T00:15:00Z", "2024-08-01T00:15:00Z"},
	}
	for _, c := range cases {
		got, expected := p.nextAfterExpected(res, "trk", "MAEU", at(c.now), at(c.regular))
		if !got.Equal(at(c.want)) {
			t.Errorf("%s: next poll %s, want %s", c.name, got.UTC().Format(time.RFC3339), c.want)
		}
		// An expected-event poll keeps its priority in the schedule.
		if want := c.want != c.regular; expected != want {
			t.Errorf("%s: expected-event poll %v, want %v", c.name, expected, want)
		}
	}
	// No parser for the format (or none configured): the regular poll.
	res.Format = carriers.FormatIFTSTA
	if got, expected := p.nextAfterExpected(res, "trk", "MAEU", at("2024-07-20T00:00:00Z"), at("2024-07-20T06:00:00Z")); !got.Equal(at("2024-07-20T06:00:00Z")) || expected {
		t.Errorf("without a parser: %s", got)
	}
}
