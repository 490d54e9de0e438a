package commandapi_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/auth"
)

// BenchmarkBulkSubscribe1000 posts batches of 1,000 new container
// subscriptions (half of them sharing a tracking with an earlier batch's)
// to POST /subscriptions/equipment, through the real server and Postgres,
// and prints the time one request takes.
func BenchmarkBulkSubscribe1000(b *testing.B) {
	api, _ := newAPI(b)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	batch := func(n int) []map[string]string {
		items := make([]map[string]string, 1000)
		for i := range items {
			serial := n*500 + i // the first half repeats the last batch's second half
			items[i] = sub(fmt.Sprintf("b%d-%d", n, i), "containerNumber", containerNumber("MSKU", serial))
		}
		return items
	}
	bodies := make([][]map[string]string, b.N)
	for i := range bodies {
		bodies[i] = batch(i)
	}
	var slowest time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		r := api.Do("POST", "/subscriptions/equipment", key, bodies[i])
		if d := time.Since(start); d > slowest {
			slowest = d
		}
		if r.Status != 200 || r.JSON["created"] != 1000.0 {
			b.Fatalf("batch %d: %d created=%v %.300s", i, r.Status, r.JSON["created"], r.Raw)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/1000-items")
	b.ReportMetric(float64(slowest.Milliseconds()), "slowest-ms")
	b.ReportMetric(1000*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}
