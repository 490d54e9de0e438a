package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ticks is USER_HZ, the unit of /proc/<pid>/stat's CPU times (100 on Linux).
const ticks = 100

// cpuTimes reads utime+stime and cutime+cstime (children that exited) of a
// process, in seconds.
func cpuTimes(pid int) (self, children float64, comm string, ppid int, ok bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, "", 0, false
	}
	s := string(raw)
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || close < open {
		return 0, 0, "", 0, false
	}
	comm = s[open+1 : close]
	f := strings.Fields(s[close+2:]) // from field 3 (state)
	if len(f) < 15 {
		return 0, 0, "", 0, false
	}
	num := func(i int) float64 { v, _ := strconv.ParseFloat(f[i], 64); return v / ticks }
	ppid, _ = strconv.Atoi(f[1])
	return num(11) + num(12), num(13) + num(14), comm, ppid, true
}

// cpuSnapshot is the CPU seconds used so far by each group of processes:
// every contrack process by name (and the brokers kafka-N of a real
// cluster), the Postgres and ClickHouse servers (with
// their exited children), and this generator.
func cpuSnapshot(contrack map[string]int) map[string]float64 {
	out := map[string]float64{}
	for name, pid := range contrack {
		if self, children, _, _, ok := cpuTimes(pid); ok {
			if !strings.HasPrefix(name, "kafka-") { // a broker of the real cluster
				name = "contrack " + name
			}
			out[name] = self + children
		}
	}
	self, _, _, _, _ := cpuTimes(os.Getpid())
	out["generator+receiver"] = self
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		self, children, comm, ppid, ok := cpuTimes(pid)
		if !ok {
			continue
		}
		switch {
		case comm == "postgres":
			out["postgres"] += self
			if ppid == 1 || !isComm(ppid, "postgres") { // the postmaster: add its exited backends
				out["postgres"] += children
			}
		case strings.HasPrefix(comm, "clickhouse"):
			out["clickhouse"] += self + children
		}
	}
	return out
}

func isComm(pid int, comm string) bool {
	_, _, c, _, ok := cpuTimes(pid)
	return ok && c == comm
}

// backendCPU is the CPU seconds used so far by each Postgres backend
// serving database db, by pid: the run's own share of a server other work
// shares (another run's or a test suite's databases), which the server's
// total counts too. Backends that end during the run take theirs with
// them; contrack's pools keep theirs for the run.
func backendCPU(ctx context.Context, adminURL, db string) (map[int]float64, error) {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return nil, fmt.Errorf("backend cpu: %w", err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = $1`, db)
	if err != nil {
		return nil, fmt.Errorf("backend cpu: %w", err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, fmt.Errorf("backend cpu: %w", err)
	}
	out := make(map[int]float64, len(pids))
	for _, pid := range pids {
		if self, _, _, _, ok := cpuTimes(int(pid)); ok {
			out[int(pid)] = self
		}
	}
	return out, nil
}

// backendCPUUsed is the CPU the backends of after used since before (all
// of it for one that started since).
func backendCPUUsed(before, after map[int]float64) float64 {
	used := 0.0
	for pid, t := range after {
		used += t - before[pid]
	}
	return used
}
