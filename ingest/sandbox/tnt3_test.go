package sandbox

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas/tnt3"
	"github.com/contrack/contrack/schemas/tnt3/tnt3test"
)

// zimuToken fetches a bearer token from the sandbox's OAuth2 endpoint.
func zimuToken(t *testing.T, h http.Handler) map[string]string {
	t.Helper()
	rec := do(t, h, "POST", "/zimu/oauth2/token", map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
		"grant_type=client_credentials&client_id=i&client_secret=s")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &tok) != nil || tok.AccessToken == "" {
		t.Fatalf("token: %d %s", rec.Code, rec.Body)
	}
	return map[string]string{"Authorization": "Bearer " + tok.AccessToken, "API-Version": "3.0.0"}
}

// Every answer of the 3.0 carrier — pages, errors, test numbers — is what
// the published TNT 3.0 document allows, and pages follow Next-Page-Cursor
// with the original query to exactly the journey's events.
func TestTNT3PagesValidateAndPage(t *testing.T) {
	h := NewHandler(Config{Clock: fixedClock, PageSize: 4})
	hdr := zimuToken(t, h)
	for _, query := range []string{"carrierBookingReference=BK4471902", "transportDocumentReference=ZIMU123456789&equipmentReference=",
		"equipmentReference=ZCSU1234560", "equipmentReference=PAGU0000008", "equipmentReference=RTRU0000001",
		"carrierBookingReference=BK4471902&eventTypes=EQUIPMENT,IOT&eventUpdatedDateTimeMin=2026-01-01T00:00:00Z"} {
		var ids []string
		target := "/zimu/events?" + query
		for pages := 0; target != ""; pages++ {
			if pages > 100 {
				t.Fatalf("%s: pagination does not end", query)
			}
			rec := do(t, h, "GET", target, hdr, "")
			u, _ := url.Parse(target)
			tnt3test.Must(t, tnt3test.GetEventsResponse(u.RawQuery, rec.Code, rec.Header(), rec.Body.Bytes()))
			if rec.Code != 200 || rec.Header().Get("API-Version") != "3.0.0" {
				t.Fatalf("%s: %d %v", query, rec.Code, rec.Header())
			}
			var page tnt3.Events
			if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
				t.Fatal(err)
			}
			if len(page.Events) > 4 {
				t.Fatalf("page of %d events, page size 4", len(page.Events))
			}
			for _, e := range page.Events {
				ids = append(ids, e.EventID)
			}
			target = ""
			if c := rec.Header().Get("Next-Page-Cursor"); c != "" {
				target = "/zimu/events?" + query + "&cursor=" + url.QueryEscape(c)
			}
		}
		if len(ids) == 0 {
			t.Errorf("%s: no events", query)
		}
	}
	h = NewHandler(Config{Clock: fixedClock, PageSize: 1000})
	hdr = zimuToken(t, h)
	rec := do(t, h, "GET", "/zimu/events?carrierBookingReference=BK4471902&limit=1000", hdr, "")
	var all tnt3.Events
	if err := json.Unmarshal(rec.Body.Bytes(), &all); err != nil {
		t.Fatal(err)
	}
	j := journey.Generate("ZIMU", journey.KindBooking, "BK4471902", wallNow)
	if want := renderTNT3(j, SpecialNone); len(all.Events) != len(want) {
		t.Fatalf("%d events, the journey renders %d", len(all.Events), len(want))
	}
	kinds := map[string]int{}
	for _, e := range all.Events {
		kinds[e.EventClassification.EventTypeCode]++
	}
	if kinds["EQUIPMENT"] == 0 || kinds["TRANSPORT"] == 0 || kinds["SHIPMENT"] == 0 || kinds["IOT"] == 0 {
		t.Errorf("event types %v: want equipment, transport, shipment and IoT events", kinds)
	}
	// Filters.
	rec = do(t, h, "GET", "/zimu/events?carrierBookingReference=BK4471902&limit=1000&eventTypes=TRANSPORT", hdr, "")
	var onlyTransport tnt3.Events
	if err := json.Unmarshal(rec.Body.Bytes(), &onlyTransport); err != nil {
		t.Fatal(err)
	}
	if len(onlyTransport.Events) != kinds["TRANSPORT"] {
		t.Errorf("eventTypes=TRANSPORT: %d events, want %d", len(onlyTransport.Events), kinds["TRANSPORT"])
	}
	rec = do(t, h, "GET", "/zimu/events?carrierBookingReference=BK4471902&limit=1000&eventUpdatedDateTimeMax=2000-01-01T00:00:00Z", hdr, "")
	if !strings.Contains(rec.Body.String(), `"events": []`) {
		t.Errorf("eventUpdatedDateTimeMax in the past: %s", rec.Body)
	}
}

func TestTNT3Errors(t *testing.T) {
	h := NewHandler(Config{Clock: fixedClock})
	hdr := zimuToken(t, h)
	for _, c := range []struct {
		target string
		header map[string]string
		status int
	}{
		{"/zimu/events?equipmentReference=MSKU9070323", map[string]string{}, 401},
		{"/zimu/events?equipmentReference=MSKU9070323", map[string]string{"Authorization": hdr["Authorization"], "API-Version": "2.2.0"}, 400},
		{"/zimu/events", hdr, 400},
		{"/zimu/events?carrierBookingReference=A&transportDocumentReference=B", hdr, 400},
		{"/zimu/events?equipmentReference=MSKU9070323&cursor=garbage!", hdr, 400},
		{"/zimu/events?equipmentReference=DWNU0000000", hdr, 503},
		{"/zimu/events?equipmentReference=LMTU0000000", hdr, 429},
		{"/zimu/events?equipmentReference=FRBU0000004", hdr, 403},
		{"/zimu/events?equipmentReference=NOFU0000001", hdr, 200},
	} {
		rec := do(t, h, "GET", c.target, c.header, "")
		u, _ := url.Parse(c.target)
		if rec.Code != c.status || rec.Header().Get("API-Version") != "3.0.0" {
			t.Errorf("%s: %d, API-Version %q, want %d", c.target, rec.Code, rec.Header().Get("API-Version"), c.status)
		}
		if c.status == 200 && !strings.Contains(rec.Body.String(), `"events": []`) {
			t.Errorf("%s: %s, want no events", c.target, rec.Body)
		}
		if !strings.Contains(u.RawQuery, "cursor=garbage") { // not a valid query for the document
			tnt3test.Must(t, tnt3test.GetEventsResponse(u.RawQuery, rec.Code, rec.Header(), rec.Body.Bytes()))
		}
	}
}

// An RTRU number's wrong report appears at its time and is retracted, same
// eventID, six hours (journey time) later.
func TestTNT3WrongReportIsRetracted(t *testing.T) {
	const number = "RTRU0000001"
	var reported, retracted time.Time
	var id string
	for at := wallNow; ; at = at.Add(12 * time.Hour) {
		var ok bool
		if id, reported, retracted, ok = WrongReport(journey.Generate("ZIMU", journey.KindContainer, number, at)); ok {
			break
		}
		if at.Sub(wallNow) > 120*24*time.Hour {
			t.Fatal("no departure within 120 days")
		}
	}
	find := func(at time.Time) *tnt3.Event {
		h := NewHandler(Config{Clock: func() time.Time { return at }, PageSize: 1000})
		rec := do(t, h, "GET", "/zimu/events?equipmentReference="+number, zimuToken(t, h), "")
		tnt3test.Must(t, tnt3test.GetEventsResponse("equipmentReference="+number, rec.Code, rec.Header(), rec.Body.Bytes()))
		var page tnt3.Events
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
			t.Fatal(err)
		}
		for i, e := range page.Events {
			if e.EventID == id {
				return &page.Events[i]
			}
		}
		return nil
	}
	if e := find(reported.Add(-time.Minute)); e != nil {
		t.Errorf("reported before its time: %+v", e)
	}
	e := find(reported.Add(time.Hour))
	if e == nil || e.IsRetracted || e.EventClassification.EquipmentEventTypeCode != "DISC" {
		t.Fatalf("wrong report: %+v", e)
	}
	e = find(retracted.Add(time.Minute))
	if e == nil || !e.IsRetracted || e.EventClassification != nil || e.EventUpdatedDateTime != retracted.Format(dcsaTime) {
		t.Fatalf("retraction: %+v", e)
	}
}
