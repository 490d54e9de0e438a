package httpapi

import (
	"container/list"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// AddrLimiter is a token bucket per client address, held in a bounded LRU so
// a flood from many addresses cannot grow it without limit (the least
// recently seen address is forgotten first). IPv6 addresses share a bucket
// per /64, the block one host usually owns.
type AddrLimiter struct {
	rate  rate.Limit
	burst int
	max   int

	mu    sync.Mutex
	byKey map[string]*list.Element
	lru   *list.List // front: most recently used; values are *addrBucket
}

type addrBucket struct {
	key string
	lim *rate.Limiter
}

// NewAddrLimiter allows perSecond events per address with a burst of burst,
// remembering at most maxAddrs addresses (default 100,000 when ≤ 0).
func NewAddrLimiter(perSecond float64, burst, maxAddrs int) *AddrLimiter {
	if maxAddrs <= 0 {
		maxAddrs = 100_000
	}
	return &AddrLimiter{rate: rate.Limit(perSecond), burst: burst, max: maxAddrs,
		byKey: map[string]*list.Element{}, lru: list.New()}
}

// Allow takes a token for addr and returns how long the caller must wait
// for it (0 when one is free). A wait over maxWait is refused (false): the
// token is left for later and the wait says when one will be free.
func (l *AddrLimiter) Allow(addr string, maxWait time.Duration) (time.Duration, bool) {
	key := addrKey(addr)
	l.mu.Lock()
	var b *addrBucket
	if e, ok := l.byKey[key]; ok {
		l.lru.MoveToFront(e)
		b = e.Value.(*addrBucket)
	} else {
		if l.lru.Len() >= l.max {
			old := l.lru.Back()
			l.lru.Remove(old)
			delete(l.byKey, old.Value.(*addrBucket).key)
		}
		b = &addrBucket{key: key, lim: rate.NewLimiter(l.rate, l.burst)}
		l.byKey[key] = l.lru.PushFront(b)
	}
	l.mu.Unlock()
	now := time.Now()
	r := b.lim.ReserveN(now, 1)
	d := r.DelayFrom(now)
	if d > maxWait {
		r.CancelAt(now)
		return d, false
	}
	return d, true
}

// Len is the number of addresses remembered.
func (l *AddrLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}

func addrKey(addr string) string {
	ip := net.ParseIP(addr)
	if ip == nil {
		return addr
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

// clientAddr is the request's client address: the connection's, or the
// first value of the header a trusted proxy sets (Config.ClientIPHeader).
func (s *Server) clientAddr(r *http.Request) string {
	if h := s.cfg.ClientIPHeader; h != "" {
		if v := r.Header.Get(h); v != "" {
			first, _, _ := strings.Cut(v, ",")
			return strings.TrimSpace(first)
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
