package main

import (
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// memoryLimitRatio is the share of the container's memory limit that
// GOMEMLIMIT gets when it is not set: the collector works harder as the heap
// nears it, leaving a tenth for what the Go heap does not count (stacks,
// the embedded broker's page cache is the kernel's, cgo: none).
const memoryLimitRatio = 0.9

// applyGC sets the collector from cfg: GOGC (contrack's default when the
// variable is unset; the runtime has read it already when set) and, unless
// GOMEMLIMIT is set, a soft memory limit of memoryLimitRatio of the limit
// provider reports (the cgroup's memory.max: a container's limit; none
// without one). It returns what it applied, for the start-up log.
func applyGC(cfg Config, provider memlimit.Provider, log *slog.Logger) (gcPercent int, memoryLimit int64, err error) {
	gcPercent, err = parseGOGC(cfg.GOGC)
	if err != nil {
		return 0, 0, err
	}
	debug.SetGCPercent(gcPercent)
	memoryLimit, err = memlimit.Set(memlimit.WithProvider(provider), memlimit.WithRatio(memoryLimitRatio),
		memlimit.WithLogger(log.With("component", "gomemlimit")))
	if err != nil {
		return gcPercent, memoryLimit, fmt.Errorf("GOMEMLIMIT from the container's memory limit: %w", err)
	}
	return gcPercent, memoryLimit, nil
}

// parseGOGC reads GOGC as the runtime does: a percentage, or off (-1).
func parseGOGC(v string) (int, error) {
	if strings.EqualFold(v, "off") {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("GOGC must be a percentage of at least 1, or off, not %q", v)
	}
	return n, nil
}

// memoryLimitText is a GOMEMLIMIT for the log: none when unlimited.
func memoryLimitText(limit int64) string {
	if limit == math.MaxInt64 {
		return "none"
	}
	return strconv.FormatInt(limit>>20, 10) + "MiB"
}
