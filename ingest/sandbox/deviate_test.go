package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/tnt22"
)

// keyFacts are what a deviation must not lose: each event's kind, code,
// classifier, time, container, place, facility and vessel.
func keyFacts(t *testing.T, events []map[string]any) []string {
	t.Helper()
	var out []string
	for _, e := range events {
		tc, _ := e["transportCall"].(map[string]any)
		v, _ := tc["vessel"].(map[string]any)
		out = append(out, fmt.Sprint(e["eventType"], e["equipmentEventTypeCode"], e["transportEventTypeCode"], e["eventClassifierCode"],
			e["eventDateTime"], e["equipmentReference"], tc["UNLocationCode"], tc["facilityCode"], tc["exportVoyageNumber"], v["vesselIMONumber"], v["vesselName"]))
	}
	return out
}

// A share of the DCSA TNT 2.2 sandbox carriers' shipments are answered with
// the deviations their real APIs send, the same for a shipment every time;
// the tolerant reader repairs each, counted, and reads the same key facts
// as from the strict answer.
func TestDeviantAnswersReadAsStrictOnes(t *testing.T) {
	strict := NewHandler(Config{Clock: fixedClock, PageSize: 1000, StrictShapes: true})
	deviant := NewHandler(Config{Clock: fixedClock, PageSize: 1000})
	paths := map[string]struct {
		path    string
		headers map[string]string
		repair  normalize.RepairKind
		shows   string
	}{
		"MSCU": {"/mscu/track-and-trace/v2/events", nil, normalize.RepairMemberCase, `"unLocationCode"`},
		"MAEU": {"/maeu/track-and-trace-private/events", map[string]string{"Consumer-Key": "k"}, normalize.RepairEventIDNotUUID, `"events": [`},
		"CMDU": {"/cmdu/operation/trackandtrace/v1/events", map[string]string{"KeyId": "k"}, normalize.RepairFacilityCodeSplit, `"facilityCode": "`},
		"HLCU": {"/hlcu/hlag/external/v2/events", map[string]string{"X-IBM-Client-Id": "i", "X-IBM-Client-Secret": "s"}, normalize.RepairIncompleteSealLeftOut, `"seals"`},
		"HDMU": {"/hdmu/tnt/v2/events", map[string]string{"x-api-key": "k"}, normalize.RepairNumberAsString, `"vesselIMONumber": 9`},
	}
	for scac, c := range paths {
		t.Run(scac, func(t *testing.T) {
			var number string
			deviants := 0
			for i := 0; i < 300; i++ {
				n := journey.CompleteContainer(fmt.Sprintf("DEVU%06d", i))
				if Deviant(scac, journey.KindContainer, n) {
					deviants++
					if number == "" && len(Journey(scac, journey.KindContainer, n, wallNow).Events) > 3 {
						number = n
					}
				}
			}
			if deviants < 50 || deviants > 150 {
				t.Fatalf("%d of 300 shipments deviant, want about one in three", deviants)
			}
			headers := c.headers
			if headers == nil {
				headers = map[string]string{"Authorization": "Bearer " + s(t, strict, scac)}
			}
			q := c.path + "?equipmentReference=" + number
			a := do(t, strict, "GET", q, headers, "")
			if headers["Authorization"] != "" {
				headers = map[string]string{"Authorization": "Bearer " + s(t, deviant, scac)}
			}
			b := do(t, deviant, "GET", q, headers, "")
			if a.Code != 200 || b.Code != 200 {
				t.Fatalf("strict %d, deviant %d: %s", a.Code, b.Code, b.Body)
			}
			if bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) || !strings.Contains(b.Body.String(), c.shows) {
				t.Fatalf("the deviant answer does not show %s:\n%s", c.shows, b.Body)
			}
			env := normalize.Envelope{SCAC: scac, ReceivedAt: wallNow}
			ra, err1 := tnt22.Parse(a.Body.Bytes(), env)
			rb, err2 := tnt22.Parse(b.Body.Bytes(), env)
			if err1 != nil || err2 != nil || len(ra.Refused)+len(rb.Refused) != 0 {
				t.Fatalf("strict %v %v, deviant %v %v", err1, ra.Refused, err2, rb.Refused)
			}
			counted := 0
			for _, r := range rb.Repairs {
				if r.Kind == c.repair {
					counted++
				}
			}
			if counted == 0 {
				t.Errorf("no %s repair counted: %v", c.repair, rb.Repairs)
			}
			facts := func(r normalize.Result) []string {
				raw, _ := json.Marshal(r.Events)
				var evs []map[string]any
				_ = json.Unmarshal(raw, &evs)
				return keyFacts(t, evs)
			}
			if fa, fb := facts(ra), facts(rb); strings.Join(fa, "\n") != strings.Join(fb, "\n") {
				t.Errorf("key facts differ:\nstrict  %q\ndeviant %q", fa, fb)
			}
		})
	}
}

// s is a bearer token from scac's token endpoint on h.
func s(t *testing.T, h http.Handler, scac string) string {
	t.Helper()
	rec := do(t, h, "POST", "/"+strings.ToLower(scac)+"/oauth2/token", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "grant_type=client_credentials&client_id=i&client_secret=s")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("token: %d %s", rec.Code, rec.Body)
	}
	return tok.AccessToken
}
