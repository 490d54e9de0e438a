package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The pipeline's latency hop by hop, read from the processes' own
// histograms (their admin listeners' /metrics) after the run: where an
// event's time from POST /events to the webhook goes. Bucketed, so a
// quantile is an interpolation inside its bucket.
var hopHistograms = []struct{ name, what string }{
	{"contrack_http_request_duration_seconds", "HTTP request handled"},
	{"contrack_stream_record_age_seconds", "record age when a consumer takes it (since its produce)"},
	{"contrack_stream_handle_seconds", "one handler call (a record or a batch)"},
	{"contrack_stream_commit_seconds", "a transaction's commit (flush, offsets, markers)"},
	{"contrack_delivery_ack_lag_seconds", "delivery created → acknowledged"},
	{"contrack_delivery_attempt_duration_seconds", "webhook attempt, request → response"},
}

func (s *system) printHops(ctx context.Context, out io.Writer) {
	merged := map[string]map[string]*dto.Histogram{} // family → labels → buckets summed over processes
	for _, p := range s.procs {
		if p.adminAddr() == "" {
			continue
		}
		fams, err := scrape(ctx, p.adminAddr())
		if err != nil {
			fmt.Fprintf(out, "hops: %s: %v\n", p.name, err)
			continue
		}
		for _, h := range hopHistograms {
			f, ok := fams[h.name]
			if !ok || f.GetType() != dto.MetricType_HISTOGRAM {
				continue
			}
			if merged[h.name] == nil {
				merged[h.name] = map[string]*dto.Histogram{}
			}
			for _, m := range f.Metric {
				addHistogram(merged[h.name], labelString(m), m.GetHistogram())
			}
		}
	}
	fmt.Fprintln(out, "hops (each process's histograms over the whole run, warm-up included):")
	for _, h := range hopHistograms {
		byLabels := merged[h.name]
		keys := make([]string, 0, len(byLabels))
		for k := range byLabels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			hist := byLabels[k]
			if hist.GetSampleCount() == 0 {
				continue
			}
			fmt.Fprintf(out, "  %-44s %-40s n %-8d p50 %8s  p99 %8s\n", h.what, k, hist.GetSampleCount(),
				ms(bucketQuantile(hist, 0.50)), ms(bucketQuantile(hist, 0.99)))
		}
	}
}

func scrape(ctx context.Context, admin string) (map[string]*dto.MetricFamily, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+admin+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// labelString names a series by its labels, the noisy ones left out.
func labelString(m *dto.Metric) string {
	var parts []string
	for _, l := range m.GetLabel() {
		if l.GetName() == "code" || l.GetName() == "status" {
			continue
		}
		parts = append(parts, l.GetName()+"="+l.GetValue())
	}
	return strings.Join(parts, ",")
}

func addHistogram(into map[string]*dto.Histogram, key string, h *dto.Histogram) {
	have, ok := into[key]
	if !ok {
		c := &dto.Histogram{SampleCount: new(uint64)}
		for _, b := range h.GetBucket() {
			c.Bucket = append(c.Bucket, &dto.Bucket{UpperBound: new(b.GetUpperBound()), CumulativeCount: new(uint64)})
		}
		into[key], have = c, c
	}
	*have.SampleCount += h.GetSampleCount()
	for i, b := range h.GetBucket() {
		if i < len(have.Bucket) {
			*have.Bucket[i].CumulativeCount += b.GetCumulativeCount()
		}
	}
}

// bucketQuantile interpolates the q-quantile inside its bucket (as
// Prometheus's histogram_quantile does); past the last bound it says that bound.
func bucketQuantile(h *dto.Histogram, q float64) time.Duration {
	total := float64(h.GetSampleCount())
	rank := q * total
	lower, below := 0.0, 0.0
	for _, b := range h.GetBucket() {
		if math.IsInf(b.GetUpperBound(), 1) {
			break // beyond the last bound: say the bound
		}
		n := float64(b.GetCumulativeCount())
		if n >= rank {
			frac := 0.0
			if n > below {
				frac = (rank - below) / (n - below)
			}
			return time.Duration((lower + frac*(b.GetUpperBound()-lower)) * float64(time.Second))
		}
		lower, below = b.GetUpperBound(), n
	}
	return time.Duration(lower * float64(time.Second))
}

// goHeap is what a contrack process's Go runtime reports: bytes allocated
// since its start and collections run.
type goHeap struct {
	allocated   float64
	collections uint64
}

// goHeaps reads every contrack process's goHeap from its /metrics.
func (s *system) goHeaps(ctx context.Context) map[string]goHeap {
	out := map[string]goHeap{}
	for _, p := range s.procs {
		if p.adminAddr() == "" {
			continue
		}
		fams, err := scrape(ctx, p.adminAddr())
		if err != nil {
			continue
		}
		var h goHeap
		if f := fams["go_memstats_alloc_bytes_total"]; f != nil && len(f.Metric) > 0 {
			h.allocated = f.Metric[0].GetCounter().GetValue()
		}
		if f := fams["go_gc_duration_seconds"]; f != nil && len(f.Metric) > 0 {
			h.collections = f.Metric[0].GetSummary().GetSampleCount()
		}
		out[p.name] = h
	}
	return out
}

// printGoHeaps prints what each contrack process allocated and how many
// collections it ran between before and after, per delivered event: the
// garbage the pipeline makes, which the machine's other load does not move.
func printGoHeaps(out io.Writer, before, after map[string]goHeap, delivered int) {
	names := make([]string, 0, len(after))
	for n := range after {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b, ok := before[n]
		a := after[n]
		if !ok || a.allocated < b.allocated || delivered == 0 {
			continue // restarted during the run
		}
		fmt.Fprintf(out, "  %-22s allocated %.0f MB (%.1f kB/event), %d collections\n", "contrack "+n,
			(a.allocated-b.allocated)/1e6, (a.allocated-b.allocated)/1e3/float64(delivered), a.collections-b.collections)
	}
}
