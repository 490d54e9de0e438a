package cosco

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/validate"
)

// FuzzParse: no input panics; an error is always a ParseError; every event of
// a successful parse meets validate.Structural and has an id.
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 60s ./normalize/cosco/
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add(response(`{"eventId":"x","eventCode":"VAD","eventTime":"2026-03-01 14:20:00","timeZone":"+01:00","eventStatus":"E","transportMode":"BARGE","vesselImo":"9783502","location":{"unlocode":"NLRTM","latitude":"51.9","longitude":"4.1"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := Parse(raw, testEnv)
		events := res.Events
		for _, r := range res.Refused {
			if !errors.Is(r, normalize.ErrMalformed) {
				t.Fatalf("refusal %v is not a ParseError", r)
			}
		}
		if err != nil {
			var pe *normalize.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, normalize.ErrMalformed) {
				t.Fatalf("error %T %v is not a ParseError", err, err)
			}
			if events != nil {
				t.Fatal("events returned with an error")
			}
			return
		}
		for i, e := range events {
			if err := validate.Structural(e); err != nil {
				t.Fatalf("event %d: %v", i, err)
			}
			if e.EventID == "" || e.EventCreatedDateTime == "" || e.EventType == "" || e.EventClassifierCode == "" || e.EventDateTime == "" {
				t.Fatalf("event %d lacks a required field: %+v", i, e)
			}
		}
	})
}
