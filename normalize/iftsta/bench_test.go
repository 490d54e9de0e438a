package iftsta

import (
	"os"
	"testing"

	"github.com/contrack/contrack/normalize"
)

// BenchmarkParse measures parse and map of realistic interchanges, reported
// as events per second (target: 100,000 per core):
//
//	go test -run '^$' -bench . -benchtime 2s -cpu 1 ./normalize/iftsta/
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"d99b_booking_two_containers", "d00b_import_rail", "d14a_equipment_headed"} {
		b.Run(name, func(b *testing.B) {
			raw, err := os.ReadFile("testdata/" + name + ".edi")
			if err != nil {
				b.Fatal(err)
			}
			events, err := normalize.Strict(Parse(raw, testEnv))
			if err != nil {
				b.Fatal(err)
			}
			n := len(events)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := normalize.Strict(Parse(raw, testEnv)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
