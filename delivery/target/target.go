// Package target decides where webhooks may be sent. Live accounts need
// https; no account may point contrack at loopback, private, link-local or
// other internal addresses (server-side request forgery) unless the
// development flag allows it. The check runs when a URL is configured and
// again at every connection, against the addresses the name resolves to then.
package target

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
	MsgPrivate     = "Invalid 'targetUrl': loopback, private and link-local addresses are not allowed"
	MsgTooLong     = "Invalid 'targetUrl': longer than 2048 characters"
)

// Validate checks a webhook URL for an account of env ("live" or "sandbox").
func Validate(rawURL, env string, allowPrivate bool) (msg string, ok bool) {
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
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return MsgPrivate, false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if Forbidden(ip) {
			return MsgPrivate, false
		}
		return "", true
	}
	// A name: refuse it if it resolves to an internal address now. A name
	// that does not resolve is accepted; sending fails and is retried.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err == nil {
		for _, a := range addrs {
			if Forbidden(a) {
				return MsgPrivate, false
			}
		}
	}
	return "", true
}

// Forbidden reports whether ip is an address webhooks must not reach.
func Forbidden(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() ||
		cgnat.Contains(ip) || benchmarking.Contains(ip) || ip == metadataV4
}

var (
	cgnat        = netip.MustParsePrefix("100.64.0.0/10")
	benchmarking = netip.MustParsePrefix("198.18.0.0/15")
	metadataV4   = netip.MustParseAddr("169.254.169.254")
)

// ErrForbiddenAddress is the dial error for an internal address.
var ErrForbiddenAddress = errors.New("target: address not allowed for webhooks")

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
