package console

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// namespaces are the only absolute URLs allowed in what the console ships:
// XML namespace names that Preact passes to document.createElementNS for
// SVG (the charts), MathML and XHTML elements. They are identifiers the
// browser never fetches, and Preact cannot create SVG without them.
var namespaces = map[string]bool{
	"http://www.w3.org/2000/svg":         true,
	"http://www.w3.org/1998/Math/MathML": true,
	"http://www.w3.org/1999/xhtml":       true,
}

// absURL finds absolute and protocol-relative URLs, in code or markup.
var absURL = regexp.MustCompile(`(?i)(?:https?:)?//[a-z0-9][a-z0-9.-]*\.[a-z]{2,}[^\s"'<>)\x60]*|https?://[^\s"'<>)\x60]+`)

func externalURLs(body string) []string {
	var out []string
	for _, u := range absURL.FindAllString(body, -1) {
		if !namespaces[strings.TrimRight(u, `\`)] {
			out = append(out, u)
		}
	}
	return out
}

// The checker itself finds what it must.
func TestExternalURLCheckerFindsURLs(t *testing.T) {
	for _, s := range []string{`<script src="https://unpkg.com/x.js">`, `<link href="//cdn.example.com/a.css">`,
		`fetch("http://10.0.0.1/x")`, `url(https://fonts.example/f.woff)`} {
		if len(externalURLs(s)) == 0 {
			t.Errorf("not found in %s", s)
		}
	}
	if got := externalURLs(`createElementNS("http://www.w3.org/2000/svg","svg")`); len(got) != 0 {
		t.Errorf("namespace flagged: %v", got)
	}
}

// No built file, and no response of the console or /docs handlers,
// references another origin.
func TestNoExternalURLs(t *testing.T) {
	n := 0
	err := fs.WalkDir(Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Files, p)
		if err != nil {
			return err
		}
		n++
		if u := externalURLs(string(b)); len(u) > 0 {
			t.Errorf("%s references %v", p, u)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"index.html", "docs.html", "console.js", "docs.js", "console.css", "THIRD_PARTY_LICENSES.txt", "land-50m.json"} {
		if _, err := fs.Stat(Files, want); err != nil {
			t.Errorf("dist lacks %s (run make console): %v", want, err)
		}
	}
	if n < 6 {
		t.Fatalf("only %d built files", n)
	}

	mux := http.NewServeMux()
	Register(mux)
	mux.Handle("GET /docs/", DocsHandler("/openapi.json"))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, path := range []string{"/console/", "/console/console.js", "/console/console.css", "/console/subscriptions",
		"/docs/", "/docs/docs.js", "/docs/console.css"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(b) == 0 {
			t.Errorf("%s: %d, %d bytes", path, resp.StatusCode, len(b))
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		if u := externalURLs(string(b)); len(u) > 0 {
			t.Errorf("%s references %v", path, u)
		}
	}
	// The docs page names the spec URL it was given, escaped.
	resp, err := http.Get(srv.URL + "/docs/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `data-spec="/openapi.json"`) || !strings.Contains(string(b), `src="docs.js"`) {
		t.Errorf("docs page: %s", b)
	}
	if resp, err := http.Get(srv.URL + "/docs/nope.js"); err != nil || resp.StatusCode != 404 {
		t.Errorf("unknown docs asset: %v %v", resp, err)
	}
}

// The display helpers' own unit tests (console/web/src/*.test.mjs) under
// node --test: the console's sources need Node to build, so it is there.
func TestDisplayHelpers(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found: the console's JavaScript unit tests need it (make console does too)")
	}
	tests, _ := filepath.Glob("web/src/*.test.mjs")
	if len(tests) == 0 {
		t.Fatal("no web/src/*.test.mjs found")
	}
	out, err := exec.Command(node, append([]string{"--test"}, tests...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}
