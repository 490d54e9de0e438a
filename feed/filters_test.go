package feed_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// coded is a record of s's tracking with the event's codes.
func coded(h *deliverytest.Harness, s deliverytest.Sub, id, typ, code, classifier string) schemas.EventRecord {
	r := h.Record(s, id, "h1")
	field := "equipmentEventTypeCode"
	if typ == "TRANSPORT" {
		field = "transportEventTypeCode"
	}
	r.Event = json.RawMessage(fmt.Sprintf(`{"eventID":%q,"eventType":%q,"eventClassifierCode":%q,"eventDateTime":"2026-11-20T10:00:00Z",%q:%q,"equipmentReference":%q,"emptyIndicatorCode":"LADEN"}`,
		id, typ, classifier, field, code, s.Container))
	return r
}

func alertOf(t *testing.T, h *deliverytest.Harness, s deliverytest.Sub, kind string, minutes *int) schemas.EventRecord {
	a := schemas.Alert{AlertID: schemas.AlertID(s.Tracking, kind, fmt.Sprint(minutes)), AlertType: kind, EquipmentReference: s.Container,
		AlertDateTime: "2026-11-20T10:00:00Z", ChangeMinutes: minutes}
	rec, err := schemas.AlertRecord(a, h.Record(s, "", ""))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// feedRead is one page's events and alerts ("alert:TYPE/minutes"), events
// before alerts within an item.
func feedRead(t *testing.T, w *world, key, query string) (items []string, cursor string) {
	t.Helper()
	r := w.api.Do("GET", "/subscriptions/events"+query, key, nil)
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", query, r.Status, r.Raw)
	}
	var p struct {
		Items []struct {
			Events []struct {
				EventID string `json:"eventID"`
			} `json:"events"`
			Alerts []schemas.Alert `json:"alerts"`
		} `json:"items"`
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(r.Raw, &p); err != nil {
		t.Fatal(err)
	}
	for _, it := range p.Items {
		for _, e := range it.Events {
			items = append(items, e.EventID)
		}
		for _, a := range it.Alerts {
			m := ""
			if a.ChangeMinutes != nil {
				m = fmt.Sprint(*a.ChangeMinutes)
			}
			items = append(items, "alert:"+a.AlertType+"/"+m)
		}
	}
	return items, p.NextCursor
}

// A feed reader's filters are its query parameters, applied as a webhook's
// are: event types and milestone kinds, classifiers, milestones only, the
// alert kinds asked for (none by default) with the subscription's, else
// the account's, ETA threshold. Rows left out count as read: a reader whose
// filters match nothing more gets a cursor past them.
func TestFeedFilters(t *testing.T) {
	w := newWorld(t)
	key, acct := w.account("filters")
	s := w.h.Subscribe(acct, "ref-1")
	w.h.Exec(`UPDATE accounts SET eta_threshold_minutes = 60 WHERE id = $1`, acct)
	w.start()
	two, five := 30, 300
	w.h.ProduceRecords(
		coded(w.h, s, "gate-in", "EQUIPMENT", "GTIN", "ACT"),
		coded(w.h, s, "pod-disc", "EQUIPMENT", "DISC", "ACT"),
		coded(w.h, s, "eta", "TRANSPORT", "ARRI", "EST"),
		coded(w.h, s, "atd", "TRANSPORT", "DEPA", "ACT"),
		alertOf(t, w.h, s, schemas.AlertETAChanged, &two),
		alertOf(t, w.h, s, schemas.AlertETAChanged, &five),
		alertOf(t, w.h, s, schemas.AlertHoldPlaced, nil),
	)
	// Every event and no alert without filters, as before.
	testkit.Eventually(t, 20*time.Second, "the events and alerts in the feed", func() bool {
		return w.h.Count(`SELECT count(*) FROM feed_items WHERE account_id = $1`, acct) == 7
	})
	for q, want := range map[string][]string{
		"":                                           {"gate-in", "pod-disc", "eta", "atd"},
		"?eventTypes=TRANSPORT,discharge_pod":        {"pod-disc", "eta", "atd"},
		"?eventTypes=TRANSPORT&classifiers=ACT":      {"atd"},
		"?classifiers=EST&classifiers=PLN":           {"eta"},
		"?milestonesOnly=true":                       {"pod-disc", "eta", "atd"},
		"?eventTypes=&alertTypes=ETA_CHANGED":        {"alert:ETA_CHANGED/300"},
		"?alertTypes=HOLD_PLACED&eventTypes=ATD_POL": {"atd", "alert:HOLD_PLACED/"},
	} {
		got, _ := feedRead(t, w, key, q)
		slices.SortStableFunc(got, func(a, b string) int { return cmpAlert(a) - cmpAlert(b) })
		if !slices.Equal(got, want) {
			t.Errorf("GET %q: %v, want %v", q, got, want)
		}
	}
	// The subscription's own threshold beats the account's.
	w.h.Exec(`UPDATE subscriptions SET eta_threshold_minutes = 15 WHERE id = $1`, s.ID)
	if got, _ := feedRead(t, w, key, "?eventTypes=&alertTypes=ETA_CHANGED"); !slices.Equal(got, []string{"alert:ETA_CHANGED/30", "alert:ETA_CHANGED/300"}) {
		t.Errorf("with the subscription's threshold: %v", got)
	}
	// Nothing matches: the cursor moves past what was left out, and a
	// later match is read from there.
	got, cur := feedRead(t, w, key, "?eventTypes=EMPTY_RETURN")
	if len(got) != 0 {
		t.Fatalf("EMPTY_RETURN: %v", got)
	}
	if rest, _ := feedRead(t, w, key, "?cursor="+url.QueryEscape(cur)); len(rest) != 0 {
		t.Fatalf("the cursor of a read that matched nothing is not past what it left out: %v follow it", rest)
	}
	// A laden gate-in (no EMPTY_RETURN), then an empty return.
	w.h.ProduceRecords(coded(w.h, s, "laden-gate-in", "EQUIPMENT", "GTIN", "ACT"))
	er := coded(w.h, s, "returned", "EQUIPMENT", "GTIN", "ACT")
	er.Event = json.RawMessage(`{"eventID":"returned","eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":"2026-11-20T10:00:00Z","equipmentEventTypeCode":"GTIN","equipmentReference":"` + s.Container + `","emptyIndicatorCode":"EMPTY"}`)
	w.h.ProduceRecords(er)
	testkit.Eventually(t, 20*time.Second, "the empty return", func() bool {
		got, _ := feedRead(t, w, key, "?eventTypes=EMPTY_RETURN&cursor="+url.QueryEscape(cur))
		return slices.Equal(got, []string{"returned"})
	})
	for q, want := range map[string]string{
		"?eventTypes=SHIPMENT":            `Invalid query parameters: 'eventTypes' has "SHIPMENT": use EQUIPMENT, TRANSPORT, ATD_POL, TRANSSHIPMENT, ETA_REVISION, ETA_POD, ATA_POD, DISCHARGE_POD, GATE_OUT_FULL_DESTINATION, EMPTY_RETURN`,
		"?classifiers=XX&alertTypes=LATE": `Invalid query parameters: 'classifiers' has "XX": use ACT, PLN, EST; 'alertTypes' has "LATE": use ETA_CHANGED, ROLLED, ARRIVED, AVAILABLE_FOR_PICKUP, HOLD_PLACED, HOLD_RELEASED, LFD_APPROACHING, DEMURRAGE_STARTED`,
		"?milestonesOnly=maybe":           "Invalid query parameters: 'milestonesOnly' must be true or false",
	} {
		if r := w.api.Do("GET", "/subscriptions/events"+q, key, nil); r.Status != 400 || r.Message() != want {
			t.Errorf("%s: %d %s, want 400 %q", q, r.Status, r.Raw, want)
		}
	}
}

func cmpAlert(s string) int {
	if len(s) > 6 && s[:6] == "alert:" {
		return 1
	}
	return 0
}
