// Package validatetest holds what every parser's tests share: the schema
// validator loaded from the repository's reference directory, and golden
// file comparison with an -update flag.
package validatetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/reference"
	"github.com/contrack/contrack/schemas/dcsa"
)

// RefDir is the repository's copy of the DCSA documents (package reference).
var RefDir = reference.DCSA()

// SamplesDir holds the real TNT 2.2 responses, good and deliberately broken.
var SamplesDir = reference.Samples()

var (
	once      sync.Once
	validator *validate.Validator
	loadErr   error
)

// Validator returns the EVENT_DOMAIN 2.0.2 validator, compiled once per test
// binary. It fails the test when the reference files are missing.
func Validator(tb testing.TB) *validate.Validator {
	tb.Helper()
	once.Do(func() { validator, loadErr = validate.New(RefDir) })
	if loadErr != nil {
		tb.Fatalf("load DCSA 2.0.2 schemas from %s: %v", RefDir, loadErr)
	}
	return validator
}

// ValidateAll checks every event against both the schema and
// validate.Structural, naming the event on failure.
func ValidateAll(tb testing.TB, events []dcsa.Event) {
	tb.Helper()
	v := Validator(tb)
	for i, e := range events {
		if err := v.Validate(e); err != nil {
			tb.Errorf("event %d (%s) is not valid DCSA 2.0.2: %v", i, e.EventID, err)
		}
		if err := validate.Structural(e); err != nil {
			tb.Errorf("event %d (%s) fails Structural: %v", i, e.EventID, err)
		}
	}
}

// Golden compares got with the file at path, rewriting the file instead
// when update is set. got is indented JSON of v.
func Golden(tb testing.TB, path string, v any, update bool) {
	tb.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	got = append(got, '\n')
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		tb.Errorf("%s differs from the parser's output (rerun with -update if the change is intended):\n%s", path, diff(want, got))
	}
}

// diff shows the first differing line with a little context; enough to see
// what moved without a diff dependency.
func diff(want, got []byte) string {
	wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + string(w) + "\n  got:  " + string(g)
		}
	}
	return "(no line differs)"
}

// EachFixture runs check as a subtest for every file matching glob, named
// after the file's base name without suffix; files ending in .golden.json
// are golden files, not fixtures. It fails when no fixture matches.
func EachFixture(t *testing.T, glob, suffix string, check func(t *testing.T, name string, raw []byte)) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(f), suffix)
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			check(t, name, raw)
		})
	}
	if n == 0 {
		t.Fatalf("no fixtures match %s", glob)
	}
}

// GoldenEvents is the golden test of a parser that fails on no fixture:
// each fixture's events are valid and equal testdata/<name>.golden.json.
func GoldenEvents(t *testing.T, glob, suffix string, update bool, parse func(t *testing.T, name string, raw []byte) ([]dcsa.Event, error)) {
	t.Helper()
	EachFixture(t, glob, suffix, func(t *testing.T, name string, raw []byte) {
		events, err := parse(t, name, raw)
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		ValidateAll(t, events)
		Golden(t, filepath.Join("testdata", name+".golden.json"), events, update)
	})
}

// Outcome is what the golden file of a parser with stats holds: the error
// of a fixture it cannot read at all, else its stats, events, the elements
// it refused and the repairs it made.
type Outcome struct {
	Error   string             `json:"error,omitempty"`
	Stats   any                `json:"stats,omitempty"`
	Events  []dcsa.Event       `json:"events,omitempty"`
	Refused []string           `json:"refused,omitempty"`
	Repairs []normalize.Repair `json:"repairs,omitempty"`
}

// GoldenOutcomes is the golden test of a parser with stats: each fixture's
// events are valid, a refusal wraps normalize.ErrMalformed, and the Outcome
// equals the file golden(name) names.
func GoldenOutcomes[S any](t *testing.T, glob, suffix string, golden func(name string) string, update bool, parse func(raw []byte) (normalize.Result, S, error)) {
	t.Helper()
	EachFixture(t, glob, suffix, func(t *testing.T, name string, raw []byte) {
		res, st, err := parse(raw)
		var got Outcome
		if err != nil {
			if !errors.Is(err, normalize.ErrMalformed) {
				t.Fatalf("error %v does not wrap normalize.ErrMalformed", err)
			}
			got.Error = err.Error()
		} else {
			got.Stats, got.Events, got.Repairs = &st, res.Events, res.Repairs
			for _, r := range res.Refused {
				if !errors.Is(r, normalize.ErrMalformed) {
					t.Fatalf("refusal %v does not wrap normalize.ErrMalformed", r)
				}
				got.Refused = append(got.Refused, r.Error())
			}
		}
		ValidateAll(t, res.Events)
		Golden(t, golden(name), got, update)
	})
}
