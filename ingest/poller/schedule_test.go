package poller_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/queryapi"
)

// schedule inserts n trackings of the world's account in one poll class,
// due at due, and returns their containers.
func (w *world) schedule(t testing.TB, prefix string, n, class int, due time.Time) []string {
	t.Helper()
	out := make([]string, n)
	for i := range out {
		out[i] = journey.CompleteContainer(fmt.Sprintf("%s%06d", prefix, i))
		if _, err := w.db.Pool.Exec(context.Background(), `INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier,
			connection_status, open_subscriptions, poll_class, next_poll_at) VALUES ($1, $2, 'sandbox', 'MAEU', 'container', $3, 'PENDING', 1, $4, $5)`,
			uuid.NewString(), w.account, out[i], class, due); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// firstPolls orders every container of groups by its first poll; it
// returns each group's positions in that order.
func firstPolls(s *sim, groups ...[]string) [][]int {
	type first struct {
		at    time.Time
		group int
	}
	var all []first
	for g, cs := range groups {
		for _, c := range cs {
			all = append(all, first{s.pollTimes(c)[0], g})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].at.Before(all[j].at) })
	pos := make([][]int, len(groups))
	for i, f := range all {
		pos[f.group] = append(pos[f.group], i)
	}
	return pos
}

// On the plan's default rate (10 polls/s), an account with an overdue
// backlog of re-polls and of polls due for expected events gets its new
// trackings polled first, then the expected-event polls, then the
// re-polls: order is by class, not by how long something has been due.
// A scheduler ordering by due time alone would poll the backlog due an
// hour ago first. The slack allowed is one second of the rate (polls of
// one claim round start together and reach the carrier in any order).
func TestNeverPolledFirstThenExpectedThenRegular(t *testing.T) {
	w := newWorld(t, 1)
	s := newSim(t)
	if _, err := w.db.Pool.Exec(context.Background(), `UPDATE accounts SET plan = NULL WHERE id = $1`, w.account); err != nil {
		t.Fatal(err)
	}
	w.credentials(t, "MAEU", map[string]string{"apiKey": "k"})
	now := time.Now()
	regular := w.schedule(t, "REGU", 30, 2, now.Add(-time.Hour))
	expected := w.schedule(t, "EXPU", 10, 1, now.Add(-time.Second))
	fresh := w.schedule(t, "NEWU", 20, 0, now)
	cfg := fastConfig()
	cfg.Interval = map[string]time.Duration{"sandbox": time.Hour}
	run(t, w, s, cfg)
	testkit.Eventually(t, 30*time.Second, "a first poll of all 60 trackings at 10/s", func() bool {
		for _, c := range slices.Concat(regular, expected, fresh) {
			if s.count(c) == 0 {
				return false
			}
		}
		return true
	})
	pos := firstPolls(s, fresh, expected, regular)
	const slack = 10
	t.Logf("positions of the first polls: new %v, expected %v, regular %v", pos[0], pos[1], pos[2])
	if last, first := slices.Max(pos[0]), slices.Min(pos[1]); last > first+slack {
		t.Errorf("a new tracking's first poll came at %d, after the expected-event poll at %d", last, first)
	}
	if last, first := slices.Max(pos[0]), slices.Min(pos[2]); last > first+slack {
		t.Errorf("a new tracking's first poll came at %d, after the re-poll at %d", last, first)
	}
	if last, first := slices.Max(pos[1]), slices.Min(pos[2]); last > first+slack {
		t.Errorf("an expected-event poll came at %d, after the re-poll at %d", last, first)
	}
}

// When an account's trackings need more polls than its rate allows (60
// trackings every 300 ms need 200/s; the plan allows 20/s), every interval
// stretches alike: each tracking is re-polled about every 3 s, none
// starved, none favoured. Subscriptions added to that backlog are still
// polled within seconds.
func TestIntervalsStretchEvenlyAndNewTrackingsStillGoFirst(t *testing.T) {
	w := newWorld(t, 1)
	s := newSim(t)
	if _, err := w.db.Pool.Exec(context.Background(), `UPDATE usage_plans SET carrier_rate = 20 WHERE name = 'fast'`); err != nil {
		t.Fatal(err)
	}
	w.credentials(t, "MAEU", map[string]string{"apiKey": "k"})
	old := containers(60)
	for _, c := range old {
		w.track(t, "MAEU", c, true, "")
	}
	cfg := fastConfig()
	cfg.Interval = map[string]time.Duration{"sandbox": 300 * time.Millisecond}
	// Polls are counted as they end, so a short window reads the bunching
	// of a loaded machine's completions (26 polls/s over 500 ms, once) as
	// much as the rate: 2 s averages it out.
	cfg.CapacityEvery = 2 * time.Second
	run(t, w, s, cfg)
	testkit.Eventually(t, 60*time.Second, "four polls of every tracking", func() bool {
		for _, c := range old {
			if s.count(c) < 4 {
				return false
			}
		}
		return true
	})
	var intervals []time.Duration
	for _, c := range old {
		ts := s.pollTimes(c)
		for i := 2; i < len(ts); i++ { // the backlog's steady state
			intervals = append(intervals, ts[i].Sub(ts[i-1]))
		}
	}
	slices.Sort(intervals)
	p5, p50, p95 := intervals[len(intervals)*5/100], intervals[len(intervals)/2], intervals[len(intervals)*95/100]
	t.Logf("re-poll intervals of 60 trackings at 20 polls/s: p5 %v, p50 %v, p95 %v (configured 300ms, the rate allows one every 3s)",
		p5.Round(time.Millisecond), p50.Round(time.Millisecond), p95.Round(time.Millisecond))
	if p50 < 2*time.Second || p95 > p50*3/2 || p5 < p50*2/3 {
		t.Errorf("intervals not stretched evenly: p5 %v, p50 %v, p95 %v", p5, p50, p95)
	}
	// The customer sees it: GET /account's pollingCapacity shows the
	// stretched interval against the configured one, and the rate used.
	api := testenv.NewAPI(t, w.db.Pool, func(srv *fuego.Server) { queryapi.Register(srv, queryapi.Deps{Pool: w.db.Pool}) })
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"}) // the world's account
	var shown map[string]any
	testkit.Eventually(t, 10*time.Second, "GET /account to show MAEU's polling capacity with its re-polls", func() bool {
		r := api.Do("GET", "/account", key, nil)
		list, _ := r.JSON["pollingCapacity"].([]any)
		if len(list) != 1 {
			return false
		}
		shown = list[0].(map[string]any)
		return shown["intervalP50Seconds"] != nil && shown["intervalP50Seconds"].(float64) > 2
	})
	t.Logf("GET /account pollingCapacity: %v", shown)
	if shown["scacCode"] != "MAEU" || shown["trackings"] != 60.0 || shown["awaitingFirstPoll"] != 0.0 ||
		shown["configuredIntervalSeconds"] != 0.3 || shown["allowedPollsPerSecond"] != 20.0 {
		t.Errorf("pollingCapacity %v", shown)
	}
	// The rate shown counts polls as they end, over a short window: a busy
	// machine's bunched completions can read above the plan's rate for a
	// window, so it is held to plausibility; the limit itself is checked
	// where the carrier sees it, over the whole backlog.
	if p95, used := shown["intervalP95Seconds"].(float64), shown["pollsPerSecond"].(float64); p95 > 4.5 || used <= 0 || used > 2*20 {
		t.Errorf("pollingCapacity p95 %vs (want about 3), %v polls/s used (want about 20, at most twice that in a window)", p95, used)
	}
	var starts []time.Time
	for _, c := range old {
		starts = append(starts, s.pollTimes(c)...)
	}
	slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
	// The rate, plus its one-second burst and a second more for the
	// requests' own jitter on a busy machine: without the limit the
	// backlog would be polled at 200/s.
	if span := starts[len(starts)-1].Sub(starts[0]).Seconds(); float64(len(starts)) > 20*span+2*20 {
		t.Errorf("the carrier saw %d polls in %.1fs: %.1f/s, over the plan's 20/s", len(starts), span, float64(len(starts))/span)
	}
	// New subscriptions into the backlog: their first polls come before
	// the backlog's next round could (20 new at 20/s: about a second).
	added := time.Now()
	fresh := w.schedule(t, "NEWU", 20, 0, added)
	testkit.Eventually(t, 20*time.Second, "first polls of the new trackings", func() bool {
		for _, c := range fresh {
			if s.count(c) == 0 {
				return false
			}
		}
		return true
	})
	var last time.Time
	for _, c := range fresh {
		if at := s.pollTimes(c)[0]; at.After(last) {
			last = at
		}
	}
	t.Logf("20 new trackings in a stretched backlog first-polled within %v", last.Sub(added).Round(time.Millisecond))
	if last.Sub(added) > p50 {
		t.Errorf("the new trackings waited %v for their first polls, as long as the backlog's interval %v", last.Sub(added), p50)
	}
}
