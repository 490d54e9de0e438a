package testkit

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Counter is the sum of the counter name's series on reg whose labels
// include every pair of labels (0 when none is registered yet).
func Counter(t testing.TB, reg prometheus.Gatherer, name string, labels map[string]string) float64 {
	t.Helper()
	return sumSeries(t, reg, name, labels, func(m *dto.Metric) float64 { return m.GetCounter().GetValue() })
}

// HistogramCount is the number of observations of the histogram name's
// series on reg whose labels include every pair of labels.
func HistogramCount(t testing.TB, reg prometheus.Gatherer, name string, labels map[string]string) uint64 {
	t.Helper()
	return uint64(sumSeries(t, reg, name, labels, func(m *dto.Metric) float64 { return float64(m.GetHistogram().GetSampleCount()) }))
}

// Gauge is the sum of the gauge name's series on reg whose labels include
// every pair of labels (0 when none is registered yet).
func Gauge(t testing.TB, reg prometheus.Gatherer, name string, labels map[string]string) float64 {
	t.Helper()
	return sumSeries(t, reg, name, labels, func(m *dto.Metric) float64 { return m.GetGauge().GetValue() })
}

// sumSeries adds value over the series of name on reg whose labels include
// every pair of labels.
func sumSeries(t testing.TB, reg prometheus.Gatherer, name string, labels map[string]string, value func(*dto.Metric) float64) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue series
				}
			}
			sum += value(m)
		}
	}
	return sum
}
