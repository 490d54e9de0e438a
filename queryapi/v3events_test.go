package queryapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/tnt3"
	"github.com/contrack/contrack/schemas/tnt3/tnt3test"
)

// v3Get asks GET /v3/events?query with key and checks the answer against
// the published TNT 3.0 document (status, headers, body, and the query).
func v3Get(t *testing.T, e *journeyEnv, key, query string, header map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", e.api.URL+"/v3/events?"+query, nil)
	req.Header.Set("x-api-key", key)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("API-Version") != "3.0.0" {
		t.Errorf("%s: API-Version %q", query, resp.Header.Get("API-Version"))
	}
	asked := query
	if resp.StatusCode == 400 {
		asked = "" // a deliberately bad request: only the answer is held to the document
	}
	if err := tnt3test.GetEventsResponse(asked, resp.StatusCode, resp.Header, raw); err != nil {
		t.Errorf("%s: %v", query, err)
	}
	return resp.StatusCode, resp.Header, raw
}

// ids are the answer's events: "id" for an event, "-id" for a retraction.
func v3IDs(t *testing.T, raw []byte) []string {
	var body tnt3.Events
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	var out []string
	for _, e := range body.Events {
		if e.IsRetracted {
			out = append(out, "-"+e.EventID)
		} else {
			out = append(out, e.EventID)
		}
	}
	return out
}

// GET /v3/events answers as 3.0's producer: the latest version of each of
// the account's events in 3.0 (a withdrawn one as its retraction), in
// eventUpdatedDateTime order, the 3.0 filters, limit and Next-Page-Cursor
// paging, API-Version 3.0.0 and 3.0's error shape; every answer validated
// against the published document. Another account's events never show.
func TestV3Events(t *testing.T) {
	e := newJourneyEnv(t, false)
	ctx := context.Background()
	key, k, _ := e.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	other, o, _ := e.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	byBooking, byBox := uuid.NewString(), uuid.NewString()
	for _, tr := range [][]string{{byBooking, "booking", "ZIMU12345"}, {byBox, "container", "MSKU9070323"}} {
		if _, err := e.db.Pool.Exec(ctx, `INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
			VALUES ($1, $2, 'sandbox', 'ZIMU', $3, $4, 'CONNECTED')`, tr[0], k.Account.ID, tr[1], tr[2]); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	n := 0
	rec := func(account, tracking, id, typ, box string, docs ...string) *kgo.Record {
		n++
		ev := dcsa.Event{EventID: id, EventType: typ, EventClassifierCode: "ACT", EventDateTime: "2026-11-19T10:00:00Z",
			EventCreatedDateTime: "2026-11-19T10:05:00Z", EquipmentReference: box, CarrierCode: "ZIMU"}
		if typ == dcsa.EventTypeEquipment {
			ev.EquipmentEventTypeCode, ev.EmptyIndicatorCode, ev.EventLocation = "LOAD", "LADEN", &dcsa.Location{UNLocationCode: "NLRTM"}
		} else {
			ev.TransportEventTypeCode, ev.TransportCall = "DEPA", &dcsa.TransportCall{TransportCallID: "tc", ModeOfTransport: "VESSEL", UNLocationCode: "NLRTM"}
		}
		for i := 0; i+1 < len(docs); i += 2 {
			ev.DocumentReferences = append(ev.DocumentReferences, dcsa.DocumentReference{DocumentReferenceType: docs[i], DocumentReferenceValue: docs[i+1]})
		}
		b, _ := json.Marshal(ev)
		return eventRecord(schemas.EventRecord{TrackingID: tracking, AccountID: account, Env: "sandbox", SCAC: "ZIMU", EventID: id,
			ContentHash: id + string(rune('a'+n)), Event: b, EmittedAt: t0.Add(time.Duration(n) * time.Minute)})
	}
	retract := func(account, tracking, id string) *kgo.Record {
		n++
		return eventRecord(schemas.EventRecord{TrackingID: tracking, AccountID: account, Env: "sandbox", SCAC: "ZIMU", EventID: id,
			ContentHash: schemas.RetractedHash, Update: true, Event: schemas.RetractionEvent(id), EmittedAt: t0.Add(time.Duration(n) * time.Minute)})
	}
	e.produce(
		rec(k.Account.ID, byBooking, "e1", "EQUIPMENT", "ZCSU8823456", "BKG", "ZIMU12345"), // 10:01
		rec(k.Account.ID, byBooking, "e2", "TRANSPORT", ""),                                // 10:02: booking by tracking only
		rec(k.Account.ID, byBox, "e3", "EQUIPMENT", "MSKU9070323", "TRD", "ZIMUROT1"),      // 10:03
		rec(k.Account.ID, byBooking, "e4", "EQUIPMENT", "ZCSU8823456", "BKG", "ZIMU12345"), // 10:04
		rec(k.Account.ID, byBooking, "e1", "EQUIPMENT", "ZCSU8823456", "BKG", "ZIMU12345"), // 10:05: e1 updated
		retract(k.Account.ID, byBooking, "e4"),                                             // 10:06: e4 withdrawn
		rec(o.Account.ID, uuid.NewString(), "x1", "EQUIPMENT", "ZCSU8823456", "BKG", "ZIMU12345"),
		rec(o.Account.ID, uuid.NewString(), "x2", "EQUIPMENT", "ZCSU8823456", "BKG", `B_1%"\`),
		rec(o.Account.ID, uuid.NewString(), "x3", "EQUIPMENT", "ZCSU8823456", "BKG", `BX1Y"\`),
	)
	all := "e2 e3 e1 -e4"
	testkit.Eventually(t, 20*time.Second, "the events projected", func() bool {
		_, _, raw := v3Get(t, e, key, "", nil)
		return strings.Join(v3IDs(t, raw), " ") == all
	})
	for _, c := range []struct{ query, want string }{
		{"equipmentReference=ZCSU8823456", "e1 -e4"},
		{"equipmentReference=MSKU9070323", "e3"},
		{"carrierBookingReference=ZIMU12345", "e2 e1 -e4"},
		{"carrierBookingReference=ZIMU12345&equipmentReference=ZCSU8823456", "e1 -e4"},
		{"transportDocumentReference=ZIMUROT1", "e3"},
		{"transportDocumentReference=ZIMUROT1&equipmentReference=ZCSU8823456", ""},
		{"eventTypes=TRANSPORT", "e2"},
		{"eventTypes=EQUIPMENT,IOT", "e3 e1 -e4"},
		{"eventTypes=SHIPMENT", ""},
		{"eventUpdatedDateTimeMin=2026-11-20T10:03:00Z", "e3 e1 -e4"},
		{"eventUpdatedDateTimeMax=2026-11-20T10:03:00Z", "e2 e3"},
		{"eventUpdatedDateTimeMin=2026-11-20T10:03:00.000Z&eventUpdatedDateTimeMax=2026-11-20T10:05:00Z", "e3 e1"},
		{"carrierBookingReference=NOPE", ""},
	} {
		status, _, raw := v3Get(t, e, key, c.query, map[string]string{"API-Version": "3.0.0"})
		if got := strings.Join(v3IDs(t, raw), " "); status != 200 || got != c.want {
			t.Errorf("%s: %d %q, want %q", c.query, status, got, c.want)
		}
	}
	if _, _, raw := v3Get(t, e, other, "", nil); strings.Join(v3IDs(t, raw), " ") != "x1 x2 x3" {
		t.Errorf("the other account: %s", raw)
	}
	// A reference is matched exactly, whatever its characters.
	if _, _, raw := v3Get(t, e, other, "carrierBookingReference="+url.QueryEscape(`B_1%"\`), nil); strings.Join(v3IDs(t, raw), " ") != "x2" {
		t.Errorf("a booking with LIKE's and JSON's special characters: %s", raw)
	}

	// The content: 3.0's shape of the latest version; the retraction 3.0's.
	_, _, raw := v3Get(t, e, key, "equipmentReference=ZCSU8823456", nil)
	var body tnt3.Events
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	if e1 := body.Events[0]; e1.EventUpdatedDateTime != "2026-11-20T10:05:00.000Z" || e1.EquipmentDetails.EquipmentReference != "ZCSU8823456" ||
		e1.ShipmentDetails.DocumentReference.Reference != "ZIMU12345" || e1.EventRouting.OriginatingParty.PartyCode != "ZIMU" {
		t.Errorf("e1: %+v", e1)
	}
	if e4 := body.Events[1]; !e4.IsRetracted || e4.EventUpdatedDateTime != "2026-11-20T10:06:00.000Z" || e4.EventClassification != nil {
		t.Errorf("e4: %+v", e4)
	}

	// Paging: limit and Next-Page-Cursor, with the same filters, give the
	// whole list once; the last page has no cursor.
	var paged []string
	query := "limit=1"
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("paging does not end")
		}
		_, h, raw := v3Get(t, e, key, query, nil)
		ids := v3IDs(t, raw)
		if len(ids) > 1 {
			t.Fatalf("%d events on a page of limit 1", len(ids))
		}
		paged = append(paged, ids...)
		c := h.Get("Next-Page-Cursor")
		if c == "" {
			break
		}
		query = "limit=1&cursor=" + url.QueryEscape(c)
	}
	if strings.Join(paged, " ") != all {
		t.Errorf("paged %v, want %s", paged, all)
	}
	_, h, _ := v3Get(t, e, key, "limit=1&eventTypes=EQUIPMENT", nil)
	cur := url.QueryEscape(h.Get("Next-Page-Cursor"))

	// Errors: 400 in 3.0's error shape, with contrack's message.
	for _, c := range []struct {
		key, query string
		header     map[string]string
		message    string
	}{
		{key, "limit=1&cursor=" + cur, nil, "Invalid cursor: send it with the query parameters of the request that returned it"},
		{other, "limit=1&eventTypes=EQUIPMENT&cursor=" + cur, nil, "Invalid cursor"},
		{key, "cursor=forged", nil, "Invalid cursor"},
		{key, "limit=0", nil, "limit must be a positive integer"},
		{key, "eventTypes=EQUIPMENT,FOO", nil, "eventTypes: 'FOO' is not EQUIPMENT, TRANSPORT, SHIPMENT, IOT or REEFER"},
		{key, "eventUpdatedDateTimeMin=yesterday", nil, "eventUpdatedDateTimeMin must be an RFC 3339 date-time"},
		{key, "carrierBookingReference=A&transportDocumentReference=B", nil, "carrierBookingReference and transportDocumentReference cannot be combined"},
		{key, "", map[string]string{"API-Version": "2.2.0"}, "Unsupported API-Version '2.2.0': this endpoint serves 3.x.x"},
	} {
		status, _, raw := v3Get(t, e, c.key, c.query, c.header)
		var body struct {
			Message          string                 `json:"message"`
			FeedbackElements []tnt3.FeedbackElement `json:"feedbackElements"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		if status != 400 || body.Message != c.message || len(body.FeedbackElements) != 1 || body.FeedbackElements[0].Severity != "ERROR" ||
			body.FeedbackElements[0].Message != c.message {
			t.Errorf("%s: %d %s, want 400 %q", c.query, status, raw, c.message)
		}
	}
	if r := e.api.Do("GET", "/v3/events", "", nil); r.Status != 403 {
		t.Errorf("no key: %d", r.Status)
	}
}
