// Package console serves the browser console (/console) and the API docs
// viewer (/docs) from files embedded in the binary: nothing is loaded from
// another origin, so both work on a network without internet. The front-end
// source is in web/; `make console` builds it into dist/ (committed, so
// building the binary needs no Node).
package console

import (
	"bytes"
	"embed"
	"html"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed dist
var dist embed.FS

// Files is the built front-end (index.html, docs.html, console.js, …).
var Files = mustSub(dist, "dist")

func mustSub(f fs.FS, dir string) fs.FS {
	s, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return s
}

// Public lists the paths the API server must serve without a key: the files
// are static and the console calls the API with the user's key itself.
var Public = []string{"/console", "/console/"}

// csp lets the pages load and call only their own origin.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func secure(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	// The files change with the binary; revalidate rather than cache stale ones.
	h.Set("Cache-Control", "no-cache")
}

// Register serves the console under /console/ on mux.
func Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /console", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/console/", http.StatusMovedPermanently)
	})
	mux.Handle("GET /console/", http.StripPrefix("/console/", Handler()))
}

// Handler serves the console's files; "" and unknown paths without an
// extension get index.html (the console routes on the URL fragment).
func Handler() http.Handler {
	files := http.FileServerFS(Files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secure(w)
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "" || name == "docs.html" || !strings.Contains(name, ".") {
			serveFile(w, r, "index.html", nil)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// DocsHandler is the /docs UI: fuego's UIHandler hook, given the spec URL.
// It answers every path under /docs/ — the viewer page, or its assets.
func DocsHandler(specURL string) http.Handler {
	files := http.FileServerFS(Files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secure(w)
		name := strings.TrimPrefix(r.URL.Path, "/docs/")
		switch name {
		case "", "index.html":
			serveFile(w, r, "docs.html", map[string]string{"{{SPEC}}": html.EscapeString(specURL)})
		case "docs.js", "console.css", "THIRD_PARTY_LICENSES.txt":
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/" + name
			files.ServeHTTP(w, r2)
		default:
			http.NotFound(w, r)
		}
	})
}

func serveFile(w http.ResponseWriter, r *http.Request, name string, replace map[string]string) {
	b, err := fs.ReadFile(Files, name)
	if err != nil {
		http.Error(w, "console not built: run make console", http.StatusInternalServerError)
		return
	}
	for k, v := range replace {
		b = bytes.ReplaceAll(b, []byte(k), []byte(v))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(b) // a client gone away is not our error
}
