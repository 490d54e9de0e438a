package carrier_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/schemas/carriers"
)

// credentialHeaders are every header a carrier adapter puts credentials in.
var credentialHeaders = []string{"Authorization", "Consumer-Key", "X-IBM-Client-Id", "X-IBM-Client-Secret", "KeyId", "x-api-key", "apiKey"}

// recorder is the "other origin": it counts requests and those that carried
// a credential (a credential header, or a credential value anywhere in the
// URL, headers or body).
type recorder struct {
	srv      *httptest.Server
	mu       sync.Mutex
	requests int
	leaks    []string
}

func newRecorder(t *testing.T, secrets []string) *recorder {
	rec := &recorder{}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.requests++
		for _, h := range credentialHeaders {
			if r.Header.Get(h) != "" {
				rec.leaks = append(rec.leaks, "header "+h+" on "+r.URL.Path)
			}
		}
		all := r.URL.String() + "\n" + string(body)
		for k, vs := range r.Header {
			all += "\n" + k + ": " + strings.Join(vs, ",")
		}
		for _, s := range secrets {
			if strings.Contains(all, s) || strings.Contains(all, url.QueryEscape(s)) {
				rec.leaks = append(rec.leaks, "credential value on "+r.URL.Path)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[]`))
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (r *recorder) seen() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests, append([]string(nil), r.leaks...)
}

// secretCreds gives every field of c a distinctive value the recorder looks for.
func secretCreds(c carriers.Carrier) (carrier.Credentials, []string) {
	cr := carrier.Credentials{}
	var values []string
	for _, f := range c.RequiredFields {
		v := "SeCrEt-" + strings.ToLower(c.SCAC) + "-" + f
		cr[f] = v
		values = append(values, v)
	}
	return cr, values
}

// A carrier that redirects (any status, events or token endpoint) to
// another origin — here the same host on another port, which Go's client
// treats as the same host and would send Authorization to — never gets the
// credentials there: the redirect is refused and the poll fails clearly.
func TestRedirectToAnotherOriginNeverCarriesCredentials(t *testing.T) {
	for _, c := range carriers.All() {
		for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
			t.Run(c.SCAC+"/"+http.StatusText(status), func(t *testing.T) {
				cr, secrets := secretCreds(c)
				other := newRecorder(t, secrets)
				stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, other.srv.URL+r.URL.RequestURI(), status)
				}))
				defer stub.Close()
				a, err := carrier.New(c.SCAC, stub.URL+"/"+strings.ToLower(c.SCAC), nil)
				if err != nil {
					t.Fatal(err)
				}
				res, err := a.Fetch(context.Background(), cr, carrier.Query{Kind: carrier.KindContainer, Value: container})
				if err != nil {
					t.Fatal(err)
				}
				n, leaks := other.seen()
				t.Logf("%s %d: outcome %s, reason %q; other origin saw %d request(s)", c.SCAC, status, res.Outcome, res.Reason, n)
				if len(leaks) > 0 {
					t.Fatalf("credentials reached the other origin: %v", leaks)
				}
				if n != 0 {
					t.Fatalf("the other origin was called %d times", n)
				}
				if res.Outcome != carrier.OutcomeError || !strings.Contains(res.Reason, "origin") {
					t.Fatalf("outcome %s reason %q, want a clear error about the origin", res.Outcome, res.Reason)
				}
			})
		}
	}
}

// A redirect within the carrier's origin is still followed, credentials and all.
func TestRedirectWithinTheOriginIsFollowed(t *testing.T) {
	h := sandbox.NewHandler(sandbox.Config{})
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/old/") {
			http.Redirect(w, r, strings.TrimPrefix(r.URL.RequestURI(), "/old"), http.StatusTemporaryRedirect)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer stub.Close()
	a, err := carrier.New("MAEU", stub.URL+"/old/maeu", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Fetch(context.Background(), carrier.Credentials{"apiKey": "k"}, carrier.Query{Kind: carrier.KindContainer, Value: container})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != carrier.OutcomeSuccess {
		t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
}

// nextPageTo rewrites the sandbox's Next-Page cursor into a link built by link.
type nextPageTo struct {
	http.ResponseWriter
	link  func(cursor string) string
	wrote bool
}

func (w *nextPageTo) WriteHeader(code int) {
	if c := w.Header().Get("Next-Page"); c != "" && !w.wrote {
		w.Header().Set("Next-Page", w.link(c))
	}
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *nextPageTo) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// An absolute (or scheme-relative) Next-Page link to another origin is not
// followed: the poll fails with a clear error and the other origin never
// sees a request, let alone a credential. Token carriers included: their
// token requests stay on the carrier.
func TestNextPageToAnotherOriginIsRefused(t *testing.T) {
	h := sandbox.NewHandler(sandbox.Config{PageSize: 2})
	for _, c := range carriers.All() {
		if c.Format != carriers.FormatTNT22 {
			continue // only TNT 2.2 paginates
		}
		for name, absolute := range map[string]bool{"absolute": true, "scheme-relative": false} {
			t.Run(c.SCAC+"/"+name, func(t *testing.T) {
				cr, secrets := secretCreds(c)
				other := newRecorder(t, secrets)
				otherURL, _ := url.Parse(other.srv.URL)
				stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					h.ServeHTTP(&nextPageTo{ResponseWriter: w, link: func(cursor string) string {
						link := "//" + otherURL.Host + r.URL.Path + "?cursor=" + url.QueryEscape(cursor)
						if absolute {
							link = "http:" + link
						}
						return link
					}}, r)
				}))
				defer stub.Close()
				a, err := carrier.New(c.SCAC, stub.URL+"/"+strings.ToLower(c.SCAC), nil)
				if err != nil {
					t.Fatal(err)
				}
				res, err := a.Fetch(context.Background(), cr, carrier.Query{Kind: carrier.KindContainer, Value: "PAGU0000008"})
				if err != nil {
					t.Fatal(err)
				}
				n, leaks := other.seen()
				t.Logf("%s %s: outcome %s, reason %q; other origin saw %d request(s)", c.SCAC, name, res.Outcome, res.Reason, n)
				if len(leaks) > 0 || n != 0 {
					t.Fatalf("other origin called %d times; leaks %v", n, leaks)
				}
				if res.Outcome != carrier.OutcomeError || !strings.Contains(res.Reason, "origin") {
					t.Fatalf("outcome %s reason %q, want a clear error about the origin", res.Outcome, res.Reason)
				}
			})
		}
	}
	if !errors.Is(carrier.ErrOtherOrigin, carrier.ErrOtherOrigin) {
		t.Fatal("sentinel")
	}
}
