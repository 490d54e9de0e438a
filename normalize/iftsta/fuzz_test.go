package iftsta

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/validate"
)

// FuzzParse: no input panics; an error is always a ParseError; every event of
// a successful parse has the fields DCSA 2.0.2 requires, valid codes and
// lengths (validate.Structural) and an id.
//
//	go test -fuzz FuzzParse -fuzztime 60s ./normalize/iftsta/
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.edi")
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add(oneStatus("VA", "TDT+20+1W+1+++++9321483:146", "LOC+11+NLRTM:139:6", "DTM+132:202604100000:203"))
	f.Add(msg("EQD+CN+ABCU1234560+45G1+2+2+5", "STS+1+UV", "STS+1+OA", "DTM+7:202603100000:203", "DTM+ZZZ:+0100:406"))
	f.Add([]byte("UNA:+.? 'UNH+1+IFTSTA'"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		events, err := normalize.Strict(Parse(raw, testEnv))
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
