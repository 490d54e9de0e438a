package delivery

import (
	"math"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// value reads a counter or gauge; NaN (equal to nothing a test wants) if
// it cannot.
func value(m prometheus.Metric) float64 {
	var out dto.Metric
	if err := m.Write(&out); err != nil {
		return math.NaN()
	}
	if c := out.GetCounter(); c != nil {
		return c.GetValue()
	}
	return out.GetGauge().GetValue()
}

// AttemptCount is the attempts counter of outcome.
func (m *Metrics) AttemptCount(outcome string) float64 {
	return value(m.attempts.WithLabelValues(outcome))
}

// Breakers is how many endpoint breakers are in state ("open", "half_open").
func (m *Metrics) Breakers(state string) float64 {
	return value(m.breakers.WithLabelValues(state))
}

// SlowAttempts is the gauge of attempts in flight past SlowAfter.
func (m *Metrics) SlowAttempts() float64 {
	return value(m.slow)
}

// QueueDepth is the queue depth gauge of state.
func (m *Metrics) QueueDepth(state string) float64 {
	return value(m.queueDepth.WithLabelValues(state))
}
