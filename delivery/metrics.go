package delivery

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/sony/gobreaker/v2"

	"github.com/contrack/contrack/platform/kafka"
)

// Metrics are the stage's Prometheus collectors, on a registry of their own.
//
// No label identifies a tenant — no account, host or endpoint — and every
// label takes a fixed, small set of values, so the number of series is
// bounded whatever the number of accounts: breakers are counted by state,
// not reported one series per endpoint. Per-account detail is in the
// attempt log (ClickHouse), which every query scopes by account.
type Metrics struct {
	// Registry holds every collector below (and, when it is the process's,
	// other stages' too); mount Handler at /metrics.
	Registry *prometheus.Registry

	attempts   *prometheus.CounterVec // by outcome
	closed     *prometheus.CounterVec // deliveries closed, by status
	latency    prometheus.Histogram   // attempt latency
	endToEnd   prometheus.Histogram   // event emitted → delivery acknowledged
	queueDepth *prometheus.GaugeVec   // by state
	breakers   *prometheus.GaugeVec   // breakers not closed, by state
	slow       prometheus.Gauge       // attempts in flight past SlowAfter
	logDropped prometheus.Counter     // attempt-log rows dropped

	// Stream are the stream runtime's collectors for the stage's consumer,
	// on the same registry.
	Stream *kafka.Metrics
}

// NewMetrics returns the collectors registered on a new registry of their
// own (tests read it).
func NewMetrics() *Metrics { return RegisterMetrics(prometheus.NewRegistry()) }

// RegisterMetrics returns the collectors registered on reg, the process's
// registry that its admin listener serves. Register once per registry.
func RegisterMetrics(reg *prometheus.Registry) *Metrics {
	m := &Metrics{
		Registry: reg,
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contrack_delivery_attempts_total",
			Help: "Webhook delivery attempts by outcome (delivered, http_error, gone, timeout, connection_error, rejected_target, secret_error).",
		}, []string{"outcome"}),
		closed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contrack_delivery_deliveries_total",
			Help: "Webhook deliveries closed, by final status (DELIVERED, DEAD).",
		}, []string{"status"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "contrack_delivery_attempt_duration_seconds",
			Help:    "Duration of one delivery attempt, request sent to response read.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15},
		}),
		endToEnd: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "contrack_delivery_ack_lag_seconds",
			Help:    "Time from a delivery's creation (its first event queued) to its acknowledgement.",
			Buckets: prometheus.ExponentialBuckets(0.01, 4, 12),
		}),
		queueDepth: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "contrack_delivery_queue_depth",
			Help: "Open deliveries by state (pending, failed) and events queued but not yet batched (queued_events).",
		}, []string{"state"}),
		breakers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "contrack_delivery_breakers",
			Help: "Endpoint circuit breakers (one per account and webhook host) in this process that are not closed, by state (open, half_open).",
		}, []string{"state"}),
		slow: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "contrack_delivery_slow_attempts",
			Help: "Delivery attempts in flight for longer than SlowAfter (they hold their endpoint's slots, not the shared workers).",
		}),
		logDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "contrack_delivery_attempt_log_dropped_total",
			Help: "Attempt-log rows dropped because ClickHouse stayed unreachable and the buffer was full.",
		}),
	}
	m.Registry.MustRegister(m.attempts, m.closed, m.latency, m.endToEnd, m.queueDepth, m.breakers, m.slow, m.logDropped)
	stream, err := kafka.NewMetrics(m.Registry)
	if err != nil {
		panic(err) // a new registry: no collector can clash
	}
	m.Stream = stream
	for _, st := range []string{breakerOpen, breakerHalfOpen} {
		m.breakers.WithLabelValues(st).Set(0) // present from the start
	}
	return m
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// The state label values of contrack_delivery_breakers.
const (
	breakerOpen     = "open"
	breakerHalfOpen = "half_open"
)

// breakerMoved counts a breaker's change of state.
func (m *Metrics) breakerMoved(from, to gobreaker.State) {
	if l := breakerLabel(from); l != "" {
		m.breakers.WithLabelValues(l).Dec()
	}
	if l := breakerLabel(to); l != "" {
		m.breakers.WithLabelValues(l).Inc()
	}
}

func breakerLabel(s gobreaker.State) string {
	switch s {
	case gobreaker.StateOpen:
		return breakerOpen
	case gobreaker.StateHalfOpen:
		return breakerHalfOpen
	}
	return ""
}
