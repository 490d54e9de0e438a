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
