package carriers

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// Prefix kinds of the inference tables.
const (
	// PrefixOwner is a container's ISO 6346 owner code with its category
	// letter: the first four characters of the container number.
	PrefixOwner = "owner"
	// PrefixBill starts a bill of lading or booking number.
	PrefixBill = "bill"
)

// Inference methods: how a carrier was found for a number.
const (
	MethodOwnerCode  = "owner-code"
	MethodBillPrefix = "bill-prefix"
	// MethodProbe: the carrier answered that it knows the shipment.
	MethodProbe = "probe"
)

// Prefix is one row of the inference tables (prefixes.csv).
type Prefix struct {
	Kind   string // PrefixOwner or PrefixBill
	Prefix string
	// SCAC is the registered carrier; empty only on an ambiguous row that
	// names no carrier.
	SCAC string
	// Ambiguous prefixes do not name one carrier (leasing companies'
	// boxes): the carriers themselves are asked.
	Ambiguous bool
	Brand     string
}

// Prefixes holds the inference tables.
type Prefixes struct {
	rows  []Prefix
	index map[string][]Prefix // kind + "|" + prefix
	// maxBill is the longest bill prefix, for longest-prefix matching.
	maxBill int
}

//go:embed prefixes.csv
var prefixesCSV []byte

// defaultPrefixes are the embedded tables; a malformed file stops start-up
// (and fails the package's tests) rather than inferring wrongly.
var defaultPrefixes = func() *Prefixes {
	p, err := ParsePrefixes(bytes.NewReader(prefixesCSV))
	if err != nil {
		panic(err)
	}
	return p
}()

// DefaultPrefixes returns the embedded inference tables (prefixes.csv).
func DefaultPrefixes() *Prefixes { return defaultPrefixes }

var (
	ownerShape = regexp.MustCompile(`^[A-Z]{3}[UJZ]$`)
	billShape  = regexp.MustCompile(`^[A-Z]{2,6}$`)
)

// prefixesHeader is the CSV header, checked so a reordered file fails.
var prefixesHeader = []string{"kind", "prefix", "scac", "ambiguous", "brand"}

// ParsePrefixes reads inference tables in the prefixes.csv format and checks
// them: known kinds, well-formed prefixes, registered carriers, and no
// prefix naming two carriers unless every row of it is marked ambiguous.
func ParsePrefixes(r io.Reader) (*Prefixes, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = len(prefixesHeader)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("carrier prefixes: header: %w", err)
	}
	if strings.Join(header, ",") != strings.Join(prefixesHeader, ",") {
		return nil, fmt.Errorf("carrier prefixes: header is %q, want %q", strings.Join(header, ","), strings.Join(prefixesHeader, ","))
	}
	p := &Prefixes{index: map[string][]Prefix{}}
	var errs []error
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("carrier prefixes: %w", err)
		}
		line, _ := cr.FieldPos(0)
		row := Prefix{Kind: rec[0], Prefix: rec[1], SCAC: rec[2], Brand: rec[4]}
		switch rec[3] {
		case "":
		case "ambiguous":
			row.Ambiguous = true
		default:
			errs = append(errs, fmt.Errorf("line %d: ambiguous must be empty or \"ambiguous\", got %q", line, rec[3]))
		}
		switch row.Kind {
		case PrefixOwner:
			if !ownerShape.MatchString(row.Prefix) {
				errs = append(errs, fmt.Errorf("line %d: owner code %q is not three capital letters and U, J or Z", line, row.Prefix))
			}
		case PrefixBill:
			if !billShape.MatchString(row.Prefix) {
				errs = append(errs, fmt.Errorf("line %d: bill prefix %q is not 2-6 capital letters", line, row.Prefix))
			}
			p.maxBill = max(p.maxBill, len(row.Prefix))
		default:
			errs = append(errs, fmt.Errorf("line %d: kind must be owner or bill, got %q", line, row.Kind))
		}
		if row.SCAC == "" && !row.Ambiguous {
			errs = append(errs, fmt.Errorf("line %d: %s needs a carrier or the ambiguous mark", line, row.Prefix))
		}
		if _, ok := Lookup(row.SCAC); row.SCAC != "" && !ok {
			errs = append(errs, fmt.Errorf("line %d: %s names %q, not a registered carrier", line, row.Prefix, row.SCAC))
		}
		key := row.Kind + "|" + row.Prefix
		for _, prev := range p.index[key] {
			if !prev.Ambiguous || !row.Ambiguous {
				errs = append(errs, fmt.Errorf("line %d: %s %s is listed again; mark every row of it ambiguous", line, row.Kind, row.Prefix))
				break
			}
			if prev.SCAC == row.SCAC {
				errs = append(errs, fmt.Errorf("line %d: %s %s repeats carrier %q", line, row.Kind, row.Prefix, row.SCAC))
				break
			}
		}
		p.index[key] = append(p.index[key], row)
		p.rows = append(p.rows, row)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("carrier prefixes: %w", err)
	}
	return p, nil
}

// Rows returns every row in file order.
func (p *Prefixes) Rows() []Prefix { return append([]Prefix(nil), p.rows...) }

// Guess is what the tables alone say about a shipment identifier.
type Guess struct {
	// SCAC is set when the identifier carries one carrier's prefix; Method
	// says which table matched (MethodOwnerCode or MethodBillPrefix).
	SCAC   string
	Method string
	// Prefix is the matched prefix (for a container its owner code, matched
	// or not); empty when a booking or bill matched none.
	Prefix string
	// Known is false when the prefix is in no table.
	Known bool
	// Ambiguous: the prefix belongs to no single carrier. Among lists the
	// carriers its rows name (sorted); empty means any carrier (also when
	// one of its rows names none).
	Ambiguous bool
	Among     []string
	// Brand is who uses the prefix, from the table.
	Brand string
}

// Guess looks up an identifier of kind container, booking or bill (case
// and spaces ignored). Containers match on their owner code; bookings and
// bills on their longest bill prefix. Without SCAC the carrier must be
// asked (ambiguous or unknown prefix).
func (p *Prefixes) Guess(kind, value string) Guess {
	v := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(value), " ", ""))
	var rows []Prefix
	var g Guess
	if kind == "container" {
		if len(v) < 4 {
			return g
		}
		g.Prefix = v[:4]
		rows = p.index[PrefixOwner+"|"+g.Prefix]
		g.Method = MethodOwnerCode
	} else {
		for n := min(p.maxBill, len(v)); n >= 2 && rows == nil; n-- {
			rows = p.index[PrefixBill+"|"+v[:n]]
			if rows != nil {
				g.Prefix = v[:n]
			}
		}
		g.Method = MethodBillPrefix
	}
	if len(rows) == 0 {
		g.Method = ""
		return g
	}
	g.Known, g.Brand = true, rows[0].Brand
	if !rows[0].Ambiguous {
		g.SCAC = rows[0].SCAC
		return g
	}
	g.Method, g.Ambiguous = "", true
	for _, r := range rows {
		if r.SCAC == "" { // a row naming no carrier: any may know it
			g.Among = nil
			break
		}
		g.Among = append(g.Among, r.SCAC)
	}
	sort.Strings(g.Among)
	return g
}

// GuessCarrier looks an identifier up in the embedded tables.
func GuessCarrier(kind, value string) Guess { return defaultPrefixes.Guess(kind, value) }
