package deliveries_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/deliveries"
	"github.com/contrack/contrack/schemas/tnt3/tnt3test"
)

// event is a gate-in of MSKU9070323 with id.
func event(id string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"eventID":%q,"eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":"2026-11-20T10:00:00Z","equipmentEventTypeCode":"GTIN","equipmentReference":"MSKU9070323","emptyIndicatorCode":"LADEN"}`, id))
}

// stream builds a stream of "id" (a version) and "-id" (its retraction,
// holding the version before, as queued).
func stream(rows ...string) deliveries.Stream {
	s := deliveries.Stream{Refs: deliveries.References{SubscriptionReference: "r", ScacCode: "MAEU"}}
	at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	for i, r := range rows {
		id, retracted := strings.CutPrefix(r, "-")
		hash := "h"
		if retracted {
			hash = schemas.RetractedHash
		}
		s.Events = append(s.Events, event(id))
		s.IDs, s.Hashes, s.Emitted = append(s.IDs, id), append(s.Hashes, hash), append(s.Emitted, at.Add(time.Duration(i)*time.Second))
	}
	return s
}

// The 2.0.2 payload lists the events withdrawn at its end: a later version
// in the same payload brings an event back.
func TestEventDomainRetractedEventIDs(t *testing.T) {
	for rows, want := range map[string]string{
		"a b":       "",
		"a -a":      "a",
		"a -a a":    "",
		"-a b -b c": "a b",
		"a -a -b":   "a b",
	} {
		p := stream(strings.Fields(rows)...).EventDomain()
		if got := strings.Join(p.RetractedEventIDs, " "); got != want || len(p.Events) != len(strings.Fields(rows)) {
			t.Errorf("%s: retracted %q (%d events), want %q", rows, got, len(p.Events), want)
		}
	}
}

// Every 3.0 body validates against the published document, retractions
// included; the interface's body has no API-Version.
func TestStreamEncode(t *testing.T) {
	s := stream("a", "b", "-a")
	body, v, err := s.Encode(deliveries.FormatTNT3)
	if err != nil || v != "3.0.0" {
		t.Fatalf("%v %q", err, v)
	}
	tnt3test.Must(t, tnt3test.PostEventsRequest(http.Header{"Api-Version": {v}}, body))
	if !strings.Contains(string(body), `{"eventRouting":{"originatingParty":{"partyCode":"MAEU","codeListProvider":"NMFTA","codeListName":"SCAC","partyFunction":"CA"}},"eventID":"a","isRetracted":true,"eventUpdatedDateTime":"2026-11-26T10:00:02.000Z"}`) {
		t.Errorf("retraction not as 3.0 has it: %s", body)
	}
	body, v, err = s.Encode(deliveries.FormatEventDomain)
	if err != nil || v != "" || !strings.HasSuffix(string(body), `],"retractedEventIDs":["a"]}`) {
		t.Fatalf("%s %q %v", body, v, err)
	}
}
