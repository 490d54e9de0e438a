package jsonbuf

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

type sample struct {
	Name   string            `json:"name"`
	Note   string            `json:"note,omitempty"`
	N      int               `json:"n"`
	Tags   []string          `json:"tags,omitempty"`
	Nested *sample           `json:"nested,omitempty"`
	Extra  map[string]string `json:"extra,omitempty"`
	Raw    json.RawMessage   `json:"raw,omitempty"`
}

// Marshal writes json.Marshal's bytes, escapes included, every time the
// buffer is reused, and refuses what Marshal refuses.
func TestMarshalIsJSONMarshal(t *testing.T) {
	values := []any{
		sample{Name: "a<b>&c", Note: "\u2028\u2029 \"q\" \\ \x7f é \n", N: -3, Tags: []string{"x", ""},
			Nested: &sample{Name: "inner"}, Extra: map[string]string{"b": "2", "a": "1"}, Raw: json.RawMessage(` {"k" : [1, 2]} `)},
		sample{},
		strings.Repeat("long ", 20000), // beyond what Put keeps
		[]int{1, 2, 3},
		nil,
	}
	e := Get()
	for range 2 {
		for _, v := range values {
			want, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Marshal(v)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("Marshal = %s, %v; want %s", got, err, want)
			}
		}
		Put(e)
		e = Get()
	}
	if _, err := e.Marshal(func() {}); err == nil {
		t.Fatal("a func marshalled")
	}
	Put(e)
}

func BenchmarkMarshal(b *testing.B) {
	v := sample{Name: "CSQU3054383", Note: "gate in at Rotterdam", N: 7, Tags: []string{"a", "b"}, Nested: &sample{Name: "x"}}
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(&v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonbuf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e := Get()
			if _, err := e.Marshal(&v); err != nil {
				b.Fatal(err)
			}
			Put(e)
		}
	})
}
