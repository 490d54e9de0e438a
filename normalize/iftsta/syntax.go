package iftsta

import (
	"strconv"
	"strings"
)

// delimiters are an interchange's service characters (ISO 9735 UNA).
type delimiters struct {
	comp, elem, rel, term byte
	// hasRel is false when UNA names a space as release character: no
	// character is escaped then.
	hasRel bool
}

// defaultDelimiters apply when the interchange has no UNA: `:+.? '`.
var defaultDelimiters = delimiters{comp: ':', elem: '+', rel: '?', term: '\'', hasRel: true}

// segment is one EDIFACT segment. elems[e][c] is component c of data element
// e, both counted from 0 after the tag, so "DTM+137:20260301:102" has
// elems[0] = ["137" "20260301" "102"]. Release characters are already removed.
type segment struct {
	tag   string
	num   int  // position in the payload, from 1; UNA is not a segment
	elem  byte // the element separator in force, for readDTM
	elems [][]string
}

// get returns component c of data element e, or "" when the sender left it out.
func (s *segment) get(e, c int) string {
	if e < 0 || e >= len(s.elems) {
		return ""
	}
	el := s.elems[e]
	if c < 0 || c >= len(el) {
		return ""
	}
	return el[c]
}

// path is how a ParseError names a segment: "segment 12 (DTM)".
func (s *segment) path() string { return segPath(s.num, s.tag) }

func segPath(num int, tag string) string {
	return "segment " + strconv.Itoa(num) + " (" + tag + ")"
}

// readUNA reads a service string advice at the start of s: "UNA" and six
// characters (component, element, decimal mark, release, reserved,
// terminator).
func readUNA(s string) (delimiters, error) {
	if len(s) < 9 {
		return delimiters{}, parseErr("UNA", "service string advice is shorter than 9 characters")
	}
	d := delimiters{comp: s[3], elem: s[4], rel: s[6], term: s[8]}
	d.hasRel = d.rel != ' '
	seps := []byte{d.comp, d.elem, d.term}
	if d.hasRel {
		seps = append(seps, d.rel)
	}
	for a, x := range seps {
		if isAlnum(x) {
			return delimiters{}, parseErr("UNA", "service character "+strconv.Quote(string(x))+" is a letter or digit")
		}
		for _, y := range seps[a+1:] {
			if x == y {
				return delimiters{}, parseErr("UNA", "service character "+strconv.Quote(string(x))+" is used twice")
			}
		}
	}
	return d, nil
}

// classes maps each byte to its role under d, so that the scanning loops test
// one table entry per byte.
func classes(d delimiters) *[256]byte {
	var c [256]byte
	c[d.comp], c[d.elem], c[d.term] = cComp, cElem, cTerm
	if d.hasRel {
		c[d.rel] = cRel
	}
	return &c
}

// splitSegments cuts a payload into segments. It honours the UNA delimiters
// (also a UNA opening a later interchange of the payload) and the release
// character, skips a UTF-8 byte order mark and whitespace between segments
// (line breaks after each terminator are common) and keeps component text
// zero-copy unless it contained a release character.
//
// Errors: a malformed tag or UNA, a release character at the very end, or a
// segment cut off before its terminator (a truncated payload). A final UNZ
// without terminator is accepted: nothing follows it that could be lost.
func splitSegments(raw []byte) ([]segment, error) {
	s := string(raw)
	i := 0
	if strings.HasPrefix(s, "\xEF\xBB\xBF") {
		i = 3
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	d := defaultDelimiters
	if strings.HasPrefix(s[i:], "UNA") {
		var err error
		if d, err = readUNA(s[i:]); err != nil {
			return nil, err
		}
		i += 9
	}
	class := classes(d)
	// Size the arenas from a count of separators: three allocations for the
	// whole payload instead of a few per segment.
	var nComp, nElem, nTerm int
	for j := i; j < len(s); j++ {
		switch class[s[j]] {
		case cComp:
			nComp++
		case cElem:
			nElem++
		case cTerm:
			nTerm++
		}
	}
	segs := make([]segment, 0, nTerm+1)
	elems := make([][]string, 0, nElem+1)
	comps := make([]string, 0, nComp+nElem+1)
	var buf []byte
	num := 0
	for {
		for i < len(s) && isSpace(s[i]) && class[s[i]] == cData {
			i++
		}
		if i >= len(s) {
			break
		}
		if strings.HasPrefix(s[i:], "UNA") { // a later interchange with its own delimiters
			var err error
			if d, err = readUNA(s[i:]); err != nil {
				return nil, err
			}
			class = classes(d)
			i += 9
			continue
		}
		num++
		start := i
		for i < len(s) && class[s[i]] == cData {
			i++
		}
		tag := s[start:i]
		if !validTag(tag) {
			return nil, parseErr(segPath(num, clip(tag)), "invalid segment tag")
		}
		if i < len(s) && s[i] != d.elem && s[i] != d.term {
			return nil, parseErr(segPath(num, tag), "unexpected service character after the segment tag")
		}
		elemStart, compStart := len(elems), len(comps)
		terminated := false
		if i < len(s) && s[i] == d.term {
			i++
			terminated = true
		} else if i < len(s) { // element separator: data follows
			i++
			cstart, escaped := i, false
			for !terminated {
				j := i
				for j < len(s) && class[s[j]] == cData {
					j++
				}
				if escaped {
					buf = append(buf, s[i:j]...)
				}
				i = j
				if i >= len(s) {
					break
				}
				if class[s[i]] == cRel {
					if i+1 >= len(s) {
						return nil, parseErr(segPath(num, tag), "release character at the end of the payload")
					}
					if !escaped {
						buf = append(buf[:0], s[cstart:i]...)
						escaped = true
					}
					buf = append(buf, s[i+1])
					i += 2
					continue
				}
				ch := s[i]
				var v string
				if escaped {
					v, escaped = string(buf), false
				} else {
					v = s[cstart:i]
				}
				if ch == d.term && d.term == '\n' {
					v = strings.TrimSuffix(v, "\r")
				}
				comps = append(comps, v)
				if ch != d.comp {
					elems = append(elems, comps[compStart:len(comps):len(comps)])
					compStart = len(comps)
				}
				terminated = ch == d.term
				i++
				cstart = i
			}
			if !terminated { // end of payload inside the segment: close what was read
				v := s[cstart:]
				if escaped {
					v = string(buf)
				}
				comps = append(comps, strings.TrimRight(v, " \t\r\n"))
				elems = append(elems, comps[compStart:len(comps):len(comps)])
			}
		}
		if !terminated && tag != "UNZ" {
			return nil, parseErr(segPath(num, tag), "segment has no terminator: payload truncated")
		}
		segs = append(segs, segment{tag: tag, num: num, elem: d.elem, elems: elems[elemStart:len(elems):len(elems)]})
	}
	return segs, nil
}

// Byte classes of splitSegments.
const (
	cData byte = iota
	cComp
	cElem
	cTerm
	cRel
)

// validTag accepts the three-character upper-case tags of ISO 9735.
func validTag(t string) bool {
	if len(t) != 3 || t[0] < 'A' || t[0] > 'Z' {
		return false
	}
	for i := 1; i < 3; i++ {
		if !(t[i] >= 'A' && t[i] <= 'Z') && !(t[i] >= '0' && t[i] <= '9') {
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

func isAlnum(c byte) bool {
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
}

// clip shortens untrusted text quoted in error messages.
func clip(s string) string {
	if len(s) > 12 {
		s = s[:12] + "…"
	}
	return strconv.Quote(s)
}
