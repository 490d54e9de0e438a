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

// BreakerState is the breaker gauge of endpoint (0 closed, 1 half-open, 2 open).
func (m *Metrics) BreakerState(endpoint string) float64 {
	var out dto.Metric
	m.breakerState.WithLabelValues(endpoint).Write(&out)
	return out.GetGauge().GetValue()
}

// QueueDepth is the queue depth gauge of state.
func (m *Metrics) QueueDepth(state string) float64 {
	var out dto.Metric
	m.queueDepth.WithLabelValues(state).Write(&out)
	return out.GetGauge().GetValue()
}
