package delivery_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// filterEvent is a record of s's tracking with the event's codes.
func filterEvent(h *dt.Harness, s dt.Sub, id, typ, code, classifier string) schemas.EventRecord {
	r := h.Record(s, id, "h1")
	field := "equipmentEventTypeCode"
	if typ == "TRANSPORT" {
		field = "transportEventTypeCode"
	}
	r.Event = json.RawMessage(fmt.Sprintf(`{"eventID":%q,"eventType":%q,"eventClassifierCode":%q,"eventDateTime":"2026-11-20T10:00:00Z",%q:%q,"equipmentReference":%q,"emptyIndicatorCode":"LADEN"}`,
		id, typ, classifier, field, code, s.Container))
	return r
}

// filterAlert is an alert record of s's tracking.
func filterAlert(t *testing.T, h *dt.Harness, s dt.Sub, kind string, minutes *int) schemas.EventRecord {
	a := schemas.Alert{AlertID: schemas.AlertID(s.Tracking, kind, fmt.Sprint(minutes)), AlertType: kind, EquipmentReference: s.Container,
		AlertDateTime: "2026-11-20T10:00:00Z", ChangeMinutes: minutes}
	rec, err := schemas.AlertRecord(a, h.Record(s, "", ""))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// A webhook's filters decide what is queued: events by type, milestone
// kind and classifier, "milestones only", alerts by kind (none unless
// asked for) and an ETA_CHANGED by the subscription's (else the account's,
// else 6 h) threshold. What is filtered out is never queued, so never
// delivered and never a failed delivery; an unfiltered webhook gets every
// event and no alert, as before.
func TestWebhookFilters(t *testing.T) {
	h := dt.New(t, false)
	filtered, milestones, plain := dt.NewReceiver(t, nil), dt.NewReceiver(t, nil), dt.NewReceiver(t, nil)
	aF, aM, aP := h.Account("sandbox"), h.Account("sandbox"), h.Account("sandbox")
	h.Webhook(aF, filtered.URL+"/hooks", true)
	h.Webhook(aM, milestones.URL+"/hooks", true)
	h.Webhook(aP, plain.URL+"/hooks", true)
	h.Exec(`UPDATE webhooks SET filter_event_types = '{TRANSPORT,DISCHARGE_POD}', filter_classifiers = '{ACT}',
		alert_types = '{ETA_CHANGED,HOLD_PLACED}' WHERE account_id = $1`, aF)
	h.Exec(`UPDATE webhooks SET filter_milestones_only = true, filter_event_types = '{}', alert_types = '{ETA_CHANGED}' WHERE account_id = $1`, aM)
	h.Exec(`UPDATE accounts SET eta_threshold_minutes = 60 WHERE id = $1`, aM)
	sF, sF2, sM, sP := h.Subscribe(aF, "f"), h.Subscribe(aF, "f2"), h.Subscribe(aM, "m"), h.Subscribe(aP, "p")
	h.Exec(`UPDATE subscriptions SET eta_threshold_minutes = 90 WHERE id = $1`, sF2.ID)
	h.Start(dt.Config())
	two, ten, final := 120, 600, 700
	for _, s := range []dt.Sub{sF, sF2, sM, sP} {
		h.ProduceRecords(
			filterEvent(h, s, "gate-in", "EQUIPMENT", "GTIN", "ACT"),
			filterEvent(h, s, "pod-disc", "EQUIPMENT", "DISC", "ACT"),
			filterEvent(h, s, "eta", "TRANSPORT", "ARRI", "EST"),
			filterEvent(h, s, "atd", "TRANSPORT", "DEPA", "ACT"),
			filterEvent(h, s, "disc-est", "EQUIPMENT", "DISC", "EST"),
			filterAlert(t, h, s, schemas.AlertETAChanged, &two),
			filterAlert(t, h, s, schemas.AlertETAChanged, &ten),
			filterAlert(t, h, s, schemas.AlertArrived, nil),
			filterAlert(t, h, s, schemas.AlertHoldPlaced, nil),
			filterEvent(h, s, "last", "TRANSPORT", "ARRI", "ACT"),
			filterAlert(t, h, s, schemas.AlertETAChanged, &final),
		)
	}
	// Per subscription, what passes its filters (in queue order, events
	// and alerts apart since a payload carries them side by side).
	want := map[string][]string{
		// TRANSPORT or DISCHARGE_POD, and ACT; ETA moves of 6 h and more.
		"f": {"pod-disc", "atd", "last", "alert:ETA_CHANGED/600", "alert:HOLD_PLACED/", "alert:ETA_CHANGED/700"},
		// its own threshold: 90 minutes
		"f2": {"pod-disc", "atd", "last", "alert:ETA_CHANGED/120", "alert:ETA_CHANGED/600", "alert:HOLD_PLACED/", "alert:ETA_CHANGED/700"},
		// no event type at all: alerts only, with the account's threshold (60 min)
		"m": {"alert:ETA_CHANGED/120", "alert:ETA_CHANGED/600", "alert:ETA_CHANGED/700"},
		// no filters: every event, no alert
		"p": {"gate-in", "pod-disc", "eta", "atd", "disc-est", "last"},
	}
	got := func() map[string][]string {
		out := map[string][]string{}
		for _, rc := range []*dt.Receiver{filtered, milestones, plain} {
			for _, r := range rc.Acked() {
				ref := r.Payload(t).References.SubscriptionReference
				out[ref] = append(out[ref], receivedOf(t, r)...)
			}
		}
		for ref, l := range out {
			// events in order, then alerts in order
			slices.SortStableFunc(l, func(a, b string) int {
				return cmpBool(strings.HasPrefix(a, "alert:"), strings.HasPrefix(b, "alert:"))
			})
			out[ref] = l
		}
		return out
	}
	// Events and alerts come on two topics, each in order: once a
	// subscription has the last event and the last alert that pass its
	// filters, nothing more is on its way.
	testkit.Eventually(t, 20*time.Second, "every subscription's last event and alert", func() bool {
		g := got()
		for ref, w := range want {
			for _, end := range []string{"last", "alert:ETA_CHANGED/700"} {
				if slices.Contains(w, end) && !slices.Contains(g[ref], end) {
					return false
				}
			}
		}
		return true
	})
	testkit.Eventually(t, 10*time.Second, "every delivery acknowledged", func() bool {
		return h.Count(`SELECT count(*) FROM deliveries WHERE status <> 'DELIVERED'`) == 0
	})
	for ref, w := range want {
		if g := got()[ref]; !slices.Equal(g, w) {
			t.Errorf("subscription %s received %v, want %v", ref, g, w)
		}
	}
	for _, s := range []dt.Sub{sF, sF2, sM, sP} {
		for _, d := range h.Deliveries(s.ID) {
			if d.Status != "DELIVERED" || d.Attempts != 1 {
				t.Errorf("subscription %s: delivery %s %s after %d attempts: a filtered event must not fail", s.Ref, d.ID, d.Status, d.Attempts)
			}
		}
	}
	if n := h.Count(`SELECT count(*) FROM delivery_queue_events WHERE subscription_id = $1`, sM.ID); n != 3 {
		t.Errorf("the alerts-only subscription has %d queue rows, want its 3 alerts", n)
	}
}

// receivedOf is one request's events and alerts as receivedAll lists them.
func receivedOf(t *testing.T, r dt.Received) []string {
	p := r.Payload(t)
	out := r.EventIDs(t)
	for _, raw := range p.Alerts {
		var a schemas.Alert
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		m := ""
		if a.ChangeMinutes != nil {
			m = fmt.Sprint(*a.ChangeMinutes)
		}
		out = append(out, "alert:"+a.AlertType+"/"+m)
	}
	return out
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
