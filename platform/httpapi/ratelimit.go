package httpapi

import (
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/contrack/contrack/platform/auth"
)

// RateLimiter enforces each key's usage plan with a token bucket per key.
// Buckets live in process memory: with several API replicas each enforces
// the plan on its own share of the traffic.
type RateLimiter struct {
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	now     func() time.Time
}

// NewRateLimiter returns an empty limiter.
func NewRateLimiter() *RateLimiter {
	return &RateLimiter{buckets: map[string]*rate.Limiter{}, now: time.Now}
}

// Allow takes a token for k; when none is left it returns how long until one is.
func (l *RateLimiter) Allow(k auth.Key) (wait time.Duration, ok bool) {
	plan, found := auth.LookupPlan(k.Account.Plan)
	if !found {
		plan = auth.NoPlanLimits
	}
	l.mu.Lock()
	b := l.buckets[k.ID]
	if b == nil || b.Limit() != rate.Limit(plan.RatePerSecond) || b.Burst() != plan.Burst {
		b = rate.NewLimiter(rate.Limit(plan.RatePerSecond), plan.Burst)
		l.buckets[k.ID] = b
	}
	l.mu.Unlock()
	now := l.now()
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}
