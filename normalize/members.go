package normalize

import (
	"reflect"
	"strconv"
	"strings"
)

// MemberNames maps the lower-case form of every JSON member name of the
// struct types reachable from v (its json tags, at any depth: fields,
// pointers, slices) to the name as the type spells it. A parser decoding
// with encoding/json, which matches member names in any letter case, uses
// it with MemberCase to count the names a carrier spelt otherwise.
func MemberNames(v any) map[string]string {
	names := map[string]string{}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" && !f.Anonymous {
				name = f.Name
			}
			if name != "" {
				names[strings.ToLower(name)] = name
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(v))
	return names
}

// MemberCase returns a RepairMemberCase for every member name of the JSON
// document raw that names (names, from MemberNames) a member in another
// letter case, with its path ("events[3].transportCall.unLocationCode").
// raw must be valid JSON (the caller decoded it); escaped names are
// compared as written.
func MemberCase(raw []byte, names map[string]string) []Repair {
	type frame struct {
		array bool
		index int
		key   string
	}
	var stack []frame
	var repairs []Repair
	path := func(key string) string {
		var b strings.Builder
		for k, f := range stack {
			switch {
			case f.array:
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
			case k < len(stack)-1 && f.key != "":
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			}
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(key)
		return b.String()
	}
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '{':
			stack = append(stack, frame{})
		case '[':
			stack = append(stack, frame{array: true})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 && stack[n-1].array {
				stack[n-1].index++
			}
		case '"':
			start := i + 1
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
			n := len(stack)
			if n == 0 || stack[n-1].array {
				continue
			}
			j := i + 1
			for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r') {
				j++
			}
			if j >= len(raw) || raw[j] != ':' {
				continue // a string value
			}
			key := string(raw[start:min(i, len(raw))])
			if std, ok := names[strings.ToLower(key)]; ok && std != key {
				repairs = append(repairs, Repair{Kind: RepairMemberCase, Path: path(key)})
			}
			stack[n-1].key = key
		}
	}
	return repairs
}
