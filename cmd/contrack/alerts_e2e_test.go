package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox"
	sj "github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/eventfilter"
)

// alertHook is a webhook configured with a configure body of its own
// (filters), activated, recording every delivery's payload.
type alertHook struct {
	mu       sync.Mutex
	payloads []alertPayload
}

type alertPayload struct {
	Type       string            `json:"type"`
	References map[string]string `json:"references"`
	Events     []json.RawMessage `json:"events"`
	Alerts     []schemas.Alert   `json:"alerts"`
}

// newActivatedHook configures a webhook with configure (its targetUrl
// "URL"), and activates it with the secret of its verification message.
func newActivatedHook(t *testing.T, s *system, key, configure string) *alertHook {
	t.Helper()
	h := &alertHook{}
	var secret atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var p alertPayload
		if err := json.Unmarshal(b, &p); err != nil {
			t.Errorf("webhook body %s: %v", b, err)
			return
		}
		var v struct{ Type, Secret string }
		if json.Unmarshal(b, &v) == nil && v.Type == "webhook.verification" {
			secret.Store(v.Secret)
		}
		h.mu.Lock()
		h.payloads = append(h.payloads, p)
		h.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	body := strings.Replace(configure, "URL", srv.URL+"/hook", 1)
	if code, resp := s.do("POST", "/webhook/configure", key, body); code != 200 {
		t.Fatalf("configure %s: %d %v", body, code, resp)
	}
	testkit.Eventually(t, 10*time.Second, "the verification message", func() bool { return secret.Load() != nil })
	if code, resp := s.do("POST", "/webhook/activate", key, `{"secret":"`+secret.Load().(string)+`"}`); code != 200 {
		t.Fatalf("activate: %d %v", code, resp)
	}
	return h
}

// alerts are the alerts delivered for ref, in order.
func (h *alertHook) alerts(ref string) []schemas.Alert {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []schemas.Alert
	for _, p := range h.payloads {
		if p.Type == "" && p.References["subscriptionReference"] == ref {
			out = append(out, p.Alerts...)
		}
	}
	return out
}

// events are the events delivered for ref, decoded.
func (h *alertHook) events(t *testing.T, ref string) []dcsa.Summary {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []dcsa.Summary
	for _, p := range h.payloads {
		if p.Type == "" && p.References["subscriptionReference"] == ref {
			for _, e := range p.Events {
				var ev dcsa.Summary
				if err := json.Unmarshal(e, &ev); err != nil {
					t.Fatalf("delivered event %s: %v", e, err)
				}
				out = append(out, ev)
			}
		}
	}
	return out
}

// etaMovesOf are the ETA moves (previous → new, in minutes) that the
// ETA_REVISION milestones of key's tracking of container show.
func etaMovesOf(t *testing.T, s *system, key, container string) map[string]int {
	t.Helper()
	code, body := s.do("GET", "/subscription/equipment?equipmentNumber="+container, key, "")
	if code != 200 {
		t.Fatalf("pull: %d %v", code, body)
	}
	out := map[string]int{}
	results, _ := body["results"].([]any)
	for _, r := range results {
		ms, _ := r.(map[string]any)["enhancedEvents"].([]any)
		for _, m := range ms {
			m, _ := m.(map[string]any)
			prev, _ := m["previousEventDateTime"].(string)
			next, _ := m["eventDateTime"].(string)
			if m["enhancedEventType"] != "ETA_REVISION" || prev == "" {
				continue
			}
			p, err1 := time.Parse(time.RFC3339Nano, prev)
			n, err2 := time.Parse(time.RFC3339Nano, next)
			if err1 != nil || err2 != nil {
				t.Fatalf("ETA_REVISION %v", m)
			}
			out[prev+" → "+next] = int(n.Sub(p).Round(time.Minute) / time.Minute)
		}
	}
	return out
}

func alertKinds(as []schemas.Alert) map[string]int {
	out := map[string]int{}
	for _, a := range as {
		out[a.AlertType]++
	}
	return out
}

// holdJourney is the HLDU container the test follows, and the times of
// its journey that the steps need.
type holdJourney struct {
	number                      string
	arrival, discharge, nextDay time.Time
	terminal                    sandbox.TerminalTimes
	lfd                         string // the discharge's date at the port
}

// findHoldJourney finds an HLDU number whose container was discharged at
// its port of discharge a day or two ago and stays in the terminal past
// the next midnight there, which comes before now + 12 h: every step of
// the test is then within the day of plausibility the normaliser allows
// between an actual event and its receipt.
func findHoldJourney(t *testing.T, wall time.Time) holdJourney {
	for serial := 0; serial < 20000; serial++ {
		n := sj.CompleteContainer(fmt.Sprintf("HLDU%06d", serial))
		j := sj.Generate("ZIMU", sj.KindContainer, n, wall.Add(12*time.Hour))
		tt, ok := sandbox.Terminal(j, 0, true)
		if !ok {
			continue
		}
		pod := j.POD()
		var h holdJourney
		h.number, h.terminal = n, tt
		for _, e := range j.Events {
			switch {
			case e.Type == sj.TypeTransport && e.Code == sj.CodeArrive && e.Port.Code == pod.Code && e.Classifier == sj.ACT:
				h.arrival = e.Time.UTC()
			case e.Type == sj.TypeEquipment && e.Code == sj.CodeDischarge && e.Port.Code == pod.Code && e.Mode == sj.ModeVessel:
				h.discharge = e.Time
			}
		}
		if h.arrival.IsZero() {
			continue
		}
		local := h.discharge
		h.lfd = local.Format(time.DateOnly)
		h.nextDay = time.Date(local.Year(), local.Month(), local.Day()+1, 1, 0, 0, 0, local.Location()).UTC()
		h.discharge = h.discharge.UTC()
		if h.nextDay.Before(tt.Available.Add(time.Hour)) || h.nextDay.After(wall.Add(12*time.Hour)) || h.discharge.Before(wall.Add(-5*24*time.Hour)) {
			continue
		}
		// Still in the terminal the next day: no full gate-out or rail load
		// there yet at that time.
		later := sj.Generate("ZIMU", sj.KindContainer, n, h.nextDay.Add(time.Hour))
		left := false
		for _, e := range later.Events {
			if e.Container == 0 && e.Classifier == sj.ACT && !e.Empty && e.Time.UTC().After(h.discharge) &&
				(e.Code == sj.CodeGateOut || (e.Code == sj.CodeLoad && e.Mode == sj.ModeRail)) {
				left = true
			}
		}
		if !left && later.Cycle == j.Cycle {
			return h
		}
	}
	t.Fatal("no HLDU number fits")
	return holdJourney{}
}

// The done-when of issue 34, end to end through `contrack all`: a sandbox
// journey (ZIMU, TNT 3.0) raises every alert kind, each once, pushed to a
// webhook that asked for them and into the feed; a webhook with filters
// gets only the events and alerts they select (ETA changes of the default
// threshold), never a failed delivery; the feed's filters select the same;
// and the pull shows the container's readiness under the account's
// free-time rule.
func TestEndToEndAlerts(t *testing.T) {
	wall := time.Now().UTC()
	h := findHoldJourney(t, wall)
	s0 := h.arrival.Add(-30 * time.Hour)
	// A rolled number whose roll falls between the baseline and the end.
	var rolled string
	var rollAt time.Time
	for serial := 0; rolled == ""; serial++ {
		if serial == 20000 {
			t.Fatal("no RLDU number rolls within the test's window")
		}
		n := sj.CompleteContainer(fmt.Sprintf("RLDU%06d", serial))
		j := sj.Generate("ZIMU", sj.KindContainer, n, s0)
		if at, _, _ := sandbox.Rolled(j); at.After(s0.Add(2*time.Hour)) && at.Before(h.nextDay.Add(-2*time.Hour)) &&
			sj.Generate("ZIMU", sj.KindContainer, n, at.Add(time.Hour)).Cycle == j.Cycle {
			rolled, rollAt = n, at
		}
	}
	t.Logf("following %s (arrival %s, discharge %s, next day %s) and %s (rolled %s)", h.number, h.arrival, h.discharge, h.nextDay, rolled, rollAt)

	var sandboxNow atomic.Int64
	sandboxNow.Store(s0.UnixNano())
	s := startSystem(t, func(c *Config) {
		c.Sandbox.Clock = func() time.Time { return time.Unix(0, sandboxNow.Load()) }
		c.Poller.Interval = map[string]time.Duration{"sandbox": 2 * time.Second}
		// The journey's expected events would otherwise hold each poll a
		// minute (the floor of a poll brought forward).
		c.Poller.MinInterval = time.Second
		c.Alerts.SweepInterval, c.Alerts.SnapshotInterval = time.Second, time.Second
	})
	store := auth.NewStore(s.db.Pool)
	a, ka, err := store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "initech", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	all := `"` + strings.Join(schemas.AlertTypes, `","`) + `"`
	hookA := newActivatedHook(t, s, a, `{"targetUrl":"URL","filters":{"alertTypes":[`+all+`]}}`)
	hookB := newActivatedHook(t, s, b, `{"targetUrl":"URL","filters":{"eventTypes":["TRANSPORT","DISCHARGE_POD"],"classifiers":["ACT"],"alertTypes":["ETA_CHANGED","ARRIVED"]}}`)
	hookC := newActivatedHook(t, s, c, `{"targetUrl":"URL","filters":{"eventTypes":["EQUIPMENT"],"milestonesOnly":true,"alertTypes":["ETA_CHANGED","HOLD_PLACED"]}}`)
	// C's ETA threshold is its account's: 2 h.
	if code, body := s.do("PUT", "/account/alert-settings", c, `{"etaChangeThresholdHours":2}`); code != 200 {
		t.Fatalf("account alert settings: %d %v", code, body)
	}
	for _, key := range []string{a, b, c} {
		if code, body := s.do("POST", "/carrier/credentials", key, `{"ZIMU":{"clientId":"i","clientSecret":"s"}}`); code != 200 {
			t.Fatalf("credentials: %d %v", code, body)
		}
		if code, body := s.do("POST", "/subscription/equipment", key, `{"scacCode":"ZIMU","containerNumber":"`+h.number+`","subscriptionReference":"hold"}`); code != 200 {
			t.Fatalf("subscribe: %d %v", code, body)
		}
	}
	if code, body := s.do("POST", "/subscription/equipment", a, `{"scacCode":"ZIMU","containerNumber":"`+rolled+`","subscriptionReference":"roll"}`); code != 200 {
		t.Fatalf("subscribe: %d %v", code, body)
	}
	// Every ETA move for A's subscription; no free day at all, $150 a day.
	if code, body := s.do("PUT", "/subscription/hold/alert-settings", a, `{"etaChangeThresholdHours":0}`); code != 200 {
		t.Fatalf("alert settings: %d %v", code, body)
	}
	if code, body := s.do("PUT", "/account/free-time", a, `{"rules":[{"port":"*","scacCode":"ZIMU","demurrageDays":0,"detentionDays":3,"demurrageRate":150,"detentionRate":90,"currency":"USD"}]}`); code != 200 {
		t.Fatalf("free time: %d %v", code, body)
	}
	// The baseline: both journeys pulled with their first events.
	for _, sub := range []struct{ key, number string }{{a, h.number}, {b, h.number}, {c, h.number}, {a, rolled}} {
		testkit.Eventually(t, 60*time.Second, "the first events of "+sub.number, func() bool {
			ids, _ := pull(t, s, sub.key, sub.number)
			return len(ids) > 0
		})
	}
	waitAlerts := func(ref string, want ...string) {
		t.Helper()
		var got map[string]int
		for end := time.Now().Add(90 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
			got = alertKinds(hookA.alerts(ref))
			missing := false
			for _, k := range want {
				missing = missing || got[k] == 0
			}
			if !missing {
				return
			}
		}
		t.Fatalf("%s: alerts %v, want %v (sandbox at %s)", ref, got, want, time.Unix(0, sandboxNow.Load()).UTC())
	}
	steps := []struct {
		at   time.Time
		ref  string
		want []string
	}{
		{s0.Add(7 * time.Hour), "hold", []string{schemas.AlertETAChanged}},
		{rollAt.Add(time.Hour), "roll", []string{schemas.AlertRolled}},
		{h.arrival.Add(time.Hour), "hold", []string{schemas.AlertArrived}},
		{h.terminal.Held.Add(30 * time.Minute), "hold", []string{schemas.AlertHoldPlaced, schemas.AlertLFDApproaching}},
		{h.terminal.Available.Add(30 * time.Minute), "hold", []string{schemas.AlertHoldReleased, schemas.AlertAvailableForPickup}},
		{h.nextDay, "hold", []string{schemas.AlertDemurrageStarted}},
	}
	slices.SortFunc(steps, func(x, y struct {
		at   time.Time
		ref  string
		want []string
	}) int {
		return x.at.Compare(y.at)
	})
	for _, st := range steps {
		if st.at.UnixNano() > sandboxNow.Load() {
			sandboxNow.Store(st.at.UnixNano())
		}
		began := time.Now()
		waitAlerts(st.ref, st.want...)
		// B's and C's trackings of the same container have seen what A's
		// has before the clock moves on (else one may skip a version).
		// Which estimates of the arrival each one recorded on the way
		// (its ETA_REVISIONs) depends on when its polls fell against the
		// clock's moves, a poll under way as the clock moved seeing the
		// step before: those are each tracking's own history, and are
		// left out of the comparison; the current estimate is not.
		var differs string
		for end := time.Now().Add(testkit.Scale(60 * time.Second)); ; time.Sleep(250 * time.Millisecond) {
			// The same events (in any order: events of one time have none)
			// and milestones.
			ids, ms := pull(t, s, a, h.number)
			slices.Sort(ids)
			ms = withoutRevisions(ms)
			differs = ""
			for _, key := range []string{b, c} {
				i, m := pull(t, s, key, h.number)
				if slices.Sort(i); !slices.Equal(i, ids) || withoutRevisions(m) != ms {
					differs = fmt.Sprintf("A: %v %s\nother: %v %s", ids, ms, i, m)
				}
			}
			if differs == "" {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("B's and C's journeys are not A's within 60 s:\n%s", differs)
			}
		}
		t.Logf("%v for %s within %s", st.want, st.ref, time.Since(began).Round(100*time.Millisecond))
	}

	// Each alert once, with its shape.
	byID := map[string]schemas.Alert{}
	for _, ref := range []string{"hold", "roll"} {
		for _, al := range hookA.alerts(ref) {
			if _, dup := byID[al.AlertID]; dup {
				t.Errorf("alert %s (%s) delivered twice", al.AlertID, al.AlertType)
			}
			byID[al.AlertID] = al
			if al.EquipmentReference == "" || al.AlertDateTime == "" || al.UNLocationCode == "" {
				t.Errorf("alert without its container, time or place: %+v", al)
			}
			switch al.AlertType {
			case schemas.AlertETAChanged:
				if al.ChangeMinutes == nil || al.PreviousDateTime == "" || al.NewDateTime == "" {
					t.Errorf("ETA_CHANGED without its times: %+v", al)
				}
			case schemas.AlertRolled:
				if al.PreviousVessel == nil || al.NewVessel == nil || al.PreviousVessel.VesselIMONumber == al.NewVessel.VesselIMONumber || ref != "roll" {
					t.Errorf("ROLLED: %+v", al)
				}
			case schemas.AlertHoldPlaced, schemas.AlertHoldReleased:
				if al.HoldType != "CUSTOMS" {
					t.Errorf("hold: %+v", al)
				}
			case schemas.AlertLFDApproaching, schemas.AlertDemurrageStarted:
				if al.LastFreeDay != h.lfd {
					t.Errorf("%s: last free day %s, want %s", al.AlertType, al.LastFreeDay, h.lfd)
				}
			}
		}
	}
	// The feed has the same alerts (asked for), and none without asking.
	feedAlerts := func(key, query string) (alerts []schemas.Alert, events []dcsa.Summary) {
		req, _ := http.NewRequest("GET", "http://"+s.cfg.HTTPAddr+"/subscriptions/events?limit=1000&"+query, nil)
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var page struct{ Items []alertPayload }
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != 200 {
			t.Fatalf("feed %s: %d %v", query, resp.StatusCode, err)
		}
		for _, it := range page.Items {
			alerts = append(alerts, it.Alerts...)
			for _, e := range it.Events {
				var ev dcsa.Summary
				if err := json.Unmarshal(e, &ev); err != nil {
					t.Fatalf("feed event %s: %v", e, err)
				}
				events = append(events, ev)
			}
		}
		return alerts, events
	}
	testkit.Eventually(t, 30*time.Second, "the feed's alerts", func() bool {
		fa, _ := feedAlerts(a, "alertTypes="+strings.Join(schemas.AlertTypes, ","))
		ids := map[string]bool{}
		for _, al := range fa {
			ids[al.AlertID] = true
		}
		for id := range byID {
			if !ids[id] {
				return false
			}
		}
		return len(ids) == len(byID)
	})
	if fa, fe := feedAlerts(a, ""); len(fa) != 0 || len(fe) == 0 {
		t.Errorf("the feed without alertTypes: %d alerts, %d events", len(fa), len(fe))
	}
	_, disc := feedAlerts(a, "eventTypes=DISCHARGE_POD&classifiers=ACT")
	for _, ev := range disc {
		if ev.EquipmentEventTypeCode != "DISC" || ev.EventClassifierCode != "ACT" {
			t.Errorf("eventTypes=DISCHARGE_POD&classifiers=ACT read %+v", ev)
		}
	}
	if len(disc) == 0 {
		t.Error("eventTypes=DISCHARGE_POD&classifiers=ACT read no discharge")
	}
	_, ms := feedAlerts(a, "milestonesOnly=true")
	_, everything := feedAlerts(a, "")
	if len(ms) == 0 || len(ms) >= len(everything) {
		t.Errorf("milestonesOnly read %d of %d events", len(ms), len(everything))
	}
	for _, ev := range ms {
		if !slices.ContainsFunc(eventfilter.Tags(&ev), func(tag string) bool { return slices.Contains(eventfilter.MilestoneKinds, tag) }) {
			t.Errorf("milestonesOnly read %+v", ev)
		}
	}

	// Every ETA move A got (its subscription's threshold is 0); B and C
	// get those of at least their threshold that their own trackings'
	// revisions show, by webhook and in the feed.
	// (Alert ids are per tracking, so per account: a move is known by its
	// times.)
	etaMoves := map[string]int{}
	move := func(al schemas.Alert) string { return al.PreviousDateTime + " → " + al.NewDateTime }
	for _, al := range hookA.alerts("hold") {
		if al.AlertType == schemas.AlertETAChanged {
			etaMoves[move(al)] = *al.ChangeMinutes
		}
	}
	t.Logf("ETA moves (minutes): %v", etaMoves)
	checkETA := func(who, key string, got []schemas.Alert, thresholdMinutes float64, others ...string) {
		t.Helper()
		seen := map[string]bool{}
		for _, al := range got {
			switch {
			case slices.Contains(others, al.AlertType):
			case al.AlertType == schemas.AlertETAChanged:
				if math.Abs(float64(*al.ChangeMinutes)) < thresholdMinutes {
					t.Errorf("%s got an ETA move of %d minutes, below its %v", who, *al.ChangeMinutes, thresholdMinutes)
				}
				seen[move(al)] = true
			default:
				t.Errorf("%s got %s, which its filters leave out", who, al.AlertType)
			}
		}
		// The moves the tracking's own ETA revisions show: when its polls
		// fell against the sandbox's estimates decides which of them it saw.
		own, over := etaMovesOf(t, s, key, h.number), 0
		for mv, m := range own {
			if math.Abs(float64(m)) >= thresholdMinutes {
				over++
				if !seen[mv] {
					t.Errorf("%s lacks the ETA move %s of %d minutes (A's moves: %v)", who, mv, m, etaMoves)
				}
			}
		}
		// A move of A's past the threshold is one the other trackings saw
		// too, give or take the minutes the estimate drifts between polls.
		for _, m := range etaMoves {
			if math.Abs(float64(m)) >= thresholdMinutes+5 && over == 0 {
				t.Errorf("%s: its tracking shows no ETA move of %v minutes or more (its moves %v, A's %v)", who, thresholdMinutes, own, etaMoves)
				break
			}
		}
	}
	// B's filters: actual transport events and actual discharges; ETA
	// changes of 6 h and more (the default), arrivals; nothing else.
	testkit.Eventually(t, 30*time.Second, "B's arrival alert", func() bool { return alertKinds(hookB.alerts("hold"))[schemas.AlertArrived] == 1 })
	checkETA("B's webhook", b, hookB.alerts("hold"), 360, schemas.AlertArrived)
	fb, _ := feedAlerts(b, "alertTypes=ETA_CHANGED,ARRIVED")
	checkETA("B's feed", b, fb, 360, schemas.AlertArrived)
	// C's: equipment events milestones are derived from; ETA changes of
	// its account's 2 h and more, the hold placed.
	testkit.Eventually(t, 30*time.Second, "C's hold alert", func() bool { return alertKinds(hookC.alerts("hold"))[schemas.AlertHoldPlaced] == 1 })
	checkETA("C's webhook", c, hookC.alerts("hold"), 120, schemas.AlertHoldPlaced)
	fc, _ := feedAlerts(c, "alertTypes=ETA_CHANGED,HOLD_PLACED")
	checkETA("C's feed", c, fc, 120, schemas.AlertHoldPlaced)
	evC := hookC.events(t, "hold")
	if len(evC) == 0 {
		t.Fatal("C got no events")
	}
	for _, ev := range evC {
		if ev.EventType != "EQUIPMENT" || !slices.ContainsFunc(eventfilter.Tags(&ev), func(tag string) bool { return slices.Contains(eventfilter.MilestoneKinds, tag) }) {
			t.Errorf("C got %s %s %s, which its filters leave out", ev.EventType, ev.EventClassifierCode, ev.EquipmentEventTypeCode)
		}
	}
	if _, all := feedAlerts(c, "eventTypes=EQUIPMENT"); len(all) <= len(evC) {
		t.Errorf("C's equipment events are all milestones' (%d of %d): milestonesOnly left nothing out", len(evC), len(all))
	}
	evB := hookB.events(t, "hold")
	if len(evB) == 0 {
		t.Fatal("B got no events")
	}
	for _, ev := range evB {
		if ev.EventClassifierCode != "ACT" || (ev.EventType != "TRANSPORT" && ev.EquipmentEventTypeCode != "DISC") {
			t.Errorf("B got %s %s %s%s, which its filters leave out", ev.EventType, ev.EventClassifierCode, ev.TransportEventTypeCode, ev.EquipmentEventTypeCode)
		}
	}
	for _, key := range []string{a, b, c} {
		for _, status := range []string{"FAILED", "DEAD"} {
			if code, body := s.do("GET", "/webhook/deliveries?status="+status, key, ""); code != 200 || len(body["deliveries"].([]any)) != 0 {
				t.Errorf("%s deliveries: %d %v", status, code, body)
			}
		}
	}

	// The pull: the container's readiness under A's rule.
	code, body := s.do("GET", "/subscription/equipment?equipmentNumber="+h.number, a, "")
	if code != 200 {
		t.Fatalf("pull: %d %v", code, body)
	}
	res := body["results"].([]any)[0].(map[string]any)
	raw, _ := json.Marshal(res["readiness"])
	var r struct {
		LastFreeDay        string   `json:"lastFreeDay"`
		AvailableForPickup bool     `json:"availableForPickup"`
		OnHold             bool     `json:"onHold"`
		DemurrageDays      int      `json:"demurrageDays"`
		Attention          []string `json:"attention"`
		Holds              []struct {
			HoldCode, PlacedDateTime, ReleasedDateTime string
		} `json:"holds"`
		EstimatedCost *struct {
			Demurrage, Total float64
			Currency         string
		} `json:"estimatedCost"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("readiness %s: %v", raw, err)
	}
	if r.LastFreeDay != h.lfd || !r.AvailableForPickup || r.OnHold || r.DemurrageDays < 1 || len(r.Holds) != 1 || r.Holds[0].ReleasedDateTime == "" ||
		r.EstimatedCost == nil || r.EstimatedCost.Demurrage != float64(r.DemurrageDays)*150 || r.EstimatedCost.Currency != "USD" ||
		!slices.Contains(r.Attention, "DEMURRAGE") {
		t.Errorf("readiness %s", raw)
	}

	// For analysts: every alert A got is in ClickHouse alerts, and the
	// documented demurrage query gives the container's days and cost.
	testkit.Eventually(t, 30*time.Second, "A's alerts in ClickHouse", func() bool {
		rows, err := s.ch.Conn.Query(context.Background(), `SELECT alert_id, any(alert_type) FROM alerts WHERE account_id = ? GROUP BY alert_id`, ka.Account.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		in := map[string]string{}
		for rows.Next() {
			var id, kind string
			if err := rows.Scan(&id, &kind); err != nil {
				t.Fatal(err)
			}
			in[id] = kind
		}
		for id, al := range byID {
			if in[id] != al.AlertType {
				return false
			}
		}
		return true
	})
	query := analyticsQuery(t, "Demurrage days and estimated cost per carrier and port of discharge")
	want := fmt.Sprintf("ZIMU %s 1 %d %v USD", res["POD"], r.DemurrageDays, float64(r.DemurrageDays)*150)
	var got string
	testkit.Eventually(t, 30*time.Second, "the demurrage query's figures", func() bool {
		rows, err := s.ch.Conn.Query(context.Background(), strings.ReplaceAll(query, "{account}", "'"+ka.Account.ID+"'"))
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var scac, pod, cur string
			var month time.Time
			var n uint64
			var days uint64
			var cost float64
			if err := rows.Scan(&scac, &pod, &month, &n, &days, &cost, &cur); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("%s %s %d %d %v %s", scac, pod, n, days, cost, cur))
		}
		got = strings.Join(lines, "; ")
		return got == want
	})
	t.Logf("demurrage query: %s", got)
}

// analyticsQuery is the SQL example of docs/analytics.md whose comment
// starts with title.
func analyticsQuery(t *testing.T, title string) string {
	t.Helper()
	raw, err := os.ReadFile("../../docs/analytics.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "-- "+title)
	if !ok {
		t.Fatalf("docs/analytics.md has no query %q", title)
	}
	_, rest, _ = strings.Cut(rest, "\n")
	q, _, _ := strings.Cut(rest, ";")
	return q
}

// withoutRevisions is pull's milestones without their ETA_REVISIONs.
func withoutRevisions(ms string) string {
	var kept []string
	for _, m := range strings.Fields(ms) {
		if !strings.HasPrefix(m, "ETA_REVISION@") {
			kept = append(kept, m)
		}
	}
	return strings.Join(kept, " ")
}
