package ingest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/parsers"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/reference"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/dcsa"
)

// pushableFormats are the corpus formats a carrier can push to POST /events
// (DCSA JSON); IFTSTA and COSCO's JSON are only polled.
var pushableFormats = map[carriers.Format]bool{
	carriers.FormatTNT22: true, carriers.FormatPushed: true,
	carriers.FormatTNT3: true, carriers.FormatPushedTNT3: true,
}

// pushRefusals are the corpus payloads POST /events refuses whole by its
// contract (docs/interface.md: every pushed 2.x event names its
// equipmentReference), though the poll reads events from them, with the
// answer: a TNT 2.2 response whose transport events name no container.
var pushRefusals = map[string]string{
	"carriers/DCSA/conformance-gateway-tnt-v22-response-2023-12.json":    "[0].equipmentReference is required",
	"carriers/DCSA/conformance-gateway-tnt-220-response-2024-11-05.json": "[0].equipmentReference is required",
	"dcsa/samples/tnt-220-response.json":                                 "[0].equipmentReference is required",
}

// keyFacts are what must come through a push as through a poll: the event,
// its code and classifier, time, container, references, place, vessel and
// voyage.
type keyFacts struct {
	ID, Type, Code, Classifier, Time, Equipment string
	Docs                                        []dcsa.DocumentReference
	Location, CallLocation                      *dcsa.Location
	UNLocode, Facility, Voyage, Service         string
	Vessel                                      *dcsa.Vessel
}

func factsOf(events []dcsa.Event) []keyFacts {
	out := make([]keyFacts, 0, len(events))
	for _, e := range events {
		k := keyFacts{ID: e.EventID, Type: e.EventType, Code: e.EquipmentEventTypeCode + e.TransportEventTypeCode,
			Classifier: e.EventClassifierCode, Time: e.EventDateTime, Equipment: e.EquipmentReference, Docs: e.DocumentReferences, Location: e.EventLocation}
		if tc := e.TransportCall; tc != nil {
			k.CallLocation, k.UNLocode, k.Facility, k.Voyage, k.Service, k.Vessel = tc.Location, tc.UNLocationCode, tc.FacilityCode, tc.CarrierVoyageNumber, tc.CarrierServiceCode, tc.Vessel
		}
		out = append(out, k)
	}
	return out
}

// Every DCSA payload of the corpus (reference/carriers) is pushed to POST
// /events as its carrier would: it is stored byte for byte, and what the
// normaliser reads of the stored record carries the same key facts as the
// same bytes polled. A push refused whole is one whose polled reading
// yields no event either.
func TestPostEventsCorpus(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(reference.Carriers(), "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Entries []struct {
			Path    string `json:"path"`
			Carrier string `json:"carrier"`
			Format  string `json:"format"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	f := setup(t)
	keys := map[string]string{}
	received := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	type pushed struct {
		path    string
		body    []byte
		polled  []keyFacts
		refused int // events the answer's feedbackElements refused
	}
	var accepted []pushed
	for _, e := range m.Entries {
		format := carriers.Format(e.Format)
		if !pushableFormats[format] {
			continue
		}
		body, err := os.ReadFile(reference.Path(e.Path))
		if err != nil {
			t.Fatal(err)
		}
		scac := e.Carrier
		if len(scac) != 4 {
			scac = "DCSA"
		}
		if keys[scac] == "" {
			keys[scac] = f.api.Key(auth.CreateKeyParams{ClientSlug: "corpus-" + strings.ToLower(scac), Env: "sandbox", Role: auth.RoleCarrier, SCAC: scac})
		}
		polledRes, perr := parsers.All()[format](body, normalize.Envelope{SCAC: scac, ReceivedAt: received})
		polled := factsOf(polledRes.Events)
		r := f.api.Do("POST", "/events", keys[scac], body)
		want, refusedByContract := pushRefusals[e.Path]
		switch {
		case refusedByContract:
			if r.Status != 400 || r.Message() != want {
				t.Errorf("%s: pushed, answered %d %s; want 400 %q (pushRefusals)", e.Path, r.Status, r.Raw, want)
			}
		case r.Status == 200:
			refused := 0
			if fb, _ := r.JSON["feedbackElements"].([]any); fb != nil {
				for _, x := range fb {
					if el, _ := x.(map[string]any); el["severity"] == "ERROR" {
						refused++
					}
				}
			}
			accepted = append(accepted, pushed{e.Path, body, polled, refused})
		case perr == nil && len(polled) > 0:
			t.Errorf("%s: pushed, refused %d %s; polled, %d events come out", e.Path, r.Status, r.Raw, len(polled))
		default:
			// Refused whole, as the poll reads nothing of it either.
			if r.Message() == "" {
				t.Errorf("%s: refused %d without a reason", e.Path, r.Status)
			}
		}
	}
	if len(accepted) == 0 {
		t.Fatal("no corpus payload was accepted at POST /events")
	}
	records := rawRecords(t, f.kafka)
	for _, p := range accepted {
		var found bool
		for _, rec := range records {
			parts := [][]byte{rec.Payload}
			if rec.Parts > 0 {
				var ps []json.RawMessage
				if err := json.Unmarshal(rec.Payload, &ps); err != nil {
					t.Fatalf("a record of %d parts: %v", rec.Parts, err)
				}
				parts = parts[:0]
				for _, x := range ps {
					parts = append(parts, x)
				}
			}
			for _, part := range parts {
				if !bytes.Equal(part, p.body) {
					continue
				}
				found = true
				parse, ok := parsers.All()[carriers.Format(rec.Format)]
				if !ok {
					t.Fatalf("%s: stored as %q, which no parser reads", p.path, rec.Format)
				}
				res, err := parse(part, normalize.Envelope{SCAC: rec.SCAC, ReceivedAt: received})
				if err != nil {
					t.Errorf("%s: stored as %s, not read: %v", p.path, rec.Format, err)
					continue
				}
				// Each pushed event is the polled one; the poll's others are
				// those the push answer refused (a push names no query to
				// tell whose an event without references is).
				got := factsOf(res.Events)
				missing := len(p.polled) - len(got)
				for _, g := range got {
					if !slices.ContainsFunc(p.polled, func(k keyFacts) bool { return reflect.DeepEqual(k, g) }) {
						t.Errorf("%s: pushed (stored as %s), an event the poll does not give alike:\npushed %+v\npolled %+v", p.path, rec.Format, g, p.polled)
					}
				}
				if missing != p.refused {
					t.Errorf("%s: pushed, %d events of the poll's %d come out and the answer refused %d", p.path, len(got), len(p.polled), p.refused)
				}
			}
		}
		if !found && len(p.polled) > p.refused {
			t.Errorf("%s: accepted, and no record holds it byte for byte", p.path)
		}
	}
}
