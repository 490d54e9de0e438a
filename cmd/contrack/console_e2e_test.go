package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/contrack/contrack/ingest/sandbox"
	sj "github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testkit"
)

// chromium finds a Chromium to drive: CONTRACK_TEST_CHROMIUM, else Debian's
// `chromium` (deploy/services.sh installs it for `make test`).
func chromium() string {
	if p := os.Getenv("CONTRACK_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts a headless Chromium and records every URL a page asks for.
type browser struct {
	t    *testing.T
	ctx  context.Context
	mu   sync.Mutex
	urls []string
}

func newBrowser(t *testing.T) *browser {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	exe := chromium()
	if exe == "" {
		t.Skip("console browser test skipped: no chromium installed (apt-get install chromium, or set CONTRACK_TEST_CHROMIUM)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(1280, 900), chromedp.UserDataDir(t.TempDir()))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &browser{t: t}
	ctx, cancelC := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			b.mu.Lock()
			b.urls = append(b.urls, e.Request.URL)
			b.mu.Unlock()
		}
	}))
	b.ctx = ctx
	if err := chromedp.Do(ctx); err != nil {
		cancelC()
		cancelA()
		t.Fatalf("start chromium %s: %v", exe, err)
	}
	t.Cleanup(func() { cancelC(); cancelA() })
	return b
}

// run runs actions with a deadline, failing the test with what.
func (b *browser) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, testkit.Scale(30*time.Second))
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		text, _ := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS("body")))
		b.t.Fatalf("%s: %v\npage text: %.2000s", what, err, text)
	}
}

// text reads the text of the first element matching a CSS selector.
func (b *browser) text(what, css string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, testkit.Scale(30*time.Second))
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// waitJS polls a JavaScript condition until it is true.
func (b *browser) waitJS(what, expr string) {
	b.t.Helper()
	held := false
	defer func() {
		if !held { // Eventually failed the test: show the page it gave up on
			text, _ := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS("body")))
			b.t.Logf("%s: page text: %.2000s", what, text)
		}
	}()
	testkit.Eventually(b.t, 30*time.Second, what+": "+expr, func() bool {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](expr))
		return err == nil && ok
	})
	held = true
}

func (b *browser) requested() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.urls...)
}

// shot saves a full-page PNG when CONTRACK_SCREENSHOTS names a folder
// (`make screenshots`).
func (b *browser) shot(name string) {
	dir := os.Getenv("CONTRACK_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// mapStats is what mapFacts measures.
type mapStats struct {
	Land, Sailed, Planned, Ports, W, H int
	VX, VY, Gap                        float64
	Desc, Position                     string
}

// mapFacts measures the journey map: the land path's length, the route
// paths of each state, the ports, the map's size, where the vessel is and
// how far that is from the nearest end of a sailed route path.
const mapFacts = `(()=>{const f=document.querySelector('figure.map');const svg=f.querySelector('svg');const v=f.querySelector('g.vessel');
	const vx=+v.dataset.x, vy=+v.dataset.y;let gap=1e9;
	for(const p of f.querySelectorAll('svg path.route-sailed')){const e=p.getPointAtLength(p.getTotalLength());gap=Math.min(gap,Math.hypot(e.x-vx,e.y-vy))}
	return {Land:f.querySelector('path.land').getAttribute('d').length,Sailed:f.querySelectorAll('svg path.route-sailed').length,
	Planned:f.querySelectorAll('svg path.route-planned').length,Ports:f.querySelectorAll('svg g.port').length,
	W:+svg.getAttribute('width'),H:+svg.getAttribute('height'),VX:vx,VY:vy,Gap:gap,
	Desc:svg.querySelector('desc').textContent,Position:(document.querySelector('#position')||{}).textContent||''}})()`

// unlabelled lists the page's form controls that have no accessible name
// (a <label>, aria-label or, for buttons, text).
const unlabelled = `[...document.querySelectorAll('input,select,textarea,button')].filter(el =>
	!(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !(el.tagName === 'BUTTON' && el.textContent.trim()))
	.map(el => el.outerHTML.slice(0, 80))`

func (b *browser) checkLabels(page string) {
	b.t.Helper()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](unlabelled))
	if err != nil {
		b.t.Fatalf("%s: %v", page, err)
	}
	if len(got) > 0 {
		b.t.Errorf("%s: controls without a label: %v", page, got)
	}
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('input,select,button').length`))
	if err != nil || n == 0 {
		b.t.Fatalf("%s: no form controls found (%v): the label check saw nothing", page, err)
	}
}

// terminalBoxes finds two HLDU numbers (ZIMU, TNT 3.0) at now: one on
// customs hold at its port of discharge since its discharge today (port
// time), the other discharged on an earlier day there, released and
// available, still in the terminal; both stay so for the next 10 minutes.
func terminalBoxes(t *testing.T, now time.Time) (held, waiting string) {
	stays := func(n string, j sj.Journey, disc time.Time) bool {
		later := sj.Generate("ZIMU", sj.KindContainer, n, now.Add(10*time.Minute))
		if later.Cycle != j.Cycle {
			return false
		}
		for _, e := range later.Events {
			if e.Container == 0 && e.Classifier == sj.ACT && !e.Empty && e.Time.After(disc) &&
				(e.Code == sj.CodeGateOut || (e.Code == sj.CodeLoad && e.Mode == sj.ModeRail)) {
				return false
			}
		}
		return true
	}
	for serial := 0; serial < 50000 && (held == "" || waiting == ""); serial++ {
		n := sj.CompleteContainer(fmt.Sprintf("HLDU%06d", serial))
		j := sj.Generate("ZIMU", sj.KindContainer, n, now)
		tt, ok := sandbox.Terminal(j, 0, true)
		if !ok {
			continue
		}
		disc := tt.Held.Add(-time.Hour)
		day := disc.In(j.POD().Location()).Format(time.DateOnly)
		today := now.In(j.POD().Location()).Format(time.DateOnly)
		switch {
		case held == "" && now.After(tt.Held) && now.Add(10*time.Minute).Before(tt.Released) && day == today && stays(n, j, disc):
			held = n
		case waiting == "" && now.After(tt.Available) && day < today && stays(n, j, disc):
			waiting = n
		}
	}
	if held == "" || waiting == "" {
		t.Fatalf("no HLDU numbers fit at %s: held %q, waiting %q", now, held, waiting)
	}
	return held, waiting
}

// The console in a real headless Chromium against `contrack all`: sign in
// with a sandbox key, see a sandbox subscription's journey with events,
// replay a dead-lettered delivery, see the carrier chart and browse /docs;
// no page asks for anything from another origin.
func TestConsoleInBrowser(t *testing.T) {
	b := newBrowser(t)
	// Ships report every second, the simulator sees new trackings within a
	// second, and a cached journey takes new reports within a second.
	// The alerts stage looks every second for the last free day's alerts.
	s := startSystem(t, func(c *Config) {
		c.Vessels.Interval, c.Vessels.SandboxRefresh, c.Journeys.MaxAge = time.Second, time.Second, time.Second
		c.Alerts.SweepInterval = time.Second
	})
	// Two boxes in their terminal: one on hold, one owing demurrage.
	held, waiting := terminalBoxes(t, time.Now())
	t.Logf("on hold: %s; waiting for pick-up: %s", held, waiting)
	ctx := context.Background()
	// A container whose vessel is at sea now, and stays so while the test runs.
	atSea, leg := atSeaContainer(t, "MAEU", "MSKU", time.Now(), 2*time.Hour)
	t.Logf("at sea: %s on %s (IMO %s) voyage %s, %s to %s", atSea, leg.Vessel.Name, leg.Vessel.IMO, leg.Voyage, leg.From.Code, leg.To.Code)
	key, k, err := auth.NewStore(s.db.Pool).CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox", DisplayName: "Acme Logistics"})
	if err != nil {
		t.Fatal(err)
	}
	if code, body := s.do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"sandbox-key-1234"},"HLCU":{"clientId":"acme","clientSecret":"sandbox-secret-9876"},"ZIMU":{"clientId":"acme","clientSecret":"sandbox-secret-5432"}}`); code != 200 {
		t.Fatalf("credentials: %d %v", code, body)
	}
	for _, sub := range []string{
		`{"scacCode":"MAEU","containerNumber":"MSKU9070323","subscriptionReference":"PO-1001"}`,
		`{"scacCode":"HLCU","containerNumber":"CSQU3054383","subscriptionReference":"PO-1002"}`,
		`{"scacCode":"MAEU","containerNumber":"ERRU0000005","subscriptionReference":"PO-1003"}`,
		`{"scacCode":"MAEU","containerNumber":"` + atSea + `","subscriptionReference":"PO-1004"}`,
		`{"scacCode":"ZIMU","containerNumber":"` + held + `","subscriptionReference":"PO-1005"}`,
		`{"scacCode":"ZIMU","containerNumber":"` + waiting + `","subscriptionReference":"PO-1006"}`,
		// PO-1001's container at another carrier: never on PO-1001's page.
		`{"scacCode":"HLCU","containerNumber":"MSKU9070323","subscriptionReference":"PO-1007"}`,
		`{"scacCode":"MAEU","containerNumber":"UNAU0000004","subscriptionReference":"PO-1008"}`, // credentials refused
		`{"scacCode":"MAEU","containerNumber":"NOFU0000001","subscriptionReference":"PO-1009"}`, // not found
		`{"scacCode":"MAEU","containerNumber":"MSKU1234565","subscriptionReference":"PO-1010"}`, // closed below
	} {
		if code, body := s.do("POST", "/subscription/equipment", key, sub); code != 200 {
			t.Fatalf("subscribe %s: %d %v", sub, code, body)
		}
	}
	// The pipeline has polled, normalised and projected the journey, and
	// the projector has written poll attempts for the carrier metrics.
	testkit.Eventually(t, 60*time.Second, "journey events of PO-1001", func() bool {
		_, body := s.do("GET", "/subscription/equipment?equipmentNumber=MSKU9070323", key, "")
		res, _ := body["results"].([]any)
		if len(res) == 0 {
			return false
		}
		ev, _ := res[0].(map[string]any)["sourceEvents"].([]any)
		return len(ev) > 0
	})
	testkit.Wait(t, 60*time.Second, "MSKU9070323's journey at HLCU beside MAEU's", func() (bool, any) {
		_, body := s.do("GET", "/subscription/equipment?equipmentNumber=MSKU9070323", key, "")
		return strings.Contains(fmt.Sprint(body["results"]), "scacCode:HLCU") && strings.Contains(fmt.Sprint(body["results"]), "scacCode:MAEU"), body
	})
	for ref, conn := range map[string]string{"PO-1008": "UNAUTHORIZED", "PO-1009": "CONNECTED"} {
		testkit.Wait(t, 60*time.Second, ref+" "+conn, func() (bool, any) {
			_, body := s.do("GET", "/subscription/"+ref, key, "")
			return body["connectionStatus"] == conn, body
		})
	}
	if code, body := s.do("DELETE", "/subscription/PO-1010", key, ""); code != 200 {
		t.Fatalf("close PO-1010: %d %v", code, body)
	}
	// The ship's reports reach the pull: its position, and the route cut there.
	testkit.Eventually(t, 60*time.Second, "the position of "+atSea+"'s vessel in the pull", func() bool {
		_, body := s.do("GET", "/subscription/equipment?equipmentNumber="+atSea, key, "")
		res, _ := body["results"].([]any)
		if len(res) == 0 {
			return false
		}
		r := res[0].(map[string]any)
		v, _ := r["vessel"].(map[string]any)
		return v != nil && v["position"] != nil && r["route"] != nil
	})
	// ZIMU's boxes: no free day, $175 a day after it. PO-1005's last free
	// day is today, PO-1006's passed; the alerts stage raises their alerts.
	if code, body := s.do("PUT", "/account/free-time", key, `{"rules":[{"port":"*","scacCode":"ZIMU","demurrageDays":0,"detentionDays":4,"demurrageRate":175,"detentionRate":90,"currency":"USD"}]}`); code != 200 {
		t.Fatalf("free time: %d %v", code, body)
	}
	for _, c := range []struct{ ref, alert string }{{"PO-1005", "LFD_APPROACHING"}, {"PO-1006", "DEMURRAGE_STARTED"}} {
		testkit.Wait(t, 90*time.Second, c.alert+" of "+c.ref, func() (bool, any) {
			_, body := s.do("GET", "/subscription/"+c.ref+"/alerts", key, "")
			return strings.Contains(fmt.Sprint(body["alerts"]), c.alert), body
		})
	}
	// The account's warning days, which the console's "Needs attention" names.
	if code, body := s.do("PUT", "/account/alert-settings", key, `{"lfdWarningDays":3}`); code != 200 {
		t.Fatalf("alert settings: %d %v", code, body)
	}
	testkit.Eventually(t, 60*time.Second, "carrier metrics of MAEU", func() bool {
		_, body := s.do("GET", "/carrier/metrics", key, "")
		cs, _ := body["carriers"].([]any)
		return len(cs) > 0
	})
	// A dead-lettered delivery: the real schedule spans days, so the test
	// writes the row a delivery has once every attempt failed.
	deadID := uuid.NewString()
	if _, err := s.db.Pool.Exec(ctx, `
		INSERT INTO deliveries (id, account_id, subscription_id, status, event_count, attempts, round_attempts,
		                        next_attempt_at, last_http_code, last_error, created_at, updated_at, dead_at, dlq_published_at)
		SELECT $1, account_id, id, 'DEAD', 1, 12, 12, now(), 503, 'HTTP 503', now() - interval '3 days', now(), now(), now()
		FROM subscriptions WHERE account_id = $2 AND reference = 'PO-1001'`, deadID, k.Account.ID); err != nil {
		t.Fatalf("dead delivery: %v", err)
	}

	base := "http://" + s.cfg.HTTPAddr
	shots := os.Getenv("CONTRACK_SCREENSHOTS") != ""
	// Sign in.
	b.run("open the console", chromedp.Navigate(base+"/console/"), chromedp.WaitVisible(chromedp.ID("api-key")))
	b.checkLabels("sign in")
	b.shot("signin-desktop")
	b.run("sign in", chromedp.SendKeys(chromedp.ID("api-key"), key), chromedp.Click(chromedp.ID("sign-in")))
	b.waitJS("the subscriptions after signing in", `!!document.querySelector('#subscriptions') && document.querySelector('#subscriptions').textContent.includes('PO-1001')`)
	b.waitJS("the account shown", `document.querySelector('#account').textContent.includes('sandbox')`)
	// Filter by connection status, client-side over the listed page.
	b.run("filter CARRIER_ERROR", chromedp.SetValue(chromedp.ID("f-connection"), "CARRIER_ERROR"),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := chromedp.Evaluate[any](`document.querySelector('#f-connection').dispatchEvent(new Event('change',{bubbles:true}))`)(ctx, t)
			return err
		}))
	b.waitJS("only the failing subscription", `(()=>{const t=document.querySelector('#subscriptions').textContent;return t.includes('PO-1003')&&!t.includes('PO-1001')})()`)
	b.run("clear the filter", chromedp.SetValue(chromedp.ID("f-connection"), ""),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := chromedp.Evaluate[any](`document.querySelector('#f-connection').dispatchEvent(new Event('change',{bubbles:true}))`)(ctx, t)
			return err
		}))
	b.waitJS("all subscriptions again", `document.querySelector('#subscriptions').textContent.includes('PO-1001')`)
	b.checkLabels("subscriptions")
	b.shot("subscriptions-desktop")
	// Needs attention: the box owing demurrage, then the held one (the most
	// urgent first), each saying why; the others not.
	b.run("filter needs attention", chromedp.Click(chromedp.ID("f-attention")))
	b.waitJS("only the boxes needing attention", `(()=>{const t=document.querySelector('#subscriptions');if(!t)return false;
		const rows=[...t.querySelectorAll('tbody tr')].map(r=>r.textContent);
		return rows.length===2&&rows[0].includes('PO-1006')&&rows[0].includes('Demurrage')&&rows[0].includes('USD')&&
			rows[1].includes('PO-1005')&&rows[1].includes('On hold')&&rows[1].includes('today is the last free day')})()`)
	b.checkLabels("subscriptions needing attention")
	b.shot("attention-desktop")
	b.run("clear needs attention", chromedp.Click(chromedp.ID("f-attention")))
	b.waitJS("all subscriptions once more", `document.querySelector('#subscriptions').textContent.includes('PO-1001')`)
	// "Needs attention" names the account's warning days, not a fixed 2.
	if hint := b.text("read the attention hint", "#f-attention-hint"); !strings.Contains(hint, "within 3 days") {
		t.Errorf("the attention filter says %q, want the account's 3 days", hint)
	}
	// A closed subscription says when and why.
	b.waitJS("PO-1010 closed, with its reason and date", `[...document.querySelectorAll('#subscriptions tbody tr')].some(r=>r.textContent.includes('PO-1010')&&
		/Closed \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: closed with DELETE/.test((r.querySelector('.closed-reason')||{}).textContent||''))`)
	// The SCAC starts empty, so a subscription from the form infers its carrier.
	if v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('#c-scac').value`)); err != nil || v != "" {
		t.Errorf("the SCAC field starts with %q (%v), want empty", v, err)
	}
	inferred := sj.CompleteContainer("MRKU123456")
	setInput := func(css, v string) string {
		return fmt.Sprintf(`(()=>{const i=document.querySelector(%q);if(!i)return false;i.value=%q;i.dispatchEvent(new Event('input',{bubbles:true}));return true})()`, css, v)
	}
	b.waitJS("the reference typed", setInput("#c-ref", "PO-FORM"))
	b.waitJS("the number typed", setInput("#c-number", inferred))
	b.run("subscribe from the form", chromedp.Click(chromedp.ID("c-submit")))
	b.waitJS("subscribed from the form", `document.querySelector('main').textContent.includes('Successfully Subscribed: PO-FORM')`)
	if _, body := s.do("GET", "/subscription/PO-FORM", key, ""); body["scacCode"] != "MAEU" {
		t.Errorf("the form's subscription of %s without a SCAC: %v, want MAEU inferred", inferred, body)
	}

	// The journey: a timeline with events, the route strip and vessel.
	b.run("open the journey", chromedp.Click(chromedp.CSS(`a[href="#/journey/PO-1001"]`)))
	b.waitJS("timeline events", `document.querySelectorAll('#timeline li').length > 0`)
	journey := b.text("read the journey", "main")
	for _, want := range []string{"MSKU9070323", "POL", "POD", "Actual", "Last location", "Vessel"} {
		if !strings.Contains(journey, want) {
			t.Errorf("journey page lacks %q:\n%s", want, journey)
		}
	}
	// Only PO-1001's own container: not the same box at HLCU (PO-1007).
	if heads, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('section.journey h2')].map(h=>h.textContent)`)); err != nil ||
		len(heads) != 1 || !strings.Contains(heads[0], "MAEU") {
		t.Errorf("PO-1001's journey page shows %q (%v), want MSKU9070323 at MAEU alone", heads, err)
	}
	vessel := b.text("read the vessel", "#vessel")
	if vessel == "" || vessel == "—" {
		t.Errorf("no vessel on the journey page")
	}
	// A richer enhancedEvents shape (ETA revisions with previous and new
	// times, more milestone types) renders from its fields alone: the
	// page's fetch is wrapped to add such milestones to the API's answer.
	b.run("richer milestones", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](`(()=>{const f=window.fetch;window.fetch=async(u,i)=>{const r=await f(u,i);
			if(!String(u).startsWith('/subscription/equipment'))return r;const j=await r.json();
			for(const x of j.results){x.enhancedEvents=[...x.enhancedEvents,
			{enhancedEventType:'ETA_REVISION',UNLocationCode:'MYTPP',eventDateTime:'2026-11-20T08:00:00Z',previousEventDateTime:'2026-11-18T04:00:00Z',newEventDateTime:'2026-11-20T08:00:00Z',vesselName:'MARIE MAERSK'},
			{enhancedEventType:'ATD_POL',location:{UNLocationCode:'USNYC',locationName:'New York'},eventDateTime:'2026-10-05T19:06:00Z'}]}
			return new Response(JSON.stringify(j),{status:200,headers:{'content-type':'application/json'}})};return true})()`)(ctx, t)
		return err
	}), chromedp.Click(chromedp.CSS(`main button.secondary`)))
	b.waitJS("the ETA revision", `(()=>{const e=document.querySelector('#eta-revisions');return !!e&&e.textContent.includes('ETA moved from 2026-11-18 04:00 UTC to 2026-11-20 08:00 UTC')&&e.textContent.includes('MARIE MAERSK')})()`)
	b.waitJS("the ATD milestone", `document.querySelector('#milestones').textContent.includes('ATD POL at New York (USNYC)')`)

	// An unknown reference says so; nothing stays "Loading…".
	b.run("open an unknown journey", chromedp.Navigate(base+"/console/#/journey/NO-SUCH-REF"))
	b.waitJS("not found", `(()=>{const n=document.querySelector('#not-found');return !!n&&n.textContent.includes('Subscription not found')&&!document.querySelector('main').textContent.includes('Loading')})()`)
	// No events: the reason, from the subscription's connection.
	for ref, want := range map[string]string{"PO-1008": "refused the stored credentials", "PO-1009": "does not know this shipment"} {
		b.run("open "+ref+"'s journey", chromedp.Navigate(base+"/console/#/journey/"+ref))
		b.waitJS(ref+"'s reason for no events", fmt.Sprintf(`[...document.querySelectorAll('.no-events')].some(p=>p.textContent.includes(%q))&&!document.querySelector('main').textContent.includes('polled within seconds')`, want))
	}
	b.run("open PO-1010's journey", chromedp.Navigate(base+"/console/#/journey/PO-1010"))
	b.waitJS("PO-1010's closing", `(()=>{const c=document.querySelector('#closed');return !!c&&/Closed \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: closed with DELETE/.test(c.textContent)})()`)

	// A box owing demurrage: its readiness (the hold released, available,
	// the last free day passed, days and cost) and its alerts; a box on hold.
	b.run("open PO-1006's journey", chromedp.Navigate(base+"/console/#/journey/PO-1006"), chromedp.Reload())
	b.waitJS("the readiness", `!!document.querySelector('#readiness')&&!!document.querySelector('#alerts')`)
	ready := b.text("read the readiness", "#readiness")
	for _, want := range []string{"Available since", "past", "Demurrage", "USD", "Customs hold", "CUSI", "Released", "Free time at * for ZIMU: 0 days demurrage"} {
		if !strings.Contains(ready, want) {
			t.Errorf("PO-1006's readiness lacks %q:\n%s", want, ready)
		}
	}
	if al := b.text("read the alerts", "#alerts"); !strings.Contains(al, "Demurrage started") || !strings.Contains(al, waiting) {
		t.Errorf("PO-1006's alerts: %s", al)
	}
	b.checkLabels("journey with readiness")
	b.shot("readiness-desktop")
	// A readiness missing parts (no countdown, no hold code, no rate) leaves
	// no separator dangling.
	b.run("a sparser readiness", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](`(()=>{const f=window.fetch;window.fetch=async(u,i)=>{const r=await f(u,i);
			if(!String(u).startsWith('/subscription/equipment'))return r;const j=await r.json();
			for(const x of j.results){const v=x.readiness;if(!v)continue;delete v.daysToLastFreeDay;delete v.asOf;
			for(const h of v.holds||[])delete h.holdCode;if(v.freeTimeRule)delete v.freeTimeRule.demurrageRate}
			return new Response(JSON.stringify(j),{status:200,headers:{'content-type':'application/json'}})};return true})()`)(ctx, t)
		return err
	}), chromedp.Click(chromedp.CSS(`main button.secondary`)))
	b.waitJS("the sparser readiness drawn", `(()=>{const h=document.querySelector('#holds');return !!h&&!h.textContent.includes('CUSI')})()`)
	if dangling, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#readiness dd, #readiness li, #readiness .badge, #readiness #rule')]
		.map(e=>e.textContent.replace(/\s+/g,' ').trim()).filter(t=>/^·|·$|·\s*·/.test(t))`)); err != nil || len(dangling) > 0 {
		t.Errorf("dangling separators in the readiness panel: %q (%v)", dangling, err)
	}
	b.run("open PO-1005's journey", chromedp.Navigate(base+"/console/#/journey/PO-1005"), chromedp.Reload())
	b.waitJS("the open hold", `(()=>{const r=document.querySelector('#readiness');return !!r&&r.textContent.includes('On hold')&&
		r.textContent.includes('Open')&&r.textContent.includes('today is the last free day')&&
		!!document.querySelector('#alerts')&&document.querySelector('#alerts').textContent.includes('LFD APPROACHING')})()`)

	// The map of a container at sea: land, the route's sailed and planned
	// parts, its ports, and the vessel at the end of the sailed part.
	// (Reloaded: the page's fetch is the browser's again, not the wrapper above.)
	b.run("open the journey at sea", chromedp.Navigate(base+"/console/#/journey/PO-1004"), chromedp.Reload())
	b.waitJS("the map drawn", `!!document.querySelector('figure.map svg path.land') && !!document.querySelector('figure.map g.vessel')`)
	m, err := chromedp.Run(b.ctx, chromedp.Evaluate[mapStats](mapFacts))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("map: %+v", m)
	if m.Land < 2000 || m.Sailed < 1 || m.Planned < 1 || m.Ports < 2 {
		t.Errorf("map: land path %d characters, %d sailed and %d planned route paths, %d ports; want land, both parts and the ports", m.Land, m.Sailed, m.Planned, m.Ports)
	}
	if m.VX < 0 || m.VY < 0 || m.VX > float64(m.W) || m.VY > float64(m.H) || m.Gap > 6 {
		t.Errorf("vessel drawn at %.1f,%.1f in a %dx%d map, %.1f px from the end of the sailed route", m.VX, m.VY, m.W, m.H, m.Gap)
	}
	if !strings.Contains(m.Desc, leg.Vessel.Name) || m.Position == "" {
		t.Errorf("map description %q, position %q: want the vessel %s", m.Desc, m.Position, leg.Vessel.Name)
	}
	if !strings.Contains(b.text("read the journey's readiness", "main"), "Not discharged at the port of discharge yet") {
		t.Error("the journey page of a box at sea does not say it has no readiness yet")
	}
	b.checkLabels("journey at sea")
	b.shot("journey-desktop")
	// At phone width the map fits the screen, and the page does not scroll sideways.
	b.run("phone width", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Reload())
	b.waitJS("the map at phone width", `(()=>{const s=document.querySelector('figure.map svg');return !!s&&!!document.querySelector('figure.map path.land')&&
		s.getBoundingClientRect().right<=390&&s.getBoundingClientRect().width>=300&&document.documentElement.scrollWidth<=390})()`)
	b.shot("journey-phone")
	b.run("desktop width", chromedp.EmulateViewport(1280, 900), chromedp.Reload())
	b.waitJS("the map at desktop width", `(()=>{const s=document.querySelector('figure.map svg');return !!s&&s.getBoundingClientRect().width>900})()`)
	// Degrading: a route without a position (the vessel in port) has no
	// vessel marker; a journey without a route has no map, and says why.
	b.run("no position, then no route", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](`(()=>{const f=window.fetch;window.fetch=async(u,i)=>{const r=await f(u,i);
			if(!String(u).startsWith('/subscription/equipment'))return r;const j=await r.json();
			for(const x of j.results){if(window.dropRoute){delete x.route;delete x.vessel;delete x.arrivalPrediction}else if(x.vessel)delete x.vessel.position}
			return new Response(JSON.stringify(j),{status:200,headers:{'content-type':'application/json'}})};return true})()`)(ctx, t)
		return err
	}), chromedp.Click(chromedp.CSS(`main button.secondary`)))
	b.waitJS("the map without the vessel", `!!document.querySelector('figure.map path.route') && !document.querySelector('figure.map g.vessel') && !document.querySelector('#position')`)
	b.run("drop the route", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](`window.dropRoute=true`)(ctx, t)
		return err
	}), chromedp.Click(chromedp.CSS(`main button.secondary`)))
	b.waitJS("no map, a reason, the timeline", `!document.querySelector('figure.map') && document.querySelector('.no-map').textContent.includes('No sea route') && document.querySelectorAll('#timeline li').length > 0`)

	// The webhook page: the dead delivery, replayed with a click.
	b.run("open the webhook page", chromedp.Navigate(base+"/console/#/webhook"))
	// Both of the page's loads done: the configuration line appearing later
	// moves the list down, and a click aimed before it lands elsewhere (seen
	// in CI under load: the replay never happened).
	b.waitJS("the dead delivery", fmt.Sprintf(`!!document.querySelector('#wh-target')&&!!document.querySelector('tr[data-id=%q] button.replay')`, deadID))
	b.checkLabels("webhook")
	b.shot("webhook-desktop")
	b.run("replay", chromedp.Click(chromedp.CSS(fmt.Sprintf(`tr[data-id=%q] button.replay`, deadID))))
	b.waitJS("the delivery pending again", fmt.Sprintf(`(()=>{const r=document.querySelector('tr[data-id=%q]');return !!r&&r.querySelector('.d-status').textContent.includes('PENDING')&&!r.querySelector('button.replay')})()`, deadID))
	if _, body := s.do("GET", "/webhook/deliveries?status=PENDING", key, ""); !strings.Contains(fmt.Sprint(body), deadID) {
		t.Errorf("the API does not show the replayed delivery PENDING: %v", body)
	}

	// A test delivery with a click: it reaches a local receiver, signed, and
	// the list shows it delivered. (The webhook is activated only now, so the
	// replayed delivery above stayed PENDING while the test looked.)
	// Configured in the form, with an auth header the receiver gets on
	// every delivery and the page shows masked; the event format and
	// filters set through the API before stay as they were.
	pre := newHookReceiver(t)
	if code, body := s.do("POST", "/webhook/configure", key, `{"targetUrl":"`+pre.srv.URL+`/hook","eventFormat":"TNT_3.0.0","filters":{"classifiers":["ACT","EST"]}}`); code != 200 {
		t.Fatalf("configure: %d %v", code, body)
	}
	b.run("leave the webhook page", chromedp.Navigate(base+"/console/#/subscriptions"))
	b.run("back to the webhook page", chromedp.Navigate(base+"/console/#/webhook"))
	b.waitJS("the configuration", fmt.Sprintf(`(()=>{const x=document.querySelector('#wh-target');return !!x&&x.textContent===%q})()`, pre.srv.URL+"/hook"))
	hook := newHookReceiver(t)
	const hookKey = "console-hook-key-5678"
	// Typed as a user types: the value set and an input event, which the
	// page's state follows.
	typeInto := func(css, v string) string {
		return fmt.Sprintf(`(()=>{const i=document.querySelector(%q);if(!i)return false;i.value=%q;i.dispatchEvent(new Event('input',{bubbles:true}));return true})()`, css, v)
	}
	b.waitJS("the target URL typed", typeInto("#wh-url", hook.srv.URL+"/hook"))
	b.run("add an auth header", chromedp.Click(chromedp.ID("wh-auth-add")))
	b.waitJS("the header name typed", typeInto(".wh-auth-name", "X-API-Key"))
	b.waitJS("the header value typed", typeInto(".wh-auth-value", hookKey))
	b.checkLabels("webhook with an auth header")
	b.run("configure", chromedp.Click(chromedp.ID("wh-configure")))
	verificationHit := hook.waitFor(t, "webhook.verification", 20*time.Second)
	if got := verificationHit.header.Get("X-API-Key"); got != hookKey {
		t.Errorf("verification X-API-Key %q, want the header configured in the console", got)
	}
	b.waitJS("the stored header shown masked", `(()=>{const x=document.querySelector('#wh-auth-stored');return !!x&&x.textContent==='X-API-Key: ****5678'})()`)
	if strings.Contains(b.text("read the webhook page", "main"), hookKey) {
		t.Error("the webhook page shows the auth header's value")
	}
	var verification struct{ Secret string }
	if err := json.Unmarshal(verificationHit.body, &verification); err != nil {
		t.Fatal(err)
	}
	if _, body := s.do("GET", "/webhook/configure", key, ""); body["eventFormat"] != "TNT_3.0.0" ||
		fmt.Sprint(body["filters"].(map[string]any)["classifiers"]) != "[ACT EST]" || body["targetUrl"] != hook.srv.URL+"/hook" {
		t.Errorf("configuring in the console changed the format or filters: %v", body)
	}
	if code, body := s.do("POST", "/webhook/activate", key, `{"secret":"`+verification.Secret+`"}`); code != 200 {
		t.Fatalf("activate: %d %v", code, body)
	}
	b.run("leave the webhook page", chromedp.Navigate(base+"/console/#/subscriptions"))
	b.run("back to the webhook page", chromedp.Navigate(base+"/console/#/webhook"))
	b.waitJS("the test button enabled", `(()=>{const x=document.querySelector('#wh-test-send');return !!x&&!x.disabled})()`)
	// The deliveries list above the button loads on its own; a click is
	// aimed at the button's position, which the list moves when it comes
	// (a loaded machine once clicked where the button had been).
	b.waitJS("the deliveries listed", `!!document.querySelector('#deliveries, #no-deliveries')`)
	b.run("send a test delivery", chromedp.Click(chromedp.ID("wh-test-send")))
	b.waitJS("the queued message", `document.querySelector('main').textContent.includes('Test delivery queued')`)
	test := hook.waitFor(t, `"type":"webhook.test"`, 20*time.Second)
	if !strings.Contains(string(test.body), hook.srv.URL+"/hook") {
		t.Errorf("test delivery body: %s", test.body)
	}
	if got := test.header.Get("X-API-Key"); got != hookKey {
		t.Errorf("test delivery X-API-Key %q", got)
	}
	b.waitJS("the test delivery listed as delivered", `(()=>{
		const r=[...document.querySelectorAll('#deliveries tbody tr')].find(r=>r.querySelector('.d-test'));
		if(r&&r.querySelector('.d-status').textContent.includes('DELIVERED')&&r.textContent.includes('200'))return true;
		document.querySelector('section[aria-labelledby="wh-del"] button.secondary').click();return false})()`)

	// The carriers page: masked credentials, a health check, the charts.
	b.run("open the carriers page", chromedp.Navigate(base+"/console/#/carriers"))
	b.waitJS("the outcome chart", `document.querySelectorAll('figure[data-chart="outcomes"] rect.bar').length > 0`)
	b.waitJS("the latency chart", `document.querySelectorAll('figure[data-chart="latency"] rect.bar').length > 0`)
	// The data quality of each carrier's answers: MAEU's events read.
	b.waitJS("the data quality of MAEU", `[...document.querySelectorAll('#quality tbody tr')].some(tr =>
		tr.cells[0].textContent === 'MAEU' && +tr.cells[1].textContent > 0)`)
	creds := b.text("read the credentials", "#credentials")
	if strings.Contains(creds, "sandbox-key-1234") || strings.Contains(creds, "sandbox-secret-9876") || !strings.Contains(creds, "****1234") {
		t.Errorf("credentials not masked as expected: %s", creds)
	}
	b.run("health check", chromedp.Click(chromedp.CSS(`button[aria-label="Health check MAEU"]`)))
	b.waitJS("the health result", `document.querySelector('td.health[data-scac="MAEU"]').textContent.includes('OK')`)
	// The check's test container is unknown to the carrier: a 404 there is
	// said to be that, never a bare green OK beside "HTTP 404"; a refusal is red.
	if h := b.text("read the health result", `td.health[data-scac="MAEU"]`); strings.Contains(h, "OK HTTP 404") || !strings.Contains(h, "accepted the credentials") {
		t.Errorf("MAEU's health: %q", h)
	}
	b.run("a refused health check", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](`(()=>{const f=window.fetch;window.fetch=async(u,i)=>{if(String(u)!=='/carrier/health-check')return f(u,i);
			return new Response(JSON.stringify({scacCode:'HLCU',status:'UNAUTHORIZED',httpCode:401}),{status:200,headers:{'content-type':'application/json'}})};return true})()`)(ctx, t)
		return err
	}), chromedp.Click(chromedp.CSS(`button[aria-label="Health check HLCU"]`)))
	b.waitJS("the refusal in red", `(()=>{const c=document.querySelector('td.health[data-scac="HLCU"]');return !!c&&!!c.querySelector('.badge.b-err')&&!c.querySelector('.badge.b-ok')&&c.textContent.includes('HTTP 401')})()`)
	b.checkLabels("carriers")
	b.shot("carriers-desktop")

	// /docs renders from the binary.
	b.run("open /docs", chromedp.Navigate(base+"/docs/"))
	b.waitJS("the operations", `document.querySelectorAll('details.op').length > 10`)
	b.run("open an operation", chromedp.Click(chromedp.CSS(`#post-subscription-equipment > summary`)))
	b.waitJS("its request schema", `document.querySelector('#post-subscription-equipment pre.schema').textContent.includes('subscriptionReference')`)
	b.checkLabels("docs")
	b.shot("docs-desktop")

	if shots {
		// The same pages at phone width.
		b.run("phone width", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		for _, p := range []struct{ name, hash, ready string }{
			{"subscriptions", "#/subscriptions", `!!document.querySelector('#subscriptions')`},
			{"readiness", "#/journey/PO-1006", `!!document.querySelector('#readiness') && !!document.querySelector('#alerts')`},
			{"webhook", "#/webhook", `!!document.querySelector('#deliveries')`},
			{"carriers", "#/carriers", `!!document.querySelector('figure[data-chart="outcomes"]')`},
		} {
			b.run("open "+p.name, chromedp.Navigate(base+"/console/"+p.hash))
			b.waitJS(p.name+" at phone width", p.ready)
			b.shot(p.name + "-phone")
		}
		b.run("open /docs", chromedp.Navigate(base+"/docs/"))
		b.waitJS("docs at phone width", `document.querySelectorAll('details.op').length > 10`)
		b.run("open an operation", chromedp.Click(chromedp.CSS(`#post-subscription-equipment > summary`)))
		b.shot("docs-phone")
	}

	// Nothing was asked of another origin.
	origin, _ := url.Parse(base)
	urls := b.requested()
	if len(urls) < 10 {
		t.Fatalf("only %d requests recorded: %v", len(urls), urls)
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "data" && u.Host != origin.Host) {
			t.Errorf("a page requested %s (not this origin)", raw)
		}
	}
}
