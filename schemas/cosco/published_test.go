package cosco_test

import (
	"testing"

	"github.com/contrack/contrack/schemas/cosco"
)

func TestStripComments(t *testing.T) {
	for _, c := range []struct {
		in, out string
		n       int
	}{
		{`{"a": 1}`, `{"a": 1}`, 0},
		{"{\"a\": 1, //int, A\n\"b\": \"x//y\" // B\n}", "{\"a\": 1, \n\"b\": \"x//y\" \n}", 2},
		{"{\"a\": \"q\\\"//\"} // end", "{\"a\": \"q\\\"//\"} ", 1},
	} {
		got, n := cosco.StripComments([]byte(c.in))
		if string(got) != c.out || n != c.n {
			t.Errorf("StripComments(%q) = %q, %d; want %q, %d", c.in, got, n, c.out, c.n)
		}
	}
}
