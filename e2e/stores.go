package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// storeFault takes a local store down and brings it back, for the chaos
// runs. Postgres is the Debian cluster deploy/services.sh starts; ClickHouse
// is whatever clickhouse-server runs here, restarted with its own command
// line so it comes back with the same data.
type storeFault interface {
	down() error
	up() error
}

func newStoreFault(name string) (storeFault, error) {
	switch name {
	case "postgres":
		vers, _ := filepath.Glob("/etc/postgresql/*")
		if len(vers) == 0 {
			return nil, fmt.Errorf("postgres fault: no Debian cluster under /etc/postgresql")
		}
		sort.Strings(vers)
		return &pgFault{version: filepath.Base(vers[len(vers)-1])}, nil
	case "clickhouse":
		return &chFault{}, nil
	}
	return nil, fmt.Errorf("unknown store %q (postgres, clickhouse)", name)
}

type pgFault struct{ version string }

// down stops Postgres the way a crash would (immediate: no checkpoint).
func (f *pgFault) down() error {
	return runCmd("pg_ctlcluster", "--skip-systemctl-redirect", f.version, "main", "stop", "-m", "immediate")
}

func (f *pgFault) up() error {
	return runCmd("pg_ctlcluster", "--skip-systemctl-redirect", f.version, "main", "start")
}

type chFault struct{ cmdline []string }

func (f *chFault) down() error {
	pid, cmdline, err := findProcess("clickhouse-serv")
	if err != nil {
		return err
	}
	f.cmdline = cmdline
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill clickhouse-server: %w", err)
	}
	for range 100 {
		if syscall.Kill(pid, 0) != nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("clickhouse-server %d did not exit", pid)
}

func (f *chFault) up() error {
	if len(f.cmdline) == 0 {
		return fmt.Errorf("clickhouse was not taken down")
	}
	os.Remove(pidFileOf(f.cmdline)) // a killed daemon leaves its pid file
	if err := runCmd(f.cmdline[0], f.cmdline[1:]...); err != nil {
		return err
	}
	return waitTCPPlain("127.0.0.1:9000", 60*time.Second)
}

func pidFileOf(cmdline []string) string {
	for _, a := range cmdline {
		if v, ok := strings.CutPrefix(a, "--pid-file="); ok {
			return v
		}
	}
	return ""
}

// findProcess finds a process by its comm (the first 15 bytes of its name).
func findProcess(comm string) (int, []string, error) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		_, _, c, _, ok := cpuTimes(pid)
		if !ok || c != comm {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		return pid, args, nil
	}
	return 0, nil, fmt.Errorf("no %s process", comm)
}

func runCmd(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func waitTCPPlain(addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		if err := waitTCPOnce(addr); err == nil {
			return nil
		} else if time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}
