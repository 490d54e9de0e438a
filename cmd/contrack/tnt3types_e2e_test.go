package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox"
	sj "github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/tnt3"
)

// v3Events is GET /v3/events?query's events, held to the published
// producer's answer (v3 checks it).
func v3Events(t *testing.T, s *system, key, query string) []tnt3.Event {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+s.cfg.HTTPAddr+"/v3/events?"+query, nil)
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var body tnt3.Events
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	return body.Events
}

// sorted is list sorted, joined by spaces.
func sorted(list []string) string {
	return strings.Join(slices.Sorted(slices.Values(list)), " ")
}

// Every 3.0 event type end to end through `contrack all`: SHIPMENT, IOT
// and REEFER events pushed in 3.0 reach a TNT_3.0.0 webhook, the feed read
// with API-Version 3.0.0 and GET /v3/events (its eventTypes filter with
// the others), with their own codes and details, and so does the
// retraction of one; EVENT_DOMAIN 2.0.2 outputs (a 2.0.2 webhook, the
// feed without API-Version, the pull) stay as they were: without them.
// Every 3.0 document is held to the published schema.
func TestEndToEndTNT3EventTypes(t *testing.T) {
	s := startSystem(t)
	ctx := context.Background()
	store := auth.NewStore(s.db.Pool)
	a2, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	a3, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	carrierKey, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "xtn", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "XTNU"})
	if err != nil {
		t.Fatal(err)
	}
	h2, h3 := newHook(t, s, a2, "EVENT_DOMAIN_2.0.2"), newHook(t, s, a3, "TNT_3.0.0")
	const box, booking = "MSKU9070323", "XTNB4711"
	for _, key := range []string{a2, a3} {
		if code, body := s.do("POST", "/subscription/equipment", key, `{"scacCode":"XTNU","containerNumber":"`+box+`","subscriptionReference":"types"}`); code != 200 {
			t.Fatalf("subscribe: %d %v", code, body)
		}
	}
	at := func(d time.Duration) string { return time.Now().UTC().Add(d).Format(time.RFC3339) }
	equipment := `"equipmentDetails":{"equipmentReference":"` + box + `","ISOEquipmentCode":"45R1"}`
	docs := `"shipmentDetails":{"documentReference":{"typeCode":"BKG","reference":"` + booking + `"}}`
	load := func(id string, d time.Duration) string {
		return `{"eventID":"` + id + `","eventDateTime":"` + at(d) + `","eventLocation":{"UNLocationCode":"NLRTM"},` +
			`"eventClassification":{"eventTypeCode":"EQUIPMENT","eventClassifierCode":"ACT","equipmentEventTypeCode":"LOAD"},` +
			`"equipmentDetails":{"equipmentReference":"` + box + `","emptyIndicatorCode":"LADEN"}}`
	}
	shipment := `{"eventID":"x-conf","eventDateTime":"` + at(-72*time.Hour) + `",` +
		`"eventClassification":{"eventTypeCode":"SHIPMENT","eventClassifierCode":"ACT","shipmentEventTypeCode":"CONF"},` + docs + `,` + equipment + `}`
	iot := `{"eventID":"x-door","eventDateTime":"` + at(-50*time.Hour) + `","eventLocation":{"UNLocationCode":"NLRTM"},` +
		`"eventClassification":{"eventTypeCode":"IOT","eventClassifierCode":"ACT","iotEventTypeCode":"DETC"},` +
		`"iotDetails":{"iotEventCode":"DRO"},` + equipment + `}`
	reefer := `{"eventID":"x-temp","eventDateTime":"` + at(-49*time.Hour) + `","eventLocation":{"UNLocationCode":"NLRTM"},` +
		`"eventClassification":{"eventTypeCode":"REEFER","eventClassifierCode":"ACT","reeferEventTypeCode":"MEAS"},` +
		`"reeferDetails":{"temperatureUnit":"CEL","internalSetpointTemperature":-18,"temperatureProbeMeasurements":[{"USDAProbeNumber":1,"measuredTemperatureValue":-18.4}],` +
		`"measuredParameters":{"humidityPercentage":71.5,"isVentilationOpen":false}},` + equipment + `}`
	push := func(evs ...string) {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+s.cfg.HTTPAddr+"/events", strings.NewReader(`{"events":[`+strings.Join(evs, ",")+`]}`))
		req.Header.Set("x-api-key", carrierKey)
		req.Header.Set("API-Version", "3.0.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var answer struct {
			FeedbackElements []tnt3.FeedbackElement `json:"feedbackElements"`
		}
		// Every event accepted and forwarded: no feedback element.
		if resp.StatusCode != 200 || json.Unmarshal(raw, &answer) != nil || len(answer.FeedbackElements) != 0 {
			t.Fatalf("push: %d %s", resp.StatusCode, raw)
		}
	}
	id := func(src string) string { return identity.EventID("XTNU", src) }
	conf, door, temp, loaded, marker := id("x-conf"), id("x-door"), id("x-temp"), id("x-load"), id("x-load-2")
	threeOnly := []string{conf, door, temp}
	hasAll := func(list []string, ids ...string) bool {
		for _, id := range ids {
			if !has(list, id) {
				return false
			}
		}
		return true
	}
	// The 3.0-only events first, then a load every format carries: a
	// subscription's deliveries are in order, so a 2.0.2 output with the
	// load has had whatever it would get of the others. Pushed again until
	// every event reached both trackings (the routing index may learn of
	// a subscription between two events of one push).
	testkit.Eventually(t, 30*time.Second, "the push routed to both subscriptions", func() bool {
		push(shipment, iot, reefer, load("x-load", -48*time.Hour))
		time.Sleep(500 * time.Millisecond) // paces the pushes, not a condition
		return has(h2.events("types", false), loaded) && hasAll(h3.events("types", true), append(threeOnly, loaded)...) &&
			hasAll(feedEvents(t, s, a2, "types", true), append(threeOnly, loaded)...)
	})
	hasNone := func(list []string, ids ...string) bool {
		for _, id := range ids {
			if has(list, id) || has(list, "-"+id) {
				return false
			}
		}
		return true
	}
	defer func() {
		if t.Failed() {
			t.Logf("3.0-only %v\n3.0 webhook %v\n3.0 feed %v / %v\n2.0.2 webhook %v\nGET /v3/events %v / %v", threeOnly, h3.events("types", true),
				feedEvents(t, s, a3, "types", true), feedEvents(t, s, a2, "types", true), h2.events("types", false),
				v3(t, s, a3, "limit=1000"), v3(t, s, a2, "limit=1000"))
		}
	}()
	testkit.Eventually(t, 60*time.Second, "the 3.0 outputs with every type", func() bool {
		return hasAll(h3.events("types", true), threeOnly...) && hasAll(feedEvents(t, s, a3, "types", true), threeOnly...) &&
			hasAll(feedEvents(t, s, a2, "types", true), threeOnly...)
	})
	if got := h2.events("types", false); !hasNone(got, threeOnly...) {
		t.Errorf("the 2.0.2 webhook got 3.0-only events: %v", got)
	}
	for _, key := range []string{a2, a3} {
		testkit.Eventually(t, 30*time.Second, "the 2.0.2 feed with the load", func() bool {
			return has(feedEvents(t, s, key, "types", false), loaded)
		})
		if got := feedEvents(t, s, key, "types", false); !hasNone(got, threeOnly...) {
			t.Errorf("the 2.0.2 feed has 3.0-only events: %v", got)
		}
		testkit.Eventually(t, 30*time.Second, "the pull with the load", func() bool {
			src, _ := pull(t, s, key, box)
			return has(src, loaded)
		})
		if src, _ := pull(t, s, key, box); !hasNone(src, threeOnly...) {
			t.Errorf("the pull's sourceEvents have 3.0-only events: %v", src)
		}
	}

	// GET /v3/events: each type by eventTypes, with the other filters.
	testkit.Eventually(t, 30*time.Second, "GET /v3/events with every type", func() bool {
		return hasAll(v3(t, s, a2, "equipmentReference="+box), append(threeOnly, loaded)...)
	})
	for _, c := range []struct{ query, want string }{
		{"eventTypes=SHIPMENT", conf},
		{"eventTypes=IOT&equipmentReference=" + box, door},
		{"eventTypes=REEFER&eventUpdatedDateTimeMin=2000-01-01T00:00:00Z", temp},
		{"eventTypes=SHIPMENT&carrierBookingReference=" + booking, conf},
		{"eventTypes=SHIPMENT,IOT,REEFER&limit=1000", conf + " " + door + " " + temp},
		{"eventTypes=EQUIPMENT", loaded},
		{"eventTypes=SHIPMENT&equipmentReference=NOPE1234567", ""},
	} {
		// Events emitted together are ordered by id: compared as sets.
		if got := sorted(v3(t, s, a3, c.query)); got != sorted(strings.Fields(c.want)) {
			t.Errorf("%s: %q, want %q", c.query, got, c.want)
		}
	}
	// Their own fields, as pushed.
	byID := map[string]tnt3.Event{}
	for _, e := range v3Events(t, s, a3, "eventTypes=SHIPMENT,IOT,REEFER") {
		byID[e.EventID] = e
	}
	if e := byID[conf]; e.EventClassification == nil || e.EventClassification.ShipmentEventTypeCode != "CONF" ||
		e.ShipmentDetails == nil || e.ShipmentDetails.DocumentReference == nil || e.ShipmentDetails.DocumentReference.Reference != booking {
		t.Errorf("SHIPMENT: %+v", e)
	}
	if e := byID[door]; e.EventClassification == nil || e.EventClassification.IotEventTypeCode != "DETC" || e.IotDetails == nil ||
		e.IotDetails.IotEventCode != "DRO" || e.EquipmentDetails == nil || e.EquipmentDetails.EquipmentReference != box {
		t.Errorf("IOT: %+v", e)
	}
	if e := byID[temp]; e.EventClassification == nil || e.EventClassification.ReeferEventTypeCode != "MEAS" || e.ReeferDetails == nil ||
		e.ReeferDetails.TemperatureUnit != "CEL" || len(e.ReeferDetails.TemperatureProbeMeasurements) != 1 ||
		*e.ReeferDetails.TemperatureProbeMeasurements[0].MeasuredTemperatureValue != -18.4 || e.ReeferDetails.MeasuredParameters == nil ||
		*e.ReeferDetails.MeasuredParameters.HumidityPercentage != 71.5 || *e.ReeferDetails.MeasuredParameters.IsVentilationOpen {
		t.Errorf("REEFER: %+v %+v", e, e.ReeferDetails)
	}

	// The carrier withdraws the door reading: 3.0 outputs say so; 2.0.2
	// ones, which never had it, hear nothing of it (another load, after
	// it, shows they have caught up).
	push(`{"eventID":"x-door","isRetracted":true}`, load("x-load-2", -47*time.Hour))
	testkit.Eventually(t, 60*time.Second, "the withdrawal in the 3.0 outputs", func() bool {
		return has(h3.events("types", true), "-"+door) && has(feedEvents(t, s, a3, "types", true), "-"+door) &&
			has(v3(t, s, a3, "eventTypes=IOT"), "-"+door)
	})
	testkit.Eventually(t, 30*time.Second, "the 2.0.2 outputs with the second load", func() bool {
		return has(h2.events("types", false), marker) && has(feedEvents(t, s, a2, "types", false), marker)
	})
	if got := h2.events("types", false); !hasNone(got, threeOnly...) {
		t.Errorf("the 2.0.2 webhook after the withdrawal: %v", got)
	}
	if got := feedEvents(t, s, a2, "types", false); !hasNone(got, threeOnly...) {
		t.Errorf("the 2.0.2 feed after the withdrawal: %v", got)
	}
	if got := v3(t, s, a3, "eventTypes=SHIPMENT,IOT,REEFER"); sorted(got) != sorted([]string{conf, temp, "-" + door}) {
		t.Errorf("GET /v3/events after the withdrawal: %v", got)
	}
}

// The producer's side of DCSA's Conformance Gateway: an account tracking a
// container of a 3.0 carrier (the sandbox's ZIMU) has SHIPMENT, IOT and
// REEFER events in GET /v3/events (each type by eventTypes) and its
// TNT_3.0.0 webhook, polled; the 2.0.2 webhook of another account on the
// same container gets none of them. The container is a reefer whose load
// is behind it at the test's time (journeydate).
func TestEndToEndTNT3EventTypesPolled(t *testing.T) {
	s := startSystem(t, func(c *Config) { c.Poller.Interval = map[string]time.Duration{"sandbox": 2 * time.Second} })
	ctx := context.Background()
	store := auth.NewStore(s.db.Pool)
	a2, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	a3, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	var box string
	for serial := 0; box == ""; serial++ {
		if serial == 20000 {
			t.Fatal("no ZIMU reefer loaded by now")
		}
		n := sj.CompleteContainer(fmt.Sprintf("ZCSU%06d", serial))
		if sandbox.SpecialOf(n) != sandbox.SpecialNone {
			continue
		}
		j := sandbox.Journey("ZIMU", sj.KindContainer, n, time.Now())
		if !strings.Contains(j.Containers[0].ISOCode, "R") {
			continue
		}
		for _, e := range j.Events {
			if e.Type == sj.TypeEquipment && e.Code == sj.CodeLoad && e.Classifier == sj.ACT && e.Time.Before(time.Now().Add(-time.Hour)) {
				box = n
				break
			}
		}
	}
	h2, h3 := newHook(t, s, a2, "EVENT_DOMAIN_2.0.2"), newHook(t, s, a3, "TNT_3.0.0")
	for _, key := range []string{a2, a3} {
		if code, body := s.do("POST", "/carrier/credentials", key, `{"ZIMU":{"clientId":"i","clientSecret":"s"}}`); code != 200 {
			t.Fatalf("credentials: %d %v", code, body)
		}
		if code, body := s.do("POST", "/subscription/equipment", key, `{"scacCode":"ZIMU","containerNumber":"`+box+`","subscriptionReference":"reefer"}`); code != 200 {
			t.Fatalf("subscribe: %d %v", code, body)
		}
	}
	for _, typ := range []string{"SHIPMENT", "IOT", "REEFER"} {
		var evs []tnt3.Event
		testkit.Eventually(t, 60*time.Second, "GET /v3/events?eventTypes="+typ+" with an event", func() bool {
			v3(t, s, a3, "eventTypes="+typ) // held to the published answer
			evs = v3Events(t, s, a3, "eventTypes="+typ)
			return len(evs) > 0
		})
		for _, e := range evs {
			if c := e.EventClassification; c == nil || c.EventTypeCode != typ || c.ShipmentEventTypeCode+c.IotEventTypeCode+c.ReeferEventTypeCode == "" {
				t.Errorf("%s: %+v", typ, e)
			}
		}
		if typ == "REEFER" && (evs[0].ReeferDetails == nil || evs[0].ReeferDetails.TemperatureUnit != "CEL") {
			t.Errorf("REEFER without its reading: %+v", evs[0])
		}
	}
	threeOnly := v3(t, s, a3, "eventTypes=SHIPMENT,IOT,REEFER&limit=1000")
	testkit.Eventually(t, 60*time.Second, "the 3.0 webhook with every 3.0-only event", func() bool {
		got := h3.events("reefer", true)
		for _, id := range threeOnly {
			if !has(got, id) {
				return false
			}
		}
		return true
	})
	// The 2.0.2 webhook has caught up once it has every 2.0.2 event of its
	// account's GET /v3/events (the terminal's status aside: no 2.0.2
	// event either).
	testkit.Eventually(t, 60*time.Second, "the 2.0.2 webhook with the container's 2.0.2 events", func() bool {
		got := h2.events("reefer", false)
		for _, e := range v3Events(t, s, a2, "eventTypes=EQUIPMENT,TRANSPORT&limit=1000") {
			if e.IsRetracted || e.EventClassification == nil {
				continue
			}
			if _, terminal := dcsa.TerminalCodes[e.EventClassification.EquipmentEventTypeCode]; !terminal && !has(got, e.EventID) {
				return false
			}
		}
		return len(got) > 0
	})
	for _, id := range h2.events("reefer", false) {
		if has(threeOnly, id) {
			t.Errorf("the 2.0.2 webhook got 3.0-only event %s", id)
		}
	}
}
