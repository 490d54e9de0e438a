package webhooktarget

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

// fakeDNS answers from a fixed table; other names do not resolve.
func fakeDNS(table map[string][]string) lookupFunc {
	return func(_ context.Context, _, host string) ([]netip.Addr, error) {
		as, ok := table[host]
		if !ok {
			return nil, errors.New("no such host")
		}
		var out []netip.Addr
		for _, a := range as {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
}

// Names are judged by the addresses they resolve to: one internal address
// is enough to refuse; a name that does not resolve is accepted.
func TestValidateResolvesNames(t *testing.T) {
	dns := fakeDNS(map[string][]string{
		"hooks.example.com":     {"93.184.216.34", "2606:2800:220:1::1"},
		"internal.example.com":  {"10.0.0.7"},
		"mixed.example.com":     {"93.184.216.34", "127.0.0.1"},
		"metadata.example.com":  {"169.254.169.254"},
		"mapped.example.com":    {"::ffff:192.168.0.1"},
		"ula.example.com":       {"fd00::1"},
		"rebinding.example.com": {"0.0.0.0"},
	})
	cases := []struct {
		url, env     string
		allowPrivate bool
		msg          string
	}{
		{"https://hooks.example.com/contrack", "live", false, ""},
		{"https://HOOKS.example.com./x", "live", false, ""},
		{"https://internal.example.com/", "live", false, MsgPrivate},
		{"https://mixed.example.com/", "live", false, MsgPrivate},
		{"https://metadata.example.com/", "sandbox", false, MsgPrivate},
		{"https://mapped.example.com/", "sandbox", false, MsgPrivate},
		{"https://ula.example.com/", "sandbox", false, MsgPrivate},
		{"https://rebinding.example.com/", "sandbox", false, MsgPrivate},
		{"https://does-not-resolve.example.com/", "live", false, ""},
		{"https://internal.example.com/", "sandbox", true, ""},
		// Spellings of localhost never reach the resolver.
		{"http://localhost./", "sandbox", false, MsgPrivate},
		{"http://LocalHost/", "sandbox", false, MsgPrivate},
		{"http://api.localhost./", "sandbox", false, MsgPrivate},
	}
	for _, c := range cases {
		msg, ok := validate(context.Background(), c.url, c.env, c.allowPrivate, dns)
		if msg != c.msg || ok != (c.msg == "") {
			t.Errorf("validate(%q, %s, %v) = %q, %v; want %q", c.url, c.env, c.allowPrivate, msg, ok, c.msg)
		}
	}
}

func TestForbidden(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.8.8":            false,
		"93.184.216.34":      false,
		"2606:2800:220:1::1": false,
		"64:ff9b::808:808":   false, // NAT64 of 8.8.8.8
		"127.0.0.1":          true,
		"127.255.0.1":        true,
		"10.1.2.3":           true,
		"172.16.0.1":         true,
		"192.168.1.1":        true,
		"169.254.169.254":    true,
		"0.0.0.0":            true,
		"0.1.2.3":            true,
		"100.64.0.1":         true,
		"192.0.0.8":          true,
		"198.18.0.1":         true,
		"224.0.0.1":          true,
		"240.0.0.1":          true,
		"255.255.255.255":    true,
		"::":                 true,
		"::1":                true,
		"::ffff:127.0.0.1":   true,
		"64:ff9b::7f00:1":    true, // NAT64 of 127.0.0.1
		"64:ff9b::a00:1":     true, // NAT64 of 10.0.0.1
		"fe80::1":            true,
		"fec0::1":            true,
		"fd12:3456::1":       true,
		"ff02::1":            true,
	} {
		if got := Forbidden(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Forbidden(%s) = %v, want %v", addr, got, want)
		}
	}
}
