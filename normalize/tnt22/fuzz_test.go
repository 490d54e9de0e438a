package tnt22

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/normalize/validate/validatetest"
	"github.com/contrack/contrack/schemas/dcsa"
)

// FuzzParse: no input panics; every failure is a ParseError; anything
// accepted is valid JSON (the lexer agrees with encoding/json) and every
// event it yields meets the 2.0.2 structural contract; parsing is
// deterministic.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.input.json")
	samples, _ := filepath.Glob(filepath.Join(validatetest.SamplesDir, "*.json"))
	for _, p := range append(seeds, samples...) {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`[{"eventType":"TRANSPORT","eventID":"\ud83d\ude00\udc00"}]`))
	env := normalize.Envelope{SCAC: "MAEU", TrackingID: "APZU4812090", ReceivedAt: receivedAt}
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := Parse(raw, env)
		checkOnly(t, raw, env, res, err)
		events := res.Events
		for _, r := range res.Refused {
			if !errors.Is(r, normalize.ErrMalformed) || r.Format != Format {
				t.Fatalf("refusal %v is not a ParseError of %s", r, Format)
			}
		}
		if err != nil {
			var pe *normalize.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, normalize.ErrMalformed) {
				t.Fatalf("error %T %v is not a ParseError", err, err)
			}
			return
		}
		if !json.Valid(raw) {
			t.Fatalf("accepted invalid JSON %q", raw)
		}
		for i, e := range events {
			if err := validate.Structural(e); err != nil {
				t.Fatalf("event %d breaks the 2.0.2 contract: %v\ninput: %q", i, err, raw)
			}
		}
		again, err := Parse(raw, env)
		if err != nil || !reflect.DeepEqual(res, again) {
			t.Fatalf("second parse differs: %v", err)
		}
	})
}

// checkOnly fails t unless parsing raw with CheckOnly gives the verdict
// events, err are, and the same events without their ids.
func checkOnly(t *testing.T, raw []byte, env normalize.Envelope, res normalize.Result, err error) {
	t.Helper()
	events := res.Events
	checkedRes, cerr := ParseWithOptions(raw, env, Options{CheckOnly: true})
	if (err == nil) != (cerr == nil) || (err != nil && err.Error() != cerr.Error()) {
		t.Fatalf("CheckOnly: error %v, without it %v; input %q", cerr, err, raw)
	}
	if !reflect.DeepEqual(checkedRes.Refused, res.Refused) || !reflect.DeepEqual(checkedRes.Repairs, res.Repairs) {
		t.Fatalf("CheckOnly: refusals or repairs differ; input %q", raw)
	}
	checked := checkedRes.Events
	want := make([]dcsa.Event, len(events))
	for i, e := range events {
		e.EventID = ""
		want[i] = e
	}
	if len(checked) != len(want) || (len(want) > 0 && !reflect.DeepEqual(checked, want)) {
		t.Fatalf("CheckOnly events differ beyond their ids; input %q", raw)
	}
	verdict, verr := ParseWithOptions(raw, env, Options{CheckOnly: true, VerdictOnly: true})
	if (err == nil) != (verr == nil) || (err != nil && err.Error() != verr.Error()) || verdict.Events != nil ||
		!reflect.DeepEqual(verdict.Refused, res.Refused) {
		t.Fatalf("VerdictOnly: error %v and %d events, without it %v; input %q", verr, len(verdict.Events), err, raw)
	}
}

// BenchmarkParse measures parse+map throughput in emitted events per second
// (the target is ≥100,000 per core: go test -bench . -benchtime 2s -cpu 1).
// dcsa-sample is DCSA's pretty-printed response (3 of its 7 elements are
// SHIPMENT events, parsed and dropped); journey is compact.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"dcsa-sample", "journey"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name+".input.json"))
		if err != nil {
			b.Fatal(err)
		}
		env := goldenEnvs[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				res, err := Parse(raw, env)
				if err != nil {
					b.Fatal(err)
				}
				n = len(res.Events)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
