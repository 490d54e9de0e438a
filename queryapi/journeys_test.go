package queryapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/projector/journey/journeytest"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/journeys"
	"github.com/contrack/contrack/schemas/readiness"
	"github.com/contrack/contrack/schemas/searoute"
	"github.com/contrack/contrack/schemas/voyage"
)

// journeyEnv is the pipeline's read side: Kafka topics, the projector
// writing the journey read model, and the API reading it.
type journeyEnv struct {
	t        testing.TB
	api      *testenv.API
	brokers  []string
	kc       testenv.KafkaCluster
	prod     *kgo.Client
	ch       testenv.CHDatabase
	journeys *queryapi.Journeys
	db       testenv.PGDatabase
}

func newJourneyEnv(t *testing.T, cached bool) *journeyEnv {
	if !cached {
		return newJourneyEnvWith(t, nil, nil)
	}
	// MaxAge far beyond the test: only change notifications refresh the cache.
	return newJourneyEnvWith(t, &queryapi.JourneysConfig{CacheBytes: 1 << 20, MaxAge: time.Hour, GenerationCheck: 200 * time.Millisecond}, nil)
}

// newJourneyEnvWith serves pulls through a Journeys of cfg (nil: none, every
// pull reads ClickHouse), set up by setup before it runs.
func newJourneyEnvWith(t testing.TB, cfg *queryapi.JourneysConfig, setup func(*queryapi.Journeys)) *journeyEnv {
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 2)
	brokers := kc.Brokers
	e := &journeyEnv{t: t, brokers: brokers, kc: kc, prod: testenv.KafkaClient(t, brokers), ch: ch, db: db}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 2)
	pcfg := projector.Config{MaxWait: 100 * time.Millisecond, JourneyMaxWait: 20 * time.Millisecond, GenerationCheck: 200 * time.Millisecond}
	go func() {
		done <- projector.Run(ctx, pcfg, projector.Deps{Brokers: brokers, Namespace: kc.NS, CH: ch.Conn, Log: testenv.Log(t)})
	}()
	runs := 1
	if cfg != nil {
		e.journeys = queryapi.NewJourneys(*cfg, ch.Conn, testenv.Log(t))
		if setup != nil {
			setup(e.journeys)
		}
		go func() { done <- e.journeys.Run(ctx, brokers, kc.NS) }()
		runs++
	}
	t.Cleanup(func() {
		cancel()
		for range runs {
			if err := <-done; err != nil {
				t.Errorf("shutdown: %v", err)
			}
		}
	})
	e.api = testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, CH: ch.Conn, TokenKey: []byte("k"), Journeys: e.journeys, Log: testenv.Log(t)})
	})
	return e
}

// produce writes recs, made with the logical topic names, to the
// env's namespace.
func (e *journeyEnv) produce(recs ...*kgo.Record) {
	e.t.Helper()
	for _, r := range recs {
		r.Topic = e.kc.Topic(r.Topic)
	}
	if err := kafka.ProduceSync(context.Background(), e.prod, recs...); err != nil {
		e.t.Fatal(err)
	}
}

func subscribed(accountID, trackingID, scac, kind, value string, open bool) *kgo.Record {
	v, _ := json.Marshal(schemas.SubscriptionChanged{ID: uuid.NewString(), AccountID: accountID, Env: "sandbox", TrackingID: trackingID,
		SubscriptionID: uuid.NewString(), SCAC: scac, IdentifierKind: kind, Identifier: value, Status: "OPEN", TrackingOpen: open, OccurredAt: time.Now()})
	return &kgo.Record{Topic: schemas.TopicSubscriptions, Key: []byte(trackingID), Value: v}
}

func eventRecord(rec schemas.EventRecord) *kgo.Record {
	v, _ := json.Marshal(rec)
	return &kgo.Record{Topic: schemas.TopicEvents, Key: []byte(rec.TrackingID), Value: v}
}

// until polls GET path until ok accepts the answer.
func (e *journeyEnv) until(path, key string, ok func(testenv.Response) bool) testenv.Response {
	e.t.Helper()
	var r testenv.Response
	testkit.Eventually(e.t, 20*time.Second, "GET "+path+" to answer as expected", func() bool {
		r = e.api.Do("GET", path, key, nil)
		return r.Status == 200 && ok(r)
	})
	return r
}

func TestJourneysByBookingNarrowedByEquipment(t *testing.T) {
	e := newJourneyEnv(t, false)
	ctx := context.Background()
	key, k, _ := e.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	other, o, _ := e.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	tracking := uuid.NewString()
	ev := func(id, typ, code, container, place, when, classifier string) *kgo.Record {
		ev := dcsa.Event{EventID: id, EventType: typ, EventClassifierCode: classifier, EventDateTime: when, EventCreatedDateTime: when, EquipmentReference: container}
		if typ == dcsa.EventTypeEquipment {
			ev.EquipmentEventTypeCode, ev.EmptyIndicatorCode, ev.EventLocation = code, "LADEN", &dcsa.Location{UNLocationCode: place}
		} else {
			ev.TransportEventTypeCode, ev.TransportCall = code, &dcsa.TransportCall{TransportCallID: "tc", ModeOfTransport: "VESSEL", UNLocationCode: place}
		}
		b, _ := json.Marshal(ev)
		return eventRecord(schemas.EventRecord{TrackingID: tracking, AccountID: k.Account.ID, Env: "sandbox", SCAC: "HLCU", EventID: id, ContentHash: when, Event: b})
	}
	e.produce(subscribed(k.Account.ID, tracking, "HLCU", "booking", "BK1", true),
		ev("e1", "EQUIPMENT", "LOAD", "CSQU3054383", "CNSHA", "2026-10-01T10:00:00Z", "ACT"),
		ev("e2", "EQUIPMENT", "DISC", "CSQU3054383", "SGSIN", "2026-10-08T10:00:00Z", "ACT"),
		ev("e3", "EQUIPMENT", "LOAD", "CSQU3054383", "SGSIN", "2026-10-09T10:00:00Z", "ACT"),
		ev("e4", "EQUIPMENT", "DISC", "CSQU3054383", "NLRTM", "2026-11-30T10:00:00Z", "EST"),
		ev("e5", "EQUIPMENT", "LOAD", "MSKU9070323", "CNSHA", "2026-10-01T11:00:00Z", "ACT"),
		ev("e6", "TRANSPORT", "ARRI", "", "NLRTM", "2026-11-30T08:00:00Z", "EST"),
		// A newer version of e4 (the estimate moved), and the last subscription closed.
		ev("e4", "EQUIPMENT", "DISC", "CSQU3054383", "NLRTM", "2026-12-02T10:00:00Z", "EST"),
		subscribed(k.Account.ID, tracking, "HLCU", "booking", "BK1", false))
	// Another account's tracking of the same booking.
	e.produce(subscribed(o.Account.ID, uuid.NewString(), "HLCU", "booking", "BK1", true))

	e.until("/subscription/equipment?bookingNumber=BK1", key, func(r testenv.Response) bool {
		res, _ := r.JSON["results"].([]any)
		return r.JSON["count"] == float64(2) && len(res) == 2 && res[0].(map[string]any)["trackingStatus"] == "CLOSED" &&
			len(res[0].(map[string]any)["sourceEvents"].([]any)) == 4 &&
			res[0].(map[string]any)["sourceEvents"].([]any)[3].(map[string]any)["eventDateTime"] == "2026-12-02T10:00:00Z"
	})
	r := e.api.Do("GET", "/subscription/equipment?bookingNumber=BK1&equipmentNumber=CSQU3054383", key, nil)
	results := r.JSON["results"].([]any)
	if len(results) != 1 || r.JSON["count"] != float64(1) {
		t.Fatalf("narrowed: %s", r.Raw)
	}
	j := results[0].(map[string]any)
	if j["POL"] != "CNSHA" || j["POD"] != "NLRTM" || j["lastLocation"] != "SGSIN" || j["trackingStatus"] != "CLOSED" || j["scacCode"] != "HLCU" {
		t.Fatalf("journey: %v", j)
	}
	enh, _ := json.Marshal(j["enhancedEvents"])
	if string(enh) != `[{"UNLocationCode":"SGSIN","enhancedEventType":"TRANSSHIPMENT","eventDateTime":"2026-10-08T10:00:00Z","reloadDateTime":"2026-10-09T10:00:00Z"},`+
		`{"UNLocationCode":"NLRTM","enhancedEventType":"ETA_REVISION","eventDateTime":"2026-11-30T08:00:00Z","revisedDateTime":"2026-11-30T08:00:00Z"},`+
		`{"UNLocationCode":"NLRTM","enhancedEventType":"ETA_POD","eventDateTime":"2026-11-30T08:00:00Z"}]` {
		t.Fatalf("enhanced: %s", enh)
	}
	if len(j["vesselEvents"].([]any)) != 1 {
		t.Fatalf("vessel events: %v", j["vesselEvents"])
	}
	if r := e.api.Do("GET", "/subscription/equipment?bookingNumber=BK1", other, nil); r.JSON["count"] != float64(0) {
		t.Fatalf("other account sees %s", r.Raw)
	}
	if r := e.api.Do("GET", "/subscription/equipment?billNumber=BK1", key, nil); r.JSON["count"] != float64(0) {
		t.Fatalf("bill lookup of a booking: %s", r.Raw)
	}
}

// A journey longer than a chunk of source events is served whole and in
// order from ClickHouse, as events arrive one batch after another and an
// early event changes (the projector then rewrites that chunk only).
func TestLongJourneyIsServedWhole(t *testing.T) {
	e := newJourneyEnv(t, false)
	key, k, _ := e.api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	tracking := uuid.NewString()
	base := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	ev := func(n int, created time.Time) *kgo.Record {
		when := base.Add(time.Duration(n) * time.Hour).Format(time.RFC3339)
		ev := dcsa.Event{EventID: fmt.Sprint("e", n), EventType: dcsa.EventTypeEquipment, EventClassifierCode: "ACT", EventDateTime: when,
			EventCreatedDateTime: created.Format(time.RFC3339), EquipmentReference: "MSKU9070323", EquipmentEventTypeCode: "GTIN",
			EmptyIndicatorCode: "LADEN", EventLocation: &dcsa.Location{UNLocationCode: "CNSHA"}}
		b, _ := json.Marshal(ev)
		return eventRecord(schemas.EventRecord{TrackingID: tracking, AccountID: k.Account.ID, Env: "sandbox", SCAC: "MAEU",
			EventID: ev.EventID, ContentHash: ev.EventCreatedDateTime, Event: b})
	}
	const events = 3*projector.SourceChunkEvents + 5
	e.produce(subscribed(k.Account.ID, tracking, "MAEU", "container", "MSKU9070323", true))
	served := func(want int, check func(src []any) bool) {
		t.Helper()
		e.until("/subscription/equipment?equipmentNumber=MSKU9070323", key, func(r testenv.Response) bool {
			res, _ := r.JSON["results"].([]any)
			if len(res) != 1 {
				return false
			}
			src, _ := res[0].(map[string]any)["sourceEvents"].([]any)
			if len(src) != want {
				return false
			}
			for i, s := range src {
				if s.(map[string]any)["eventID"] != fmt.Sprint("e", i) {
					t.Fatalf("event %d of %d is %v", i, want, s)
				}
			}
			return check(src)
		})
	}
	for n := range events {
		e.produce(ev(n, base))
		if n == projector.SourceChunkEvents || n == events-1 {
			served(n+1, func([]any) bool { return true })
		}
	}
	changed := base.Add(time.Hour)
	e.produce(ev(3, changed))
	served(events, func(src []any) bool {
		return src[3].(map[string]any)["eventCreatedDateTime"] == changed.Format(time.RFC3339)
	})
}

// The API serves exactly what the projection derives for sandbox journeys
// of every carrier format (projector/journey's tests hold the derivation
// to the query-time builder it replaced); a container tracking without
// events is served with empty lists.
func TestReadModelServesSandboxJourneys(t *testing.T) {
	e := newJourneyEnv(t, true)
	key, k, _ := e.api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	around := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	type want struct {
		c    journeytest.Case
		path string
		body []byte
	}
	var wants []want
	for _, c := range journeytest.Cases() {
		tracking := uuid.NewString()
		st := &journey.State{}
		sub := subscribed(k.Account.ID, tracking, c.SCAC, string(c.Kind), c.Value, true)
		var change schemas.SubscriptionChanged
		if err := json.Unmarshal(sub.Value, &change); err != nil {
			t.Fatal(err)
		}
		st.ApplySubscription(change)
		recs := []*kgo.Record{sub}
		seen := map[string]string{}
		polls := c.Polls(around, 24*time.Hour)
		for _, at := range polls[:len(polls)*2/3] { // mid-journey: estimates and actuals
			evs, err := c.Poll(k.Account.ID, tracking, at, seen)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				st.ApplyEvent(ev)
				recs = append(recs, eventRecord(ev))
			}
		}
		e.produce(recs...)
		body, _ := json.Marshal(withVoyages(journey.Derive(st)))
		param := map[string]string{"container": "equipmentNumber", "booking": "bookingNumber", "bill": "billNumber"}[string(c.Kind)]
		wants = append(wants, want{c, fmt.Sprintf("/subscription/equipment?%s=%s", param, c.Value), body})
	}
	empty := uuid.NewString()
	e.produce(subscribed(k.Account.ID, empty, "MAEU", "container", "TCLU1234567", true))
	for _, w := range wants {
		r := e.until(w.path, key, func(r testenv.Response) bool {
			var got struct{ Results json.RawMessage }
			if err := json.Unmarshal(r.Raw, &got); err != nil {
				t.Fatal(err)
			}
			return string(got.Results) == string(w.body)
		})
		if n := len(r.JSON["results"].([]any)); r.JSON["count"] != float64(n) || n == 0 {
			t.Fatalf("%s: count %v of %d", w.path, r.JSON["count"], n)
		}
	}
	e.until("/subscription/equipment?equipmentNumber=TCLU1234567", key, func(r testenv.Response) bool {
		return string(r.Raw[:len(`{"results":[{"equipmentNumber":"TCLU1234567","scacCode":"MAEU","trackingStatus":"OPEN","lastLocation":"","POL":"","POD":"","sourceEvents":[],"enhancedEvents":[],"vesselEvents":[]}],"count":1,`)]) ==
			`{"results":[{"equipmentNumber":"TCLU1234567","scacCode":"MAEU","trackingStatus":"OPEN","lastLocation":"","POL":"","POD":"","sourceEvents":[],"enhancedEvents":[],"vesselEvents":[]}],"count":1,`
	})
}

// A cached pull is refreshed by the journey change of a new event, not by
// the cache's age (an hour here), and answers 304 to its ETag until then.
func TestCachedPullIsFreshAndTagged(t *testing.T) {
	e := newJourneyEnv(t, true)
	key, k, _ := e.api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	tracking := uuid.NewString()
	ev := func(id, at string) *kgo.Record {
		b, _ := json.Marshal(dcsa.Event{EventID: id, EventType: dcsa.EventTypeEquipment, EventClassifierCode: "ACT", EventDateTime: at,
			EventCreatedDateTime: at, EquipmentEventTypeCode: "GTOT", EquipmentReference: "MSKU9070323", EmptyIndicatorCode: "EMPTY",
			EventLocation: &dcsa.Location{UNLocationCode: "CNSHA"}})
		return eventRecord(schemas.EventRecord{TrackingID: tracking, AccountID: k.Account.ID, Env: "sandbox", SCAC: "MAEU", EventID: id, ContentHash: at, Event: b})
	}
	e.produce(subscribed(k.Account.ID, tracking, "MAEU", "container", "MSKU9070323", true), ev("a", "2026-10-01T10:00:00Z"))
	path := "/subscription/equipment?equipmentNumber=MSKU9070323"
	first := e.until(path, key, func(r testenv.Response) bool {
		return r.JSON["count"] == float64(1) && len(r.Raw) > 0 && containsEvent(r, "a")
	})
	tag := first.Header.Get("ETag")
	if tag == "" {
		t.Fatal("no ETag")
	}
	if again := e.api.Do("GET", path, key, nil); again.Header.Get("ETag") != tag {
		t.Fatalf("tag moved without a change: %q then %q", tag, again.Header.Get("ETag"))
	}
	if r := doIfNoneMatch(t, e.api, path, key, tag); r.StatusCode != 304 || r.ContentLength > 0 {
		t.Fatalf("If-None-Match current: %d", r.StatusCode)
	}
	e.produce(ev("b", "2026-10-02T10:00:00Z"))
	second := e.until(path, key, func(r testenv.Response) bool { return containsEvent(r, "b") })
	if second.Header.Get("ETag") == tag {
		t.Fatal("tag unchanged after a new event")
	}
	if r := doIfNoneMatch(t, e.api, path, key, tag); r.StatusCode != 200 {
		t.Fatalf("If-None-Match stale tag: %d", r.StatusCode)
	}
	if e.journeys.CacheBytes() == 0 {
		t.Fatal("nothing cached")
	}
}

func containsEvent(r testenv.Response, id string) bool {
	res, _ := r.JSON["results"].([]any)
	if len(res) == 0 {
		return false
	}
	for _, s := range res[0].(map[string]any)["sourceEvents"].([]any) {
		if s.(map[string]any)["eventID"] == id {
			return true
		}
	}
	return false
}

func doIfNoneMatch(t testing.TB, api *testenv.API, path, key, tag string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", api.URL+path, nil)
	req.Header.Set("x-api-key", key)
	req.Header.Set("If-None-Match", tag)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// A started API process loads the read model into its cache (every lookup
// of both accounts here), answers from it gzip as kept or plain, each
// account only its own journey; a change — here the subscription closing —
// drops the cached answer and the pull shows the change, read again.
func TestWarmedCacheServesEachAccountItsOwn(t *testing.T) {
	e := newJourneyEnv(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	key, k, _ := e.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	otherKey, o, _ := e.api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	mine, theirs := uuid.NewString(), uuid.NewString()
	e.produce(subscribed(k.Account.ID, mine, "MAEU", "container", "MSKU9070323", true),
		subscribed(o.Account.ID, theirs, "CMDU", "container", "MSKU9070323", true))
	path := "/subscription/equipment?equipmentNumber=MSKU9070323"
	for _, kk := range []string{key, otherKey} {
		e.until(path, kk, func(r testenv.Response) bool { return r.JSON["count"] == float64(1) })
	}

	journeys := queryapi.NewJourneys(queryapi.JourneysConfig{CacheBytes: 1 << 20, MaxAge: time.Hour, GenerationCheck: time.Hour}, e.ch.Conn, testenv.Log(t))
	done := make(chan error, 1)
	go func() { done <- journeys.Run(ctx, e.brokers, e.kc.NS) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("journeys: %v", err)
		}
	}()
	select {
	case <-journeys.Warmed():
	case <-time.After(testkit.Scale(20 * time.Second)):
		t.Fatal("not warmed")
	}
	// The projector publishes a change after its rows are readable, so the
	// last changes can reach this reader just after it warmed: they drop
	// the lookups (no superseded answers here) and have them read again.
	testkit.Wait(t, 20*time.Second, "both lookups cached", func() (bool, any) {
		n := journeys.CachedLookups()
		return n == 2, fmt.Sprintf("%d cached", n)
	})
	api := testenv.NewAPI(t, e.db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: e.db.Pool, CH: e.ch.Conn, TokenKey: []byte("k"), Journeys: journeys})
	})
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(key, encoding string) (http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", api.URL+path, nil)
		req.Header.Set("x-api-key", key)
		req.Header.Set("Accept-Encoding", encoding)
		resp, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		return resp.Header, string(body)
	}
	h, zipped := get(key, "gzip, deflate")
	if h.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q with gzip accepted", h.Get("Content-Encoding"))
	}
	h2, plain := get(key, "identity")
	if h2.Get("Content-Encoding") != "" || h2.Get("ETag") != h.Get("ETag") {
		t.Fatalf("plain: Content-Encoding %q, tags %q %q", h2.Get("Content-Encoding"), h.Get("ETag"), h2.Get("ETag"))
	}
	cut := func(s string) string { return s[:strings.Index(s, `"dateOfRequest"`)] }
	if cut(zipped) != cut(plain) || !strings.Contains(plain, `"scacCode":"MAEU","trackingStatus":"OPEN"`) {
		t.Fatalf("gzip %s\nplain %s", zipped, plain)
	}
	var parsed queryapi.JourneysResponse
	if err := json.Unmarshal([]byte(zipped), &parsed); err != nil || parsed.Count != 1 {
		t.Fatalf("%v %s", err, zipped)
	}
	if _, body := get(otherKey, "gzip"); !strings.Contains(body, `"scacCode":"CMDU"`) || strings.Contains(body, "MAEU") {
		t.Fatalf("the other account got %s", body)
	}
	if journeys.CachedLookups() != 2 {
		t.Fatalf("%d lookups cached after hits", journeys.CachedLookups())
	}

	e.produce(subscribed(k.Account.ID, mine, "MAEU", "container", "MSKU9070323", false))
	testkit.Eventually(t, 20*time.Second, "the closed subscription served closed", func() bool {
		_, body := get(key, "gzip")
		return strings.Contains(body, `"trackingStatus":"CLOSED"`)
	})
	if _, body := get(otherKey, "gzip"); !strings.Contains(body, `"trackingStatus":"OPEN"`) {
		t.Fatalf("the other account's journey changed: %s", body)
	}
}

// withVoyages adds to derived results what the read side adds from the
// vessel events, without vessel reports: the vessel and the route.
func withVoyages(rs []journeys.Result) []journeys.Result {
	for i := range rs {
		if !rs[i].Facts.Empty() {
			// Under no free-time rule: the facts alone, whatever the clock.
			v := readiness.Compute(rs[i].Facts, nil, rs[i].ScacCode, time.Time{}, readiness.DefaultWarningDays)
			rs[i].Readiness = &v
		}
		if legs := voyage.Legs(rs[i].VesselEvents); len(legs) > 0 {
			v := voyage.Build(legs, nil)
			rs[i].Vessel, rs[i].Route, rs[i].ArrivalPrediction = v.Vessel, v.Route, v.Prediction
		}
	}
	return rs
}

// TestPullShowsTheVesselAtSea: a container whose vessel has departed is
// pulled with the vessel's latest reported position, the route split at
// it into sailed and planned parts with its ports, and contrack's
// predicted arrival beside the carrier's estimate; another vessel's
// reports, and a live vessel's with the same IMO number, are not taken.
func TestPullShowsTheVesselAtSea(t *testing.T) {
	// Uncached: a cached answer takes new reports only at its next re-read
	// (a change of the journey, or MaxAge), which this test does not wait for.
	e := newJourneyEnv(t, false)
	key, k, _ := e.api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	c := journeytest.Cases()[0]
	tracking := uuid.NewString()
	recs := []*kgo.Record{subscribed(k.Account.ID, tracking, c.SCAC, string(c.Kind), c.Value, true)}
	seen := map[string]string{}
	st := &journey.State{}
	var legs []voyage.Leg
	var at time.Time
	for _, p := range c.Polls(time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), 12*time.Hour) {
		evs, err := c.Poll(k.Account.ID, tracking, p, seen)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			st.ApplyEvent(ev)
			recs = append(recs, eventRecord(ev))
		}
		var change schemas.SubscriptionChanged
		if err := json.Unmarshal(recs[0].Value, &change); err != nil {
			t.Fatal(err)
		}
		st.ApplySubscription(change)
		if rs := journey.Derive(st); len(rs) > 0 {
			if legs = voyage.Legs(rs[0].VesselEvents); len(legs) > 0 {
				if cur, atSea := voyage.Current(legs); atSea && p.Sub(legs[cur].Departure) > 24*time.Hour {
					at = p
					break
				}
			}
		}
	}
	if at.IsZero() {
		t.Fatal("the journey never had its vessel at sea")
	}
	cur, _ := voyage.Current(legs)
	leg := legs[cur]
	route, _ := searoute.Between(leg.From.Code, leg.From.At, leg.To.Code, leg.To.At)
	where, _ := route.At(route.Length() / 3)
	report := func(env, voyageNo string, i int, lat float64) *kgo.Record {
		p := schemas.VesselPosition{Env: env, IMO: leg.IMO, Voyage: voyageNo, At: at.Add(time.Duration(i-60) * time.Minute).UTC(),
			Lat: lat, Lon: where.Lon, SpeedKnots: 16 + float64(i%3), Course: 90, NavStatus: schemas.NavUnderWayEngine, Source: "test"}
		v, _ := p.Marshal()
		return &kgo.Record{Topic: schemas.TopicVesselPositions, Key: []byte(p.Key()), Value: v}
	}
	lat := where.Lat
	for i := range 61 {
		recs = append(recs, report(schemas.EnvSandbox, leg.Voyage, i, lat))
	}
	recs = append(recs, report(schemas.EnvSandbox, "OTHER", 70, 0), report(schemas.EnvLive, "", 80, 0))
	e.produce(recs...)
	r := e.until("/subscription/equipment?equipmentNumber="+c.Value, key, func(r testenv.Response) bool {
		res, _ := r.JSON["results"].([]any)
		if len(res) != 1 {
			return false
		}
		v, _ := res[0].(map[string]any)["vessel"].(map[string]any)
		return v != nil && v["position"] != nil
	})
	var body struct {
		Results []journeys.Result `json:"results"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	res := body.Results[0]
	pos := res.Vessel.Position
	if res.Vessel.IMO != leg.IMO || res.Vessel.Name != leg.Name || pos.Latitude != lat || pos.At != at.UTC().Format("2006-01-02T15:04:05.000Z") || pos.SpeedKnots != 16 {
		t.Fatalf("vessel %+v position %+v, want %s %s at %v at %s", res.Vessel, pos, leg.IMO, leg.Name, lat, at)
	}
	rt := res.Route
	if rt == nil || rt.Type != "Feature" || rt.Geometry.Type != "MultiLineString" || len(rt.Geometry.Coordinates) != len(rt.Properties.Parts) {
		t.Fatalf("route %+v", rt)
	}
	states := map[string]bool{}
	for _, p := range rt.Properties.Parts {
		states[p.State] = true
	}
	if !states[voyage.Sailed] || !states[voyage.Planned] || rt.Properties.SailedNM <= 0 || rt.Properties.RemainingNM <= 0 {
		t.Errorf("route parts %+v, sailed %v nm, remaining %v nm: want both parts", rt.Properties.Parts, rt.Properties.SailedNM, rt.Properties.RemainingNM)
	}
	if ports := rt.Properties.Ports; len(ports) < 2 || ports[0].Role != "POL" || ports[len(ports)-1].Role != "POD" || ports[0].UNLocationCode != res.POL {
		t.Errorf("route ports %+v, POL %s", ports, res.POL)
	}
	pr := res.ArrivalPrediction
	if pr == nil || pr.NextPort == nil || pr.POD == nil || pr.NextPort.UNLocationCode != leg.To.Code || pr.NextPort.DifferenceHours == nil || pr.SpeedKnots < 16 || pr.SpeedKnots > 18 {
		t.Fatalf("prediction %+v", pr)
	}
	if pr.NextPort.CarrierDateTime != leg.Arrival.UTC().Format("2006-01-02T15:04:05.000Z") {
		t.Errorf("carrier's estimate %s, the events say %s", pr.NextPort.CarrierDateTime, leg.Arrival)
	}
}

// The projector alone creates the journey tables: until it has first run
// they are missing, and a pull answers as for a lookup without journeys
// (count 0), from ClickHouse and through the cache alike, instead of
// failing.
func TestPullBeforeTheProjectorRan(t *testing.T) {
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 1)
	cached := queryapi.NewJourneys(queryapi.JourneysConfig{CacheBytes: 1 << 20, MaxAge: time.Hour}, ch.Conn, testenv.Log(t))
	testenv.RunStage(t, "journey cache", func(ctx context.Context) error { return cached.Run(ctx, kc.Brokers, kc.NS) })
	select {
	case <-cached.Warmed():
	case <-time.After(testkit.Scale(30 * time.Second)):
		t.Fatal("the journey cache did not warm")
	}
	for name, j := range map[string]*queryapi.Journeys{"uncached": nil, "cached": cached} {
		api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
			queryapi.Register(s, queryapi.Deps{Pool: db.Pool, CH: ch.Conn, TokenKey: []byte("k"), Journeys: j, Log: testenv.Log(t)})
		})
		key := api.Key(auth.CreateKeyParams{ClientSlug: "acme-" + name, Env: "sandbox"})
		r := api.Do("GET", "/subscription/equipment?equipmentNumber=MSKU9070323", key, nil)
		if r.Status != http.StatusOK || r.JSON["count"] != float64(0) {
			t.Errorf("%s: %d %s, want 200 with no results", name, r.Status, r.Raw)
		}
	}
}
