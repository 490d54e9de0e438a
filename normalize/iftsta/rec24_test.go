package iftsta

import (
	"encoding/csv"
	"os"
	"strings"
	"testing"

	refdata "github.com/contrack/contrack/reference"
)

// rec24 is UNECE's list as published, code for code and name for name.
func TestRec24MatchesReference(t *testing.T) {
	f, err := os.Open(refdata.Path("unece", "rec24-code-list.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || rows[0][1] != "Code" || rows[0][2] != "Name" {
		t.Fatalf("unexpected header %v", rows[0])
	}
	seen := map[string]bool{}
	for _, r := range rows[1:] {
		code, name := strings.TrimSpace(r[1]), strings.TrimSpace(r[2])
		seen[code] = true
		if got, ok := rec24[code]; !ok || got != name {
			t.Errorf("Rec. 24 %s %q: rec24 has %q (present %v)", code, name, got, ok)
		}
	}
	for code := range rec24 {
		if !seen[code] {
			t.Errorf("rec24 has %s, which Rec. 24 does not", code)
		}
	}
	// Every numeric code statusTable maps is a Rec. 24 code, named alike.
	for code, m := range statusTable {
		if code[0] >= '0' && code[0] <= '9' {
			if name, ok := rec24[code]; !ok || !strings.EqualFold(name, m.name) {
				t.Errorf("statusTable %s %q: Rec. 24 says %q", code, m.name, name)
			}
		}
	}
}
