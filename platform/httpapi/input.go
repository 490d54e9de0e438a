package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MsgInvalidJSONChar answers a JSON body with invalid UTF-8 or an escaped
// control character in a string.
const MsgInvalidJSONChar = "Invalid character in JSON body: strings must be valid UTF-8 without control characters"

// BadText reports whether s is not valid UTF-8 or holds a control character
// (C0, DEL or C1). Postgres refuses NUL in text, and none of these belongs
// in an identifier, a reference, a path or a query parameter.
func BadText(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return true
		}
	}
	return false
}

// CheckField answers 400 "Invalid character in '<field>'" when a stored
// string field of a JSON body fails BadText; "" is fine (missing fields
// have their own messages).
func CheckField(field, value string) error {
	if BadText(value) {
		return BadRequest("Invalid character in '" + field + "'")
	}
	return nil
}

// checkInput answers 400 for a path or query parameter with invalid UTF-8 or
// a control character, naming the parameter, before any handler can pass it
// to a store (where it would be a 500).
func (s *Server) checkInput(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if BadText(r.URL.Path) {
			msg := "Invalid character in path"
			if name := s.badPathParam(r); name != "" {
				msg = "Invalid character in path parameter '" + name + "'"
			}
			WriteError(w, r, s.cfg.Log, BadRequest(msg))
			return
		}
		if r.URL.RawQuery != "" {
			q, err := url.ParseQuery(r.URL.RawQuery)
			if err != nil {
				WriteError(w, r, s.cfg.Log, BadRequest("Invalid query string: bad percent-encoding"))
				return
			}
			for name, vs := range q {
				if BadText(name) {
					WriteError(w, r, s.cfg.Log, BadRequest("Invalid character in a query parameter name"))
					return
				}
				for _, v := range vs {
					if BadText(v) {
						WriteError(w, r, s.cfg.Log, BadRequest("Invalid character in query parameter '"+name+"'"))
						return
					}
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// badPathParam names the wildcard of the matched route pattern that holds
// the first bad segment, "" when a literal segment is bad or nothing matched.
func (s *Server) badPathParam(r *http.Request) string {
	_, pattern := s.Fuego.Mux.Handler(r)
	if _, p, ok := strings.Cut(pattern, " "); ok {
		pattern = p
	}
	if i := strings.Index(pattern, "/"); i > 0 { // host-qualified pattern
		pattern = pattern[i:]
	}
	pat := strings.Split(pattern, "/")
	segs := strings.Split(r.URL.Path, "/")
	for i, seg := range segs {
		if !BadText(seg) {
			continue
		}
		if i >= len(pat) {
			// A trailing {name...} wildcard takes the rest of the path.
			if last := pat[len(pat)-1]; strings.HasSuffix(last, "...}") {
				return strings.TrimSuffix(strings.TrimPrefix(last, "{"), "...}")
			}
			return ""
		}
		p := pat[i]
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			return strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(p, "{"), "}"), "...")
		}
		return ""
	}
	return ""
}

// jsonTextOK reports whether a JSON document is valid UTF-8 and has no
// escaped control character in a string other than \t, \n and \r (raw
// control characters in strings are already a JSON syntax error).
// encoding/json would silently turn invalid UTF-8 into U+FFFD and pass NUL
// through to Postgres, which refuses it.
func jsonTextOK(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if i+1 < len(b) && b[i+1] == 'u' && i+5 < len(b) {
				if r, ok := hex4(b[i+2 : i+6]); ok && r != '\t' && r != '\n' && r != '\r' &&
					(r < 0x20 || (r >= 0x7f && r <= 0x9f)) {
					return false
				}
			}
			i++ // skip the escaped character
		default:
			if c < 0x20 || c == 0x7f { // raw C0 is a JSON syntax error anyway; raw DEL is legal JSON
				return false
			}
			if c >= 0x80 { // a multi-byte rune: check C1 controls
				r, size := utf8.DecodeRune(b[i:])
				if r >= 0x80 && r <= 0x9f {
					return false
				}
				i += size - 1
			}
		}
	}
	return true
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// QuoteValues names wrong values for a message: each quoted, at most five,
// each cut to 40 characters, so a message stays short whatever was sent.
func QuoteValues(vs []string) string {
	var q []string
	for i, v := range vs {
		if i == 5 {
			q = append(q, "…")
			break
		}
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		q = append(q, strconv.Quote(v))
	}
	return strings.Join(q, ", ")
}
