// Package iso6346 checks container numbers (ISO 6346): a three-letter owner
// code, a category letter (U, J or Z), six digits and a check digit.
package iso6346

import "fmt"

// letterValue maps A..Z to 10..38, skipping multiples of 11 (11, 22, 33).
var letterValue = func() [26]int {
	var v [26]int
	n := 10
	for i := range v {
		if n%11 == 0 {
			n++
		}
		v[i] = n
		n++
	}
	return v
}()

// CheckDigit returns the check digit of the first ten characters of s, or
// -1 when they are not four letters and six digits.
func CheckDigit(s string) int {
	if len(s) < 10 {
		return -1
	}
	sum := 0
	for i := 0; i < 10; i++ {
		c := s[i]
		var v int
		switch {
		case i < 4 && c >= 'A' && c <= 'Z':
			v = letterValue[c-'A']
		case i >= 4 && c >= '0' && c <= '9':
			v = int(c - '0')
		default:
			return -1
		}
		sum += v << i
	}
	return sum % 11 % 10
}

// Valid reports whether s (upper case, no spaces) is a container number
// with a correct check digit.
func Valid(s string) bool {
	if len(s) != 11 {
		return false
	}
	if s[3] != 'U' && s[3] != 'J' && s[3] != 'Z' {
		return false
	}
	d := CheckDigit(s)
	return d >= 0 && s[10] == byte('0'+d)
}

// Problem says what keeps s (upper case, without spaces) from being a
// container number, in words for an error message: "" when s is valid.
func Problem(s string) string {
	if !shaped(s) {
		return "a container number is 4 letters (the fourth U, J or Z) and 7 digits"
	}
	if s[3] != 'U' && s[3] != 'J' && s[3] != 'Z' {
		return "the fourth letter, the equipment category, must be U, J or Z"
	}
	if d := CheckDigit(s); s[10] != byte('0'+d) {
		return fmt.Sprintf("wrong check digit (the last digit is %c; ISO 6346 gives %d for %s)", s[10], d, s[:10])
	}
	return ""
}

// shaped reports whether s is four letters and seven digits.
func shaped(s string) bool { return len(s) == 11 && lettersThenDigits(s) }

// lettersThenDigits reports whether s is four upper-case letters, then
// digits only.
func lettersThenDigits(s string) bool {
	for i := range len(s) {
		letter, digit := s[i] >= 'A' && s[i] <= 'Z', s[i] >= '0' && s[i] <= '9'
		if (i < 4 && !letter) || (i >= 4 && !digit) {
			return false
		}
	}
	return true
}

// LooksLike reports whether s (upper case, without spaces) is a container
// number or close to one: four letters and seven digits, or three letters,
// a category letter (U, J or Z) and six to eight digits (a digit left out or
// typed twice). Such a string is a container number typed wrong far more
// often than a booking or bill.
func LooksLike(s string) bool {
	if shaped(s) {
		return true
	}
	if len(s) < 10 || len(s) > 12 || (s[3] != 'U' && s[3] != 'J' && s[3] != 'Z') {
		return false
	}
	return lettersThenDigits(s)
}
