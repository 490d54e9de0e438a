package delivery_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	dt "github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/tnt3"
	"github.com/contrack/contrack/schemas/tnt3/tnt3test"
)

// received is every event of a receiver's acknowledged deliveries, in
// order: "eventID" for an event, "-eventID" for a retraction (a 2.0.2
// payload's retractedEventIDs, whose copy in events is the event's last
// occurrence there; a 3.0 event's isRetracted).
func received(t *testing.T, rc *dt.Receiver, v3 bool) []string {
	t.Helper()
	var out []string
	for _, r := range rc.Acked() {
		if v3 {
			var p struct {
				Events []tnt3.Event `json:"events"`
			}
			if err := json.Unmarshal(r.Body, &p); err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Events {
				if e.IsRetracted {
					out = append(out, "-"+e.EventID)
				} else {
					out = append(out, e.EventID)
				}
			}
			continue
		}
		p := r.Payload(t)
		retracted := map[string]bool{}
		for _, id := range p.RetractedEventIDs {
			retracted[id] = true
		}
		ids := r.EventIDs(t)
		lastOf := map[string]int{}
		for i, id := range ids {
			lastOf[id] = i
		}
		for i, id := range ids {
			if retracted[id] && lastOf[id] == i { // the withdrawn copy is the event's last occurrence
				out = append(out, "-"+id)
				delete(retracted, id)
			} else {
				out = append(out, id)
			}
		}
		if len(retracted) > 0 {
			t.Errorf("retractedEventIDs %v name events the payload lacks: %s", p.RetractedEventIDs, r.Body)
		}
	}
	return out
}

// A retraction reaches a 2.0.2 webhook as retractedEventIDs beside the
// withdrawn event as last delivered (events is never empty), and a 3.0
// webhook as 3.0's own retraction; it reaches only subscriptions that got
// the event; 3.0 deliveries are POST /events requests the published
// document accepts, sent with API-Version 3.0.0.
func TestRetractionsAndTNT3Deliveries(t *testing.T) {
	h := dt.New(t, false)
	rc2, rc3 := dt.NewReceiver(t, nil), dt.NewReceiver(t, nil)
	a2, a3 := h.Account("sandbox"), h.Account("sandbox")
	h.Webhook(a2, rc2.URL+"/hooks", true)
	h.Webhook(a3, rc3.URL+"/hooks", true)
	h.Exec(`UPDATE webhooks SET event_format = 'TNT_3.0.0' WHERE account_id = $1`, a3)
	s2, s3 := h.Subscribe(a2, "ref-2"), h.Subscribe(a3, "ref-3")
	h.Start(dt.Config())
	for _, s := range []dt.Sub{s2, s3} {
		h.ProduceRecords(h.Record(s, "ev-1", "h1"), h.Record(s, "ev-2", "h1"))
	}
	testkit.Eventually(t, 15*time.Second, "the events", func() bool { return len(received(t, rc2, false)) == 2 && len(received(t, rc3, true)) == 2 })
	for _, s := range []dt.Sub{s2, s3} {
		h.ProduceRecords(h.Retraction(s, "ev-1"))
		h.ProduceRecords(h.Retraction(s, "ev-9"))                            // never sent: nothing
		h.ProduceRecords(h.Record(s, "ev-3", "h1"), h.Retraction(s, "ev-3")) // possibly in one statement
		h.ProduceRecords(h.Retraction(s, "ev-1"))                            // a repeat: nothing
		h.ProduceRecords(h.Record(s, "ev-4", "h1"))
	}
	want := "ev-1 ev-2 -ev-1 ev-3 -ev-3 ev-4"
	ok := false
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end) && !ok; time.Sleep(100 * time.Millisecond) {
		ok = strings.Join(received(t, rc2, false), " ") == want && strings.Join(received(t, rc3, true), " ") == want
	}
	if !ok {
		t.Fatalf("2.0.2: %v\n3.0: %v\nwant %s", received(t, rc2, false), received(t, rc3, true), want)
	}
	// The 2.0.2 payload's withdrawn event is the event as delivered.
	for _, r := range rc2.Acked() {
		p := r.Payload(t)
		for i, id := range r.EventIDs(t) {
			if id == "ev-1" && string(p.Events[i]) != string(dt.Event("ev-1", s2.Container)) {
				t.Errorf("withdrawn event %s", p.Events[i])
			}
		}
		if r.Header.Get("API-Version") != "" {
			t.Errorf("a 2.0.2 delivery with API-Version %q", r.Header.Get("API-Version"))
		}
	}
	for _, r := range rc3.Acked() {
		if r.Header.Get("API-Version") != tnt3.Version {
			t.Errorf("API-Version %q", r.Header.Get("API-Version"))
		}
		tnt3test.Must(t, tnt3test.PostEventsRequest(r.Header, r.Body))
		var p struct {
			References map[string]string `json:"references"`
			Events     []tnt3.Event      `json:"events"`
		}
		if err := json.Unmarshal(r.Body, &p); err != nil {
			t.Fatal(err)
		}
		if p.References["subscriptionReference"] != "ref-3" {
			t.Errorf("references %v", p.References)
		}
		for _, e := range p.Events {
			if e.EventUpdatedDateTime == "" || e.EventRouting == nil || e.EventRouting.OriginatingParty.PartyCode != "MAEU" {
				t.Errorf("event %+v", e)
			}
			if !e.IsRetracted && (e.EquipmentDetails == nil || e.EquipmentDetails.EquipmentReference != s3.Container) {
				t.Errorf("event %+v", e)
			}
		}
	}
}

// SHIPMENT, IOT and REEFER events (and their retractions, in the batch of
// their event or after it) reach a TNT_3.0.0 webhook with their 3.0 codes
// and details, and never an EVENT_DOMAIN 2.0.2 one, which has no form for
// them; the events around them reach both.
func TestTNT3OnlyEventsReachTNT3WebhooksOnly(t *testing.T) {
	h := dt.New(t, false)
	rc2, rc3 := dt.NewReceiver(t, nil), dt.NewReceiver(t, nil)
	a2, a3 := h.Account("sandbox"), h.Account("sandbox")
	h.Webhook(a2, rc2.URL+"/hooks", true)
	h.Webhook(a3, rc3.URL+"/hooks", true)
	h.Exec(`UPDATE webhooks SET event_format = 'TNT_3.0.0' WHERE account_id = $1`, a3)
	s2, s3 := h.Subscribe(a2, "ref-2"), h.Subscribe(a3, "ref-3")
	h.Start(dt.Config())
	only := func(s dt.Sub, id, typ string) schemas.EventRecord {
		r := h.Record(s, id, "h-"+id)
		r.Event = dt.TNT3OnlyEvent(id, typ, s.Container)
		return r
	}
	for _, s := range []dt.Sub{s2, s3} {
		h.ProduceRecords(h.Record(s, "ev-1", "h1"), only(s, "sh-1", dcsa.EventTypeShipment), only(s, "rf-1", dcsa.EventTypeReefer))
		h.ProduceRecords(only(s, "io-1", dcsa.EventTypeIoT), h.Retraction(s, "io-1")) // possibly in one statement
		h.ProduceRecords(h.Retraction(s, "sh-1"))
		h.ProduceRecords(h.Record(s, "ev-2", "h1"))
	}
	want2, want3 := "ev-1 ev-2", "ev-1 sh-1 rf-1 io-1 -io-1 -sh-1 ev-2"
	ok := false
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end) && !ok; time.Sleep(100 * time.Millisecond) {
		ok = strings.Join(received(t, rc2, false), " ") == want2 && strings.Join(received(t, rc3, true), " ") == want3
	}
	if !ok {
		t.Fatalf("2.0.2: %v, want %s\n3.0: %v, want %s", received(t, rc2, false), want2, received(t, rc3, true), want3)
	}
	byID := map[string]tnt3.Event{}
	for _, r := range rc3.Acked() {
		tnt3test.Must(t, tnt3test.PostEventsRequest(r.Header, r.Body))
		var p struct {
			Events []tnt3.Event `json:"events"`
		}
		if err := json.Unmarshal(r.Body, &p); err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Events {
			if !e.IsRetracted {
				byID[e.EventID] = e
			}
		}
	}
	if c := byID["sh-1"].EventClassification; c == nil || c.EventTypeCode != "SHIPMENT" || c.ShipmentEventTypeCode != "CONF" {
		t.Errorf("SHIPMENT: %+v", byID["sh-1"])
	}
	if e := byID["io-1"]; e.IotDetails == nil || e.IotDetails.IotEventCode != "DRO" || e.EventClassification.IotEventTypeCode != "DETC" {
		t.Errorf("IOT: %+v", e)
	}
	if e := byID["rf-1"]; e.ReeferDetails == nil || e.ReeferDetails.TemperatureUnit != "CEL" || e.EventClassification.ReeferEventTypeCode != "MEAS" ||
		e.EquipmentDetails == nil || e.EquipmentDetails.EquipmentReference != s3.Container {
		t.Errorf("REEFER: %+v", e)
	}
}
