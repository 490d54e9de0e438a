package iso6346

import "testing"

func TestValid(t *testing.T) {
	cases := map[string]bool{
		"CSQU3054383": true,  // the standard's own example
		"CSQU3054384": false, // wrong check digit
		"CSQX3054383": false, // bad category
		"CSQU305438":  false, // too short
		"csqu3054383": false, // lower case is normalised by callers
		"C5QU3054383": false,
		"":            false,
	}
	for s, want := range cases {
		if got := Valid(s); got != want {
			t.Errorf("Valid(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestCheckDigit(t *testing.T) {
	if d := CheckDigit("CSQU3054383"); d != 3 {
		t.Fatalf("CheckDigit = %d, want 3", d)
	}
	if d := CheckDigit("CSQU30543"); d != -1 {
		t.Fatalf("short input: %d", d)
	}
}

func TestProblem(t *testing.T) {
	cases := map[string]string{
		"CSQU3054383":  "",
		"CSQU3054384":  "wrong check digit (the last digit is 4; ISO 6346 gives 3 for CSQU305438)",
		"CSQX3054383":  "the fourth letter, the equipment category, must be U, J or Z",
		"CSQU305438":   "a container number is 4 letters (the fourth U, J or Z) and 7 digits",
		"HELLO":        "a container number is 4 letters (the fourth U, J or Z) and 7 digits",
		"CSQU30543833": "a container number is 4 letters (the fourth U, J or Z) and 7 digits",
	}
	for s, want := range cases {
		if got := Problem(s); got != want {
			t.Errorf("Problem(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestLooksLike(t *testing.T) {
	cases := map[string]bool{
		"CSQU3054383":   true,
		"CSQU3054384":   true,  // wrong check digit
		"ABCD1234567":   true,  // 4 letters and 7 digits
		"CSQU305438":    true,  // a digit short
		"CSQU30543833":  true,  // a digit over
		"CSQX305438":    false, // a digit short, and no category letter
		"CSQU305":       false,
		"987654321":     false,
		"BKG4711":       false,
		"MAEU123456789": false,
	}
	for s, want := range cases {
		if got := LooksLike(s); got != want {
			t.Errorf("LooksLike(%q) = %v, want %v", s, got, want)
		}
	}
}
