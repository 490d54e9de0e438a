package schemas

import (
	"slices"
	"strings"
)

// HistoryOverlaps says whether any subscription id of ids is in list, both
// in the comma-separated form of HeaderHistoryFor and HeaderHistoryExcept.
func HistoryOverlaps(ids, list string) bool {
	if list == "" {
		return false
	}
	in := strings.Split(list, ",")
	for id := range strings.SplitSeq(ids, ",") {
		if slices.Contains(in, id) {
			return true
		}
	}
	return false
}
