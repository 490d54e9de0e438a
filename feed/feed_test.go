package feed_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/contrack/contrack/delivery/deliverytest"
	"github.com/contrack/contrack/feed"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/deliveries"
)

// world is a feed stage, an API serving GET /subscriptions/events with a
// Notifier on its own connection (as in another process), and the delivery
// harness's database, Kafka and helpers.
type world struct {
	t   *testing.T
	h   *deliverytest.Harness
	api *testenv.API
}

func newWorld(t *testing.T) *world {
	t.Helper()
	h := deliverytest.New(t, false)
	n := feed.NewNotifier(h.DB.Pool, testenv.Log(t), 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		if err := n.Run(ctx); err != nil {
			t.Errorf("feed notifier: %v", err)
		}
		close(done)
	}()
	t.Cleanup(func() { cancel(); <-done })
	api := testenv.NewAPI(t, h.DB.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: h.DB.Pool, Log: testenv.Log(t), TokenKey: []byte("feed-test-key"), Feed: n})
	})
	return &world{t: t, h: h, api: api}
}

// start runs the feed stage until the returned stop (or the test's end).
func (w *world) start() (stop func()) {
	w.t.Helper()
	deps := feed.Deps{Brokers: w.h.Brokers(), Namespace: w.h.Kafka().NS, Pool: w.h.DB.Pool, Log: testenv.Log(w.t)}
	return testenv.RunStage(w.t, "feed.Run", func(ctx context.Context) error { return feed.Run(ctx, feed.Config{}, deps) })
}

// account makes an account with a consumer key; it returns the key and id.
func (w *world) account(slug string) (key, id string) {
	w.t.Helper()
	key, k, err := w.api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: slug, Env: "sandbox"})
	if err != nil {
		w.t.Fatal(err)
	}
	return key, k.Account.ID
}

// got is one event as the feed answered it.
type got struct {
	Ref, Container, EventID string
}

type page struct {
	Items      []deliveries.Payload `json:"items"`
	NextCursor string               `json:"nextCursor"`
}

func (w *world) get(key, query string) (testenv.Response, page) {
	w.t.Helper()
	r := w.api.Do("GET", "/subscriptions/events"+query, key, nil)
	var p page
	if r.Status == 200 {
		if err := json.Unmarshal(r.Raw, &p); err != nil {
			w.t.Fatalf("body %s: %v", r.Raw, err)
		}
		if p.NextCursor == "" {
			w.t.Fatalf("no nextCursor in %s", r.Raw)
		}
	}
	return r, p
}

func flatten(t *testing.T, p page) []got {
	var out []got
	for _, it := range p.Items {
		if len(it.Events) == 0 {
			t.Fatalf("item without events: %+v", it)
		}
		for _, e := range it.Events {
			var ev struct {
				EventID string `json:"eventID"`
			}
			if err := json.Unmarshal(e, &ev); err != nil {
				t.Fatal(err)
			}
			out = append(out, got{it.References.SubscriptionReference, it.References.EquipmentNumber, ev.EventID})
		}
	}
	return out
}

// until reads pages from cursor (limit each) until n events are read or
// within passes; it returns them and the cursor after them.
func (w *world) until(key, cursor string, limit, n int, within time.Duration) ([]got, string) {
	w.t.Helper()
	var all []got
	defer func() {
		if len(all) < n { // Eventually gave up: say what had come
			w.t.Logf("read %d of %d events: %+v", len(all), n, all)
		}
	}()
	testkit.Eventually(w.t, within, fmt.Sprintf("%d feed events", n), func() bool {
		// Read every page there is, then look again if some are missing.
		for len(all) < n {
			q := fmt.Sprintf("?limit=%d&cursor=%s", limit, url.QueryEscape(cursor))
			r, p := w.get(key, q)
			if r.Status != 200 {
				w.t.Fatalf("GET %s: %d %s", q, r.Status, r.Raw)
			}
			if len(p.Items) > 0 && len(flatten(w.t, p)) > limit {
				w.t.Fatalf("%d events in a page of limit %d", len(flatten(w.t, p)), limit)
			}
			all = append(all, flatten(w.t, p)...)
			cursor = p.NextCursor
			if len(p.Items) == 0 {
				return false
			}
		}
		return true
	})
	return all, cursor
}

func ids(gs []got, ref string) []string {
	var out []string
	for _, g := range gs {
		if ref == "" || g.Ref == ref {
			out = append(out, g.EventID)
		}
	}
	return out
}

func TestFeedOrderAndResume(t *testing.T) {
	w := newWorld(t)
	key, acct := w.account("acme")
	s1 := w.h.Subscribe(acct, "ref-1")
	s2 := w.h.Subscribe(acct, "ref-2")
	// A second subscription on s1's tracking gets the same events.
	s3 := deliverytest.Sub{ID: "00000000-0000-4000-8000-000000000003", Tracking: s1.Tracking, Account: acct, Ref: "ref-3", Container: s1.Container}
	w.h.SubscribeTracking(s3)
	w.start()
	w.h.Produce(s1, "a1", "a2")
	w.h.Produce(s2, "b1")
	w.h.Produce(s1, "a3", "a2#h2") // a2 updated: delivered again
	w.h.Produce(s2, "b2", "b3")

	// Read in pages of 2, resuming from each nextCursor.
	all, cur := w.until(key, "", 2, 11, 20*time.Second)
	for ref, want := range map[string][]string{
		"ref-1": {"a1", "a2", "a3", "a2"},
		"ref-3": {"a1", "a2", "a3", "a2"},
		"ref-2": {"b1", "b2", "b3"},
	} {
		if g := ids(all, ref); strings.Join(g, ",") != strings.Join(want, ",") {
			t.Errorf("%s: events %v, want %v", ref, g, want)
		}
	}
	if len(all) != 11 {
		t.Errorf("%d events, want 11: %+v", len(all), all)
	}
	for _, g := range all {
		want := map[string]string{"ref-1": s1.Container, "ref-3": s1.Container, "ref-2": s2.Container}[g.Ref]
		if g.Container != want {
			t.Errorf("%+v: equipmentNumber %q, want %q", g, g.Container, want)
		}
	}

	// Resuming from the last cursor gives only what came after it.
	w.h.Produce(s2, "b4")
	more, _ := w.until(key, cur, 100, 1, 20*time.Second)
	if len(more) != 1 || more[0] != (got{"ref-2", s2.Container, "b4"}) {
		t.Errorf("after the cursor: %+v, want only b4 of ref-2", more)
	}
	// No cursor starts at the oldest retained event: everything again,
	// in the same order.
	again, _ := w.until(key, "", 1000, 12, 5*time.Second)
	if fmt.Sprint(again[:11]) != fmt.Sprint(all) {
		t.Errorf("from the start: %+v, want %+v then b4", again, all)
	}

	// The body has the webhook payload's shape exactly.
	r := w.api.Do("GET", "/subscriptions/events?limit=1", key, nil)
	var raw struct {
		Items []map[string]json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(r.Raw, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Items) != 1 || len(raw.Items[0]) != 2 || raw.Items[0]["references"] == nil || raw.Items[0]["events"] == nil {
		t.Fatalf("item shape: %s", r.Raw)
	}
	var refs map[string]string
	if err := json.Unmarshal(raw.Items[0]["references"], &refs); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"subscriptionReference", "equipmentNumber", "billNumber", "bookingNumber", "scacCode"} {
		if _, ok := refs[f]; !ok {
			t.Errorf("references without %s: %s", f, raw.Items[0]["references"])
		}
	}
	if len(refs) != 5 || refs["scacCode"] != "MAEU" {
		t.Errorf("references %v", refs)
	}
}

// The feed carries, per subscription, the events the webhook gets, in the
// same order — a return to an earlier content (e1 → e1#h2 → e1) included.
func TestFeedMatchesWebhook(t *testing.T) {
	w := newWorld(t)
	key, acct := w.account("hooked")
	rc := deliverytest.NewReceiver(t, nil)
	w.h.Webhook(acct, rc.URL, true)
	s1 := w.h.Subscribe(acct, "ref-1")
	w.start()
	w.h.Start(deliverytest.Config())
	w.h.Produce(s1, "e1", "e2", "e1#h2", "e3", "e2#h2", "e4", "e1")
	testkit.Eventually(t, 20*time.Second, "seven webhook events", func() bool { return len(rc.AckedEvents(t)) == 7 })
	all, _ := w.until(key, "", 3, 7, 20*time.Second)
	if g, want := ids(all, "ref-1"), rc.AckedEvents(t); fmt.Sprint(g) != fmt.Sprint(want) {
		t.Errorf("feed %v, webhook %v", g, want)
	}
	for _, r := range rc.Acked() {
		if r.Payload(t).References != (deliveries.References{SubscriptionReference: "ref-1", EquipmentNumber: s1.Container, ScacCode: "MAEU"}) {
			t.Errorf("webhook references %+v", r.Payload(t).References)
		}
	}
	if all[0].Container != s1.Container || all[0].Ref != "ref-1" {
		t.Errorf("feed references %+v", all[0])
	}
}

// A→B→A: the event re-emitted with its first content again is a new
// record, hence in the feed again; three events in all.
func TestFeedReEmissionAppearsAgain(t *testing.T) {
	w := newWorld(t)
	key, acct := w.account("flip")
	s := w.h.Subscribe(acct, "ref-1")
	w.start()
	w.h.Produce(s, "e1#A", "e1#B", "e1#A", "marker")
	all, _ := w.until(key, "", 100, 4, 20*time.Second)
	if g := ids(all, ""); fmt.Sprint(g) != "[e1 e1 e1 marker]" {
		t.Errorf("events %v, want e1 three times then the marker", g)
	}
}

// A record consumed again (the group rewound, as after a crash before the
// offset commit) writes nothing twice.
func TestFeedReplayedRecordNotDuplicated(t *testing.T) {
	w := newWorld(t)
	key, acct := w.account("replay")
	s := w.h.Subscribe(acct, "ref-1")
	stop := w.start()
	w.h.Produce(s, "e1", "e2", "e3")
	first, _ := w.until(key, "", 100, 3, 20*time.Second)
	stop()

	// Rewind the group to the start of every partition.
	adm := kadm.NewClient(testenv.KafkaClient(t, w.h.Brokers()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
	defer cancel()
	ends, err := adm.ListEndOffsets(ctx, w.h.Kafka().Topic(schemas.TopicEvents))
	if err != nil {
		t.Fatal(err)
	}
	rewind := kadm.Offsets{}
	ends.Each(func(o kadm.ListedOffset) {
		rewind.Add(kadm.Offset{Topic: o.Topic, Partition: o.Partition, At: 0, LeaderEpoch: -1})
	})
	resp, err := adm.CommitOffsets(ctx, w.h.Kafka().Group(schemas.GroupFeed), rewind)
	if err != nil || resp.Error() != nil {
		t.Fatalf("rewind: %v %v", err, resp.Error())
	}

	w.start()
	w.h.Produce(s, "marker")
	all, _ := w.until(key, "", 100, 4, 20*time.Second)
	// The marker comes after the replayed records on their partition: once
	// it is in, the replay is done.
	if g := ids(all, ""); fmt.Sprint(g) != "[e1 e2 e3 marker]" || fmt.Sprint(all[:3]) != fmt.Sprint(first) {
		t.Errorf("after replay: %v, want e1 e2 e3 once, then the marker", g)
	}
	var n int
	if err := w.h.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM feed_items`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("%d feed rows, want 4", n)
	}
}

func TestFeedIsolationAndCursors(t *testing.T) {
	w := newWorld(t)
	keyA, acctA := w.account("alpha")
	keyB, acctB := w.account("beta")
	sa := w.h.Subscribe(acctA, "ref-a")
	sb := w.h.Subscribe(acctB, "ref-b")
	w.start()
	w.h.Produce(sb, "b1", "b2")
	w.h.Produce(sa, "a1")
	w.h.Produce(sb, "b3")
	w.h.Produce(sa, "a2")
	a, curA := w.until(keyA, "", 100, 2, 20*time.Second)
	b, curB := w.until(keyB, "", 100, 3, 20*time.Second)
	if fmt.Sprint(ids(a, "")) != "[a1 a2]" || len(ids(a, "ref-a")) != 2 {
		t.Errorf("account A sees %+v", a)
	}
	if fmt.Sprint(ids(b, "")) != "[b1 b2 b3]" || len(ids(b, "ref-b")) != 3 {
		t.Errorf("account B sees %+v", b)
	}
	// Nothing more for A, though B has more.
	w.h.Produce(sb, "b4")
	w.until(keyB, curB, 100, 1, 20*time.Second)
	if _, p := w.get(keyA, "?cursor="+url.QueryEscape(curA)); len(p.Items) != 0 {
		t.Errorf("account A got %+v after B's event", p.Items)
	}

	// Cursors: another account's, forged, tampered, another endpoint's.
	payload, sig, _ := strings.Cut(curA, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(payload)
	tampered := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), acctA, acctB, 1))) + "." + sig
	r := w.api.Do("GET", "/subscriptions?limit=1", keyA, nil)
	var list struct{ NextToken string }
	if err := json.Unmarshal(r.Raw, &list); err != nil {
		t.Fatal(err)
	}
	w.h.Subscribe(acctA, "ref-a2") // so GET /subscriptions?limit=1 has a next page
	r = w.api.Do("GET", "/subscriptions?limit=1", keyA, nil)
	if err := json.Unmarshal(r.Raw, &list); err != nil {
		t.Fatal(err)
	}
	if list.NextToken == "" {
		t.Fatalf("no nextToken from GET /subscriptions: %s", r.Raw)
	}
	for name, cur := range map[string]string{
		"another account's": curB,
		"forged":            "eyJhIjoiIn0.c2lnbmF0dXJl",
		"garbage":           "not-a-cursor",
		"tampered":          tampered,
		"a nextToken":       list.NextToken,
	} {
		r := w.api.Do("GET", "/subscriptions/events?cursor="+url.QueryEscape(cur), keyA, nil)
		if r.Status != 400 || strings.TrimSpace(string(r.Raw)) != `{"message":"Invalid cursor"}` {
			t.Errorf("%s cursor: %d %s", name, r.Status, r.Raw)
		}
	}
}

func TestFeedParameters(t *testing.T) {
	w := newWorld(t)
	key, acct := w.account("params")
	s := w.h.Subscribe(acct, "ref-1")
	w.start()
	w.h.Produce(s, "e1", "e2", "e3")
	w.until(key, "", 100, 3, 20*time.Second)
	for q, want := range map[string]string{
		"?limit=ten":  "Query parameter 'limit' must be an integer",
		"?limit=1.5":  "Query parameter 'limit' must be an integer",
		"?wait=soon":  "Query parameter 'wait' must be an integer (seconds, 0-20)",
		"?wait=2.5":   "Query parameter 'wait' must be an integer (seconds, 0-20)",
		"?wait=&x=1":  "Query parameter 'wait' must be an integer (seconds, 0-20)",
		"?limit=&x=1": "Query parameter 'limit' must be an integer",
	} {
		if r := w.api.Do("GET", "/subscriptions/events"+q, key, nil); r.Status != 400 || r.Message() != want {
			t.Errorf("%s: %d %s, want 400 %q", q, r.Status, r.Raw, want)
		}
	}
	// Clamped: 0 reads one event, a negative wait none.
	if _, p := w.get(key, "?limit=0&wait=-5"); len(flatten(t, p)) != 1 {
		t.Errorf("limit=0: %+v, want one event", p.Items)
	}
	if _, p := w.get(key, "?limit=5000"); len(flatten(t, p)) != 3 {
		t.Errorf("limit=5000: %+v, want the three events", p.Items)
	}
	if r := w.api.Do("GET", "/subscriptions/events", "", nil); r.Status != 403 {
		t.Errorf("no key: %d", r.Status)
	}
	// In the OpenAPI document, with its parameters.
	doc := w.api.Do("GET", "/openapi.json", "", nil)
	var spec struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name string }
		}
	}
	if err := json.Unmarshal(doc.Raw, &spec); err != nil {
		t.Fatal(err)
	}
	op, ok := spec.Paths["/subscriptions/events"]["get"]
	var names []string
	for _, p := range op.Parameters {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	if !ok || !isSubset([]string{"cursor", "limit", "wait", "eventTypes", "classifiers", "milestonesOnly", "alertTypes"}, names) {
		t.Errorf("OpenAPI: %v %v", ok, names)
	}
}

func TestFeedLongPoll(t *testing.T) {
	w := newWorld(t)
	key, acct := w.account("waiter")
	s := w.h.Subscribe(acct, "ref-1")
	w.start()
	w.h.Produce(s, "e1")
	_, cur := w.until(key, "", 100, 1, 20*time.Second)

	// Nothing new: the call returns when wait ends, with a cursor to resume from.
	t0 := time.Now()
	r, p := w.get(key, "?wait=1&cursor="+url.QueryEscape(cur))
	if el := time.Since(t0); r.Status != 200 || len(p.Items) != 0 || el < time.Second {
		t.Errorf("wait=1 with nothing new: %d %s after %s", r.Status, r.Raw, el)
	}
	cur = p.NextCursor

	// Something arrives during a 20 s wait: the call returns with it, early.
	type answer struct {
		p  page
		at time.Duration
	}
	res := make(chan answer, 1)
	t0 = time.Now()
	go func() {
		_, p := w.get(key, "?wait=20&cursor="+url.QueryEscape(cur))
		res <- answer{p, time.Since(t0)}
	}()
	w.h.Produce(s, "e2")
	a := <-res
	if g := flatten(t, a.p); len(g) != 1 || g[0].EventID != "e2" || a.at >= 20*time.Second {
		t.Errorf("wait=20: %+v after %s, want e2 before the wait ended", g, a.at)
	}
	// And from its cursor, nothing.
	if _, p := w.get(key, "?cursor="+url.QueryEscape(a.p.NextCursor)); len(p.Items) != 0 {
		t.Errorf("after e2: %+v", p.Items)
	}
}

// Long-polls wait on the notification, not on polling: with the feed stage
// writing from its own connections, a waiter whose notification never comes
// would sleep until the deadline.
func TestFeedNotifierWakesOnlyItsAccount(t *testing.T) {
	w := newWorld(t)
	_, acctA := w.account("nota")
	_, acctB := w.account("notb")
	sa := w.h.Subscribe(acctA, "ref-a")
	n := feed.NewNotifier(w.h.DB.Pool, testenv.Log(t), 2)
	wakeA, cancelA, ok := n.Subscribe(acctA)
	if !ok {
		t.Fatal("no room for the first waiter")
	}
	defer cancelA()
	wakeB, cancelB, _ := n.Subscribe(acctB)
	defer cancelB()
	if _, _, ok := n.Subscribe(acctA); ok {
		t.Error("a third waiter over a bound of 2 was accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		if err := n.Run(ctx); err != nil {
			t.Errorf("feed notifier: %v", err)
		}
		close(done)
	}()
	defer func() { cancel(); <-done }()
	// Once LISTEN is in effect every waiter is woken (events committed
	// before it would otherwise be missed): take that wake-up.
	for _, ch := range []<-chan struct{}{wakeA, wakeB} {
		select {
		case <-ch:
		case <-time.After(testkit.Scale(20 * time.Second)):
			t.Fatal("no wake-up when the listener connected")
		}
	}
	w.start()
	w.h.Produce(sa, "e1")
	select {
	case <-wakeA:
	case <-time.After(testkit.Scale(20 * time.Second)):
		t.Fatal("A's waiter was not woken")
	}
	select {
	case <-wakeB:
		t.Error("B's waiter was woken by A's event")
	default:
	}

	// Stopping releases every waiter (closed channel), and later ones at once.
	cancel()
	<-done
	if _, open := <-wakeB; open {
		t.Error("B's waiter not released when the notifier stopped")
	}
	late, _, ok := n.Subscribe(acctA)
	if _, open := <-late; !ok || open {
		t.Error("a waiter after stop is not released at once")
	}
}

// Without a notifier a wait is answered at once (nothing could wake it but
// polling the table, a query per second per waiter); over the notifier's
// bound a long-poll is refused with 503, not turned into polling.
func TestFeedLongPollWithoutNotifierOrOverItsBound(t *testing.T) {
	w := newWorld(t)
	key, _ := w.account("polling")
	none := testenv.NewAPI(t, w.h.DB.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: w.h.DB.Pool, Log: testenv.Log(t), TokenKey: []byte("feed-test-key")})
	})
	res := make(chan testenv.Response, 1)
	go func() { res <- none.Do("GET", "/subscriptions/events?wait=20", key, nil) }()
	select {
	case r := <-res:
		if r.Status != 200 || !strings.Contains(string(r.Raw), `"items":[]`) {
			t.Fatalf("wait without a notifier: %d %s", r.Status, r.Raw)
		}
	case <-time.After(testkit.Scale(15 * time.Second)):
		t.Fatal("a wait without a notifier is held (polling the table) instead of answered")
	}

	// A notifier with room for one waiter, taken by another account.
	n := feed.NewNotifier(w.h.DB.Pool, testenv.Log(t), 1)
	_, cancel, ok := n.Subscribe("another-account")
	if !ok {
		t.Fatal("no room for the first waiter")
	}
	defer cancel()
	full := testenv.NewAPI(t, w.h.DB.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: w.h.DB.Pool, Log: testenv.Log(t), TokenKey: []byte("feed-test-key"), Feed: n})
	})
	go func() { res <- full.Do("GET", "/subscriptions/events?wait=20", key, nil) }()
	select {
	case r := <-res:
		if r.Status != 503 || r.Message() != "Too many long-polls on this server: try again shortly" || r.Header.Get("Retry-After") == "" {
			t.Fatalf("over the notifier's bound: %d %s", r.Status, r.Raw)
		}
	case <-time.After(testkit.Scale(15 * time.Second)):
		t.Fatal("a long-poll over the notifier's bound is held (polling the table) instead of refused")
	}
	if r := full.Do("GET", "/subscriptions/events", key, nil); r.Status != 200 {
		t.Fatalf("a read without wait over the bound: %d %s", r.Status, r.Raw)
	}
}

// TestLongPollsPerAccount: an account holds at most its plan's long-polls
// at once; one more is 429 (Retry-After), while another account on the same
// plan still long-polls and the account's reads without wait still work.
// When its long-polls return, the account may long-poll again.
func TestLongPollsPerAccount(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	if _, err := w.api.Store.CreatePlan(ctx, auth.Plan{Name: "two-waits", RatePerSecond: 1000, Burst: 1000, LongPolls: 2}); err != nil {
		t.Fatal(err)
	}
	keyA, _, err := w.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "waiter-a", Env: "sandbox", Plan: "two-waits"})
	if err != nil {
		t.Fatal(err)
	}
	_, acctA, err := w.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "waiter-a", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	keyB, _, err := w.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "waiter-b", Env: "sandbox", Plan: "two-waits"})
	if err != nil {
		t.Fatal(err)
	}
	sa := w.h.Subscribe(acctA.Account.ID, "ref-a")
	w.start()

	// Three long-polls at once: the plan allows two, so one is refused at
	// once and two are held.
	answers := make(chan testenv.Response, 3)
	for range 3 {
		go func() { answers <- w.api.Do("GET", "/subscriptions/events?wait=20", keyA, nil) }()
	}
	var refused testenv.Response
	select {
	case refused = <-answers:
	case <-time.After(testkit.Scale(15 * time.Second)):
		t.Fatal("no long-poll refused: the account holds three")
	}
	if refused.Status != 429 || refused.Message() != "Too many long-polls: this plan allows 2 at once per account; wait for one to return" ||
		refused.Header.Get("Retry-After") == "" {
		t.Fatalf("over the plan's long-polls: %d %s %v", refused.Status, refused.Raw, refused.Header)
	}
	if r := w.api.Do("GET", "/subscriptions/events", keyA, nil); r.Status != 200 {
		t.Fatalf("a read without wait while the long-polls are held: %d %s", r.Status, r.Raw)
	}
	if r := w.api.Do("GET", "/subscriptions/events?wait=1", keyB, nil); r.Status != 200 {
		t.Fatalf("another account's long-poll: %d %s", r.Status, r.Raw)
	}
	// An event ends both held long-polls; then the account long-polls again.
	w.h.Produce(sa, "e1")
	for range 2 {
		select {
		case r := <-answers:
			if r.Status != 200 || !strings.Contains(string(r.Raw), `"e1"`) {
				t.Fatalf("held long-poll: %d %s", r.Status, r.Raw)
			}
		case <-time.After(testkit.Scale(25 * time.Second)):
			t.Fatal("a held long-poll did not return")
		}
	}
	testkit.Eventually(t, 10*time.Second, "a long-poll accepted again", func() bool {
		return w.api.Do("GET", "/subscriptions/events?wait=1", keyA, nil).Status == 200
	})
}

func TestConfigValidate(t *testing.T) {
	if err := (feed.Config{}).Validate(); err != nil {
		t.Errorf("zero config: %v", err)
	}
	err := feed.Config{Retention: 24 * time.Hour, PruneInterval: -1, MaxGroup: -1}.Validate()
	if err == nil || !strings.Contains(err.Error(), "Retention") || !strings.Contains(err.Error(), "PruneInterval") || !strings.Contains(err.Error(), "MaxGroup") {
		t.Errorf("bad config: %v", err)
	}
}

func TestPruneDeletesOnlyPastRetention(t *testing.T) {
	w := newWorld(t)
	key, acct := w.account("prune")
	s := w.h.Subscribe(acct, "ref-1")
	w.start()
	w.h.Produce(s, "old1", "old2")
	w.until(key, "", 100, 2, 20*time.Second)
	// Aged: the batches holding them (whatever the writes grouped).
	w.h.Exec(`UPDATE feed_batches SET created_at = now() - interval '31 days'`)
	w.h.Produce(s, "new1")
	w.until(key, "", 100, 3, 20*time.Second)
	_, n, err := feed.Prune(context.Background(), w.h.DB.Pool, time.Now().Add(-feed.MinRetention), 1000)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d items, %v; want 2", n, err)
	}
	all, _ := w.until(key, "", 100, 1, time.Second)
	if fmt.Sprint(ids(all, "")) != "[new1]" {
		t.Errorf("after pruning: %+v", all)
	}
	// Numbers are never reused: the next event comes after.
	w.h.Produce(s, "new2")
	all, _ = w.until(key, "", 100, 2, 20*time.Second)
	if fmt.Sprint(ids(all, "")) != "[new1 new2]" {
		t.Errorf("after a new event: %+v", all)
	}
}

// TestInactiveAccountGetsNoFeedEvents: events of an account that is
// disabled, or whose every key is revoked, are not written to its feed;
// another account's are. Active again, its new events are.
func TestInactiveAccountGetsNoFeedEvents(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, k, err := w.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "stopping", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	otherKey, otherAcct := w.account("sentinel")
	s := w.h.Subscribe(k.Account.ID, "ref-s")
	sentinel := w.h.Subscribe(otherAcct, "ref-o")
	w.h.Partitions = 1
	w.start()
	// pass waits until a sentinel event produced after everything before it
	// is in the other account's feed: what came before was handled.
	sentinels, cursor := 0, ""
	pass := func() {
		t.Helper()
		sentinels++
		w.h.Produce(sentinel, fmt.Sprintf("s%d", sentinels))
		_, cursor = w.until(otherKey, cursor, 100, 1, 20*time.Second)
	}
	w.h.Produce(s, "e1")
	pass()

	if _, err := w.api.Store.SetAccountDisabled(ctx, "stopping", "sandbox", true); err != nil {
		t.Fatal(err)
	}
	w.h.Produce(s, "e2")
	pass()
	if _, err := w.api.Store.SetAccountDisabled(ctx, "stopping", "sandbox", false); err != nil {
		t.Fatal(err)
	}
	w.h.Produce(s, "e3")
	pass()
	if _, err := w.api.Store.RevokeKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	w.h.Produce(s, "e4")
	pass()
	key, _, err := w.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "stopping", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	w.h.Produce(s, "e5")
	pass()
	all, _ := w.until(key, "", 100, 3, 20*time.Second)
	if got := ids(all, ""); !slices.Equal(got, []string{"e1", "e3", "e5"}) {
		t.Fatalf("feed %v, want e1, e3, e5 (e2 came while disabled, e4 without keys)", got)
	}
}

// isSubset says every one of want is in have.
func isSubset(want, have []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
