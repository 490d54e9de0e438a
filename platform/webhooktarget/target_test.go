package webhooktarget_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/webhooktarget"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		url, env     string
		allowPrivate bool
		msg          string
	}{
		{"https://hooks.example.com/contrack", "live", false, ""},
		{"http://hooks.example.com/x", "sandbox", false, ""},
		{"http://hooks.example.com/x", "live", false, webhooktarget.MsgNeedHTTPS},
		{"ftp://hooks.example.com/x", "sandbox", false, webhooktarget.MsgNotAbsolute},
		{"/relative", "sandbox", false, webhooktarget.MsgNotAbsolute},
		{"hooks.example.com", "sandbox", false, webhooktarget.MsgNotAbsolute},
		{"https://user:pw@hooks.example.com/", "live", false, webhooktarget.MsgUserinfo},
		{"http://127.0.0.1:9000/", "sandbox", false, webhooktarget.MsgPrivate},
		{"http://localhost/", "sandbox", false, webhooktarget.MsgPrivate},
		{"http://10.1.2.3/", "sandbox", false, webhooktarget.MsgPrivate},
		{"http://192.168.1.1/", "sandbox", false, webhooktarget.MsgPrivate},
		{"http://169.254.169.254/latest/meta-data", "sandbox", false, webhooktarget.MsgPrivate},
		{"http://[::1]/", "sandbox", false, webhooktarget.MsgPrivate},
		{"http://[fe80::1]/", "sandbox", false, webhooktarget.MsgPrivate},
		{"http://0.0.0.0/", "sandbox", false, webhooktarget.MsgPrivate},
		{"http://127.0.0.1:9000/", "sandbox", true, ""},
		{"https://8.8.8.8/hook", "live", false, ""},
	}
	for _, c := range cases {
		msg, ok := webhooktarget.Validate(c.url, c.env, c.allowPrivate)
		if msg != c.msg || ok != (c.msg == "") {
			t.Errorf("Validate(%q, %s, %v) = %q, %v; want %q", c.url, c.env, c.allowPrivate, msg, ok, c.msg)
		}
	}
}

func TestClientRefusesInternalAddressesAndRedirects(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.WriteHeader(200)
	}))
	defer srv.Close()
	_, err := webhooktarget.NewClient(false, time.Second).Get(srv.URL)
	if !errors.Is(err, webhooktarget.ErrForbiddenAddress) {
		t.Fatalf("loopback dial: %v", err)
	}
	c := webhooktarget.NewClient(true, time.Second)
	resp, err := c.Get(srv.URL + "/redirect")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("redirect followed: %d", resp.StatusCode)
	}
	if !webhooktarget.Forbidden(netip.MustParseAddr("::ffff:10.0.0.1")) {
		t.Fatal("IPv4-mapped private address allowed")
	}
}
