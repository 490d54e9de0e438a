package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/iso6346"
)

// atSeaContainer finds a sandbox container number of scac (owner code
// owner) whose journey, at journey time now, has its vessel at sea since
// at least 12 hours and for at least ahead more: a container that stays at
// sea while a test runs. The sandbox journeys cycle, so which number that
// is depends on the day.
func atSeaContainer(t *testing.T, scac, owner string, now time.Time, ahead time.Duration) (string, journey.Leg) {
	t.Helper()
	cs := atSeaContainers(t, scac, owner, now, ahead, 1)
	return cs[0].number, cs[0].leg
}

type seaContainer struct {
	number string
	leg    journey.Leg
}

// atSeaContainers finds n such containers, each on a ship (IMO number and
// voyage) of its own.
func atSeaContainers(t *testing.T, scac, owner string, now time.Time, ahead time.Duration, n int) []seaContainer {
	t.Helper()
	var out []seaContainer
	ships := map[string]bool{}
	for serial := 1; serial < 5000 && len(out) < n; serial++ {
		num := fmt.Sprintf("%s%06d", owner, serial)
		num += fmt.Sprint(iso6346.CheckDigit(num))
		j, ok := sandbox.Shipment(scac, journey.KindContainer, num, now)
		if !ok {
			continue
		}
		for _, l := range j.Legs {
			if l.Mode == journey.ModeVessel && l.Vessel != nil && now.After(l.Departs.Add(12*time.Hour)) && now.Before(l.Arrives.Add(-ahead)) {
				if ship := l.Vessel.IMO + "/" + l.Voyage; !ships[ship] {
					ships[ship] = true
					out = append(out, seaContainer{num, l})
				}
				break
			}
		}
	}
	if len(out) < n {
		t.Fatalf("only %d %s containers of %s at sea at %s", len(out), owner, scac, now)
	}
	return out
}

// feedItem is an item of GET /subscriptions/events as a client reads it.
type feedItem struct {
	Type           string                      `json:"type"`
	References     map[string]string           `json:"references"`
	Events         json.RawMessage             `json:"events"`
	VesselPosition *schemas.FeedVesselPosition `json:"vesselPosition"`
}

// readFeed reads the feed after cursor to its end (long-polling wait
// seconds when nothing is there) and returns the items and the cursor.
func (s *system) readFeed(key, cursor string, wait int) ([]feedItem, string) {
	s.t.Helper()
	var all []feedItem
	for {
		req, _ := http.NewRequest("GET", fmt.Sprintf("http://%s/subscriptions/events?limit=1000&wait=%d&cursor=%s", s.cfg.HTTPAddr, wait, url.QueryEscape(cursor)), nil)
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			s.t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var page struct {
			Items      []feedItem `json:"items"`
			NextCursor string     `json:"nextCursor"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(b, &page) != nil {
			s.t.Fatalf("feed: %d %s", resp.StatusCode, b)
		}
		all, cursor = append(all, page.Items...), page.NextCursor
		if len(page.Items) == 0 {
			return all, cursor
		}
		wait = 0
	}
}

// positionsOf returns the VESSEL_POSITION items of the subscription ref.
func positionsOf(items []feedItem, ref string) []feedItem {
	var out []feedItem
	for _, it := range items {
		if it.Type == schemas.FeedKindVesselPosition && it.References["subscriptionReference"] == ref {
			out = append(out, it)
		}
	}
	return out
}

// TestFeedVesselPositions: a subscription opted in to VESSEL_POSITION items
// gets its ship's positions in the account event feed while the container
// is at sea, at most every intervalMinutes of the positions' time and at
// that rate (the sandbox ship reports every journey minute); another
// subscription of the account, at sea too but not opted in, gets none;
// after the opt-out no more come. The sandbox runs 60 times faster than
// the wall clock, so five journey minutes are five wall seconds.
func TestFeedVesselPositions(t *testing.T) {
	s := startSystem(t, func(c *Config) {
		// From now: the normaliser refuses events created more than a day ahead.
		c.Sandbox.Accelerate, c.Sandbox.Epoch = 60, time.Now().UTC()
		c.Vessels.Interval, c.Vessels.SandboxRefresh = time.Second, time.Second
		c.Feed.PositionsRefresh = time.Second
	})
	now := sandboxConfig(s.cfg).WithDefaults().JourneyNow()
	sea := atSeaContainers(t, "MAEU", "MSKU", now, 24*time.Hour, 2)
	on, off := sea[0], sea[1]
	t.Logf("opted in: %s on %s (IMO %s) voyage %s; not: %s on %s voyage %s", on.number, on.leg.Vessel.Name, on.leg.Vessel.IMO, on.leg.Voyage,
		off.number, off.leg.Vessel.Name, off.leg.Voyage)
	key, _, err := auth.NewStore(s.db.Pool).CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	if code, body := s.do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"any"}}`); code != 200 {
		t.Fatalf("credentials: %d %v", code, body)
	}
	for ref, number := range map[string]string{"pos-on": on.number, "pos-off": off.number, "pos-closed": "MSKU9070323"} {
		if code, body := s.do("POST", "/subscription/equipment", key, `{"scacCode":"MAEU","containerNumber":"`+number+`","subscriptionReference":"`+ref+`"}`); code != 200 {
			t.Fatalf("subscribe %s: %d %v", ref, code, body)
		}
	}
	if code, body := s.do("DELETE", "/subscription/pos-closed", key, ""); code != 200 {
		t.Fatalf("close: %d %v", code, body)
	}

	// The opt-in's answers.
	bad := "Invalid 'intervalMinutes': it must be a whole number of minutes from 5 to 1440"
	for _, c := range []struct {
		method, path, body string
		code               int
		message            string
	}{
		{"GET", "/subscription/pos-on/vessel-positions", "", 200, ""},
		{"PUT", "/subscription/pos-on/vessel-positions", `{"intervalMinutes":4}`, 400, bad},
		{"PUT", "/subscription/pos-on/vessel-positions", `{"intervalMinutes":1441}`, 400, bad},
		{"PUT", "/subscription/pos-on/vessel-positions", `{"intervalMinutes":7.5}`, 400, bad},
		{"PUT", "/subscription/pos-on/vessel-positions", `{"intervalMinutes":"5"}`, 400, "Invalid JSON body: 'intervalMinutes' must be a number, not string"},
		{"PUT", "/subscription/nope/vessel-positions", `{}`, 404, "Subscription not found"},
		{"GET", "/subscription/nope/vessel-positions", "", 404, "Subscription not found"},
		{"DELETE", "/subscription/nope/vessel-positions", "", 404, "Subscription not found"},
		{"PUT", "/subscription/pos-closed/vessel-positions", `{}`, 400, "Subscription is closed: vessel positions go to open subscriptions only"},
		{"PUT", "/subscription/pos-on/vessel-positions", `{}`, 200, "Vessel positions enabled"},
		{"PUT", "/subscription/pos-on/vessel-positions", `{"intervalMinutes":5}`, 200, "Vessel positions enabled"},
	} {
		code, body := s.do(c.method, c.path, key, c.body)
		if code != c.code || (c.message != "" && body["message"] != c.message) {
			t.Errorf("%s %s %s: %d %v, want %d %q", c.method, c.path, c.body, code, body, c.code, c.message)
		}
	}
	if _, body := s.do("GET", "/subscription/pos-on/vessel-positions", key, ""); body["enabled"] != true || body["intervalMinutes"] != float64(5) {
		t.Errorf("the opt-in reads %v", body)
	}
	if _, body := s.do("GET", "/subscription/pos-off/vessel-positions", key, ""); body["enabled"] != false || body["intervalMinutes"] != nil {
		t.Errorf("no opt-in reads %v", body)
	}

	// The opted-in subscription's positions, at the rate.
	var items []feedItem
	cursor := ""
	testkit.Eventually(t, 120*time.Second, "five VESSEL_POSITION items of pos-on", func() bool {
		more, next := s.readFeed(key, cursor, 2)
		items, cursor = append(items, more...), next
		return len(positionsOf(items, "pos-on")) >= 5
	})
	got := positionsOf(items, "pos-on")
	var gaps []time.Duration
	for i, it := range got {
		v := it.VesselPosition
		if v == nil || v.Vessel.IMO != on.leg.Vessel.IMO || v.Vessel.Name != on.leg.Vessel.Name || v.CarrierVoyageNumber != on.leg.Voyage ||
			len(v.EquipmentNumbers) != 1 || v.EquipmentNumbers[0] != on.number || string(it.Events) != "[]" ||
			it.References["equipmentNumber"] != on.number || it.References["scacCode"] != "MAEU" ||
			v.Latitude == 0 || v.Longitude == 0 || v.Latitude < -90 || v.Latitude > 90 || v.SpeedKnots <= 0 {
			t.Fatalf("item %d: %+v %+v", i, it, v)
		}
		at, err := time.Parse(time.RFC3339, v.At)
		if err != nil {
			t.Fatalf("item %d at %q", i, v.At)
		}
		if i > 0 {
			prev, _ := time.Parse(time.RFC3339, got[i-1].VesselPosition.At)
			gaps = append(gaps, at.Sub(prev))
		}
	}
	var sum time.Duration
	for _, g := range gaps {
		sum += g
		if g < 5*time.Minute {
			t.Errorf("positions %v apart: more often than every 5 minutes (gaps %v)", g, gaps)
		}
	}
	// The ship reports every journey minute: the next due report is at most a
	// minute or two (a report missed on a loaded machine) past the interval.
	if mean := sum / time.Duration(len(gaps)); mean > 7*time.Minute {
		t.Errorf("positions %v apart on average: want the 5-minute rate (gaps %v)", mean, gaps)
	}
	t.Logf("gaps between VESSEL_POSITION items (journey time): %v", gaps)
	// With API-Version 3 (TNT 3.0 items) the position items are the same.
	req, _ := http.NewRequest("GET", "http://"+s.cfg.HTTPAddr+"/subscriptions/events?limit=1000", nil)
	req.Header.Set("x-api-key", key)
	req.Header.Set("API-Version", "3.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var v3 struct{ Items []feedItem }
	err = json.NewDecoder(resp.Body).Decode(&v3)
	resp.Body.Close()
	if p := positionsOf(v3.Items, "pos-on"); err != nil || resp.StatusCode != 200 || len(p) < len(got) || string(p[0].Events) != "[]" || p[0].VesselPosition == nil || p[0].VesselPosition.At != got[0].VesselPosition.At {
		t.Errorf("API-Version 3: %d %v, %d position items of pos-on (want %d)", resp.StatusCode, err, len(p), len(got))
	}
	// The subscription not opted in: its events, no positions.
	if p := positionsOf(items, "pos-off"); len(p) > 0 {
		t.Errorf("pos-off, not opted in, got %d positions: %+v", len(p), p[0])
	}
	offEvents := 0
	for _, it := range items {
		if it.Type == "" && it.References["subscriptionReference"] == "pos-off" {
			offEvents++
		}
		if it.Type == "" && (len(it.Events) < 3 || it.VesselPosition != nil) {
			t.Errorf("event item %+v", it)
		}
	}
	if offEvents == 0 {
		t.Errorf("no event items of pos-off: the feed never saw it")
	}

	// The opt-out: after it, no more positions of pos-on, while pos-off, now
	// opted in, gets two (so the ships kept reporting).
	if code, body := s.do("DELETE", "/subscription/pos-on/vessel-positions", key, ""); code != 200 || body["message"] != "Vessel positions disabled" {
		t.Fatalf("opt out: %d %v", code, body)
	}
	_, cursor = s.readFeed(key, cursor, 0)
	if code, body := s.do("PUT", "/subscription/pos-off/vessel-positions", key, `{"intervalMinutes":5}`); code != 200 {
		t.Fatalf("opt in pos-off: %d %v", code, body)
	}
	items = nil
	testkit.Eventually(t, 120*time.Second, "two VESSEL_POSITION items of pos-off", func() bool {
		more, next := s.readFeed(key, cursor, 2)
		items, cursor = append(items, more...), next
		return len(positionsOf(items, "pos-off")) >= 2
	})
	if p := positionsOf(items, "pos-on"); len(p) > 0 {
		t.Errorf("pos-on got %d positions after opting out: %+v", len(p), p[0].VesselPosition)
	}
	if p := positionsOf(items, "pos-off")[0].VesselPosition; p.Vessel.IMO != off.leg.Vessel.IMO || !strings.EqualFold(p.CarrierVoyageNumber, off.leg.Voyage) {
		t.Errorf("pos-off's position %+v, want %s voyage %s", p, off.leg.Vessel.IMO, off.leg.Voyage)
	}
}
