package poller_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/testkit"
)

// BenchmarkFirstPollsOfABook is issue 29's forwarder: one sandbox account
// subscribes 2,000 containers at once (sandbox interval 1 minute, so the
// book needs 33 polls/s and its re-polls compete with the first polls),
// on the default plan rate (10 polls/s per account and carrier) and on a
// plan allowing 50. It prints when the first polls came after the
// subscription (p50, p99, the last) and the re-polls made before the last
// first poll. A first poll is the tracking's first event, less the
// pipeline's sub-second latency (make e2e-population measures that end to
// end). Each run lasts as long as the rate needs: 200 s and 40 s.
//
//	go test -run XXX -bench FirstPollsOfABook -benchtime 1x ./ingest/poller/
func BenchmarkFirstPollsOfABook(b *testing.B) {
	for _, rate := range []int{10, 50} {
		b.Run(fmt.Sprintf("rate=%d", rate), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				firstPollsOfABook(b, rate)
			}
		})
	}
}

func firstPollsOfABook(b *testing.B, rate int) {
	w := newWorld(b, 1)
	s := newSim(b)
	if _, err := w.db.Pool.Exec(context.Background(), `UPDATE usage_plans SET carrier_rate = $1 WHERE name = 'fast'`, rate); err != nil {
		b.Fatal(err)
	}
	w.credentials(b, "MAEU", map[string]string{"apiKey": "k"})
	book := containers(2000)
	subscribed := time.Now()
	for _, c := range book {
		w.track(b, "MAEU", c, true, "")
	}
	cfg := fastConfig()
	cfg.Interval = map[string]time.Duration{"sandbox": time.Minute}
	cfg.AccountConcurrency = 0 // the default: a second's worth of the rate
	run(b, w, s, cfg)
	testkit.Eventually(b, time.Duration(2000/rate)*time.Second*2, "a first poll of all 2,000 containers", func() bool {
		for _, c := range book {
			if s.count(c) == 0 {
				return false
			}
		}
		return true
	})
	firsts := make([]time.Duration, len(book))
	var last time.Time
	for i, c := range book {
		at := s.pollTimes(c)[0]
		firsts[i] = at.Sub(subscribed)
		if at.After(last) {
			last = at
		}
	}
	repolls := 0
	for _, c := range book {
		for _, at := range s.pollTimes(c)[1:] {
			if at.Before(last) {
				repolls++
			}
		}
	}
	slices.Sort(firsts)
	b.ReportMetric(firsts[len(firsts)/2].Seconds(), "first-poll-p50-s")
	b.ReportMetric(firsts[len(firsts)*99/100].Seconds(), "first-poll-p99-s")
	b.ReportMetric(firsts[len(firsts)-1].Seconds(), "first-poll-last-s")
	b.ReportMetric(float64(repolls), "repolls-before-last-first")
}
