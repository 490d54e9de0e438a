package feed_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas/tnt3"
	"github.com/contrack/contrack/schemas/tnt3/tnt3test"
)

// The feed carries retractions as the webhook does — retractedEventIDs
// beside the withdrawn event (2.0.2, the default), 3.0's isRetracted with
// API-Version 3 — only to subscriptions whose feed had the event; each 3.0
// item is a POST /events request the published document accepts.
func TestFeedRetractionsAndTNT3(t *testing.T) {
	w := newWorld(t)
	key, acct := w.account("acme")
	s := w.h.Subscribe(acct, "ref-1")
	w.start()
	w.h.ProduceRecords(w.h.Record(s, "ev-1", "h1"), w.h.Record(s, "ev-2", "h1"))
	w.h.ProduceRecords(w.h.Retraction(s, "ev-1"), w.h.Retraction(s, "ev-9"))
	w.h.ProduceRecords(w.h.Record(s, "ev-3", "h1"))

	var v2 struct {
		Items []struct {
			Events            []json.RawMessage `json:"events"`
			RetractedEventIDs []string          `json:"retractedEventIDs"`
		} `json:"items"`
	}
	testkit.Eventually(t, 15*time.Second, "four feed rows", func() bool {
		r := w.api.Do("GET", "/subscriptions/events?wait=1", key, nil)
		if err := json.Unmarshal(r.Raw, &v2); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, it := range v2.Items {
			n += len(it.Events)
		}
		return n == 4
	})
	if len(v2.Items) != 1 || strings.Join(v2.Items[0].RetractedEventIDs, ",") != "ev-1" || !strings.Contains(string(v2.Items[0].Events[2]), `"eventID":"ev-1"`) {
		t.Fatalf("2.0.2 feed: %+v", v2)
	}

	req, _ := http.NewRequest("GET", w.api.URL+"/subscriptions/events", nil)
	req.Header.Set("x-api-key", key)
	req.Header.Set("API-Version", "3.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v3 struct {
		Items      []json.RawMessage `json:"items"`
		NextCursor string            `json:"nextCursor"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v3); err != nil || resp.StatusCode != 200 || resp.Header.Get("API-Version") != "3.0.0" || v3.NextCursor == "" {
		t.Fatalf("3.0 feed: %d %v %+v", resp.StatusCode, err, v3)
	}
	var seq []string
	for _, raw := range v3.Items {
		tnt3test.Must(t, tnt3test.Schema("PostEventsRequest", raw))
		var it struct {
			Events []tnt3.Event `json:"events"`
		}
		if err := json.Unmarshal(raw, &it); err != nil {
			t.Fatal(err)
		}
		for _, e := range it.Events {
			if e.IsRetracted {
				seq = append(seq, "-"+e.EventID)
			} else {
				seq = append(seq, e.EventID)
			}
		}
	}
	if strings.Join(seq, " ") != "ev-1 ev-2 -ev-1 ev-3" {
		t.Errorf("3.0 feed events %v", seq)
	}

	for _, v := range []string{"2.2.0", "2", ""} {
		if r := w.get2(key, v); r != 200 {
			t.Errorf("API-Version %q: %d", v, r)
		}
	}
	req.Header.Set("API-Version", "4.0.0")
	resp, _ = http.DefaultClient.Do(req)
	var e struct{ Message string }
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 || e.Message != "Unsupported API-Version '4.0.0': send 3.x.x for DCSA Track & Trace 3.0 events, or leave it out for EVENT_DOMAIN 2.0.2" {
		t.Errorf("API-Version 4.0.0: %d %q", resp.StatusCode, e.Message)
	}
}

func (w *world) get2(key, version string) int {
	req, _ := http.NewRequest("GET", w.api.URL+"/subscriptions/events", nil)
	req.Header.Set("x-api-key", key)
	if version != "" {
		req.Header.Set("API-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
