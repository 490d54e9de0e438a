// Package webhooktarget decides where webhooks may be sent. Live accounts need
// https; no account may point contrack at loopback, private, link-local or
// other internal addresses (server-side request forgery) unless the
// development flag allows it. The check runs when a URL is configured and
// again at every connection, against the addresses the name resolves to then.
package webhooktarget

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Messages of Validate, answered as 400s.
const (
	MsgNotAbsolute = "Invalid 'targetUrl': must be an absolute http or https URL"
	MsgNeedHTTPS   = "Invalid 'targetUrl': live webhooks must use https"
	MsgUserinfo    = "Invalid 'targetUrl': must not contain a user name or password"
	MsgPrivate     = "Invalid 'targetUrl': loopback, private and link-local addresses are not allowed (for a local receiver in development, the operator sets CONTRACK_ALLOW_PRIVATE_WEBHOOKS=true)"
	MsgTooLong     = "Invalid 'targetUrl': longer than 2048 characters"
)

// Validate checks a webhook URL for an account of env ("live" or "sandbox").
// A host name is resolved (2 s at most) and refused if any of its addresses
// is internal; a name that does not resolve is accepted: sending fails and
// is retried, and NewClient re-checks the addresses it actually dials.
func Validate(rawURL, env string, allowPrivate bool) (msg string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return validate(ctx, rawURL, env, allowPrivate, net.DefaultResolver.LookupNetIP)
}

// ValidateField is Validate for another URL than a webhook's that
// contrack calls with an account's data or credentials (a carrier
// connector's base or token URL): the same rules, the messages naming field
// ("'baseUrl'") instead of 'targetUrl'.
func ValidateField(field, rawURL, env string, allowPrivate bool) (msg string, ok bool) {
	msg, ok = Validate(rawURL, env, allowPrivate)
	if !ok {
		msg = strings.Replace(msg, "'targetUrl'", "'"+field+"'", 1)
		msg = strings.Replace(msg, "live webhooks must use https", "live accounts must use https", 1)
	}
	return msg, ok
}

// lookupFunc resolves a host name, as net.Resolver.LookupNetIP does.
type lookupFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

func validate(ctx context.Context, rawURL, env string, allowPrivate bool, lookup lookupFunc) (msg string, ok bool) {
	if len(rawURL) > 2048 {
		return MsgTooLong, false
	}
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return MsgNotAbsolute, false
	}
	if u.User != nil {
		return MsgUserinfo, false
	}
	if env == "live" && u.Scheme != "https" {
		return MsgNeedHTTPS, false
	}
	if allowPrivate {
		return "", true
	}
	// "localhost." is the same name as "localhost" (RFC 6761 reserves both
	// it and every name under it for loopback).
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return MsgPrivate, false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if Forbidden(ip) {
			return MsgPrivate, false
		}
		return "", true
	}
	addrs, err := lookup(ctx, "ip", host)
	if err == nil {
		for _, a := range addrs {
			if Forbidden(a) {
				return MsgPrivate, false
			}
		}
	}
	return "", true
}

// Forbidden reports whether ip is an address webhooks must not reach:
// loopback, private (RFC 1918, fc00::/7), link-local, unspecified, multicast,
// shared (100.64.0.0/10), benchmarking, "this network" (0.0.0.0/8), reserved
// (240.0.0.0/4, with the broadcast address), IETF protocol assignments
// (192.0.0.0/24) and deprecated site-local IPv6. IPv4-mapped IPv6 addresses,
// and NAT64 addresses (64:ff9b::/96), are judged by their IPv4 address.
func Forbidden(ip netip.Addr) bool {
	ip = ip.Unmap()
	if nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte(b[12:]))
	}
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return true
	}
	for _, p := range internalPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

var (
	nat64            = netip.MustParsePrefix("64:ff9b::/96")
	internalPrefixes = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),     // "this network"; 0.0.0.0 reaches the local host
		netip.MustParsePrefix("100.64.0.0/10"), // shared address space (carrier-grade NAT)
		netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments
		netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
		netip.MustParsePrefix("240.0.0.0/4"),   // reserved, and 255.255.255.255
		netip.MustParsePrefix("fec0::/10"),     // site-local (deprecated)
	}
)

// ErrForbiddenAddress is the dial error for an internal address.
var ErrForbiddenAddress = errors.New("target: address not allowed for webhooks (loopback, private or link-local; CONTRACK_ALLOW_PRIVATE_WEBHOOKS=true allows them in development)")

// NewClient returns the HTTP client webhooks are sent with: it refuses to
// connect to internal addresses (unless allowPrivate), checked on the
// address actually dialled, and never follows redirects.
func NewClient(allowPrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
			}
			if Forbidden(ap.Addr()) {
				return fmt.Errorf("%w: %s", ErrForbiddenAddress, ap.Addr())
			}
			return nil
		}
	}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would hide the dialled address
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
