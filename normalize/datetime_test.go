package normalize

import (
	"testing"
	"time"
)

func TestDigits(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"2026", 2026, true}, {"07", 7, true}, {"0", 0, true},
		{"", 0, false}, {"1a", 0, false}, {"+1", 0, false}, {" 1", 0, false}, {"١", 0, false},
	} {
		if got, ok := Digits(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("Digits(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFixedZone(t *testing.T) {
	if FixedZone(0) != time.UTC {
		t.Error("offset 0 is not time.UTC")
	}
	if first, again := FixedZone(8*3600), FixedZone(8*3600); first != again {
		t.Error("a quarter-hour offset is not cached")
	}
	for _, off := range []int{8 * 3600, -(5*3600 + 45*60), 14 * 3600, -14 * 3600, 8*3600 + 7} {
		_, got := time.Date(2026, 3, 1, 12, 0, 0, 0, FixedZone(off)).Zone()
		if got != off {
			t.Errorf("FixedZone(%d) has offset %d", off, got)
		}
	}
}
