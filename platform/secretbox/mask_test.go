package secretbox_test

import (
	"testing"

	"github.com/contrack/contrack/platform/secretbox"
)

func TestMask(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "****"},
		{"abcd", "****"},
		{"abcdef", "****"}, // a 6-character secret: nothing of it
		{"maersk-key-1234", "****"},
		{"maersk-key-12345", "****2345"},
		{"ключ-секрет-ключ-секрет", "****крет"}, // characters, not bytes
	}
	for _, c := range cases {
		if got := secretbox.Mask(c.in); got != c.want {
			t.Errorf("Mask(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Never more than a quarter of a secret shows.
	for n := range 64 {
		v := string(make([]byte, n))
		if shown := len([]rune(secretbox.Mask(v))) - 4; shown*4 > n {
			t.Errorf("a %d-character secret shows %d of them", n, shown)
		}
	}
}
