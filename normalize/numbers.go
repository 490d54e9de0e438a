package normalize

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// NumbersAsStrings rewrites the JSON numbers of raw that stand where a
// member named in members (at any depth) is a string, as those strings. It
// returns the new JSON and a RepairNumberAsString per number, sorted by
// path; nil when there is none or raw is not JSON. It is the slow path of a
// payload (or element) that did not decode with encoding/json.
func NumbersAsStrings(raw []byte, members map[string]bool) ([]byte, []Repair) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, nil
	}
	var repairs []Repair
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				p := k
				if path != "" {
					p = path + "." + k
				}
				if n, ok := e.(json.Number); ok && members[k] {
					x[k] = n.String()
					repairs = append(repairs, Repair{Kind: RepairNumberAsString, Path: p, Value: n.String()})
					continue
				}
				walk(p, e)
			}
		case []any:
			for i, e := range x {
				walk(path+"["+strconv.Itoa(i)+"]", e)
			}
		}
	}
	walk("", v)
	if repairs == nil {
		return nil, nil
	}
	// The walk's map order is random: the repairs are sorted.
	slices.SortFunc(repairs, func(a, b Repair) int { return strings.Compare(a.Path, b.Path) })
	fixed, err := json.Marshal(v)
	if err != nil {
		return nil, nil
	}
	return fixed, repairs
}
