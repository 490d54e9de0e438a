package tnt3

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/reference"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/tnt3"
	"github.com/contrack/contrack/schemas/tnt3/tnt3test"
)

// FuzzParse: no input panics; every failure is a ParseError; anything
// accepted is valid JSON, and every event it yields (retractions aside,
// which carry only their id) meets the 2.0.2 structural contract; parsing
// is deterministic; a pushed body's verdict counts exactly the events
// ParsePushed yields, and Parse accepts a body only when nothing in it is
// refused.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(reference.Samples(), "tnt-300-*.json"))
	seeds = append(seeds, "testdata/mapping.input.json")
	for _, p := range seeds {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`{"events":[{"eventID":"a","isRetracted":true},{"eventID":"\ud83d\ude00\udc00"}]}`))
	f.Add([]byte(`{"events":[{"eventClassification":{"eventTypeCode":"TRANSPORT","eventClassifierCode":"EST","transportEventTypeCode":"ARRI"},"eventDateTime":"2026-01-01T00:00:00Z","transportDetails":{"transportCall":{"modeOfTransport":"MULTIMODAL"}}}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := Parse(raw, env)
		events := res.Events
		if err != nil {
			var pe *normalize.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, normalize.ErrMalformed) {
				t.Fatalf("error %T %v is not a ParseError", err, err)
			}
		} else {
			if !json.Valid(raw) {
				t.Fatalf("accepted invalid JSON %q", raw)
			}
			for i, e := range events {
				if e.Retracted {
					if e.EventID == "" || !reflect.DeepEqual(e, dcsa.Event{EventID: e.EventID, Retracted: true}) {
						t.Fatalf("retraction %d carries more than its id: %+v", i, e)
					}
					continue
				}
				if e.Terminal {
					if _, ok := dcsa.TerminalCodes[e.EquipmentEventTypeCode]; !ok || e.EventType != dcsa.EventTypeEquipment {
						t.Fatalf("terminal event %d with code %q", i, e.EquipmentEventTypeCode)
					}
					e.EquipmentEventTypeCode = "INSP" // held to 2.0.2 in every other respect
				}
				if e.TNT3 != nil {
					// A 3.0-only event: valid 3.0 as contrack emits it, and
					// held to 2.0.2 in the fields it shares with an
					// equipment event.
					if !dcsa.IsTNT3Only(e.EventType) {
						t.Fatalf("event %d of type %q has 3.0-only details", i, e.EventType)
					}
					out, _ := json.Marshal(tnt3.FromDCSA(e, env.SCAC, env.ReceivedAt))
					if err := tnt3test.Event(out); err != nil {
						t.Fatalf("3.0-only event %d is not valid 3.0: %v\ninput: %q", i, err, raw)
					}
					e.EventType, e.EquipmentEventTypeCode, e.TNT3 = dcsa.EventTypeEquipment, "INSP", nil
					if e.EmptyIndicatorCode == "" {
						e.EmptyIndicatorCode = "LADEN"
					}
				}
				if err := validate.Structural(e); err != nil {
					t.Fatalf("event %d breaks the 2.0.2 contract: %v\ninput: %q", i, err, raw)
				}
			}
			again, err := Parse(raw, env)
			if err != nil || !reflect.DeepEqual(res, again) {
				t.Fatalf("second parse differs: %v", err)
			}
		}
		v := Check(raw, env.SCAC, env.ReceivedAt)
		pushedRes, perr := ParsePushed(raw, env)
		pushed := pushedRes.Events
		switch {
		case v.Message != "":
			if perr == nil {
				t.Fatalf("Check refused the body (%s), ParsePushed accepted it", v.Message)
			}
		case perr != nil:
			t.Fatalf("Check accepted the body, ParsePushed: %v", perr)
		case v.Accepted != len(pushed):
			t.Fatalf("Check accepts %d events, ParsePushed yields %d", v.Accepted, len(pushed))
		case len(v.Feedback) != v.Refused+v.NotCarried:
			t.Fatalf("%d feedback elements for %d refused and %d not carried", len(v.Feedback), v.Refused, v.NotCarried)
		}
	})
}
