package poller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/ingest/poller"
	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// sim is the sandbox carriers behind a counter of requests per identifier
// and of overlapping requests for one identifier.
type sim struct {
	srv      *httptest.Server
	mu       sync.Mutex
	inflight map[string]int
	overlaps atomic.Int32
	requests map[string]int
	times    map[string][]time.Time
}

func newSim(t testing.TB) *sim { return newSimWith(t, sandbox.Config{}) }

// newSimWith is newSim with the sandbox configured as cfg (a SlowDelay of
// 50 ms unless cfg sets one).
func newSimWith(t testing.TB, cfg sandbox.Config) *sim {
	s := &sim{inflight: map[string]int{}, requests: map[string]int{}, times: map[string][]time.Time{}}
	if cfg.SlowDelay == 0 {
		cfg.SlowDelay = 50 * time.Millisecond
	}
	h := sandbox.NewHandler(cfg)
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("equipmentReference")
		s.mu.Lock()
		s.inflight[id]++
		s.requests[id]++
		s.times[id] = append(s.times[id], time.Now())
		if s.inflight[id] > 1 {
			s.overlaps.Add(1)
		}
		s.mu.Unlock()
		h.ServeHTTP(w, r)
		s.mu.Lock()
		s.inflight[id]--
		s.mu.Unlock()
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// pollTimes returns when id was requested.
func (s *sim) pollTimes(id string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.times[id]...)
}

func (s *sim) count(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[id]
}

type world struct {
	db      testenv.PGDatabase
	brokers []string
	kc      testenv.KafkaCluster
	box     *secretbox.Box
	prod    *kgo.Client
	account string
}

func newWorld(t testing.TB, partitions int32) *world {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, partitions)
	brokers := kc.Brokers
	box, _ := secretbox.New("test")
	w := &world{db: db, brokers: brokers, kc: kc, box: box, prod: testenv.KafkaClient(t, brokers)}
	ctx := context.Background()
	// The world's first account may poll each carrier 5,000 times a
	// second (its plan's carrier rate), so tests count polls, not tokens.
	if _, err := db.Pool.Exec(ctx, `INSERT INTO usage_plans (name, id, display_name, rate_per_second, burst, carrier_rate)
		VALUES ('fast', 'plan-fast', 'Fast', 100, 100, 5000)`); err != nil {
		t.Fatal(err)
	}
	if err := db.Pool.QueryRow(ctx, `INSERT INTO accounts (id, client_slug, env, display_name, plan) VALUES (gen_random_uuid(), 'acme', 'sandbox', 'acme', 'fast') RETURNING id`).Scan(&w.account); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) credentials(t testing.TB, scac string, fields map[string]string) {
	b, _ := json.Marshal(fields)
	enc, _ := w.box.Seal(b, w.account+"/carrier-credentials/"+scac)
	if _, err := w.db.Pool.Exec(context.Background(), `INSERT INTO carrier_credentials (account_id, scac, fields_enc) VALUES ($1, $2, $3)
		ON CONFLICT (account_id, scac) DO UPDATE SET fields_enc = EXCLUDED.fields_enc`, w.account, scac, enc); err != nil {
		t.Fatal(err)
	}
}

// track creates a tracking row as commandapi does (open == true, id ""),
// or closes tracking id as the last subscription's close does.
func (w *world) track(t testing.TB, scac, container string, open bool, id string) string {
	ctx := context.Background()
	if id == "" {
		id = uuid.NewString()
		if _, err := w.db.Pool.Exec(ctx, `INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status, open_subscriptions)
			VALUES ($1, $2, 'sandbox', $3, 'container', $4, 'PENDING', 1)`, id, w.account, scac, container); err != nil {
			t.Fatal(err)
		}
	}
	if !open {
		if _, err := w.db.Pool.Exec(ctx, `UPDATE trackings SET open_subscriptions = 0 WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

func (w *world) status(t *testing.T, id string) string {
	var s string
	if err := w.db.Pool.QueryRow(context.Background(), `SELECT connection_status FROM trackings WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func run(t testing.TB, w *world, s *sim, cfg poller.Config) context.CancelFunc {
	return runWith(t, w, s, cfg, nil)
}

// runWith runs a poller against s; tune, if set, adjusts its Deps.
func runWith(t testing.TB, w *world, s *sim, cfg poller.Config, tune func(*poller.Deps)) context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	deps := poller.Deps{
		Namespace: w.kc.NS, Producer: w.prod, Pool: w.db.Pool, Box: w.box, Log: testenv.Log(t),
		Adapters: poller.SandboxAdapters(s.srv.URL, func(string) string { return "" }),
	}
	if tune != nil {
		tune(&deps)
	}
	go func() {
		done <- poller.Run(ctx, cfg, deps)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("poller shutdown: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func containers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = journey.CompleteContainer(fmt.Sprintf("TSTU%06d", i))
	}
	return out
}

func fastConfig() poller.Config {
	return poller.Config{
		Interval: map[string]time.Duration{"sandbox": 400 * time.Millisecond}, FirstPoll: 50 * time.Millisecond,
		RetryBase: 100 * time.Millisecond, Workers: 64, AccountConcurrency: 32,
		BreakerFailures: 3, BreakerTimeout: time.Hour, Refresh: 100 * time.Millisecond,
	}
}

func TestPollerPollsPromptlyStopsClosedAndReportsStatus(t *testing.T) {
	w := newWorld(t, 4)
	s := newSim(t)
	w.credentials(t, "MAEU", map[string]string{"apiKey": "sandbox-key"})
	ids := map[string]string{}
	all := containers(300)
	for _, c := range all {
		ids[c] = w.track(t, "MAEU", c, true, "")
	}
	unauth := w.track(t, "MAEU", "UNAU0000004", true, "")
	// Without credentials for HLCU the tracking is never claimed
	// (commandapi marks it NO_CREDENTIALS; here it stays as created).
	noCreds := w.track(t, "HLCU", journey.CompleteContainer("NOCU000001"), true, "")
	start := time.Now()
	run(t, w, s, fastConfig())

	testkit.Eventually(t, 20*time.Second, "a first poll of all 300 trackings", func() bool {
		for _, c := range all {
			if s.count(c) == 0 {
				return false
			}
		}
		return true
	})
	t.Logf("300 trackings first-polled within %v", time.Since(start))
	testkit.Eventually(t, 10*time.Second, "statuses", func() bool {
		return w.status(t, ids[all[1]]) == "CONNECTED" && w.status(t, unauth) == "UNAUTHORIZED"
	})
	if got := w.status(t, noCreds); got != "PENDING" || s.count(journey.CompleteContainer("NOCU000001")) != 0 {
		t.Fatalf("a tracking without credentials was polled: status %s", got)
	}

	// Close 50 trackings: their polling stops promptly.
	closed := all[:50]
	for _, c := range closed {
		w.track(t, "MAEU", c, false, ids[c])
	}
	// Intervals are counted in polls of the open trackings, not slept: two
	// more polls of each, and the closes (applied in milliseconds) and any
	// poll in flight when they came are behind us; two more, and a closed
	// tracking still polled would have been.
	open := all[50:]
	pollsOfEachOpen := func(n int) func() bool {
		want := map[string]int{}
		for _, c := range open {
			want[c] = s.count(c) + n
		}
		return func() bool {
			for _, c := range open {
				if s.count(c) < want[c] {
					return false
				}
			}
			return true
		}
	}
	testkit.Eventually(t, 20*time.Second, "two more polls of every open tracking (closes applied)", pollsOfEachOpen(2))
	before := map[string]int{}
	for _, c := range closed {
		before[c] = s.count(c)
	}
	testkit.Eventually(t, 20*time.Second, "two more polls of every open tracking", pollsOfEachOpen(2))
	for _, c := range closed {
		if s.count(c) != before[c] {
			t.Fatalf("closed tracking %s polled again", c)
		}
	}
	if n := s.overlaps.Load(); n != 0 {
		t.Fatalf("%d overlapping polls of one tracking", n)
	}
	// Every poll left an attempt record.
	cl := testenv.KafkaClient(t, w.brokers, kgo.ConsumeTopics(w.kc.Topic(schemas.TopicPollAttempts)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	outcomes := map[string]int{}
	for ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var a schemas.PollAttempt
			if err := json.Unmarshal(r.Value, &a); err != nil {
				t.Fatal(err)
			}
			outcomes[a.Outcome]++
			if a.TrackingID == unauth && a.HTTPCode != 401 {
				t.Errorf("unauthorized attempt http code %d", a.HTTPCode)
			}
		})
	}
	if outcomes["success"] < 300 || outcomes["error"] == 0 {
		t.Fatalf("attempt outcomes %v", outcomes)
	}
}

func TestCarrierOutageOpensBreaker(t *testing.T) {
	w := newWorld(t, 2)
	s := newSim(t)
	w.credentials(t, "MAEU", map[string]string{"apiKey": "down"}) // the sandbox answers 503
	all := containers(40)
	var ids []string
	for _, c := range all {
		ids = append(ids, w.track(t, "MAEU", c, true, ""))
	}
	run(t, w, s, fastConfig())
	// The duration observed is what is tested: without the breaker, about
	// seven intervals and their retries would go out in it.
	time.Sleep(3 * time.Second) // the observation window under test, not a condition
	total := 0
	for _, c := range all {
		total += s.count(c)
	}
	// Without the breaker every tracking would be called many times (about
	// seven intervals in 3 s, plus retries: hundreds of calls). With it, at
	// most the first wave goes out — up to CarrierConcurrency polls are in
	// flight before the first failures come back — and nothing after.
	if total > len(all) {
		t.Fatalf("%d calls to a down carrier for %d trackings; the breaker should stop them after the first wave", total, len(all))
	}
	if total < 3 {
		t.Fatalf("only %d calls: the breaker opened before its threshold", total)
	}
	if st := w.status(t, ids[0]); st != "CARRIER_ERROR" && st != "PENDING" {
		t.Fatalf("status %s", st)
	}
}

func TestTwoPollersNeverPollTheSameTrackingAtOnce(t *testing.T) {
	w := newWorld(t, 6)
	s := newSim(t)
	w.credentials(t, "MAEU", map[string]string{"apiKey": "k"})
	// Slow answers make overlaps likely if ownership were shared.
	all := containers(60)
	for _, c := range all {
		w.track(t, "MAEU", c, true, "")
	}
	slow := journey.CompleteContainer("SLOU000001")
	w.track(t, "MAEU", slow, true, "")
	cfg := fastConfig()
	run(t, w, s, cfg)
	run(t, w, s, cfg)
	// Several rounds under both pollers, counted in polls, not slept.
	testkit.Eventually(t, 30*time.Second, "every tracking polled three times", func() bool {
		for _, c := range append(all, slow) {
			if s.count(c) < 3 {
				return false
			}
		}
		return true
	})
	if n := s.overlaps.Load(); n != 0 {
		t.Fatalf("%d overlapping polls of one tracking", n)
	}
	polled := 0
	for _, c := range all {
		if s.count(c) > 0 {
			polled++
		}
	}
	if polled != len(all) {
		t.Fatalf("%d of %d trackings polled with two pollers", polled, len(all))
	}
}

// Every carrier of the registry, end to end through its adapter and the
// sandbox simulation of its API: raw pages land in carrier-raw in the
// carrier's format, the attempt in poll-attempts; bad credentials show as
// UNAUTHORIZED.
func TestEveryCarrierEndToEnd(t *testing.T) {
	w := newWorld(t, 2)
	s := newSim(t)
	good := map[string]string{"apiKey": "sandbox-key", "clientId": "client-1", "clientSecret": "secret-1"}
	bad := map[string]string{"apiKey": "invalid", "clientId": "invalid", "clientSecret": "invalid"}
	type want struct{ ok, unauth string }
	trackings := map[string]want{}
	// A second account holds the bad credentials.
	var badAccount string
	if err := w.db.Pool.QueryRow(context.Background(), `INSERT INTO accounts (id, client_slug, env, display_name) VALUES (gen_random_uuid(), 'bad', 'sandbox', 'bad') RETURNING id`).Scan(&badAccount); err != nil {
		t.Fatal(err)
	}
	goodAccount := w.account
	for _, c := range carriers.All() {
		fields := map[string]string{}
		badFields := map[string]string{}
		for _, f := range c.RequiredFields {
			fields[f], badFields[f] = good[f], bad[f]
		}
		w.account = goodAccount
		w.credentials(t, c.SCAC, fields)
		ok := w.track(t, c.SCAC, journey.CompleteContainer("PAGU000000"), true, "")
		w.account = badAccount
		w.credentials(t, c.SCAC, badFields)
		unauth := w.track(t, c.SCAC, journey.CompleteContainer("OKAU123456"), true, "")
		trackings[c.SCAC] = want{ok, unauth}
	}
	run(t, w, s, fastConfig())
	for scac, tr := range trackings {
		testkit.Eventually(t, 20*time.Second, scac+" statuses", func() bool {
			return w.status(t, tr.ok) == "CONNECTED" && w.status(t, tr.unauth) == "UNAUTHORIZED"
		})
	}
	raw := map[string]map[string]int{} // scac → format → pages
	cl := testenv.KafkaClient(t, w.brokers, kgo.ConsumeTopics(w.kc.Topic(schemas.TopicCarrierRaw)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var env schemas.CarrierRaw
			if err := json.Unmarshal(r.Value, &env); err != nil {
				t.Fatal(err)
			}
			if raw[env.SCAC] == nil {
				raw[env.SCAC] = map[string]int{}
			}
			if len(env.Payload) == 0 || env.TrackingID != trackings[env.SCAC].ok {
				t.Errorf("%s raw record: tracking %s, %d bytes", env.SCAC, env.TrackingID, len(env.Payload))
			}
			raw[env.SCAC][env.Format]++
		})
	}
	for _, c := range carriers.All() {
		if raw[c.SCAC][string(c.Format)] == 0 {
			t.Errorf("%s: no raw %s payload in carrier-raw (got %v)", c.SCAC, c.Format, raw[c.SCAC])
		}
	}
	attempts := map[string]map[string]bool{} // scac → "success" / "error-401"
	acl := testenv.KafkaClient(t, w.brokers, kgo.ConsumeTopics(w.kc.Topic(schemas.TopicPollAttempts)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	actx, acancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer acancel()
	for actx.Err() == nil {
		acl.PollFetches(actx).EachRecord(func(r *kgo.Record) {
			var a schemas.PollAttempt
			if err := json.Unmarshal(r.Value, &a); err != nil {
				t.Fatal(err)
			}
			if attempts[a.SCAC] == nil {
				attempts[a.SCAC] = map[string]bool{}
			}
			attempts[a.SCAC][fmt.Sprintf("%s-%d", a.Outcome, a.HTTPCode)] = true
			if a.Outcome == "success" && (a.EventCount == 0 || a.AccountID != goodAccount) {
				t.Errorf("%s success attempt: %+v", a.SCAC, a)
			}
		})
	}
	for _, c := range carriers.All() {
		if !attempts[c.SCAC]["success-200"] || !attempts[c.SCAC]["error-401"] {
			t.Errorf("%s attempts: %v", c.SCAC, attempts[c.SCAC])
		}
	}
	// TNT 2.2 carriers page through the sandbox's PAGU journey.
	if raw["MAEU"]["dcsa-tnt-2.2"] < 2 {
		t.Errorf("MAEU pagination not followed: %d pages", raw["MAEU"]["dcsa-tnt-2.2"])
	}
}

// The schedule is kept in Postgres: a restarted poller goes on where the
// last one stopped, polling nothing again before its time (no poll storm),
// and every tracking again within about one interval.
func TestRestartKeepsTheSchedule(t *testing.T) {
	w := newWorld(t, 2)
	s := newSim(t)
	w.credentials(t, "MAEU", map[string]string{"apiKey": "k"})
	all := containers(100)
	for _, c := range all {
		w.track(t, "MAEU", c, true, "")
	}
	cfg := fastConfig()
	cfg.Interval = map[string]time.Duration{"sandbox": 4 * time.Second}
	stop := run(t, w, s, cfg)
	polled := func(n int) func() bool {
		return func() bool {
			for _, c := range all {
				if s.count(c) < n {
					return false
				}
			}
			return true
		}
	}
	testkit.Eventually(t, 10*time.Second, "a first poll of every tracking", polled(1))
	stop()
	restarted := time.Now()
	// The schedule the stopped poller left: each tracking's next due time.
	due := map[string]time.Time{}
	rows, err := w.db.Pool.Query(context.Background(), `SELECT identifier, next_poll_at FROM trackings`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var at time.Time
		if err := rows.Scan(&id, &at); err != nil {
			t.Fatal(err)
		}
		due[id] = at
	}
	if rows.Close(); rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	run(t, w, s, cfg)
	testkit.Eventually(t, 10*time.Second, "every tracking polled again after the restart", polled(2))
	// Read from the polls' times, not from a sleep: no second poll came
	// before the due time the schedule had before the restart, and that due
	// time is about an interval (4 s less its 10 % jitter) after the first
	// poll; the carrier sees a poll some time after it starts, the more so
	// on a busy machine, hence the 600 ms of slack.
	early := 0
	for _, c := range all {
		ts := s.pollTimes(c)
		if d, ok := due[c]; !ok || ts[1].Before(d) || d.Sub(ts[0]) < 3*time.Second {
			early++
			t.Logf("%s polled again at +%v, due at +%v (restart at +%v)", c, ts[1].Sub(ts[0]), d.Sub(ts[0]), restarted.Sub(ts[0]))
		}
	}
	if early > 0 {
		t.Fatalf("%d of 100 trackings re-polled before their time after a restart", early)
	}
}
