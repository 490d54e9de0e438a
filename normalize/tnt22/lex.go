package tnt22

import (
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/contrack/contrack/normalize"
)

// lexer is a small pull-style JSON reader. The parser uses it instead of
// encoding/json for two reasons: speed (encoding/json's reflection decodes
// a GET /events page at well under the 100k events/s target) and error
// paths (encoding/json cannot say which array element held a wrong type).
// It accepts exactly RFC 8259 JSON — FuzzParse checks every accepted input
// against json.Valid — and replaces invalid UTF-8 with U+FFFD as
// encoding/json does.
type lexer struct {
	data  []byte
	src   string // a copy of data, which decoded strings are sliced from
	pos   int
	depth int
	// path is the member names of the objects being decoded, for the
	// paths of repairs (errors build theirs while unwinding).
	path []string
	// repairs are the deviations read so far, paths below the element.
	repairs []normalize.Repair
}

// repair records a deviation at member k of the object being decoded.
func (l *lexer) repair(kind normalize.RepairKind, k, value string) {
	p := k
	if len(l.path) > 0 {
		p = strings.Join(l.path, ".") + "." + k
	}
	l.repairs = append(l.repairs, normalize.Repair{Kind: kind, Path: p, Value: value})
}

// newLexer copies data once into a string; every string value without
// escapes is then a substring of it rather than an allocation of its own
// (a third of the parse time went to those). The copy also means events
// never alias the caller's buffer, which the pipeline reuses. The cost is
// that events from one payload keep the whole payload's bytes alive until
// the last of them is dropped.
func newLexer(data []byte) *lexer {
	return &lexer{data: data, src: string(data)}
}

// newLexerInPlace reads data without the copy: its strings alias data. Only
// for a parse that keeps none of them (Options.VerdictOnly, whose errors
// are cloned before they leave ParseWithOptions), while data does not change.
func newLexerInPlace(data []byte) *lexer {
	return &lexer{data: data, src: unsafe.String(unsafe.SliceData(data), len(data))}
}

// maxDepth bounds nesting so a hostile payload ("[[[[…") cannot recurse the
// stack away; DCSA events nest four levels deep.
const maxDepth = 64

// pathError is an error at a place in the payload. Paths are built while
// unwinding (at), so the success path pays nothing for them.
type pathError struct {
	path   string
	reason string
}

func (e *pathError) Error() string {
	if e.path == "" {
		return e.reason
	}
	return e.path + ": " + e.reason
}

// at prefixes err's path with seg: a field name, or "[i]" for an element.
func at(seg string, err error) error {
	pe, ok := err.(*pathError)
	if !ok {
		return &pathError{path: seg, reason: err.Error()}
	}
	switch {
	case pe.path == "":
		pe.path = seg
	case pe.path[0] == '[':
		pe.path = seg + pe.path
	default:
		pe.path = seg + "." + pe.path
	}
	return pe
}

func fail(reason string) error { return &pathError{reason: reason} }

func (l *lexer) syntax(what string) error {
	if l.pos >= len(l.data) {
		return fail("invalid JSON: unexpected end of input, " + what)
	}
	return fail("invalid JSON at byte " + strconv.Itoa(l.pos) + ": " + what + ", got " + quoteByte(l.data[l.pos]))
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return "byte 0x" + strconv.FormatUint(uint64(c), 16)
}

func (l *lexer) ws() {
	// Pretty-printed payloads indent with runs of spaces: skip them eight
	// at a time.
	for l.pos+8 <= len(l.data) && binary.LittleEndian.Uint64(l.data[l.pos:]) == 0x2020202020202020 {
		l.pos += 8
	}
	for l.pos < len(l.data) {
		switch l.data[l.pos] {
		case ' ', '\t', '\n', '\r':
			l.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end (or at a NUL byte,
// which no JSON token starts with; check l.pos to tell them apart).
func (l *lexer) peek() byte {
	l.ws()
	if l.pos >= len(l.data) {
		return 0
	}
	return l.data[l.pos]
}

// kind names the JSON type starting with c, for "expected string, got …".
func kind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case 0:
		return "end of input"
	}
	if c == '-' || (c >= '0' && c <= '9') {
		return "number"
	}
	return "invalid JSON"
}

// end checks that nothing but whitespace follows the top-level value.
func (l *lexer) end() error {
	if l.ws(); l.pos < len(l.data) { // not peek: a NUL byte is not the end
		return l.syntax("expected end of input after the JSON value")
	}
	return nil
}

func (l *lexer) literal(lit string) error {
	if len(l.data)-l.pos < len(lit) || string(l.data[l.pos:l.pos+len(lit)]) != lit {
		return l.syntax("expected " + lit)
	}
	l.pos += len(lit)
	return nil
}

// openObject consumes '{'. It reports false for null (treated as absent),
// and an error naming the actual type for anything else.
func (l *lexer) openObject() (bool, error) {
	switch c := l.peek(); c {
	case '{':
		if l.depth++; l.depth > maxDepth {
			return false, fail("JSON nested too deeply")
		}
		l.pos++
		return true, nil
	case 'n':
		return false, l.literal("null")
	default:
		if err := l.skip(); err != nil {
			return false, err
		}
		return false, fail("expected object, got " + kind(c))
	}
}

// openArray is openObject for '['.
func (l *lexer) openArray() (bool, error) {
	switch c := l.peek(); c {
	case '[':
		if l.depth++; l.depth > maxDepth {
			return false, fail("JSON nested too deeply")
		}
		l.pos++
		return true, nil
	case 'n':
		return false, l.literal("null")
	default:
		if err := l.skip(); err != nil {
			return false, err
		}
		return false, fail("expected array, got " + kind(c))
	}
}

// key reads the next member name of an open object; i counts members read
// so far. ok is false once '}' has been consumed. The returned slice aliases
// the input unless the name has escapes.
func (l *lexer) key(i int) (key string, ok bool, err error) {
	c := l.peek()
	if c == '}' {
		l.pos++
		l.depth--
		return "", false, nil
	}
	if i > 0 {
		if c != ',' {
			return "", false, l.syntax("expected ',' or '}' after object member")
		}
		l.pos++
		c = l.peek()
	}
	if c != '"' {
		return "", false, l.syntax("expected member name")
	}
	key, err = l.stringToken()
	if err != nil {
		return "", false, err
	}
	if l.peek() != ':' {
		return "", false, l.syntax("expected ':' after member name")
	}
	l.pos++
	return key, true, nil
}

// elem advances to the next element of an open array; i counts elements
// read so far. ok is false once ']' has been consumed.
func (l *lexer) elem(i int) (bool, error) {
	c := l.peek()
	if c == ']' {
		l.pos++
		l.depth--
		return false, nil
	}
	if i > 0 {
		if c != ',' {
			return false, l.syntax("expected ',' or ']' after array element")
		}
		l.pos++
		if l.peek() == ']' {
			return false, l.syntax("expected array element after ','")
		}
	}
	return true, nil
}

// str reads a string value; null yields "" (absent). Any other type is an
// error naming it, after the value has been consumed.
func (l *lexer) str() (string, error) {
	switch c := l.peek(); c {
	case '"':
		return l.stringToken()
	case 'n':
		return "", l.literal("null")
	default:
		if err := l.skip(); err != nil {
			return "", err
		}
		return "", fail("expected string, got " + kind(c))
	}
}

// strOrNumber is str that also takes a JSON number where the standard
// says string (an IMO number, an id), as its literal text; number is true
// then, for the caller to count the repair.
func (l *lexer) strOrNumber() (v string, number bool, err error) {
	if c := l.peek(); c == '-' || (c >= '0' && c <= '9') {
		start := l.pos
		if _, err := l.number(); err != nil {
			return "", false, err
		}
		return l.src[start:l.pos], true, nil
	}
	v, err = l.str()
	return v, false, err
}

// stringToken reads a string token starting at '"' and returns its decoded
// value, a substring of l.src when there is nothing to decode.
func (l *lexer) stringToken() (string, error) {
	l.pos++ // opening quote
	start := l.pos
	ascii := true
	// Skip eight plain bytes at a time: none is '"', '\\', a control
	// character or non-ASCII (the classic SWAR byte tests).
	for l.pos+8 <= len(l.data) {
		x := binary.LittleEndian.Uint64(l.data[l.pos:])
		const ones, highs = 0x0101010101010101, 0x8080808080808080
		quote, backslash := x^(ones*'"'), x^(ones*'\\')
		special := (quote-ones)&^quote | (backslash-ones)&^backslash | (x - ones*0x20) | x
		if special&highs != 0 {
			break
		}
		l.pos += 8
	}
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		switch {
		case c == '"':
			s := l.src[start:l.pos]
			l.pos++
			if !ascii && !utf8.ValidString(s) {
				return strings.ToValidUTF8(s, "\uFFFD"), nil
			}
			return s, nil
		case c == '\\':
			return l.escapedString(start)
		case c < 0x20:
			return "", l.syntax("control character in string")
		case c >= 0x80:
			ascii = false
		}
		l.pos++
	}
	return "", l.syntax("unterminated string")
}

// escapedString finishes a string that contains escapes, from its start.
func (l *lexer) escapedString(start int) (string, error) {
	out := make([]byte, 0, l.pos-start+16)
	out = append(out, l.data[start:l.pos]...)
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		switch {
		case c == '"':
			l.pos++
			if !utf8.Valid(out) {
				return strings.ToValidUTF8(string(out), "\uFFFD"), nil
			}
			return string(out), nil
		case c < 0x20:
			return "", l.syntax("control character in string")
		case c != '\\':
			out = append(out, c)
			l.pos++
			continue
		}
		l.pos++ // backslash
		if l.pos >= len(l.data) {
			return "", l.syntax("unterminated escape")
		}
		e := l.data[l.pos]
		l.pos++
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := l.hex4()
			if !ok {
				return "", l.syntax("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				// A high surrogate must be followed by \u and a low one;
				// anything else decodes to U+FFFD, as in encoding/json.
				if l.pos+1 < len(l.data) && l.data[l.pos] == '\\' && l.data[l.pos+1] == 'u' {
					save := l.pos
					l.pos += 2
					r2, ok2 := l.hex4()
					if !ok2 {
						return "", l.syntax("invalid \\u escape")
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						out = utf8.AppendRune(out, d)
						continue
					}
					l.pos = save // not a pair: reread the second escape alone
				}
				out = utf8.AppendRune(out, utf8.RuneError)
				continue
			}
			out = utf8.AppendRune(out, r)
		default:
			l.pos--
			return "", l.syntax("invalid escape character")
		}
	}
	return "", l.syntax("unterminated string")
}

func (l *lexer) hex4() (rune, bool) {
	if len(l.data)-l.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range l.data[l.pos : l.pos+4] {
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
	l.pos += 4
	return r, true
}

// number consumes a JSON number token and returns its text.
func (l *lexer) number() ([]byte, error) {
	start := l.pos
	d := l.data
	if l.pos < len(d) && d[l.pos] == '-' {
		l.pos++
	}
	switch {
	case l.pos < len(d) && d[l.pos] == '0':
		l.pos++
	case l.pos < len(d) && d[l.pos] >= '1' && d[l.pos] <= '9':
		for l.pos < len(d) && d[l.pos] >= '0' && d[l.pos] <= '9' {
			l.pos++
		}
	default:
		return nil, l.syntax("invalid number")
	}
	if l.pos < len(d) && d[l.pos] == '.' {
		l.pos++
		if l.pos >= len(d) || d[l.pos] < '0' || d[l.pos] > '9' {
			return nil, l.syntax("expected digit after decimal point")
		}
		for l.pos < len(d) && d[l.pos] >= '0' && d[l.pos] <= '9' {
			l.pos++
		}
	}
	if l.pos < len(d) && (d[l.pos] == 'e' || d[l.pos] == 'E') {
		l.pos++
		if l.pos < len(d) && (d[l.pos] == '+' || d[l.pos] == '-') {
			l.pos++
		}
		if l.pos >= len(d) || d[l.pos] < '0' || d[l.pos] > '9' {
			return nil, l.syntax("expected digit in exponent")
		}
		for l.pos < len(d) && d[l.pos] >= '0' && d[l.pos] <= '9' {
			l.pos++
		}
	}
	return d[start:l.pos], nil
}

// int32 reads an integer that fits the schema's int32; null is absent.
func (l *lexer) int32() (int, bool, error) {
	switch c := l.peek(); {
	case c == 'n':
		return 0, false, l.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		tok, err := l.number()
		if err != nil {
			return 0, false, err
		}
		n, err := strconv.ParseInt(string(tok), 10, 32)
		if err != nil {
			return 0, false, fail("expected an integer (int32), got " + clip(string(tok)))
		}
		return int(n), true, nil
	default:
		if err := l.skip(); err != nil {
			return 0, false, err
		}
		return 0, false, fail("expected integer, got " + kind(c))
	}
}

// skip consumes one value of any type, checking its syntax.
func (l *lexer) skip() error {
	switch c := l.peek(); c {
	case '"':
		_, err := l.stringToken()
		return err
	case '{':
		if _, err := l.openObject(); err != nil {
			return err
		}
		for i := 0; ; i++ {
			_, ok, err := l.key(i)
			if err != nil || !ok {
				return err
			}
			if err := l.skip(); err != nil {
				return err
			}
		}
	case '[':
		if _, err := l.openArray(); err != nil {
			return err
		}
		for i := 0; ; i++ {
			ok, err := l.elem(i)
			if err != nil || !ok {
				return err
			}
			if err := l.skip(); err != nil {
				return err
			}
		}
	case 't':
		return l.literal("true")
	case 'f':
		return l.literal("false")
	case 'n':
		return l.literal("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			_, err := l.number()
			return err
		}
		return l.syntax("expected a JSON value")
	}
}

// clip keeps error messages short when a payload carries a huge value.
func clip(s string) string {
	if len(s) > 64 {
		s = strings.ToValidUTF8(s[:60], "") + "…"
	}
	return s
}
