// Package metrics holds what every stage's Prometheus collectors share:
// registering on the role's registry, which several stages of one process
// (and tests) use at once.
package metrics

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Register registers c on reg, or returns the equal collector already
// registered there: the second stage of a process to ask gets the
// collectors the first registered. Any other refusal is an error.
func Register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing, nil
			}
		}
		return c, fmt.Errorf("metrics: register: %w", err)
	}
	return c, nil
}

// RegisterAll registers every collector of a stage on reg (nothing when reg
// is nil: a stage run without metrics); the first refusal is returned.
func RegisterAll(reg prometheus.Registerer, cs ...prometheus.Collector) error {
	if reg == nil {
		return nil
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("metrics: register: %w", err)
		}
	}
	return nil
}
