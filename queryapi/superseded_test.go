package queryapi_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/queryapi/journeycache"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/journeys"
)

// refreshGate holds a Journeys' refresher back while held: the lookups it
// takes to read again wait, so pulls show what the cache holds meanwhile.
type refreshGate struct {
	held  atomic.Bool
	mu    sync.Mutex
	open  chan struct{}
	once  *sync.Once
	taken chan journeycache.Key
}

func newRefreshGate() *refreshGate {
	return &refreshGate{taken: make(chan journeycache.Key, 4096)}
}

func (g *refreshGate) install(j *queryapi.Journeys) {
	queryapi.SetBeforeRefresh(j, func(keys []journeycache.Key) {
		for _, k := range keys {
			select {
			case g.taken <- k:
			default:
			}
		}
		if g.held.Load() {
			g.mu.Lock()
			open := g.open
			g.mu.Unlock()
			<-open
		}
	})
}

// hold holds the refreshes taken from now on, forgetting those taken before.
func (g *refreshGate) hold() {
	g.mu.Lock()
	g.open, g.once = make(chan struct{}), &sync.Once{}
	g.mu.Unlock()
	g.held.Store(true)
	for {
		select {
		case <-g.taken:
		default:
			return
		}
	}
}

func (g *refreshGate) release() {
	g.held.Store(false)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.once != nil {
		g.once.Do(func() { close(g.open) })
	}
}

// waitTaken waits for the refresher to take k: its change has arrived.
func (g *refreshGate) waitTaken(t *testing.T, k journeycache.Key) {
	t.Helper()
	testkit.Eventually(t, 20*time.Second, "the change of "+k.Value+" to reach the refresher", func() bool {
		for {
			select {
			case got := <-g.taken:
				if got == k {
					return true
				}
			default:
				return false
			}
		}
	})
}

// supersedeEnv is a cached API with its refresher behind a gate and one
// container journey (event "a") pulled and cached as current.
type supersedeEnv struct {
	*journeyEnv
	gate         *refreshGate
	key, path    string
	account, trk string
	lookup       journeycache.Key
	tagA         string
}

func newSupersedeEnv(t *testing.T, supersededFor time.Duration) *supersedeEnv {
	g := newRefreshGate()
	e := newJourneyEnvWith(t, &queryapi.JourneysConfig{CacheBytes: 1 << 20, MaxAge: time.Hour, SupersededFor: supersededFor,
		GenerationCheck: 200 * time.Millisecond}, g.install)
	t.Cleanup(g.release) // before the environment stops (cleanups run last first)
	key, k, err := e.api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	s := &supersedeEnv{journeyEnv: e, gate: g, key: key, path: "/subscription/equipment?equipmentNumber=MSKU9070323",
		account: k.Account.ID, trk: uuid.NewString(), lookup: journeycache.Key{Account: k.Account.ID, Kind: "container", Value: "MSKU9070323"}}
	e.produce(subscribed(s.account, s.trk, "MAEU", "container", "MSKU9070323", true), s.event("a", "2026-10-01T10:00:00Z"))
	s.tagA = s.currentTag("a")
	return s
}

func (s *supersedeEnv) event(id, at string) *kgo.Record {
	b, _ := json.Marshal(dcsa.Event{EventID: id, EventType: dcsa.EventTypeEquipment, EventClassifierCode: "ACT", EventDateTime: at,
		EventCreatedDateTime: at, EquipmentEventTypeCode: "GTOT", EquipmentReference: "MSKU9070323", EmptyIndicatorCode: "EMPTY",
		EventLocation: &dcsa.Location{UNLocationCode: "CNSHA"}})
	return eventRecord(schemas.EventRecord{TrackingID: s.trk, AccountID: s.account, Env: "sandbox", SCAC: "MAEU", EventID: id, ContentHash: at, Event: b})
}

// currentTag waits for the pull to show event id from an answer cached as
// current (only the current answer is answered 304 from its tag).
func (s *supersedeEnv) currentTag(id string) string {
	s.t.Helper()
	var tag string
	testkit.Eventually(s.t, 20*time.Second, "event "+id+" pulled from the cache as current", func() bool {
		r := s.api.Do("GET", s.path, s.key, nil)
		tag = r.Header.Get("ETag")
		return r.Status == 200 && containsEvent(r, id) && doIfNoneMatch(s.t, s.api, s.path, s.key, tag).StatusCode == 304
	})
	return tag
}

// pull is a GET of the journey that must answer 200.
func (s *supersedeEnv) pull() testenv.Response {
	s.t.Helper()
	r := s.api.Do("GET", s.path, s.key, nil)
	if r.Status != 200 {
		s.t.Fatalf("pull: %d %s", r.Status, r.Raw)
	}
	return r
}

// After a change the previous answer is served, with its own tag, until
// the refresh lands; a client holding that tag gets the new answer (read
// from ClickHouse), not a 304, and from then on no pull goes back to the
// older answer.
func TestSupersededAnswerServedUntilReadAgain(t *testing.T) {
	s := newSupersedeEnv(t, time.Minute)
	s.gate.hold()
	s.produce(s.event("b", "2026-10-02T10:00:00Z"))
	s.gate.waitTaken(t, s.lookup)
	for range 3 {
		if r := s.pull(); !containsEvent(r, "a") || containsEvent(r, "b") || r.Header.Get("ETag") != s.tagA {
			t.Fatalf("while the refresh is held: tag %s (previous %s) %s", r.Header.Get("ETag"), s.tagA, r.Raw)
		}
	}
	s.gate.release()
	testkit.Eventually(t, 20*time.Second, "the refresh to land", func() bool { return containsEvent(s.pull(), "b") })
	tagB := s.currentTag("b")
	if tagB == s.tagA {
		t.Fatal("the tag did not change with the answer")
	}

	s.gate.hold()
	s.produce(s.event("c", "2026-10-03T10:00:00Z"))
	s.gate.waitTaken(t, s.lookup)
	if r := s.pull(); containsEvent(r, "c") || r.Header.Get("ETag") != tagB {
		t.Fatalf("while the refresh is held: tag %s %s", r.Header.Get("ETag"), r.Raw)
	}
	resp := doIfNoneMatch(t, s.api, s.path, s.key, tagB)
	tagC := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || tagC == tagB {
		t.Fatalf("If-None-Match of the superseded answer: %d, tag %s", resp.StatusCode, tagC)
	}
	for range 3 {
		if r := s.pull(); !containsEvent(r, "c") || r.Header.Get("ETag") != tagC {
			t.Fatalf("after the newer answer was served: tag %s (newer %s) %s", r.Header.Get("ETag"), tagC, r.Raw)
		}
	}
	if resp := doIfNoneMatch(t, s.api, s.path, s.key, tagC); resp.StatusCode != 304 {
		t.Fatalf("If-None-Match of the newer answer: %d", resp.StatusCode)
	}
}

// An answer superseded for longer than SupersededFor is not served: with
// the refresh held, pulls read ClickHouse themselves after the bound, never
// before it.
func TestSupersededBoundRespected(t *testing.T) {
	const bound = 5 * time.Second // well beyond a loaded machine's stalls: the previous answer is seen first
	s := newSupersedeEnv(t, bound)
	s.gate.hold()
	produced := time.Now() // the change is notified, and supersedes, after this
	s.produce(s.event("b", "2026-10-02T10:00:00Z"))
	s.gate.waitTaken(t, s.lookup)
	sawPrevious := false
	testkit.Eventually(t, 20*time.Second, "the pull to read the change itself past the bound", func() bool {
		r := s.pull()
		if !containsEvent(r, "b") {
			sawPrevious = true
			return false
		}
		if early := time.Until(produced.Add(bound)); early > 0 {
			t.Fatalf("the new answer read %s before the bound", early)
		}
		return true
	})
	if !sawPrevious {
		t.Fatal("the superseded answer was never served")
	}
}

// A rebuilt generation empties the cache, superseded answers included:
// the pull reads the new generation at once, refresh held or not.
func TestSupersededDroppedByGenerationMove(t *testing.T) {
	s := newSupersedeEnv(t, time.Minute)
	s.gate.hold()
	s.produce(s.event("b", "2026-10-02T10:00:00Z"))
	s.gate.waitTaken(t, s.lookup)
	if r := s.pull(); containsEvent(r, "b") {
		t.Fatalf("while the refresh is held: %s", r.Raw)
	}
	ctx := context.Background()
	if err := projector.EnsureJourneyTables(ctx, s.ch.Conn, 2); err != nil {
		t.Fatal(err)
	}
	if err := s.ch.Conn.Exec(ctx, `INSERT INTO `+journeys.JourneysTable(2)+` SELECT * FROM `+journeys.JourneysTable(1)); err != nil {
		t.Fatal(err)
	}
	if err := clickhouse.Insert(ctx, s.ch.Conn, "journey_generations", []string{"generation", "at"}, []any{uint32(2), time.Now().UTC().Truncate(time.Second)}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, "the moved generation read", func() bool { return containsEvent(s.pull(), "b") })
}
