package main

import (
	"math"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

func histogram(bounds []float64, cumulative []uint64) *dto.Histogram {
	h := &dto.Histogram{SampleCount: new(cumulative[len(cumulative)-1])}
	for i, b := range bounds {
		h.Bucket = append(h.Bucket, &dto.Bucket{UpperBound: new(b), CumulativeCount: new(cumulative[i])})
	}
	return h
}

// bucketQuantile interpolates inside the quantile's bucket, and says the
// last finite bound for a quantile beyond it (it overflowed there once).
func TestBucketQuantile(t *testing.T) {
	h := histogram([]float64{0.01, 0.1, 1, math.Inf(1)}, []uint64{50, 90, 100, 100})
	if got := bucketQuantile(h, 0.5); got != 10*time.Millisecond {
		t.Errorf("p50 %v, want 10ms (the first bucket's top)", got)
	}
	if got := bucketQuantile(h, 0.7); got != 55*time.Millisecond {
		t.Errorf("p70 %v, want 55ms (halfway through the second bucket)", got)
	}
	beyond := histogram([]float64{0.01, 1, math.Inf(1)}, []uint64{10, 20, 100})
	if got := bucketQuantile(beyond, 0.99); got != time.Second {
		t.Errorf("p99 beyond the last bound %v, want that bound (1s)", got)
	}
}
