package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// ETag is a route middleware for cheap re-polls: a 200 answer carries an
// ETag (the handler's, else a strong tag of the body) and a request whose
// If-None-Match names it gets 304 without a body. It buffers the answer.
func ETag(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bw := &bufferedWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(bw, r)
		if bw.status == http.StatusOK {
			tag := w.Header().Get("ETag")
			if tag == "" {
				sum := sha256.Sum256(bw.body.Bytes())
				tag = `"` + hex.EncodeToString(sum[:12]) + `"`
				w.Header().Set("ETag", tag)
			}
			if NoneMatch(r.Header.Get("If-None-Match"), tag) {
				h := w.Header()
				h.Del("Content-Type")
				h.Del("Content-Length")
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		w.WriteHeader(bw.status)
		_, _ = w.Write(bw.body.Bytes())
	})
}

// NoneMatch is If-None-Match's weak comparison (RFC 9110 13.1.2): true
// when header names tag (answer 304).
func NoneMatch(header, tag string) bool {
	if header == "" {
		return false
	}
	opaque := strings.TrimPrefix(tag, "W/")
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == opaque {
			return true
		}
	}
	return false
}

type bufferedWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
	wrote  bool
}

func (b *bufferedWriter) WriteHeader(status int) {
	if !b.wrote {
		b.status, b.wrote = status, true
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	b.wrote = true
	return b.body.Write(p)
}
