package httpapi

import "time"

// SetClock makes l read the time from now (tests simulate traffic with it).
func (l *RateLimiter) SetClock(now func() time.Time) { l.now = now }
