package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Health caches the dependency probes behind /healthz and /readyz: a probe
// of every store runs at most once per Interval (a failure is re-probed
// after a second), however many requests ask, and concurrent askers share
// one probe. It also tracks the readiness of the process's parts (stages,
// the HTTP listener).
type Health struct {
	checks   []Check
	interval time.Duration
	log      *slog.Logger

	probe sync.Mutex // one probe at a time

	mu     sync.Mutex
	at     time.Time
	status map[string]string
	down   []string
	parts  map[string]bool
	// failing are the loops (platform/loop) that failed a run of rounds in
	// a row: the process runs, but a part of it is stuck.
	failing map[string]bool
}

// NewHealth probes checks at most once per interval (5 s when ≤ 0).
func NewHealth(checks []Check, interval time.Duration, log *slog.Logger) *Health {
	if interval <= 0 {
		interval = 5 * time.Second
	}
	return &Health{checks: checks, interval: interval, log: log, parts: map[string]bool{}, failing: map[string]bool{}}
}

// SetReady marks a part of the process (a stage, the listener) up or down.
// /readyz answers 503 while any part is down.
func (h *Health) SetReady(part string, up bool) {
	h.mu.Lock()
	h.parts[part] = up
	h.mu.Unlock()
}

// SetFailing marks a long-running loop failing (a run of failed rounds,
// platform/loop) or recovered. /readyz answers 503 while any loop fails.
func (h *Health) SetFailing(loop string, failing bool) {
	h.mu.Lock()
	if failing {
		h.failing[loop] = true
	} else {
		delete(h.failing, loop)
	}
	h.mu.Unlock()
}

// fresh reports whether the cached result is recent enough to answer.
func (h *Health) fresh(now time.Time) bool {
	ttl := h.interval
	if len(h.down) > 0 {
		ttl = min(ttl, time.Second)
	}
	return !h.at.IsZero() && now.Sub(h.at) < ttl
}

// Stores returns each dependency's status ("ok" or "down") and the sorted
// names of those down, from the cache or a new probe.
func (h *Health) Stores(ctx context.Context) (map[string]string, []string) {
	h.mu.Lock()
	if h.fresh(time.Now()) {
		defer h.mu.Unlock()
		return h.status, h.down
	}
	h.mu.Unlock()
	h.probe.Lock()
	defer h.probe.Unlock()
	h.mu.Lock()
	if h.fresh(time.Now()) { // another asker probed while we waited
		defer h.mu.Unlock()
		return h.status, h.down
	}
	h.mu.Unlock()

	// The probe outlives the asking request's cancellation: its answer is shared.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	type result struct {
		name string
		err  error
	}
	results := make(chan result, len(h.checks))
	for _, c := range h.checks {
		go func() { results <- result{c.Name, c.Ping(pctx)} }()
	}
	status := map[string]string{}
	var down []string
	for range h.checks {
		res := <-results
		if res.err != nil {
			status[res.name] = "down"
			down = append(down, res.name)
			h.log.Warn("health check failed", "dependency", res.name, "err", res.err)
		} else {
			status[res.name] = "ok"
		}
	}
	sort.Strings(down)
	h.mu.Lock()
	h.at, h.status, h.down = time.Now(), status, down
	h.mu.Unlock()
	return status, down
}

// notReady returns the parts marked down and the loops failing, sorted.
func (h *Health) notReady() (down, failing []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for p, up := range h.parts {
		if !up {
			down = append(down, p)
		}
	}
	for l := range h.failing {
		failing = append(failing, l)
	}
	sort.Strings(down)
	sort.Strings(failing)
	return down, failing
}

// Ready reports what /readyz would answer 200 to, and that each of want
// has been marked up (a part not yet marked is not down, so /readyz can be
// green before it starts).
func (h *Health) Ready(ctx context.Context, want ...string) bool {
	h.mu.Lock()
	for _, p := range want {
		if !h.parts[p] {
			h.mu.Unlock()
			return false
		}
	}
	h.mu.Unlock()
	down, failing := h.notReady()
	if len(down) > 0 || len(failing) > 0 {
		return false
	}
	_, stores := h.Stores(ctx)
	return len(stores) == 0
}

// ServeHealthz is liveness: 200 when every store answered its latest
// (cached) probe, else 503 naming those that did not.
func (h *Health) ServeHealthz(w http.ResponseWriter, r *http.Request) {
	status, down := h.Stores(r.Context())
	if len(down) > 0 {
		WriteJSON(w, http.StatusServiceUnavailable, map[string]any{
			"message": "Unavailable: " + strings.Join(down, ", ") + " not answering",
			"checks":  status,
		})
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"status": "ok", "checks": status})
}

// ServeReadyz is readiness: 200 when every part of the process is up, no
// loop is failing and every store answered within the probe interval, else
// 503 saying why.
func (h *Health) ServeReadyz(w http.ResponseWriter, r *http.Request) {
	var why []string
	parts, failing := h.notReady()
	if len(parts) > 0 {
		why = append(why, strings.Join(parts, ", ")+" not running")
	}
	if len(failing) > 0 {
		why = append(why, strings.Join(failing, ", ")+" failing")
	}
	status, down := h.Stores(r.Context())
	if len(down) > 0 {
		why = append(why, strings.Join(down, ", ")+" not answering")
	}
	if len(why) > 0 {
		WriteJSON(w, http.StatusServiceUnavailable, map[string]any{
			"message": "Not ready: " + strings.Join(why, "; "),
			"checks":  status,
		})
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": status})
}
