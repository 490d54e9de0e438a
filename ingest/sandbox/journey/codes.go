package journey

import "strings"

// ContainerCheckDigit returns the ISO 6346 check digit of the first ten
// characters of a container number (owner code, category letter U/J/Z, six
// digit serial): letters count A=10, B=12, … skipping multiples of 11
// (so K=21, L=23, U=32, V=34, Z=38), digits count as themselves, position i
// is weighted 2^i, and the digit is the sum mod 11 mod 10. ok is false when
// prefix is not four letters and six digits.
func ContainerCheckDigit(prefix string) (digit int, ok bool) {
	if len(prefix) < 10 {
		return 0, false
	}
	sum := 0
	for i := 0; i < 10; i++ {
		c := prefix[i]
		var v int
		switch {
		case i < 4 && c >= 'A' && c <= 'Z':
			v = letterValue(c)
		case i >= 4 && c >= '0' && c <= '9':
			v = int(c - '0')
		default:
			return 0, false
		}
		sum += v << i
	}
	return sum % 11 % 10, true
}

func letterValue(c byte) int {
	v := 10 + int(c-'A')
	// Skip 11, 22, 33: every value at or above a multiple of 11 moves up one.
	v += (v - 1) / 10
	return v
}

// ValidContainer reports whether s is an ISO 6346 container number: four
// upper-case letters whose fourth is U, J or Z, six digits and a correct
// check digit.
func ValidContainer(s string) bool {
	if len(s) != 11 || !strings.ContainsRune("UJZ", rune(s[3])) {
		return false
	}
	d, ok := ContainerCheckDigit(s)
	return ok && s[10] == byte('0'+d)
}

// CompleteContainer appends the check digit to a ten-character prefix.
// It panics on a malformed prefix: callers build prefixes themselves.
func CompleteContainer(prefix string) string {
	d, ok := ContainerCheckDigit(prefix)
	if !ok || len(prefix) != 10 {
		panic("journey: malformed container prefix " + prefix)
	}
	return prefix + string(rune('0'+d))
}

// IMOCheckDigit returns the check digit of the six leading digits of an IMO
// ship number: the digits weighted 7, 6, 5, 4, 3, 2, summed, mod 10.
func IMOCheckDigit(six string) (digit int, ok bool) {
	if len(six) < 6 {
		return 0, false
	}
	sum := 0
	for i := 0; i < 6; i++ {
		c := six[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		sum += int(c-'0') * (7 - i)
	}
	return sum % 10, true
}

// ValidIMO reports whether s is a seven-digit IMO number with a correct check digit.
func ValidIMO(s string) bool {
	if len(s) != 7 {
		return false
	}
	d, ok := IMOCheckDigit(s)
	return ok && s[6] == byte('0'+d)
}
