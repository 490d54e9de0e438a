package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/contrack/contrack/platform/metrics"
)

// NewRegistry returns the process's metrics registry: every stage of the
// role registers its collectors on it (through its Deps), and the admin
// listener serves it at /metrics, so each role shows its own stages'
// metrics. It starts with the Go runtime and process collectors and
// contrack_build_info{role, version}.
func NewRegistry(role, version string) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	info := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "contrack_build_info",
		Help:        "Always 1: the role this process runs and the binary's version.",
		ConstLabels: prometheus.Labels{"role": role, "version": version},
	})
	info.Set(1)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), info)
	return reg
}

// MetricsHandler serves reg in the Prometheus text format.
func MetricsHandler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}

// requestMetrics count the API's requests. Labels are the method and the
// status code only: never a path (it holds ids) nor an account.
type requestMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newRequestMetrics(reg prometheus.Registerer) *requestMetrics {
	m := &requestMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contrack_http_requests_total",
			Help: "HTTP API requests answered, by method and status code.",
		}, []string{"method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "contrack_http_request_duration_seconds",
			Help:    "HTTP API request duration, request read to response written, by method.",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10, 30},
		}, []string{"method"}),
	}
	// Servers sharing a registry (tests, a rebuilt server) share the counters.
	m.requests = registerOnce(reg, m.requests)
	m.duration = registerOnce(reg, m.duration)
	return m
}

// registerOnce registers c on reg, or returns the equal collector already there.
func registerOnce[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	c, err := metrics.Register(reg, c)
	if err != nil {
		panic(err)
	}
	return c
}

// knownMethods bounds the method label: anything else counts as OTHER.
var knownMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
}

func (m *requestMetrics) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		cw := &codeWriter{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(cw, r)
		method := r.Method
		if !knownMethods[method] {
			method = "OTHER"
		}
		m.requests.WithLabelValues(method, strconv.Itoa(cw.code)).Inc()
		m.duration.WithLabelValues(method).Observe(time.Since(start).Seconds())
	})
}

// codeWriter records the status code written.
type codeWriter struct {
	http.ResponseWriter
	code    int
	written bool
}

func (w *codeWriter) WriteHeader(code int) {
	if !w.written {
		w.code, w.written = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *codeWriter) Write(b []byte) (int, error) {
	w.written = true
	return w.ResponseWriter.Write(b)
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (w *codeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
