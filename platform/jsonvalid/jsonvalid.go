// Package jsonvalid checks JSON text as encoding/json does, in one pass and
// without its per-byte state machine: every consumer of the events topic
// checks each event it reads, so the check is on the pipeline's hot path.
//
// Valid agrees with json.Valid on every input (FuzzValid holds it to it):
// RFC 8259 grammar, strings checked for control characters and escapes but
// not for UTF-8 (as encoding/json), and at most 10,000 levels of nesting.
package jsonvalid

// MaxDepth is encoding/json's nesting limit.
const MaxDepth = 10000

// Valid reports whether data is one valid JSON value, with optional
// whitespace around it: json.Valid.
func Valid(data []byte) bool {
	s := scanner{data: data, maxDepth: MaxDepth}
	if !s.value() {
		return false
	}
	s.space()
	return s.i == len(data)
}

// Object checks the object data starts with (no whitespace before it),
// nested at most maxDepth levels (itself one), and returns its length.
// What follows it is not read.
func Object(data []byte, maxDepth int) (n int, ok bool) {
	if len(data) == 0 || data[0] != '{' {
		return 0, false
	}
	s := scanner{data: data, maxDepth: maxDepth}
	if !s.value() {
		return 0, false
	}
	return s.i, true
}

type scanner struct {
	data            []byte
	i               int
	depth, maxDepth int
}

func (s *scanner) space() {
	data, i := s.data, s.i
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	s.i = i
}

// value reads one value after optional whitespace.
func (s *scanner) value() bool {
	s.space()
	if s.i >= len(s.data) {
		return false
	}
	switch c := s.data[s.i]; c {
	case '{':
		return s.object()
	case '[':
		return s.array()
	case '"':
		return s.str()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return s.number()
		}
		return false
	}
}

func (s *scanner) enter() bool {
	s.depth++
	return s.depth <= s.maxDepth
}

func (s *scanner) object() bool { return s.items('}', s.member) }

func (s *scanner) array() bool { return s.items(']', s.value) }

// items reads an object's members or an array's elements, each with item,
// from the opening bracket through close.
func (s *scanner) items(close byte, item func() bool) bool {
	if !s.enter() {
		return false
	}
	s.i++ // the opening bracket
	s.space()
	if s.i < len(s.data) && s.data[s.i] == close {
		s.i++
		s.depth--
		return true
	}
	for {
		if !item() {
			return false
		}
		s.space()
		if s.i >= len(s.data) {
			return false
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case close:
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// member reads `"name": value`.
func (s *scanner) member() bool {
	s.space()
	if s.i >= len(s.data) || s.data[s.i] != '"' || !s.str() {
		return false
	}
	s.space()
	if s.i >= len(s.data) || s.data[s.i] != ':' {
		return false
	}
	s.i++
	return s.value()
}

// plain marks the bytes a string holds as they are: not a quote, not a
// backslash, not a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (s *scanner) str() bool {
	data, i := s.data, s.i+1 // after the opening quote
	for i < len(data) {
		c := data[i]
		if plain[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			s.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(data) {
				return false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) {
					return false
				}
				for _, h := range data[i+2 : i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				i += 6
			default:
				return false
			}
		default: // a control character
			return false
		}
	}
	return false
}

func (s *scanner) digits() int {
	data, i := s.data, s.i
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	n := i - s.i
	s.i = i
	return n
}

func (s *scanner) number() bool {
	if s.data[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i >= len(s.data):
		return false
	case s.data[s.i] == '0':
		s.i++
	case s.data[s.i] >= '1' && s.data[s.i] <= '9':
		s.digits()
	default:
		return false
	}
	if s.i < len(s.data) && s.data[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.data) && (s.data[s.i] == 'e' || s.data[s.i] == 'E') {
		s.i++
		if s.i < len(s.data) && (s.data[s.i] == '+' || s.data[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *scanner) literal(word string) bool {
	if len(s.data)-s.i < len(word) || string(s.data[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}
