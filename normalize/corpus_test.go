package normalize_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/parsers"
	"github.com/contrack/contrack/normalize/tnt3"
	"github.com/contrack/contrack/reference"
	"github.com/contrack/contrack/schemas/carriers"
	schematnt3 "github.com/contrack/contrack/schemas/tnt3"
)

var update = flag.Bool("update", false, "rewrite the corpus goldens under testdata/corpus")

// corpusEntry is what this test reads of reference/carriers/manifest.json.
type corpusEntry struct {
	Path    string `json:"path"`
	Carrier string `json:"carrier"`
	Format  string `json:"format"`
	Events  int    `json:"eventCount"`
}

func corpus(t *testing.T) []corpusEntry {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(reference.Carriers(), "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Entries []corpusEntry `json:"entries"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Entries) == 0 {
		t.Fatal("the corpus manifest lists no payload")
	}
	return m.Entries
}

// corpusOutcome is a payload's golden: what its parser made of it.
type corpusOutcome struct {
	Source  string             `json:"source"`
	Format  string             `json:"format"`
	Error   string             `json:"error,omitempty"`
	Events  json.RawMessage    `json:"events"`
	Refused []string           `json:"refused,omitempty"`
	Repairs []normalize.Repair `json:"repairs,omitempty"`
}

// Every real payload of the corpus (reference/carriers) goes through its
// format's parser; what comes out — the events, each element refused with
// its reason and each repair — is held to a golden file, so a change in how
// any real payload is read is a visible diff (-update rewrites them).
func TestCorpusPayloads(t *testing.T) {
	received := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, e := range corpus(t) {
		t.Run(e.Path, func(t *testing.T) {
			parse, ok := parsers.All()[carriers.Format(e.Format)]
			if !ok {
				t.Fatalf("no parser for format %q", e.Format)
			}
			raw, err := os.ReadFile(reference.Path(e.Path))
			if err != nil {
				t.Fatal(err)
			}
			scac := e.Carrier
			if len(scac) != 4 {
				scac = "DCSA" // DCSA's own examples and anonymised carriers
			}
			res, err := parse(raw, normalize.Envelope{SCAC: scac, ReceivedAt: received})
			out := corpusOutcome{Source: e.Path, Format: e.Format, Repairs: res.Repairs}
			if err != nil {
				out.Error = err.Error()
			}
			for _, r := range res.Refused {
				out.Refused = append(out.Refused, r.Error())
			}
			refusedAtPush := 0
			if carriers.Format(e.Format) == carriers.FormatPushedTNT3 {
				// A pushed 3.0 event refused is skipped by the parser: the
				// carrier was told in POST /events' answer, which Check gives.
				for _, f := range tnt3.Check(raw, scac, received).Feedback {
					if f.Severity == schematnt3.SeverityError {
						refusedAtPush++
						out.Refused = append(out.Refused, "at the push: "+f.PropertyPath+": "+f.Message)
					}
				}
			}
			if out.Events, err = json.MarshalIndent(res.Events, "  ", "  "); err != nil {
				t.Fatal(err)
			}
			// Every element is accounted for: an event, a refusal, or a
			// repair that left it out and says why.
			leftOut := 0
			for _, r := range res.Repairs {
				if r.Kind == normalize.RepairNotCarriedLeftOut || r.Kind == normalize.RepairUnknownCode {
					leftOut++
				}
			}
			if n := len(res.Events) + len(res.Refused) + refusedAtPush + leftOut; out.Error == "" && n < e.Events {
				t.Errorf("%d events in the payload, %d read, %d refused and %d left out: the rest dropped in silence", e.Events, len(res.Events), len(res.Refused)+refusedAtPush, leftOut)
			}
			got, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "corpus", strings.NewReplacer("/", "_").Replace(strings.TrimSuffix(e.Path, filepath.Ext(e.Path)))+".json")
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if !bytes.Equal(bytes.TrimSpace(want), bytes.TrimSpace(got)) {
				t.Errorf("%s differs from its golden %s:\n%s", e.Path, golden, got)
			}
		})
	}
}
