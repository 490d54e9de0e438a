package queryapi_test

import (
	"fmt"
	"math"
	"runtime/metrics"
	"time"
)

// rtStats is a snapshot of the Go runtime's counters: what a run of the
// benchmark cost in garbage collection and how long goroutines waited to
// run (the stalls behind a high p99).
type rtStats struct {
	values map[string]float64
	hists  map[string]*metrics.Float64Histogram
}

var rtNames = []string{
	"/gc/cycles/total:gc-cycles",
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/gc/mark/assist:cpu-seconds",
	"/cpu/classes/total:cpu-seconds",
	"/cpu/classes/idle:cpu-seconds",
	"/sched/latencies:seconds",
	"/sched/pauses/total/gc:seconds",
	"/gc/heap/live:bytes",
	"/gc/heap/allocs:bytes",
}

func readRT() rtStats {
	s := make([]metrics.Sample, len(rtNames))
	for i, n := range rtNames {
		s[i].Name = n
	}
	metrics.Read(s)
	r := rtStats{values: map[string]float64{}, hists: map[string]*metrics.Float64Histogram{}}
	for _, x := range s {
		switch x.Value.Kind() {
		case metrics.KindUint64:
			r.values[x.Name] = float64(x.Value.Uint64())
		case metrics.KindFloat64:
			r.values[x.Name] = x.Value.Float64()
		case metrics.KindFloat64Histogram:
			h := x.Value.Float64Histogram()
			r.hists[x.Name] = &metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: h.Buckets}
		}
	}
	return r
}

// rtDelta describes what happened between a and b.
func rtDelta(a, b rtStats) string {
	d := func(name string) float64 { return b.values[name] - a.values[name] }
	used := max(d("/cpu/classes/total:cpu-seconds")-d("/cpu/classes/idle:cpu-seconds"), 1e-9)
	sched := histDelta(a.hists["/sched/latencies:seconds"], b.hists["/sched/latencies:seconds"])
	pauses := histDelta(a.hists["/sched/pauses/total/gc:seconds"], b.hists["/sched/pauses/total/gc:seconds"])
	return fmt.Sprintf("  runtime: %.0f GC cycles, GC %.0f%% of the process's CPU (assists %.0f%%), %.0f MB allocated; run-queue wait p99 %s max %s; GC pauses max %s; live heap %d MB",
		d("/gc/cycles/total:gc-cycles"), 100*d("/cpu/classes/gc/total:cpu-seconds")/used, 100*d("/cpu/classes/gc/mark/assist:cpu-seconds")/used,
		d("/gc/heap/allocs:bytes")/1e6, quantile(sched, 0.99), quantile(sched, 1), quantile(pauses, 1), int64(b.values["/gc/heap/live:bytes"])>>20)
}

type hist struct {
	counts  []uint64
	buckets []float64
}

func histDelta(a, b *metrics.Float64Histogram) hist {
	if a == nil || b == nil {
		return hist{}
	}
	h := hist{counts: make([]uint64, len(b.Counts)), buckets: b.Buckets}
	for i := range b.Counts {
		h.counts[i] = b.Counts[i] - a.Counts[i]
	}
	return h
}

// quantile is the upper bound of the bucket holding quantile q.
func quantile(h hist, q float64) time.Duration {
	var n uint64
	for _, c := range h.counts {
		n += c
	}
	if n == 0 {
		return 0
	}
	want := uint64(math.Ceil(q * float64(n)))
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= want {
			up := h.buckets[i+1]
			if math.IsInf(up, 1) {
				up = h.buckets[i]
			}
			return time.Duration(up * float64(time.Second)).Round(10 * time.Microsecond)
		}
	}
	return 0
}
