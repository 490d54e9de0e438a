package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"

	"github.com/KimMachineGun/automemlimit/memlimit"

	"github.com/contrack/contrack/platform/testenv"
)

// applyGC sets GOGC from the configuration and, unless GOMEMLIMIT is set,
// 90 % of the container's memory limit; none without a limit.
func TestApplyGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("AUTOMEMLIMIT", "")
	os.Unsetenv("GOMEMLIMIT")
	os.Unsetenv("AUTOMEMLIMIT")
	log := testenv.Log(t)

	pct, limit, err := applyGC(Config{GOGC: "200"}, memlimit.Limit(1<<30), log)
	if err != nil || pct != 200 || debug.SetGCPercent(-1) != 200 {
		t.Fatalf("GOGC 200: applied %d, %v", pct, err)
	}
	gib := float64(1 << 30)
	if want := int64(gib * 0.9); limit != want || debug.SetMemoryLimit(-1) != want {
		t.Fatalf("memory limit %d, want 90%% of 1 GiB, %d", limit, want)
	}

	if _, limit, err = applyGC(Config{GOGC: "100"}, func() (uint64, error) { return 0, memlimit.ErrNoLimit }, log); err != nil || limit != math.MaxInt64 {
		t.Fatalf("without a container limit: %d, %v; want none", limit, err)
	}

	// GOMEMLIMIT set: the runtime's value stands.
	debug.SetMemoryLimit(300 << 20)
	t.Setenv("GOMEMLIMIT", "300MiB")
	if _, limit, err = applyGC(Config{GOGC: "off"}, memlimit.Limit(1<<30), log); err != nil || limit != 300<<20 || debug.SetMemoryLimit(-1) != 300<<20 {
		t.Fatalf("GOMEMLIMIT set: %d, %v; want it kept", limit, err)
	}
	if debug.SetGCPercent(-1) != -1 {
		t.Fatal("GOGC off not applied")
	}

	for _, bad := range []string{"0", "-5", "fast", ""} {
		if _, _, err := applyGC(Config{GOGC: bad}, memlimit.Limit(1<<30), log); err == nil {
			t.Errorf("GOGC %q accepted", bad)
		}
	}
}
