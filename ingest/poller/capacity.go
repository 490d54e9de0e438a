package poller

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// capacityRing is how many of the newest achieved intervals of an (account,
// carrier) its p50 and p95 are read from.
const capacityRing = 512

// capacity is what an (account, carrier) gets of its rate: the intervals
// its trackings were re-polled at (the newest capacityRing) and the polls
// made since the last write.
type capacity struct {
	intervals [capacityRing]time.Duration
	filled    int
	next      int
	polls     int
	since     time.Time
}

func (g *accountGate) observeInterval(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := &g.capacity
	c.intervals[c.next] = d
	c.next = (c.next + 1) % capacityRing
	c.filled = min(c.filled+1, capacityRing)
}

func (g *accountGate) countPoll() {
	g.mu.Lock()
	g.capacity.polls++
	g.mu.Unlock()
}

// capacityFigures are one (account, carrier)'s row of poll_capacity.
type capacityFigures struct {
	key           groupKey
	p50, p95      *int64 // ms; nil before any re-poll
	pollsPerSec   float64
	allowedPerSec float64
	configured    time.Duration
}

// take reads the figures and starts a new count of polls.
func (g *accountGate) take(now time.Time, configured time.Duration) capacityFigures {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := &g.capacity
	f := capacityFigures{key: g.key, allowedPerSec: g.rate, configured: configured}
	if el := now.Sub(c.since).Seconds(); el > 0 {
		f.pollsPerSec = float64(c.polls) / el
	}
	c.polls, c.since = 0, now
	if c.filled > 0 {
		xs := slices.Clone(c.intervals[:c.filled])
		slices.Sort(xs)
		p50 := xs[(len(xs)-1)*50/100].Milliseconds()
		p95 := xs[(len(xs)-1)*95/100].Milliseconds()
		f.p50, f.p95 = &p50, &p95
	}
	return f
}

// writeCapacity writes, for every (account, carrier) this poller polls,
// its open trackings, those still awaiting their first poll, the interval
// achieved (p50, p95) against the configured one and the polls per second
// used of the plan's rate, for GET /account. The counts come from the
// schedule's index, in one statement for all of them.
func (p *poller) writeCapacity(ctx context.Context) error {
	now := p.deps.Now()
	shares := p.gates.shares()
	figs := make([]capacityFigures, 0, len(shares))
	for _, g := range shares {
		figs = append(figs, g.take(now, p.cfg.interval(g.env, g.key.scac)))
	}
	if len(figs) == 0 {
		return nil
	}
	n := len(figs)
	accounts, scacs := make([]string, n), make([]string, n)
	p50s, p95s := make([]*int64, n), make([]*int64, n)
	used, allowed, configured := make([]float64, n), make([]float64, n), make([]int64, n)
	for i, f := range figs {
		accounts[i], scacs[i], p50s[i], p95s[i] = f.key.account, f.key.scac, f.p50, f.p95
		used[i], allowed[i], configured[i] = f.pollsPerSec, f.allowedPerSec, f.configured.Milliseconds()
	}
	_, err := p.deps.Pool.Exec(ctx, `
		WITH f AS (
			SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::bigint[], $5::float8[], $6::float8[], $7::bigint[])
			AS f(account_id, scac, p50, p95, used, allowed, configured)
		), counts AS (
			SELECT f.account_id, f.scac,
			       (SELECT count(*) FROM trackings t WHERE t.account_id = f.account_id AND t.scac = f.scac AND t.open_subscriptions > 0) AS trackings,
			       (SELECT count(*) FROM trackings t WHERE t.account_id = f.account_id AND t.scac = f.scac AND t.open_subscriptions > 0
			            AND t.poll_class = 0) AS awaiting
			FROM f
		)
		INSERT INTO poll_capacity (account_id, scac, trackings, awaiting_first_poll, configured_interval_ms,
		    interval_p50_ms, interval_p95_ms, polls_per_second, allowed_per_second, updated_at)
		SELECT f.account_id, f.scac, c.trackings, c.awaiting, f.configured,
		       coalesce(f.p50, pc.interval_p50_ms), coalesce(f.p95, pc.interval_p95_ms), f.used, f.allowed, $8
		FROM f JOIN counts c USING (account_id, scac)
		LEFT JOIN poll_capacity pc USING (account_id, scac)
		ON CONFLICT (account_id, scac) DO UPDATE SET
		    trackings = EXCLUDED.trackings, awaiting_first_poll = EXCLUDED.awaiting_first_poll,
		    configured_interval_ms = EXCLUDED.configured_interval_ms,
		    interval_p50_ms = EXCLUDED.interval_p50_ms, interval_p95_ms = EXCLUDED.interval_p95_ms,
		    polls_per_second = EXCLUDED.polls_per_second, allowed_per_second = EXCLUDED.allowed_per_second,
		    updated_at = EXCLUDED.updated_at`,
		accounts, scacs, p50s, p95s, used, allowed, configured, now)
	if err != nil {
		return fmt.Errorf("write capacity: %w", err)
	}
	return nil
}
