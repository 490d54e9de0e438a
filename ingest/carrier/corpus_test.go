package carrier_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/reference"
	"github.com/contrack/contrack/schemas/carriers"
)

// corpusGaps are the corpus payloads a carrier's adapter cannot read yet,
// with the reason: the test holds each gap open, so closing one shows here.
var corpusGaps = map[string]string{}

// corpusCarrier is how one carrier of the registry is reached: its events
// path and token endpoint as its adapter calls them.
type corpusCarrier struct{ events, token string }

// corpusCarriers are the carriers' documented paths (adapters in carrier.go).
var corpusCarriers = map[string]corpusCarrier{
	"MAEU": {events: "/track-and-trace-private/events"},
	"HLCU": {events: "/hlag/external/v2/events"},
	"CMDU": {events: "/operation/trackandtrace/v1/events"},
	"EGLV": {events: "/api/tnt/v2/events", token: "/api/v1/auth/token"},
	"MSCU": {events: "/track-and-trace/v2/events", token: "/oauth2/token"},
	"HDMU": {events: "/tnt/v2/events"},
	"ONEY": {events: "/tnt/v1/events", token: "/oauth/token"},
	"OOLU": {events: "/edi/mailbox/iftsta"},
	"COSU": {events: "/tracking/v1/cargoTracking"},
	"ZIMU": {events: "/events", token: "/oauth2/token"},
}

// Every real payload of the corpus (reference/carriers) in a format a
// carrier of the registry serves is polled from a fake of each such carrier
// serving the file byte for byte at that carrier's documented path: the
// adapter hands the normaliser the very bytes, as a success with its events
// counted (or noData for an answer with none), whatever the payload's
// deviations. (normalize's TestCorpusPayloads holds what the parsers read
// from the same bytes.)
func TestCorpusPolled(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(reference.Carriers(), "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Entries []struct {
			Path       string `json:"path"`
			Format     string `json:"format"`
			EventCount int    `json:"eventCount"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	polled := 0
	for _, e := range m.Entries {
		var scacs []string
		for _, c := range carriers.All() {
			if string(c.Format) == e.Format {
				scacs = append(scacs, c.SCAC)
			}
		}
		body, err := os.ReadFile(reference.Path(e.Path))
		if err != nil {
			t.Fatal(err)
		}
		for _, scac := range scacs {
			polled++
			t.Run(scac+"/"+e.Path, func(t *testing.T) {
				c := corpusCarriers[scac]
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					switch {
					case c.token != "" && r.URL.Path == c.token:
						w.Header().Set("Content-Type", "application/json")
						_, _ = w.Write([]byte(`{"access_token":"t","token_type":"Bearer","expires_in":3600,"token":"t","tokenType":"Bearer","expiresIn":3600}`))
					case r.URL.Path == c.events:
						if strings.HasSuffix(e.Path, ".edi") {
							w.Header().Set("Content-Type", "application/edifact")
						} else {
							w.Header().Set("Content-Type", "application/json")
						}
						_, _ = w.Write(body)
					default:
						http.NotFound(w, r)
					}
				}))
				defer srv.Close()
				a, err := carrier.New(scac, srv.URL, srv.Client())
				if err != nil {
					t.Fatal(err)
				}
				creds := carrier.Credentials{carriers.FieldAPIKey: "k", carriers.FieldClientID: "id", carriers.FieldClientSecret: "secret"}
				res, err := a.Fetch(context.Background(), creds, carrier.Query{Kind: carrier.KindContainer, Value: "MSKU9070323"})
				if err != nil {
					t.Fatal(err)
				}
				if gap, ok := corpusGaps[e.Path]; ok {
					if res.Outcome != carrier.OutcomeError || res.Reason != gap {
						t.Fatalf("a known gap (%s) answered %s (%s): remove it from corpusGaps if it is closed", gap, res.Outcome, res.Reason)
					}
					return
				}
				want := carrier.OutcomeSuccess
				if e.EventCount == 0 {
					want = carrier.OutcomeNoData
				}
				if res.Outcome != want {
					t.Fatalf("outcome %s (%s), want %s", res.Outcome, res.Reason, want)
				}
				if want == carrier.OutcomeSuccess && (len(res.Pages) != 1 || !bytes.Equal(res.Pages[0], body)) {
					t.Fatalf("%d pages; the first is not the payload byte for byte", len(res.Pages))
				}
			})
		}
	}
	if polled == 0 {
		t.Fatal("no corpus payload is in a polled format")
	}
}

// COSCO's published shape with a code other than 0 is an error, with its
// reason, not data.
func TestCOSUPublishedErrorCode(t *testing.T) {
	for body, reason := range map[string]string{
		`{"code": 1001, "message": "invalid sign", "data": {"type": "none", "numberType": "none", "content": null}}`: "COSCO error code in the published shape",
		`{"code": 1001, "message": "invalid sign", "data": null}`:                                                    "malformed COSCO body",
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(body))
		}))
		a, err := carrier.New("COSU", srv.URL, srv.Client())
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Fetch(context.Background(), carrier.Credentials{carriers.FieldClientID: "id", carriers.FieldClientSecret: "secret"},
			carrier.Query{Kind: carrier.KindContainer, Value: "MSKU9070323"})
		srv.Close()
		if err != nil || res.Outcome != carrier.OutcomeError || res.Reason != reason {
			t.Errorf("%s: %s (%s), err %v; want an error, %q", body, res.Outcome, res.Reason, err, reason)
		}
	}
}
