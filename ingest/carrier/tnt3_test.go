package carrier_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/contrack/contrack/ingest/carrier"
)

// A TNT 3.0 producer is asked with API-Version 3.0.0 and a page limit;
// each Next-Page-Cursor goes back with every original query parameter, as
// 3.0 requires; an empty page that still names a cursor is followed (a
// stateless producer may end on an empty page); the last page has none.
func TestTNT3CursorKeepsTheQuery(t *testing.T) {
	var mu sync.Mutex
	var asked []url.Values
	var versions []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/zimu/oauth2/token" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"access_token":"t","token_type":"Bearer","expires_in":3600}`))
			return
		}
		mu.Lock()
		asked = append(asked, r.URL.Query())
		versions = append(versions, r.Header.Get("API-Version"))
		mu.Unlock()
		w.Header().Set("API-Version", "3.0.0")
		switch r.URL.Query().Get("cursor") {
		case "":
			w.Header().Set("Next-Page-Cursor", "c1")
			_, _ = w.Write([]byte(`{"events":[{"eventID":"a"},{"eventID":"b"}]}`))
		case "c1":
			w.Header().Set("Next-Page-Cursor", "c2")
			_, _ = w.Write([]byte(`{"events":[]}`))
		case "c2":
			_, _ = w.Write([]byte(`{"events":[{"eventID":"c","isRetracted":true}]}`))
		}
	}))
	defer srv.Close()
	a, err := carrier.New("ZIMU", srv.URL+"/zimu", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.Fetch(context.Background(), carrier.Credentials{"clientId": "i", "clientSecret": "s"}, carrier.Query{Kind: carrier.KindBooking, Value: "ZIMU123"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != carrier.OutcomeSuccess || r.EventCount != 3 || len(r.Pages) != 3 || r.Truncated {
		t.Fatalf("result %+v", r)
	}
	if len(asked) != 3 {
		t.Fatalf("%d requests", len(asked))
	}
	for i, q := range asked {
		if q.Get("carrierBookingReference") != "ZIMU123" || q.Get("limit") != "100" || versions[i] != "3.0.0" {
			t.Errorf("request %d: query %v, API-Version %q", i, q, versions[i])
		}
	}
	if asked[1].Get("cursor") != "c1" || asked[2].Get("cursor") != "c2" {
		t.Errorf("cursors %q %q", asked[1].Get("cursor"), asked[2].Get("cursor"))
	}
	var last struct{ Events []json.RawMessage }
	if json.Unmarshal(r.Pages[2], &last) != nil || !strings.Contains(string(last.Events[0]), "isRetracted") {
		t.Errorf("pages are not kept as received: %s", r.Pages[2])
	}
}
