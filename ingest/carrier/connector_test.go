package carrier_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/platform/webhooktarget"
	"github.com/contrack/contrack/schemas/carriers"
)

var t0 = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

// shipment is one booking's events at a fake producer: three of one
// container, a TRANSPORT event, and one of another booking.
func shipment() []fakeEvent {
	return []fakeEvent{
		{id: "e1", kind: "EQUIPMENT", booking: "ABC709951", bill: "HHL71800000", container: "APZU4812090", updated: t0},
		{id: "e2", kind: "TRANSPORT", booking: "ABC709951", bill: "HHL71800000", updated: t0.Add(time.Hour)},
		{id: "e3", kind: "EQUIPMENT", booking: "ABC709951", bill: "HHL71800000", container: "APZU4812090", updated: t0.Add(2 * time.Hour)},
		{id: "e4", kind: "IOT", booking: "ABC709951", bill: "HHL71800000", container: "APZU4812090", updated: t0.Add(3 * time.Hour)},
		{id: "x1", kind: "EQUIPMENT", booking: "OTHER", container: "MSKU1234565", updated: t0},
	}
}

func connectorOf(t *testing.T, f *fakeProducer, format carriers.Format, opts ...carrier.Option) *carrier.Connector {
	t.Helper()
	c, err := carrier.NewConnector(carriers.Connector{Code: "ACME", BaseURL: f.baseURL(), Format: format, Auth: f.auth, Secret: f.secret},
		f.srv.Client(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustFetch(t *testing.T, c *carrier.Connector, q carriers.ConnectorQuery, maxPages int) carrier.Result {
	t.Helper()
	r, err := c.FetchQuery(context.Background(), q, maxPages)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A 3.0 connector sends exactly the filters asked, each once, as given
// (eventTypes one comma-joined list in its order, the times as spelled),
// at <baseURL>/events with the API key header of the name registered;
// every cursor page repeats them all.
func TestConnectorTNT3SendsTheFiltersAsGiven(t *testing.T) {
	f := newFakeProducer(t, "3.0", carriers.ConnectorAuth{Scheme: carriers.AuthAPIKey, HeaderName: "dcsa-conformance-api-key"}, "k-123456")
	f.add(shipment()...)
	c := connectorOf(t, f, carriers.FormatTNT3)
	q := carriers.ConnectorQuery{CarrierBookingReference: "ABC709951", EquipmentReference: "APZU4812090",
		EventTypes: []string{"EQUIPMENT", "IOT", "REEFER"}, UpdatedMin: "2026-11-20T08:00:00Z", UpdatedMax: "2026-11-20T12:00:00Z", Limit: 1}
	r := mustFetch(t, c, q, 10)
	if r.Outcome != carrier.OutcomeSuccess || r.EventCount != 3 || len(r.Pages) != 3 || r.Format != carriers.FormatTNT3 {
		t.Fatalf("result %+v", r)
	}
	asked := f.requests()
	if len(asked) != 3 || len(r.Requests) != 3 {
		t.Fatalf("%d requests, %d reported", len(asked), len(r.Requests))
	}
	want := map[string]string{"carrierBookingReference": "ABC709951", "equipmentReference": "APZU4812090",
		"eventTypes": "EQUIPMENT,IOT,REEFER", "eventUpdatedDateTimeMin": "2026-11-20T08:00:00Z",
		"eventUpdatedDateTimeMax": "2026-11-20T12:00:00Z", "limit": "1"}
	for i, req := range asked {
		got := req.URL.Query()
		if req.URL.Path != "/api/events" || req.Header.Get("API-Version") != "3.0.0" {
			t.Fatalf("request %d: %s API-Version %q", i, req.URL.Path, req.Header.Get("API-Version"))
		}
		for k, v := range want {
			if vs := got[k]; len(vs) != 1 || vs[0] != v {
				t.Fatalf("request %d: %s = %q, want %q once", i, k, vs, v)
			}
		}
		if (i == 0) != (got.Get("cursor") == "") {
			t.Fatalf("request %d: cursor %q", i, got.Get("cursor"))
		}
		if len(got) != len(want)+len(got["cursor"]) {
			t.Fatalf("request %d: extra parameters in %s", i, req.URL.RawQuery)
		}
	}
}

// A fetch bounded to one page reports the cursor it stopped before; the
// same fetch with that cursor gets the next page, with the original
// parameters. Parameters not asked are not sent (no limit either).
func TestConnectorCursorByHand(t *testing.T) {
	f := newFakeProducer(t, "3.0", carriers.ConnectorAuth{Scheme: carriers.AuthNone}, "")
	f.add(shipment()...)
	c := connectorOf(t, f, carriers.FormatTNT3)
	q := carriers.ConnectorQuery{CarrierBookingReference: "ABC709951", Limit: 2}
	first := mustFetch(t, c, q, 1)
	if first.EventCount != 2 || !first.Truncated || first.NextCursor != "2" {
		t.Fatalf("first page %+v", first)
	}
	q.Cursor = first.NextCursor
	second := mustFetch(t, c, q, 1)
	if second.EventCount != 2 || second.Truncated || second.NextCursor != "" {
		t.Fatalf("second page %+v", second)
	}
	asked := f.requests()
	if got := asked[1].URL.Query(); got.Get("cursor") != "2" || got.Get("carrierBookingReference") != "ABC709951" || got.Get("limit") != "2" {
		t.Fatalf("second request %s", asked[1].URL.RawQuery)
	}
	only := mustFetch(t, c, carriers.ConnectorQuery{EventTypes: []string{"TRANSPORT"}}, 1)
	if only.EventCount != 1 {
		t.Fatalf("by type: %+v", only)
	}
	if raw := f.requests()[2].URL.RawQuery; raw != "eventTypes=TRANSPORT" {
		t.Fatalf("by type asked %q", raw)
	}
	if h := f.requests()[2].Header.Get("Authorization"); h != "" {
		t.Fatalf("auth NONE sent Authorization %q", h)
	}
}

// A 2.2 connector names the filters as 2.2 does (eventType,
// eventCreatedDateTime:gte/:lte), follows the Next-Page link, and
// authenticates with HTTP Basic.
func TestConnectorTNT22BasicAndNextPage(t *testing.T) {
	f := newFakeProducer(t, "2.2", carriers.ConnectorAuth{Scheme: carriers.AuthBasic, Username: "contrack"}, "pw-secret")
	f.add(shipment()...)
	c := connectorOf(t, f, carriers.FormatTNT22)
	r, err := c.Fetch(context.Background(), nil, carrier.Query{Kind: carrier.KindBill, Value: "HHL71800000", Since: t0.Add(30 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != carrier.OutcomeSuccess || r.EventCount != 3 || r.Format != carriers.FormatTNT22 {
		t.Fatalf("result %+v", r)
	}
	got := f.requests()[0].URL.Query()
	if got.Get("transportDocumentReference") != "HHL71800000" || got.Get("eventCreatedDateTime:gte") != "2026-11-20T08:30:00Z" || got.Get("limit") != "100" {
		t.Fatalf("asked %s", f.requests()[0].URL.RawQuery)
	}
	if u, p, ok := f.requests()[0].BasicAuth(); !ok || u != "contrack" || p != "pw-secret" {
		t.Fatal("no Basic credentials")
	}
	paged := mustFetch(t, c, carriers.ConnectorQuery{CarrierBookingReference: "ABC709951", EventTypes: []string{"EQUIPMENT"}, Limit: 1}, 5)
	if paged.EventCount != 2 || len(paged.Pages) != 2 {
		t.Fatalf("paged %+v", paged)
	}
	if q := f.requests()[2].URL.Query(); q.Get("cursor") != "1" || q.Get("eventType") != "EQUIPMENT" {
		t.Fatalf("next page %s", f.requests()[2].URL.RawQuery)
	}
	wrong := newFakeProducer(t, "2.2", carriers.ConnectorAuth{Scheme: carriers.AuthBasic, Username: "contrack"}, "other")
	bad, _ := carrier.NewConnector(carriers.Connector{Code: "ACME", BaseURL: wrong.baseURL(), Format: carriers.FormatTNT22,
		Auth: carriers.ConnectorAuth{Scheme: carriers.AuthBasic, Username: "contrack"}, Secret: "pw-secret"}, wrong.srv.Client())
	if r := mustFetch(t, bad, carriers.ConnectorQuery{EquipmentReference: "APZU4812090"}, 1); r.Outcome != carrier.OutcomeUnauthorized || r.HTTPCode != 401 {
		t.Fatalf("wrong password: %+v", r)
	}
}

// OAuth2 client credentials: one token for many fetches, a new one after
// it expires (by the adapter's clock) and after the producer revokes it
// (401: fetched again, the request retried once); a rejected client is
// unauthorized.
func TestConnectorOAuth2TokenFetchAndRefresh(t *testing.T) {
	clock := newClock()
	f := newFakeProducer(t, "3.0", carriers.ConnectorAuth{Scheme: carriers.AuthOAuth2, ClientID: "cid"}, "csecret")
	f.auth.TokenURL = f.tokenURL()
	f.tokenTTL = 600
	f.add(shipment()...)
	c := connectorOf(t, f, carriers.FormatTNT3, carrier.WithClock(clock.Now))
	q := carriers.ConnectorQuery{EquipmentReference: "APZU4812090"}
	for range 3 {
		if r := mustFetch(t, c, q, 1); r.Outcome != carrier.OutcomeSuccess {
			t.Fatalf("fetch %+v", r)
		}
	}
	if f.tokenReq != 1 {
		t.Fatalf("%d token requests for three fetches", f.tokenReq)
	}
	clock.Advance(10 * time.Minute)
	if r := mustFetch(t, c, q, 1); r.Outcome != carrier.OutcomeSuccess || f.tokenReq != 2 {
		t.Fatalf("after expiry: %+v, %d token requests", r, f.tokenReq)
	}
	f.revoke()
	if r := mustFetch(t, c, q, 1); r.Outcome != carrier.OutcomeSuccess || f.tokenReq != 3 {
		t.Fatalf("after revocation: %+v, %d token requests", r, f.tokenReq)
	}
	if h := f.requests()[len(f.requests())-1].Header.Get("Authorization"); h != "Bearer tok-3" {
		t.Fatalf("sent %q", h)
	}
	f.secret = "rotated"
	f.revoke()
	if r := mustFetch(t, c, q, 1); r.Outcome != carrier.OutcomeUnauthorized {
		t.Fatalf("rejected client: %+v", r)
	}
}

// A wrong API key is unauthorized, and the key goes only in its header.
func TestConnectorAPIKeyRejected(t *testing.T) {
	f := newFakeProducer(t, "3.0", carriers.ConnectorAuth{Scheme: carriers.AuthAPIKey, HeaderName: "X-Api-Key"}, "right")
	c, err := carrier.NewConnector(carriers.Connector{Code: "ACME", BaseURL: f.baseURL(), Format: carriers.FormatTNT3,
		Auth: f.auth, Secret: "wrong-key"}, f.srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	r := mustFetch(t, c, carriers.ConnectorQuery{EquipmentReference: "APZU4812090"}, 1)
	if r.Outcome != carrier.OutcomeUnauthorized {
		t.Fatalf("result %+v", r)
	}
	if len(r.Requests) != 1 || !strings.HasSuffix(r.Requests[0], "/api/events?equipmentReference=APZU4812090") {
		t.Fatalf("a refused fetch reports the requests %q", r.Requests)
	}
	if strings.Contains(f.requests()[0].URL.RawQuery, "wrong-key") || f.requests()[0].Header.Get("X-Api-Key") != "wrong-key" {
		t.Fatal("key not sent in its header only")
	}
	if h := c.Probe(context.Background(), nil); h.Status != carrier.HealthUnauthorized {
		t.Fatalf("probe %+v", h)
	}
}

// With the client webhooks are sent with, a connector on a loopback
// address is never connected to (the check is on the address dialled);
// the operator's allowance lets it through.
func TestConnectorRefusesPrivateAddresses(t *testing.T) {
	f := newFakeProducer(t, "3.0", carriers.ConnectorAuth{Scheme: carriers.AuthNone}, "")
	f.add(shipment()...)
	conn := carriers.Connector{Code: "ACME", BaseURL: f.baseURL(), Format: carriers.FormatTNT3, Auth: f.auth}
	strict, err := carrier.NewConnector(conn, webhooktarget.NewClient(false, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	r := mustFetch(t, strict, carriers.ConnectorQuery{EquipmentReference: "APZU4812090"}, 1)
	if r.Outcome != carrier.OutcomeUnreachable || !strings.Contains(r.Reason, "not allowed") || len(f.requests()) != 0 {
		t.Fatalf("private address: %+v, %d requests", r, len(f.requests()))
	}
	open, _ := carrier.NewConnector(conn, webhooktarget.NewClient(true, 5*time.Second))
	if r := mustFetch(t, open, carriers.ConnectorQuery{EquipmentReference: "APZU4812090"}, 1); r.Outcome != carrier.OutcomeSuccess {
		t.Fatalf("allowed: %+v", r)
	}
}

// NewConnector refuses what it cannot poll.
func TestNewConnectorRefuses(t *testing.T) {
	for _, c := range []carriers.Connector{
		{Code: "A1", BaseURL: "ftp://x", Format: carriers.FormatTNT3, Auth: carriers.ConnectorAuth{Scheme: carriers.AuthNone}},
		{Code: "A1", BaseURL: "https://x", Format: carriers.FormatTNT12, Auth: carriers.ConnectorAuth{Scheme: carriers.AuthNone}},
		{Code: "A1", BaseURL: "https://x", Format: carriers.FormatTNT3, Auth: carriers.ConnectorAuth{Scheme: "DIGEST"}},
		{Code: "A1", BaseURL: "https://x", Format: carriers.FormatTNT3, Auth: carriers.ConnectorAuth{Scheme: carriers.AuthOAuth2, TokenURL: "/token"}},
	} {
		if _, err := carrier.NewConnector(c, http.DefaultClient); err == nil {
			t.Fatalf("accepted %+v", c)
		}
	}
}

// The API-key header goes on the wire spelled as registered: a producer
// that matches the name case-sensitively (DCSA's Conformance Gateway)
// refuses Go's canonical Dcsa-Conformance-Api-Key. Read off the socket,
// since a Go server canonicalises names as it parses them.
func TestConnectorSendsTheHeaderNameAsRegistered(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	head := make(chan string, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			head <- ""
			return
		}
		defer conn.Close()
		var raw strings.Builder
		r := bufio.NewReader(conn)
		for {
			line, err := r.ReadString('\n')
			raw.WriteString(line)
			if err != nil || line == "\r\n" {
				break
			}
		}
		head <- raw.String()
		body := `{"events":[]}`
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	}()
	c, err := carrier.NewConnector(carriers.Connector{Code: "ACME", BaseURL: "http://" + ln.Addr().String() + "/api", Format: carriers.FormatTNT3,
		Auth: carriers.ConnectorAuth{Scheme: carriers.AuthAPIKey, HeaderName: "dcsa-conformance-api-key"}, Secret: "k-123456"}, &http.Client{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.FetchQuery(context.Background(), carriers.ConnectorQuery{EventTypes: []string{"SHIPMENT"}}, 1); err != nil {
		t.Fatal(err)
	}
	got := <-head
	if !strings.Contains(got, "\r\ndcsa-conformance-api-key: k-123456\r\n") {
		t.Fatalf("request head, want the header as registered:\n%s", got)
	}
}
