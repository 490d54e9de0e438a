package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// gatewayProducer answers as DCSA's Conformance Gateway does in the
// Producer role: the published sample events (reference/dcsa/samples),
// filtered by eventTypes; with limit and no cursor a Next-Page-Cursor,
// with a cursor the next page and none. 403 without its API key header.
type gatewayProducer struct {
	srv          *httptest.Server
	page, next   []map[string]any
	mu           sync.Mutex
	asked        []url.Values
	wrongHeaders int
}

const gatewayCursor = "fE9mZnNldHw9MTAmbGltaXQ9MTA"

func newGatewayProducer(t *testing.T) *gatewayProducer {
	g := &gatewayProducer{}
	for file, dst := range map[string]*[]map[string]any{"tnt-300-response.json": &g.page, "tnt-300-response-nextpage.json": &g.next} {
		raw, err := os.ReadFile("../../reference/dcsa/samples/" + file)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Events []map[string]any `json:"events"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		*dst = body.Events
	}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if vs := r.Header.Values("dcsa-conformance-api-key"); len(vs) != 1 || vs[0] != "gw-key-0001" {
			g.wrongHeaders++
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{}`))
			return
		}
		if !strings.HasSuffix(r.URL.Path, "/party/Producer1/api/events") {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		g.asked = append(g.asked, q)
		events := g.page
		if q.Has("cursor") {
			events = g.next
		} else if q.Has("limit") {
			w.Header().Set("Next-Page-Cursor", gatewayCursor)
		}
		if types := q.Get("eventTypes"); types != "" {
			var kept []map[string]any
			for _, ev := range events {
				if c, _ := ev["eventClassification"].(map[string]any); slices.Contains(strings.Split(types, ","), c["eventTypeCode"].(string)) {
					kept = append(kept, ev)
				}
			}
			events = kept
		}
		w.Header().Set("API-Version", "3.0.0")
		_ = json.NewEncoder(w).Encode(map[string]any{"events": append([]map[string]any{}, events...)})
	}))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *gatewayProducer) requests() []url.Values {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]url.Values(nil), g.asked...)
}

// Every GET the Conformance Gateway asks of a Track & Trace 3.0 consumer
// (its 16 scenarios: by event type, primary and additional filters, and
// cursor pagination in two steps) is one POST /carrier/connectors/{code}/fetch,
// and the producer sees exactly that query, every parameter once, with the
// registered API key header. Then a subscription to the connector's code
// is polled by the poller and its events come out of the normaliser.
func TestEndToEndCarrierConnector(t *testing.T) {
	g := newGatewayProducer(t)
	s := startSystem(t)
	key, _, err := auth.NewStore(s.db.Pool).CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	base := g.srv.URL + "/conformance/sandbox/sb-1/party/Producer1/api"
	reg := `{"code":"dcgw","baseUrl":"` + base + `","format":"TNT_3.0.0",
		"auth":{"scheme":"API_KEY","headerName":"dcsa-conformance-api-key","apiKey":"gw-key-0001"}}`
	if code, body := s.do("POST", "/carrier/connectors", key, reg); code != 200 {
		t.Fatalf("register: %d %v", code, body)
	}
	const cbr, tdr, er = "ABC709951", "HHL71800000", "APZU4812090"
	const lo, hi = "2025-01-23T01:23:45Z", "2025-02-23T01:23:45Z"
	scenarios := []struct {
		body string
		want map[string]string
	}{
		{`{"eventTypes":["SHIPMENT"]}`, map[string]string{"eventTypes": "SHIPMENT"}},
		{`{"eventTypes":["TRANSPORT"]}`, map[string]string{"eventTypes": "TRANSPORT"}},
		{`{"eventTypes":["EQUIPMENT"]}`, map[string]string{"eventTypes": "EQUIPMENT"}},
		{`{"eventTypes":["IOT"]}`, map[string]string{"eventTypes": "IOT"}},
		{`{"eventTypes":["REEFER"]}`, map[string]string{"eventTypes": "REEFER"}},
		{`{"carrierBookingReference":"` + cbr + `"}`, map[string]string{"carrierBookingReference": cbr}},
		{`{"carrierBookingReference":"` + cbr + `","equipmentReference":"` + er + `"}`, map[string]string{"carrierBookingReference": cbr, "equipmentReference": er}},
		{`{"transportDocumentReference":"` + tdr + `"}`, map[string]string{"transportDocumentReference": tdr}},
		{`{"transportDocumentReference":"` + tdr + `","equipmentReference":"` + er + `"}`, map[string]string{"transportDocumentReference": tdr, "equipmentReference": er}},
		{`{"equipmentReference":"` + er + `"}`, map[string]string{"equipmentReference": er}},
		{`{"carrierBookingReference":"` + cbr + `","eventTypes":["EQUIPMENT","IOT","REEFER"]}`, map[string]string{"carrierBookingReference": cbr, "eventTypes": "EQUIPMENT,IOT,REEFER"}},
		{`{"carrierBookingReference":"` + cbr + `","eventUpdatedDateTimeMin":"` + lo + `"}`, map[string]string{"carrierBookingReference": cbr, "eventUpdatedDateTimeMin": lo}},
		{`{"carrierBookingReference":"` + cbr + `","eventUpdatedDateTimeMax":"` + hi + `"}`, map[string]string{"carrierBookingReference": cbr, "eventUpdatedDateTimeMax": hi}},
		{`{"carrierBookingReference":"` + cbr + `","eventUpdatedDateTimeMin":"` + lo + `","eventUpdatedDateTimeMax":"` + hi + `"}`,
			map[string]string{"carrierBookingReference": cbr, "eventUpdatedDateTimeMin": lo, "eventUpdatedDateTimeMax": hi}},
		{`{"carrierBookingReference":"` + cbr + `","eventTypes":["EQUIPMENT","IOT","REEFER"],"eventUpdatedDateTimeMin":"` + lo + `","eventUpdatedDateTimeMax":"` + hi + `"}`,
			map[string]string{"carrierBookingReference": cbr, "eventTypes": "EQUIPMENT,IOT,REEFER", "eventUpdatedDateTimeMin": lo, "eventUpdatedDateTimeMax": hi}},
		// Pagination, step one: one page, the cursor reported, not followed.
		{`{"carrierBookingReference":"` + cbr + `","limit":5}`, map[string]string{"carrierBookingReference": cbr, "limit": "5"}},
		// Step two: the cursor with every original parameter.
		{`{"carrierBookingReference":"` + cbr + `","limit":5,"cursor":"` + gatewayCursor + `"}`, map[string]string{"carrierBookingReference": cbr, "limit": "5", "cursor": gatewayCursor}},
	}
	for i, sc := range scenarios {
		code, body := s.do("POST", "/carrier/connectors/DCGW/fetch", key, sc.body)
		if code != 200 || body["outcome"] != "success" || body["eventCount"].(float64) == 0 {
			t.Fatalf("scenario %d %s: %d %v", i, sc.body, code, body)
		}
		asked := g.requests()
		if len(asked) != i+1 {
			t.Fatalf("scenario %d: the producer got %d requests, want one more", i, len(asked)-i)
		}
		got := asked[i]
		for k, v := range sc.want {
			if vs := got[k]; len(vs) != 1 || vs[0] != v {
				t.Fatalf("scenario %d: %s = %q, want %q once (query %v)", i, k, vs, v, got)
			}
		}
		if len(got) != len(sc.want) {
			t.Fatalf("scenario %d: asked %v, want only %v", i, got, sc.want)
		}
		if want := sc.want["limit"] != "" && sc.want["cursor"] == ""; (body["nextCursor"] == gatewayCursor) != want {
			t.Fatalf("scenario %d: nextCursor %v", i, body["nextCursor"])
		}
	}
	if g.wrongHeaders != 0 {
		t.Fatalf("%d requests without the API key header", g.wrongHeaders)
	}

	// Polled as a carrier: a subscription by booking to the connector's
	// code; its events reach the events topic for its tracking.
	if code, body := s.do("POST", "/subscription/equipment", key, `{"scacCode":"DCGW","bookingNumber":"`+cbr+`","subscriptionReference":"gw-1"}`); code != 200 {
		t.Fatalf("subscribe: %d %v", code, body)
	}
	cl := testenv.KafkaClient(t, s.brokers, kgo.ConsumeTopics(s.cfg.KafkaNamespace.Topic(schemas.TopicEvents)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	n := 0
	for n == 0 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var rec schemas.EventRecord
			if err := json.Unmarshal(r.Value, &rec); err != nil {
				t.Fatal(err)
			}
			if rec.SCAC != "DCGW" {
				t.Errorf("event record of %q", rec.SCAC)
			}
			n++
		})
	}
	if n == 0 {
		_, body := s.do("GET", "/subscription/gw-1", key, "")
		t.Fatalf("no events 30 s after subscribing to the connector: %d requests after the scenarios, subscription %v", len(g.requests())-len(scenarios), body)
	}
	polled := g.requests()[len(scenarios)]
	if polled.Get("carrierBookingReference") != cbr || polled.Get("limit") != "100" {
		t.Fatalf("the poll asked %v", polled)
	}
	testkit.Eventually(t, 10*time.Second, "connectionStatus CONNECTED", func() bool {
		_, body := s.do("GET", "/subscription/gw-1", key, "")
		return body["connectionStatus"] == "CONNECTED"
	})
}
