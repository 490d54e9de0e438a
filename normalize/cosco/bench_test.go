package cosco

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// BenchmarkParse measures decode and map of a realistic response, reported
// as events per second (target: 100,000 per core). "compact" is the fixture
// as COSCO's API sends it, without indentation; "indented" is the fixture as
// stored. Three quarters of the time is encoding/json.
//
//	go test -run '^$' -bench . -benchtime 2s -cpu 1 ./normalize/cosco/
func BenchmarkParse(b *testing.B) {
	indented, err := os.ReadFile("testdata/booking_in_transit.json")
	if err != nil {
		b.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, indented); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		raw  []byte
	}{{"compact", compact.Bytes()}, {"indented", indented}} {
		b.Run(bc.name, func(b *testing.B) {
			res, err := Parse(bc.raw, testEnv)
			if err != nil {
				b.Fatal(err)
			}
			n := len(res.Events)
			b.SetBytes(int64(len(bc.raw)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Parse(bc.raw, testEnv); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
