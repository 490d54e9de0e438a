package delivery

import dto "github.com/prometheus/client_model/go"

// EncodePayload exposes the payload encoder to the tests.
var EncodePayload = encodePayload

// AttemptCount is the attempts counter of outcome.
func (m *Metrics) AttemptCount(outcome string) float64 {
	var out dto.Metric
	m.attempts.WithLabelValues(outcome).Write(&out)
	return out.GetCounter().GetValue()
}

// Breakers is how many endpoint breakers are in state ("open", "half_open").
func (m *Metrics) Breakers(state string) float64 {
	var out dto.Metric
	m.breakers.WithLabelValues(state).Write(&out)
	return out.GetGauge().GetValue()
}

// SlowAttempts is the gauge of attempts in flight past SlowAfter.
func (m *Metrics) SlowAttempts() float64 {
	var out dto.Metric
	m.slow.Write(&out)
	return out.GetGauge().GetValue()
}

// QueueDepth is the queue depth gauge of state.
func (m *Metrics) QueueDepth(state string) float64 {
	var out dto.Metric
	m.queueDepth.WithLabelValues(state).Write(&out)
	return out.GetGauge().GetValue()
}
