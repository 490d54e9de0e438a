package commandapi

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"golang.org/x/time/rate"

	"github.com/contrack/contrack/platform/httpapi"
)

// probeBudgets are the accounts' budgets of carrier probes in this
// process: a token bucket per account (ProbesPerMinute per minute, that
// many at once) in a bounded LRU, so one tenant's probes never use
// another's and a flood of accounts cannot grow it without limit.
type probeBudgets struct {
	perMinute int

	mu      sync.Mutex
	budgets *simplelru.LRU[string, *rate.Limiter] // by account
}

// maxProbeBudgets bounds the accounts remembered (a forgotten account's
// bucket starts full again: at most ProbesPerMinute more at once).
const maxProbeBudgets = 100_000

func newProbeBudgets(perMinute int) *probeBudgets {
	budgets, err := simplelru.NewLRU[string, *rate.Limiter](maxProbeBudgets, nil)
	if err != nil {
		panic(fmt.Sprintf("commandapi: probe budgets: %v", err)) // a constant bound
	}
	return &probeBudgets{perMinute: perMinute, budgets: budgets}
}

// take spends n probes of account's budget, or returns the 429 to answer
// (nothing spent) when the budget does not hold them now.
func (b *probeBudgets) take(account string, n int, now time.Time) error {
	if n == 0 {
		return nil
	}
	b.mu.Lock()
	lim, ok := b.budgets.Get(account) // a hit is the most recently used now
	if !ok {
		lim = rate.NewLimiter(rate.Limit(float64(b.perMinute)/60), b.perMinute)
		b.budgets.Add(account, lim) // beyond the bound the least recently used goes
	}
	b.mu.Unlock()
	r := lim.ReserveN(now, n)
	wait := time.Duration(math.MaxInt64)
	if r.OK() {
		wait = r.DelayFrom(now)
	}
	if wait == 0 {
		return nil
	}
	r.CancelAt(now)
	retry := "60"
	if wait < time.Hour {
		retry = strconv.Itoa(int(math.Ceil(wait.Seconds())))
	}
	return &httpapi.Error{Status: http.StatusTooManyRequests, Message: msgProbeBudget(b.perMinute),
		Header: http.Header{"Retry-After": {retry}}}
}

// msgProbeBudget is the 429 of a probe beyond the account's budget.
func msgProbeBudget(perMinute int) string {
	return fmt.Sprintf("Too many carrier probes: an account may make %d a minute (a health check is one, carrier inference one per carrier asked)", perMinute)
}

// msgProbePaused is the 429 of a health check while the account's calls to
// the carrier are paused.
func msgProbePaused(scac string) string {
	return fmt.Sprintf("Calls to %s with this account's credentials are paused after repeated failures; try again later", scac)
}

// pausedError is the 429 of a paused account's health check.
func pausedError(scac string, e *ProbePausedError) error {
	secs := max(1, int(math.Ceil(e.RetryAfter.Seconds())))
	return &httpapi.Error{Status: http.StatusTooManyRequests, Message: msgProbePaused(scac),
		Header: http.Header{"Retry-After": {strconv.Itoa(secs)}}}
}
