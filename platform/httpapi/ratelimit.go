package httpapi

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/contrack/contrack/platform/auth"
)

// Quota counts requests against an account's daily quota (auth.DailyUsage).
type Quota interface {
	Take(ctx context.Context, account string, quota int64, now time.Time) (used int64, ok bool)
}

var _ Quota = (*auth.DailyUsage)(nil)

// RateLimiter enforces each key's usage plan: a token bucket per key (the
// plan's rate and burst) and, when the plan has one and a Quota is set, the
// account's daily quota. Buckets live in process memory: with several API
// replicas each enforces the rate on its own share of the traffic. A key's
// plan comes with the key (auth.Account.UsagePlan), so a changed plan takes
// effect as soon as the key is resolved again.
type RateLimiter struct {
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	now     func() time.Time
	quota   Quota
}

// NewRateLimiter returns an empty limiter without daily quotas.
func NewRateLimiter() *RateLimiter {
	return &RateLimiter{buckets: map[string]*rate.Limiter{}, now: time.Now}
}

// WithQuota makes l enforce plans' daily quotas with q; it returns l.
func (l *RateLimiter) WithQuota(q Quota) *RateLimiter {
	l.quota = q
	return l
}

// Decision is the answer of Allow and what the RateLimit-* headers say:
// the policy nearer exhaustion, the key's bucket or the account's quota.
type Decision struct {
	OK bool
	// Wait is how long until a request can succeed (when !OK): the next
	// token, or the next UTC midnight for a used-up quota.
	Wait time.Duration
	// Limit is the bucket's burst or the daily quota; Remaining the whole
	// tokens or requests left after this request; Reset the time until the
	// bucket is full again or until the next UTC midnight.
	Limit, Remaining int64
	Reset            time.Duration
}

// Allow takes a token for k (and counts the request against its account's
// daily quota) or says why not.
func (l *RateLimiter) Allow(ctx context.Context, k auth.Key) Decision {
	plan := auth.NoPlanLimits
	if k.Account.UsagePlan != nil {
		plan = *k.Account.UsagePlan
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
		return Decision{Wait: d, Limit: int64(plan.Burst), Reset: untilFull(b, plan, now)}
	}
	tokens := b.TokensAt(now)
	dec := Decision{OK: true, Limit: int64(plan.Burst), Remaining: int64(math.Max(0, math.Floor(tokens))), Reset: untilFull(b, plan, now)}
	if plan.DailyQuota <= 0 || l.quota == nil {
		return dec
	}
	used, ok := l.quota.Take(ctx, k.Account.ID, plan.DailyQuota, now)
	midnight := auth.Day(now).Add(24 * time.Hour).Sub(now)
	if !ok {
		r.CancelAt(now)
		return Decision{Wait: midnight, Limit: plan.DailyQuota, Reset: midnight}
	}
	if left := plan.DailyQuota - used; left < dec.Remaining {
		dec.Limit, dec.Remaining, dec.Reset = plan.DailyQuota, left, midnight
	}
	return dec
}

func untilFull(b *rate.Limiter, plan auth.Plan, now time.Time) time.Duration {
	missing := float64(plan.Burst) - b.TokensAt(now)
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing / plan.RatePerSecond * float64(time.Second))
}

// setHeaders writes RateLimit-Limit, RateLimit-Remaining and
// RateLimit-Reset (whole seconds, rounded up) as the IETF draft
// (draft-ietf-httpapi-ratelimit-headers) names them.
func (d Decision) setHeaders(h http.Header) {
	h.Set("RateLimit-Limit", strconv.FormatInt(d.Limit, 10))
	h.Set("RateLimit-Remaining", strconv.FormatInt(d.Remaining, 10))
	h.Set("RateLimit-Reset", strconv.FormatInt(int64(math.Ceil(d.Reset.Seconds())), 10))
}
