package carriers_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/iso6346"
)

// containerOf completes an owner code to an ISO 6346-valid number.
func containerOf(owner string) string {
	base := owner + "123456"
	return fmt.Sprintf("%s%d", base, iso6346.CheckDigit(base))
}

func TestEveryCarrierHasOwnerCodeAndBillPrefix(t *testing.T) {
	owners, bills := map[string]int{}, map[string]int{}
	for _, r := range carriers.DefaultPrefixes().Rows() {
		if r.Ambiguous {
			continue
		}
		switch r.Kind {
		case carriers.PrefixOwner:
			owners[r.SCAC]++
		case carriers.PrefixBill:
			bills[r.SCAC]++
		}
	}
	for _, c := range carriers.All() {
		if owners[c.SCAC] == 0 {
			t.Errorf("%s (%s) has no owner code", c.SCAC, c.Name)
		}
		if bills[c.SCAC] == 0 {
			t.Errorf("%s (%s) has no bill prefix", c.SCAC, c.Name)
		}
	}
}

func TestNoPrefixNamesTwoCarriersUnlessAmbiguous(t *testing.T) {
	type key struct{ kind, prefix string }
	rows := map[key][]carriers.Prefix{}
	for _, r := range carriers.DefaultPrefixes().Rows() {
		rows[key{r.Kind, r.Prefix}] = append(rows[key{r.Kind, r.Prefix}], r)
	}
	for k, rs := range rows {
		if len(rs) == 1 {
			continue
		}
		for _, r := range rs {
			if !r.Ambiguous {
				t.Errorf("%s %s is listed %d times but not every row is ambiguous", k.kind, k.prefix, len(rs))
			}
		}
	}
	// The loader refuses such a table.
	_, err := carriers.ParsePrefixes(strings.NewReader("kind,prefix,scac,ambiguous,brand\nowner,MSKU,MAEU,,Maersk\nowner,MSKU,HLCU,,x\n"))
	if err == nil || !strings.Contains(err.Error(), "MSKU is listed again") {
		t.Fatalf("two carriers for one prefix: %v", err)
	}
}

// TestGuessEveryRow infers every registered carrier from each of its owner
// codes (as containers) and bill prefixes (as bills and bookings).
func TestGuessEveryRow(t *testing.T) {
	n := 0
	for _, r := range carriers.DefaultPrefixes().Rows() {
		var cases []struct{ kind, value, method string }
		switch r.Kind {
		case carriers.PrefixOwner:
			cases = append(cases, struct{ kind, value, method string }{"container", containerOf(r.Prefix), carriers.MethodOwnerCode})
		case carriers.PrefixBill:
			cases = append(cases,
				struct{ kind, value, method string }{"bill", r.Prefix + "234567890", carriers.MethodBillPrefix},
				struct{ kind, value, method string }{"booking", strings.ToLower(r.Prefix) + "234567890", carriers.MethodBillPrefix})
		}
		for _, c := range cases {
			g := carriers.GuessCarrier(c.kind, c.value)
			if !g.Known || g.Prefix != r.Prefix {
				t.Errorf("%s %s: %+v, want prefix %s known", c.kind, c.value, g, r.Prefix)
			}
			if r.Ambiguous {
				if g.SCAC != "" || !g.Ambiguous || g.Method != "" {
					t.Errorf("%s %s is ambiguous: %+v", c.kind, c.value, g)
				}
				continue
			}
			n++
			if g.SCAC != r.SCAC || g.Method != c.method || g.Ambiguous {
				t.Errorf("%s %s: got %q by %q, want %s by %s", c.kind, c.value, g.SCAC, g.Method, r.SCAC, c.method)
			}
		}
	}
	if n < 2*len(carriers.All()) {
		t.Fatalf("only %d inferences checked", n)
	}
}

func TestGuessExamples(t *testing.T) {
	cases := []struct {
		kind, value string
		scac        string
		ambiguous   bool
		known       bool
	}{
		{"container", "MSKU1234565", "MAEU", false, true},
		{"container", "mrku 123456 5", "MAEU", false, true}, // case and spaces ignored
		{"container", "HLXU1234567", "HLCU", false, true},
		{"container", "TGHU1234567", "", true, true},   // leasing
		{"container", "CSQU3054383", "", false, false}, // in no table
		{"container", "MS", "", false, false},
		{"bill", "MEDUAB123456", "MSCU", false, true},
		{"bill", "EGLV142300012345", "EGLV", false, true},
		{"booking", "ONEYRICF12345600", "ONEY", false, true},
		{"booking", "123456789", "", false, false}, // numeric bookings carry no prefix
		{"bill", "", "", false, false},
	}
	for _, c := range cases {
		g := carriers.GuessCarrier(c.kind, c.value)
		if g.SCAC != c.scac || g.Ambiguous != c.ambiguous || g.Known != c.known {
			t.Errorf("%s %q: %+v, want scac %q ambiguous %v known %v", c.kind, c.value, g, c.scac, c.ambiguous, c.known)
		}
	}
}

func TestGuessLongestBillPrefixAndAmbiguousCandidates(t *testing.T) {
	p, err := carriers.ParsePrefixes(strings.NewReader(`# a comment
kind,prefix,scac,ambiguous,brand
bill,MA,HLCU,,short
bill,MAEU,MAEU,,long
owner,ABCU,MAEU,ambiguous,shared
owner,ABCU,COSU,ambiguous,shared
owner,XYZU,,ambiguous,leasing
`))
	if err != nil {
		t.Fatal(err)
	}
	if g := p.Guess("bill", "MAEU123"); g.SCAC != "MAEU" || g.Prefix != "MAEU" {
		t.Errorf("longest prefix: %+v", g)
	}
	if g := p.Guess("bill", "MAXX123"); g.SCAC != "HLCU" || g.Prefix != "MA" {
		t.Errorf("shorter prefix: %+v", g)
	}
	if g := p.Guess("container", "ABCU1234560"); !g.Ambiguous || !slices.Equal(g.Among, []string{"COSU", "MAEU"}) {
		t.Errorf("ambiguous among two: %+v", g)
	}
	if g := p.Guess("container", "XYZU1234560"); !g.Ambiguous || g.Among != nil {
		t.Errorf("ambiguous among any: %+v", g)
	}
}

func TestParsePrefixesRefusesBadRows(t *testing.T) {
	const header = "kind,prefix,scac,ambiguous,brand\n"
	cases := map[string]string{
		"wrong header":       "kind,prefix,scac,brand,ambiguous\n",
		"unknown kind":       header + "ship,MSKU,MAEU,,x\n",
		"owner code shape":   header + "owner,MSK1,MAEU,,x\n",
		"owner category":     header + "owner,MSKA,MAEU,,x\n",
		"bill prefix shape":  header + "bill,maeu,MAEU,,x\n",
		"unregistered scac":  header + "owner,MSKU,ZZZZ,,x\n",
		"no carrier":         header + "owner,MSKU,,,x\n",
		"bad ambiguous mark": header + "owner,MSKU,MAEU,yes,x\n",
		"repeated carrier":   header + "owner,TGHU,MAEU,ambiguous,x\nowner,TGHU,MAEU,ambiguous,x\n",
		"mixed marks":        header + "owner,TGHU,,ambiguous,x\nowner,TGHU,MAEU,,x\n",
		"missing column":     header + "owner,MSKU,MAEU\n",
	}
	for name, in := range cases {
		if _, err := carriers.ParsePrefixes(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
