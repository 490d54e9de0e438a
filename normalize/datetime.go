package normalize

import "time"

// The date helpers the parsers share: their hand-written fast paths read
// fixed-width digits and UTC offsets without time.Parse, which costs a tenth
// of a whole event.

// Digits parses a short run of ASCII digits; "" and any other byte fail.
func Digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// zones caches the fixed zones of the quarter-hour offsets from -14:00 to
// +14:00 (every offset in use): time.FixedZone allocates on each call.
var zones = func() (z [113]*time.Location) {
	for i := range z {
		z[i] = time.FixedZone("", (i-56)*900)
	}
	return z
}()

// FixedZone is the zone of a UTC offset in seconds: time.UTC for 0, else a
// cached zone for a quarter-hour offset, else a new one.
func FixedZone(offset int) *time.Location {
	if offset == 0 {
		return time.UTC
	}
	if offset%900 == 0 && offset >= -56*900 && offset <= 56*900 {
		return zones[offset/900+56]
	}
	return time.FixedZone("", offset)
}
