package projector

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/contrack/contrack/platform/testenv"
)

// TestAnalyticsQueries runs every SQL example of docs/analytics.md on the
// test's ClickHouse (18.16 here; current releases in CI's containers when
// there), over the migrated tables: the documented SQL keeps working.
func TestAnalyticsQueries(t *testing.T) {
	ch := testenv.ClickHouse(t)
	raw, err := os.ReadFile("../docs/analytics.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(raw), -1)
	placeholder := regexp.MustCompile(`\{[a-z_]+\}`)
	n := 0
	for _, b := range blocks {
		for _, stmt := range strings.Split(b[1], ";") {
			var lines []string
			for _, l := range strings.Split(stmt, "\n") {
				if !strings.HasPrefix(strings.TrimSpace(l), "--") {
					lines = append(lines, l)
				}
			}
			q := strings.TrimSpace(strings.Join(lines, "\n"))
			if q == "" {
				continue
			}
			q = placeholder.ReplaceAllString(q, "'x'")
			rows, err := ch.Conn.Query(context.Background(), q)
			if err != nil {
				t.Errorf("%s\n%v", q, err)
				continue
			}
			rows.Close()
			n++
		}
	}
	if n < 10 {
		t.Fatalf("ran %d queries: the page's examples were not found", n)
	}
}
