package jsonvalid

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var cases = []string{
	``, ` `, `{}`, ` {} `, `[]`, `[ ]`, `{ }`, `"`, `""`, `"a"`, `"\"`, `"\\"`, `"\/\b\f\n\r\t"`, `"\u00e9"`, `"\u00G9"`,
	`"\u00e"`, `"\x"`, "\"\x01\"", "\"\x7f\"", "\"\xff\xfe\"", `0`, `-0`, `-`, `01`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-5`,
	`1e`, `1e+`, `-1.5e10`, `1x`, `true`, `tru`, `truex`, `false`, `null`, `nul`, `[1,]`, `[,1]`, `[1 2]`, `{"a":1,}`,
	`{"a" 1}`, `{"a":}`, `{a:1}`, `{"a":1 "b":2}`, `{"a":[1,{"b":null}],"c":"d"}`, `[[[]]]`, `[[[]]`, `[]]`, `{}{}`,
	"\t{\n\"a\"\r:1}\n", `{"a":1}x`, `"abc`, `[true,false,null,-1,0.5,"x"]`, "\"a\tb\"", `{"":""}`,
}

func TestValidIsJSONValid(t *testing.T) {
	for _, c := range cases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%q) = %v, json.Valid %v", c, got, want)
		}
	}
	for _, depth := range []int{MaxDepth - 1, MaxDepth, MaxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			close := map[string]string{"[": "]", `{"a":`: "}"}[open]
			deep := []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth))
			if got, want := Valid(deep), json.Valid(deep); got != want {
				t.Errorf("%d levels of %s: Valid %v, json.Valid %v", depth, open, got, want)
			}
		}
	}
}

// objectByBrackets is how recordScanner found an event object before this
// package: matching brackets outside strings, then json.Valid.
func objectByBrackets(data []byte, maxDepth int) (int, bool) {
	if len(data) == 0 || data[0] != '{' {
		return 0, false
	}
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > maxDepth {
				return 0, false
			}
		case '}', ']':
			if depth--; depth == 0 {
				if !json.Valid(data[:i+1]) {
					return 0, false
				}
				return i + 1, true
			}
		}
	}
	return 0, false
}

func TestObjectIsBracketsAndValid(t *testing.T) {
	for _, c := range append(cases, `{"a":1},"b":2}`, `{"a":"}"}rest`, `{"a":[1,2]}]`, `{"a":{"b":{}}}`) {
		for _, max := range []int{1, 2, 100} {
			n, ok := Object([]byte(c), max)
			wn, wok := objectByBrackets([]byte(c), max)
			if n != wn || ok != wok {
				t.Errorf("Object(%q, %d) = %d, %v; by brackets %d, %v", c, max, n, ok, wn, wok)
			}
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", data, got, want)
		}
	})
}

func FuzzObject(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, ok := Object(data, 4)
		wn, wok := objectByBrackets(data, 4)
		if n != wn || ok != wok {
			t.Fatalf("Object(%q) = %d, %v; by brackets %d, %v", data, n, ok, wn, wok)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	event := bytes.Repeat([]byte(`{"eventID":"3f1c2a4e-1111-4d2b-9c8e-5a6b7c8d9e0f","eventType":"EQUIPMENT","eventDateTime":"2026-10-01T10:00:00Z","eventLocation":{"UNLocationCode":"SGSIN","locationName":"Singapore \u00e9"},"documentReferences":[{"type":"BKG","value":"BK1"}],"n":-1.5e3},`), 6)
	event = append(append([]byte("["), event[:len(event)-1]...), ']')
	b.Run("jsonvalid", func(b *testing.B) {
		b.SetBytes(int64(len(event)))
		for b.Loop() {
			Valid(event)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(event)))
		for b.Loop() {
			json.Valid(event)
		}
	})
}
