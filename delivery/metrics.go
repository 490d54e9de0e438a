package delivery

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/sony/gobreaker/v2"
)

// Metrics are the stage's Prometheus collectors, on a registry of their own.
type Metrics struct {
	// Registry holds every collector below; mount Handler at /metrics.
	Registry *prometheus.Registry

	attempts     *prometheus.CounterVec // by outcome
	closed       *prometheus.CounterVec // deliveries closed, by status
	latency      prometheus.Histogram   // attempt latency
	endToEnd     prometheus.Histogram   // event emitted → delivery acknowledged
	queueDepth   *prometheus.GaugeVec   // by state
	breakerState *prometheus.GaugeVec   // by endpoint
	logDropped   prometheus.Counter     // attempt-log rows dropped
}

// DefaultMetrics is used by Run when Deps.Metrics is nil.
var DefaultMetrics = NewMetrics()

// NewMetrics returns the collectors registered on a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
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
		breakerState: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "contrack_delivery_breaker_state",
			Help: "Circuit breaker state per endpoint (host:port): 0 closed, 1 half-open, 2 open.",
		}, []string{"endpoint"}),
		logDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "contrack_delivery_attempt_log_dropped_total",
			Help: "Attempt-log rows dropped because ClickHouse stayed unreachable and the buffer was full.",
		}),
	}
	m.Registry.MustRegister(m.attempts, m.closed, m.latency, m.endToEnd, m.queueDepth, m.breakerState, m.logDropped)
	return m
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

func breakerValue(s gobreaker.State) float64 {
	switch s {
	case gobreaker.StateHalfOpen:
		return 1
	case gobreaker.StateOpen:
		return 2
	default:
		return 0
	}
}
