package main

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testkit"
)

// feedEventIDs reads the account's whole feed and returns, per
// subscription reference, the event ids of its items in feed order; nil
// when the API asks to come back later (429: reads are rate-limited).
func feedEventIDs(t *testing.T, s *system, key string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	cursor := ""
	for range 100 {
		code, body := s.do("GET", "/subscriptions/events?limit=1000&cursor="+url.QueryEscape(cursor), key, "")
		if code == 429 {
			return nil
		}
		if code != 200 {
			t.Fatalf("feed: %d %v", code, body)
		}
		items, _ := body["items"].([]any)
		for _, it := range items {
			m := it.(map[string]any)
			if typ, _ := m["type"].(string); typ != "" {
				continue
			}
			ref, _ := m["references"].(map[string]any)["subscriptionReference"].(string)
			evs, _ := m["events"].([]any)
			for _, e := range evs {
				id, _ := e.(map[string]any)["eventID"].(string)
				out[ref] = append(out[ref], id)
			}
		}
		cursor, _ = body["nextCursor"].(string)
		if len(items) == 0 {
			return out
		}
	}
	t.Fatal("feed: more than 100 pages")
	return nil
}

// hookEventIDs are the event ids delivered to ref, in delivery order.
func hookEventIDs(t *testing.T, h *alertHook, ref string) []string {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, p := range h.payloads {
		if p.Type == "" && p.References["subscriptionReference"] == ref {
			for _, e := range p.Events {
				var ev struct {
					EventID string `json:"eventID"`
				}
				if err := json.Unmarshal(e, &ev); err != nil {
					t.Fatalf("delivered event %s: %v", e, err)
				}
				out = append(out, ev.EventID)
			}
		}
	}
	return out
}

// History on subscribe (DESIGN.md): a second subscription of the same
// account to a tracked container, and one made again after a DELETE, get
// the shipment's existing events once, in order, in the feed and by
// webhook, and the first subscription gets nothing twice.
func TestEndToEndHistoryOnSubscribe(t *testing.T) {
	s := startSystem(t)
	key, _, err := auth.NewStore(s.db.Pool).CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	hook := newActivatedHook(t, s, key, `{"targetUrl":"URL"}`)
	if code, body := s.do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"any"}}`); code != 200 {
		t.Fatalf("credentials: %d %v", code, body)
	}
	// At sea for hours more: its events so far exist, and no new one
	// comes while the test runs.
	container, _ := atSeaContainer(t, "MAEU", "MSKU", time.Now(), 6*time.Hour)
	subscribe := func(ref string) {
		t.Helper()
		if code, body := s.do("POST", "/subscription/equipment", key, `{"scacCode":"MAEU","containerNumber":"`+container+`","subscriptionReference":"`+ref+`"}`); code != 200 {
			t.Fatalf("subscribe %s: %d %v", ref, code, body)
		}
	}

	subscribe("hist-a")
	var history []string
	testkit.Wait(t, 60*time.Second, "hist-a's events in its feed and by webhook", func() (bool, any) {
		history = feedEventIDs(t, s, key)["hist-a"]
		hooked := hookEventIDs(t, hook, "hist-a")
		return len(history) > 0 && slices.Equal(hooked, history), map[string][]string{"feed": history, "webhook": hooked}
	})
	// Want each of refs to have exactly the history, in order, in the feed
	// and by webhook.
	gotHistory := func(refs ...string) {
		t.Helper()
		testkit.Wait(t, 60*time.Second, "the history for "+refs[len(refs)-1], func() (bool, any) {
			feed := feedEventIDs(t, s, key)
			saw := map[string]any{"want": history}
			ok := feed != nil
			for _, ref := range refs {
				hooked := hookEventIDs(t, hook, ref)
				saw[ref+" feed"], saw[ref+" webhook"] = feed[ref], hooked
				ok = ok && slices.Equal(feed[ref], history) && slices.Equal(hooked, history)
			}
			return ok, saw
		})
	}
	subscribe("hist-b")
	gotHistory("hist-a", "hist-b")

	if code, body := s.do("DELETE", "/subscription/hist-b", key, ""); code != 200 {
		t.Fatalf("delete hist-b: %d %v", code, body)
	}
	if code, body := s.do("DELETE", "/subscription/hist-a", key, ""); code != 200 {
		t.Fatalf("delete hist-a: %d %v", code, body)
	}
	// The tracking is tracked again after its last subscription closed.
	subscribe("hist-c")
	gotHistory("hist-c")
	// Nothing came twice meanwhile, to anyone.
	var feed map[string][]string
	testkit.Eventually(t, 10*time.Second, "the feed", func() bool { feed = feedEventIDs(t, s, key); return feed != nil })
	for _, ref := range []string{"hist-a", "hist-b", "hist-c"} {
		if !slices.Equal(feed[ref], history) || !slices.Equal(hookEventIDs(t, hook, ref), history) {
			t.Errorf("%s: feed %v, webhook %v; want %v", ref, feed[ref], hookEventIDs(t, hook, ref), history)
		}
	}
	var pending bool
	if err := s.db.Pool.QueryRow(context.Background(), `SELECT history_pending FROM subscriptions WHERE reference = 'hist-c'`).Scan(&pending); err != nil || pending {
		t.Errorf("hist-c history_pending %v (%v)", pending, err)
	}
	t.Logf("%d events of %s, to each subscription once", len(history), container)
}
