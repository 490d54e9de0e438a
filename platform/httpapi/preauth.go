package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"golang.org/x/time/rate"
)

// AddrLimiter is a token bucket per client address, held in a bounded LRU so
// a flood from many addresses cannot grow it without limit (the least
// recently seen address is forgotten first). IPv6 addresses share a bucket
// per /64, the block one host usually owns.
type AddrLimiter struct {
	rate  rate.Limit
	burst int

	mu      sync.Mutex
	buckets *simplelru.LRU[string, *rate.Limiter] // by addrKey
}

// NewAddrLimiter allows perSecond events per address with a burst of burst,
// remembering at most maxAddrs addresses (default 100,000 when ≤ 0).
func NewAddrLimiter(perSecond float64, burst, maxAddrs int) *AddrLimiter {
	if maxAddrs <= 0 {
		maxAddrs = 100_000
	}
	buckets, err := simplelru.NewLRU[string, *rate.Limiter](maxAddrs, nil)
	if err != nil {
		panic(fmt.Sprintf("httpapi: address limiter of %d: %v", maxAddrs, err)) // maxAddrs > 0 here
	}
	return &AddrLimiter{rate: rate.Limit(perSecond), burst: burst, buckets: buckets}
}

// Allow takes a token for addr and returns how long the caller must wait
// for it (0 when one is free). A wait over maxWait is refused (false): the
// token is left for later and the wait says when one will be free.
func (l *AddrLimiter) Allow(addr string, maxWait time.Duration) (time.Duration, bool) {
	key := addrKey(addr)
	l.mu.Lock()
	lim, ok := l.buckets.Get(key) // a hit is the most recently used now
	if !ok {
		lim = rate.NewLimiter(l.rate, l.burst)
		l.buckets.Add(key, lim) // beyond max the least recently used goes
	}
	l.mu.Unlock()
	now := time.Now()
	r := lim.ReserveN(now, 1)
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
	return l.buckets.Len()
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

// clientAddr is the request's client address: the connection's, unless the
// connection comes from a trusted proxy (Config.TrustedProxies) and the
// request carries Config.ClientIPHeader. Then the header's addresses are
// read from the right (the nearest hop first), skipping trusted proxies: the
// first one that is not a trusted proxy is the client. A header from any
// other peer is ignored, so a client cannot pick its own address (and with
// it a fresh pre-authentication bucket) by sending the header itself.
func (s *Server) clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	h := s.cfg.ClientIPHeader
	if h == "" || !s.trustedProxy(host) {
		return host
	}
	values := r.Header.Values(h)
	var hops []string
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			hops = append(hops, strings.TrimSpace(part))
		}
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			return host // a hop that is no address: the header is not the proxy's
		}
		if !s.trustedAddr(a) {
			return a.Unmap().String()
		}
	}
	if len(hops) > 0 {
		return hops[0] // every hop a trusted proxy: the farthest one
	}
	return host
}

// trustedProxy reports whether host (the connection's address) is in
// Config.TrustedProxies.
func (s *Server) trustedProxy(host string) bool {
	a, err := netip.ParseAddr(host)
	return err == nil && s.trustedAddr(a)
}

func (s *Server) trustedAddr(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ParseTrustedProxies reads networks in CIDR notation (a bare address is a
// network of one); it names the first entry that is neither.
func ParseTrustedProxies(entries []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if p, err := netip.ParsePrefix(e); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(e)
		if err != nil {
			return nil, fmt.Errorf("%q is neither a network in CIDR notation (10.0.0.0/8) nor an address", e)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
