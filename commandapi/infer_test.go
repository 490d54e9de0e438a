package commandapi_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/ingest/poller"
	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/iso6346"
)

// probeCallRecord is one probe the API made.
type probeCallRecord struct {
	env, scac, clientID string
}

// sandboxShipments probes the sandbox carriers with the poller's adapters,
// as cmd/contrack's adapterProber does (live accounts have no carrier URL
// here, so their probes find nothing), and records every call.
type sandboxShipments struct {
	adapters poller.AdapterFor
	mu       sync.Mutex
	calls    []probeCallRecord
}

func (p *sandboxShipments) ProbeShipment(ctx context.Context, env, scac, _ string, creds map[string]string, kind, value string) (string, int) {
	p.mu.Lock()
	p.calls = append(p.calls, probeCallRecord{env, scac, creds[carriers.FieldClientID] + creds[carriers.FieldAPIKey]})
	p.mu.Unlock()
	a, err := p.adapters(env, scac)
	if err != nil {
		return carrier.LookupUnreachable, 0
	}
	l := carrier.LookupShipment(ctx, a, carrier.Credentials(creds), carrier.Query{Kind: carrier.IdentifierKind(kind), Value: value})
	return l.Status, l.HTTPCode
}

func (p *sandboxShipments) reset() []probeCallRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.calls
	p.calls = nil
	return c
}

// inferAPI serves the command and query sides with probes answered by a
// sandbox (slow numbers wait 30 s there).
func inferAPI(t *testing.T, timeout time.Duration, wrap func(carriers.ShipmentProber) carriers.ShipmentProber) (*testenv.API, *sandboxShipments) {
	t.Helper()
	db := testenv.Postgres(t)
	box, _ := secretbox.New("test")
	sb := httptest.NewServer(sandbox.NewHandler(sandbox.Config{SlowDelay: 30 * time.Second}))
	t.Cleanup(sb.Close)
	probes := &sandboxShipments{adapters: poller.SandboxAdapters(sb.URL, func(string) string { return "" })}
	var shipments carriers.ShipmentProber = probes
	if wrap != nil {
		shipments = wrap(probes)
	}
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, Box: box, Log: testenv.Log(t), TokenKey: []byte("token-key")})
		// A budget these tests never reach: TestCarrierProbesThroughTheGates tests it.
		commandapi.Register(s, commandapi.Config{InferTimeout: timeout, ProbesPerMinute: 100_000}, commandapi.Deps{Pool: db.Pool, Box: box, Log: testenv.Log(t), Shipments: shipments})
	})
	return api, probes
}

// storeCreds stores sandbox credentials for scacs; values start with prefix.
func storeCreds(t *testing.T, api *testenv.API, key, prefix string, scacs ...string) {
	t.Helper()
	body := map[string]map[string]string{}
	for _, s := range scacs {
		c, _ := carriers.Lookup(s)
		body[s] = map[string]string{}
		for _, f := range c.RequiredFields {
			body[s][f] = prefix + "-" + s
		}
	}
	if r := api.Do("POST", "/carrier/credentials", key, body); r.Status != 200 {
		t.Fatalf("store credentials: %d %s", r.Status, r.Raw)
	}
}

func allSCACs() []string {
	var out []string
	for _, c := range carriers.All() {
		out = append(out, c.SCAC)
	}
	return out
}

func containerNumber(owner string, serial int) string {
	base := fmt.Sprintf("%s%06d", owner, serial)
	return fmt.Sprintf("%s%d", base, iso6346.CheckDigit(base))
}

func inferGet(t *testing.T, api *testenv.API, key, number string) testenv.Response {
	t.Helper()
	return api.Do("GET", "/carrier/infer?number="+url.QueryEscape(number), key, nil)
}

// candidatesOf renders a GET /carrier/infer answer's candidates as
// "SCAC method detail" lines.
func candidatesOf(r testenv.Response) []string {
	var out []string
	cs, _ := r.JSON["candidates"].([]any)
	for _, c := range cs {
		m := c.(map[string]any)
		out = append(out, fmt.Sprintf("%s %s %s", m["scacCode"], m["method"], m["detail"]))
	}
	return out
}

// probedOf renders the probed list as "SCAC STATUS" lines.
func probedOf(r testenv.Response) map[string]string {
	out := map[string]string{}
	ps, _ := r.JSON["probed"].([]any)
	for _, p := range ps {
		m := p.(map[string]any)
		out[m["scacCode"].(string)] = m["status"].(string)
	}
	return out
}

// TestSubscribeInfersEveryCarriersPrefixes subscribes without scacCode to a
// container of every owner code and a bill and booking of every bill prefix
// in the tables: each subscription shows the prefix's carrier, found
// without asking any carrier (credentials for all of them are stored).
func TestSubscribeInfersEveryCarriersPrefixes(t *testing.T) {
	api, probes := inferAPI(t, 0, nil)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	storeCreds(t, api, key, "k", allSCACs()...)
	n := 0
	seen := map[string]bool{}
	for _, row := range carriers.DefaultPrefixes().Rows() {
		if row.Ambiguous {
			continue
		}
		type try struct{ field, value, kind, method string }
		var tries []try
		if row.Kind == carriers.PrefixOwner {
			tries = []try{{"containerNumber", containerNumber(row.Prefix, 123456), "container", carriers.MethodOwnerCode}}
		} else {
			tries = []try{
				{"billNumber", row.Prefix + "2345678901", "bill", carriers.MethodBillPrefix},
				{"bookingNumber", strings.ToLower(row.Prefix) + "2345678", "booking", carriers.MethodBillPrefix},
			}
		}
		for _, tr := range tries {
			n++
			ref := fmt.Sprintf("infer-%d", n)
			r := api.Do("POST", "/subscription/equipment", key, map[string]string{tr.field: tr.value, "subscriptionReference": ref})
			if r.Status != 200 || r.Message() != "Successfully Subscribed" {
				t.Fatalf("%s %s: %d %s", tr.field, tr.value, r.Status, r.Raw)
			}
			g := api.Do("GET", "/subscription/"+ref, key, nil)
			if g.JSON["scacCode"] != row.SCAC || g.JSON["connectionStatus"] != "PENDING" {
				t.Errorf("%s %s: subscription shows %v %v, want %s PENDING", tr.field, tr.value, g.JSON["scacCode"], g.JSON["connectionStatus"], row.SCAC)
			}
			// GET /carrier/infer tells the same, and how. The kind is
			// given for bookings (a prefixed number reads as a bill).
			path := "/carrier/infer?number=" + url.QueryEscape(tr.value)
			if tr.kind == "booking" {
				path += "&kind=booking"
			}
			inf := api.Do("GET", path, key, nil)
			want := row.SCAC + " " + tr.method + " " + row.Prefix
			if got := candidatesOf(inf); inf.Status != 200 || len(got) != 1 || got[0] != want || inf.JSON["kind"] != tr.kind || inf.JSON["probed"] != nil {
				t.Errorf("infer %s: %d %s, want %q kind %s", tr.value, inf.Status, inf.Raw, want, tr.kind)
			}
			seen[row.SCAC+"|"+row.Kind] = true
		}
	}
	for _, c := range carriers.All() {
		if !seen[c.SCAC+"|owner"] || !seen[c.SCAC+"|bill"] {
			t.Errorf("%s: owner code %v, bill prefix %v", c.SCAC, seen[c.SCAC+"|owner"], seen[c.SCAC+"|bill"])
		}
	}
	if calls := probes.reset(); len(calls) != 0 {
		t.Fatalf("a prefix match asked carriers: %+v", calls)
	}
}

// TestSubscribeLeasedContainerByProbingTheSandbox: a leasing company's box
// is known to one sandbox carrier (docs/sandbox.md); with credentials for
// every carrier, probing finds it and the subscription gets that carrier.
func TestSubscribeLeasedContainerByProbingTheSandbox(t *testing.T) {
	api, probes := inferAPI(t, 0, nil)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	storeCreds(t, api, key, "k", allSCACs()...)
	for i, owner := range []string{"TGHU", "TCLU", "SEGU", "FSCU", "GESU", "TRHU", "CAIU", "TCNU", "BSIU"} {
		number := containerNumber(owner, 4000+i)
		want, ok := sandbox.LeasedTo(number)
		if !ok {
			t.Fatalf("%s is not a leased box", number)
		}
		ref := "leased-" + owner
		r := api.Do("POST", "/subscription/equipment", key, map[string]string{"containerNumber": strings.ToLower(number), "subscriptionReference": ref})
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", number, r.Status, r.Raw)
		}
		if g := api.Do("GET", "/subscription/"+ref, key, nil); g.JSON["scacCode"] != want || g.JSON["equipmentNumber"] != number {
			t.Errorf("%s: subscription shows %s", number, g.Raw)
		}
		if calls := probes.reset(); len(calls) != len(carriers.All()) {
			t.Errorf("%s: %d probes, want one per carrier", number, len(calls))
		}
		inf := inferGet(t, api, key, number)
		wantCand := want + " probe " + owner + " (leasing): the carrier knows the shipment"
		if got := candidatesOf(inf); inf.Status != 200 || len(got) != 1 || got[0] != wantCand || inf.JSON["kind"] != "container" || inf.JSON["number"] != number {
			t.Errorf("infer %s: %s, want %q", number, inf.Raw, wantCand)
		}
		probed := probedOf(inf)
		for _, c := range carriers.All() {
			st := "NOT_FOUND"
			if c.SCAC == want {
				st = "FOUND"
			}
			if probed[c.SCAC] != st {
				t.Errorf("infer %s: %s probed %q, want %s", number, c.SCAC, probed[c.SCAC], st)
			}
		}
		probes.reset()
	}
}

// TestInferNoneOrSeveral: the 400 when no carrier, or more than one, knows
// the shipment; a single credentialed carrier that knows it is chosen.
func TestInferNoneOrSeveral(t *testing.T) {
	api, _ := inferAPI(t, 0, nil)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	leased := containerNumber("TGHU", 5) // MAEU's in the sandbox
	if s, _ := sandbox.LeasedTo(leased); s != "MAEU" {
		t.Fatalf("%s is leased to %s", leased, s)
	}
	undetermined := func(ref, field, value, given string) {
		t.Helper()
		r := api.Do("POST", "/subscription/equipment", key, map[string]string{field: value, "subscriptionReference": ref})
		want := "Could not determine the carrier for '" + given + "'; provide scacCode"
		if r.Status != 400 || r.Message() != want {
			t.Fatalf("%s %s: %d %s, want 400 %q", field, value, r.Status, r.Raw, want)
		}
	}
	// No credentials: nothing to ask.
	undetermined("a", "containerNumber", " "+leased+" ", leased)
	if inf := inferGet(t, api, key, leased); inf.Status != 200 || len(candidatesOf(inf)) != 0 || inf.JSON["probed"] != nil {
		t.Fatalf("infer without credentials: %s", inf.Raw)
	}
	// Credentials for carriers that do not know it: none.
	storeCreds(t, api, key, "k", "HLCU", "CMDU")
	undetermined("a", "containerNumber", leased, leased)
	if p := probedOf(inferGet(t, api, key, leased)); len(p) != 2 || p["HLCU"] != "NOT_FOUND" || p["CMDU"] != "NOT_FOUND" {
		t.Fatalf("probed: %v", p)
	}
	// Every carrier knows a booking without prefix, and a box of an
	// owner code in no table: several.
	undetermined("a", "bookingNumber", "123456789", "123456789")
	undetermined("a", "containerNumber", "csqu 305438 3", "csqu 305438 3")
	if got := candidatesOf(inferGet(t, api, key, "123456789")); len(got) != 2 {
		t.Fatalf("several: %v", got)
	}
	// The sandbox knows no NOFU shipment: none.
	undetermined("a", "containerNumber", "NOFU0000001", "NOFU0000001")
	// The carrier that knows it, alone: chosen.
	storeCreds(t, api, key, "k", "MAEU")
	if r := api.Do("POST", "/subscription/equipment", key, map[string]string{"containerNumber": leased, "subscriptionReference": "b"}); r.Status != 200 {
		t.Fatalf("resolved: %d %s", r.Status, r.Raw)
	}
	if g := api.Do("GET", "/subscription/b", key, nil); g.JSON["scacCode"] != "MAEU" || g.JSON["connectionStatus"] != "PENDING" {
		t.Fatalf("resolved: %s", g.Raw)
	}
	api.Do("DELETE", "/carrier/credentials", key, map[string][]string{"carriers": {"HLCU"}})
	r := inferGet(t, api, key, "CSQU3054383")
	if got := candidatesOf(r); len(got) != 2 || got[0] != "CMDU probe CSQU (owner code in no table): the carrier knows the shipment" || got[1] != "MAEU probe CSQU (owner code in no table): the carrier knows the shipment" {
		t.Fatalf("unknown owner code: %s", r.Raw)
	}
	if got := candidatesOf(inferGet(t, api, key, "XYZ123")); len(got) != 2 || !strings.HasSuffix(got[0], "probe no known prefix: the carrier knows the shipment") {
		t.Fatalf("booking without prefix: %v", got)
	}
	// Nothing was stored by the refusals.
	if l := api.Do("GET", "/subscriptions", key, nil); len(l.JSON["subscriptions"].([]any)) != 1 {
		t.Fatalf("refused bodies stored something: %s", l.Raw)
	}
}

// TestInferUsesOnlyTheCallersCredentialsAndEnvironment: probes use the
// caller's stored credentials in the caller's environment; another account's
// credentials never count, and a live key asks the live carriers (none
// configured here), never the sandbox.
func TestInferUsesOnlyTheCallersCredentialsAndEnvironment(t *testing.T) {
	api, probes := inferAPI(t, 0, nil)
	leased := containerNumber("TGHU", 5) // MAEU's in the sandbox
	owner := api.Key(auth.CreateKeyParams{ClientSlug: "owner", Env: "sandbox"})
	storeCreds(t, api, owner, "owner", allSCACs()...)
	other := api.Key(auth.CreateKeyParams{ClientSlug: "other", Env: "sandbox"})
	storeCreds(t, api, other, "other", "HLCU")
	live := api.Key(auth.CreateKeyParams{ClientSlug: "owner", Env: "live"})
	storeCreds(t, api, live, "live", allSCACs()...)
	probes.reset()

	if got := candidatesOf(inferGet(t, api, other, leased)); len(got) != 0 {
		t.Fatalf("other account: %v", got)
	}
	calls := probes.reset()
	if len(calls) != 1 || calls[0] != (probeCallRecord{"sandbox", "HLCU", "other-HLCU"}) {
		t.Fatalf("other account's probes: %+v", calls)
	}
	r := api.Do("POST", "/subscription/equipment", live, map[string]string{"containerNumber": leased, "subscriptionReference": "l"})
	if r.Status != 400 || !strings.HasPrefix(r.Message(), "Could not determine the carrier") {
		t.Fatalf("live key: %d %s", r.Status, r.Raw)
	}
	for _, c := range probes.reset() {
		if c.env != "live" || !strings.HasPrefix(c.clientID, "live-") {
			t.Fatalf("live key's probe: %+v", c)
		}
	}
	if p := probedOf(inferGet(t, api, live, leased)); p["MAEU"] != "UNREACHABLE" {
		t.Fatalf("live probes: %v", p)
	}
	probes.reset()
	if got := candidatesOf(inferGet(t, api, owner, leased)); len(got) != 1 || !strings.HasPrefix(got[0], "MAEU probe") {
		t.Fatalf("owner: %v", got)
	}
	for _, c := range probes.reset() {
		if c.env != "sandbox" || c.clientID != "owner-"+c.scac {
			t.Fatalf("owner's probe: %+v", c)
		}
	}
}

// boundedProber holds every probe until released, counting probes in flight.
type boundedProber struct {
	next     carriers.ShipmentProber
	release  chan struct{}
	inflight atomic.Int32
	max      atomic.Int32
	started  atomic.Int32
}

func (b *boundedProber) ProbeShipment(ctx context.Context, env, scac, account string, creds map[string]string, kind, value string) (string, int) {
	n := b.inflight.Add(1)
	defer b.inflight.Add(-1)
	b.started.Add(1)
	for m := b.max.Load(); n > m && !b.max.CompareAndSwap(m, n); m = b.max.Load() {
	}
	select {
	case <-b.release:
	case <-ctx.Done():
		return carrier.LookupTimeout, 0
	}
	return b.next.ProbeShipment(ctx, env, scac, account, creds, kind, value)
}

// TestInferProbesInParallelWithinBounds: probes run at most
// InferConcurrency at a time (default 4), all carriers are asked, and the
// answer waits for them.
func TestInferProbesInParallelWithinBounds(t *testing.T) {
	bp := &boundedProber{release: make(chan struct{})}
	api, _ := inferAPI(t, 0, func(p carriers.ShipmentProber) carriers.ShipmentProber { bp.next = p; return bp })
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	storeCreds(t, api, key, "k", allSCACs()...)
	done := make(chan testenv.Response, 1)
	go func() { done <- inferGet(t, api, key, containerNumber("TGHU", 5)) }()
	testkit.Eventually(t, 10*time.Second, "4 probes in flight", func() bool { return bp.inflight.Load() >= 4 })
	close(bp.release)
	r := <-done
	if got := candidatesOf(r); len(got) != 1 || !strings.HasPrefix(got[0], "MAEU probe") {
		t.Fatalf("infer: %s", r.Raw)
	}
	if m := bp.max.Load(); m != 4 {
		t.Fatalf("at most %d probes in flight, want 4", m)
	}
	if s := bp.started.Load(); int(s) != len(carriers.All()) {
		t.Fatalf("%d probes, want %d", s, len(carriers.All()))
	}
}

// TestInferTimeout: carriers that do not answer within InferTimeout do not
// know the shipment (the sandbox's SLOU numbers answer after 30 s here).
func TestInferTimeout(t *testing.T) {
	api, _ := inferAPI(t, 300*time.Millisecond, nil)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	storeCreds(t, api, key, "k", allSCACs()...)
	r := inferGet(t, api, key, "SLOU0000007")
	p := probedOf(r)
	if r.Status != 200 || len(candidatesOf(r)) != 0 || len(p) != len(carriers.All()) {
		t.Fatalf("slow carriers: %s", r.Raw)
	}
	for scac, st := range p {
		if st != "TIMEOUT" {
			t.Errorf("%s: %s, want TIMEOUT", scac, st)
		}
	}
	s := api.Do("POST", "/subscription/equipment", key, map[string]string{"containerNumber": "SLOU0000007", "subscriptionReference": "slow"})
	if s.Status != 400 || s.Message() != "Could not determine the carrier for 'SLOU0000007'; provide scacCode" {
		t.Fatalf("subscribe: %d %s", s.Status, s.Raw)
	}
}

// TestInferQueryValidation: GET /carrier/infer's 400s and kind detection.
func TestInferQueryValidation(t *testing.T) {
	api, probes := inferAPI(t, 0, nil)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	for path, msg := range map[string]string{
		"/carrier/infer":                                       "Missing Parameter 'number'",
		"/carrier/infer?number=%20%20":                         "Missing Parameter 'number'",
		"/carrier/infer?number=MSKU1234565&kind=pallet":        "Query parameter 'kind' must be container, booking or bill",
		"/carrier/infer?number=MSKU1234566&kind=container":     "Invalid container number 'MSKU1234566': wrong check digit (the last digit is 6; ISO 6346 gives 5 for MSKU123456)",
		"/carrier/infer?number=MAEU1&kind=container":           "Invalid container number 'MAEU1': a container number is 4 letters (the fourth U, J or Z) and 7 digits",
		"/carrier/infer?number=" + strings.Repeat("9", 65):     "Query parameter 'number' is limited to 64 characters",
		"/carrier/infer?number=MAEU" + strings.Repeat("1", 61): "Query parameter 'number' is limited to 64 characters",
	} {
		if r := api.Do("GET", path, key, nil); r.Status != 400 || r.Message() != msg {
			t.Errorf("%s: %d %s, want 400 %q", path, r.Status, r.Raw, msg)
		}
	}
	for number, want := range map[string]string{
		"MSKU1234565":   "container MSKU1234565 MAEU",
		"msku 123456 5": "container MSKU1234565 MAEU",
		"MAEU123456789": "bill MAEU123456789 MAEU",
		"medu1234567":   "bill medu1234567 MSCU",
		"987654321":     "booking 987654321 ",
		"MSKU123456678": "booking MSKU123456678 ", // too far from a container number
	} {
		r := inferGet(t, api, key, number)
		scac := ""
		if cs, _ := r.JSON["candidates"].([]any); len(cs) == 1 {
			scac = cs[0].(map[string]any)["scacCode"].(string)
		}
		if got := fmt.Sprintf("%v %v %s", r.JSON["kind"], r.JSON["number"], scac); r.Status != 200 || got != want {
			t.Errorf("%q: %d %s, want %q", number, r.Status, r.Raw, want)
		}
	}
	// A container number typed wrong is not a booking to ask every carrier
	// about, even with every carrier's credentials: its 400 says what is wrong.
	storeCreds(t, api, key, "k", allSCACs()...)
	probes.reset()
	for number, msg := range map[string]string{
		"MSKU1234566":   "Invalid container number 'MSKU1234566': wrong check digit (the last digit is 6; ISO 6346 gives 5 for MSKU123456)",
		"msku 123456 6": "Invalid container number 'msku 123456 6': wrong check digit (the last digit is 6; ISO 6346 gives 5 for MSKU123456)",
		"TGHU1234568":   "Invalid container number 'TGHU1234568': wrong check digit (the last digit is 8; ISO 6346 gives 7 for TGHU123456)",
		"MSKU123456":    "Invalid container number 'MSKU123456': a container number is 4 letters (the fourth U, J or Z) and 7 digits",
		"CSQX3054383":   "Invalid container number 'CSQX3054383': the fourth letter, the equipment category, must be U, J or Z",
	} {
		if r := inferGet(t, api, key, number); r.Status != 400 || r.Message() != msg {
			t.Errorf("%q: %d %s, want 400 %q", number, r.Status, r.Raw, msg)
		}
	}
	if calls := probes.reset(); len(calls) != 0 {
		t.Errorf("a mistyped container number made %d probes", len(calls))
	}
	if r := api.Do("GET", "/carrier/infer?number=MSKU1234565", "", nil); r.Status != 403 {
		t.Fatalf("without a key: %d", r.Status)
	}
	if r := api.Do("GET", "/openapi.json", "", nil); !strings.Contains(string(r.Raw), `"/carrier/infer"`) {
		t.Fatalf("GET /carrier/infer is not in the OpenAPI document")
	}
}

// TestProbeFoundIsTheCarrierLookupStatus keeps carrier inference's contract with
// ingest/carrier in step.
func TestProbeFoundIsTheCarrierLookupStatus(t *testing.T) {
	if carriers.ProbeFound != carrier.LookupFound {
		t.Fatalf("ProbeFound %q, carrier.LookupFound %q", carriers.ProbeFound, carrier.LookupFound)
	}
}
