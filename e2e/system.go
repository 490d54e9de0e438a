package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/jackc/pgx/v5"
)

// system is a contrack deployment made of OS processes over fresh
// databases, driven only through its binary, its environment and its public
// HTTP interface — as an operator and its users see it.
type system struct {
	bin     string
	env     []string // the configuration every process shares
	dataDir string
	pgURL   string // the fresh database
	pgAdmin string // the server's maintenance database, to drop it
	chAddr  string
	chDB    string
	apiAddr string
	logDir  string
	procs   map[string]*proc
	kafka   *realKafka // nil: the embedded broker
}

// proc is one running contrack process.
type proc struct {
	name string
	args []string
	env  []string
	cmd  *exec.Cmd
	log  *os.File
	// done is closed once the process has exited (an exit no fault asked
	// for is in exits, with its error).
	done chan struct{}
	// killed says the run itself stopped it (a fault, or the end);
	// exits records each time it ended without that.
	killed atomic.Bool
	mu     sync.Mutex
	exits  []procExit
}

// adminAddr is the address of the process's admin listener; "" when it
// serves none (CONTRACK_ADMIN_ADDR=off: the broker).
func (p *proc) adminAddr() string {
	if a := envValue(p.env, "CONTRACK_ADMIN_ADDR"); !strings.EqualFold(a, "off") {
		return a
	}
	return ""
}

// procExit is a process ending that no fault asked for.
type procExit struct {
	at       time.Time
	err      error
	lastLine string
}

type systemConfig struct {
	Bin        string
	PGServer   string // postgres://… of the server; a new database is made on it
	ClickHouse string
	Partitions int
	Kafka      *realKafka // the Apache Kafka cluster to use; nil: the embedded broker
}

// freeAddr returns a loopback address nothing listens on, for a process
// the harness starts. Its port is below Linux's ephemeral range (32768 and
// up by default), where the kernel picks the local ports of outgoing
// connections: a port from there, free when checked, was taken by one of
// them before the process it was meant for could listen on it (a chaos
// run's api process failed so). Ports are never handed out twice.
func freeAddr() (string, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		port := 10000 + mrand.IntN(22000)
		if handedOut[port] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue // in use
		}
		addr := ln.Addr().String()
		ln.Close()
		handedOut[port] = true
		return addr, nil
	}
	return "", errors.New("no free loopback port between 10000 and 32000")
}

var (
	portsMu   sync.Mutex
	handedOut = map[int]bool{}
)

func randomName(prefix string) string {
	b := make([]byte, 5)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// randomKey is a secret key as `openssl rand -base64 32` makes one: the
// processes refuse anything weaker.
func randomKey() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// withDatabase replaces the database of a postgres:// URL.
func withDatabase(url, db string) string {
	before, after, _ := strings.Cut(url, "?")
	i := strings.LastIndex(before, "/")
	out := before[:i+1] + db
	if after != "" {
		out += "?" + after
	}
	return out
}

// operatorToken opens the processes' profiles (CONTRACK_OPERATOR_TOKEN).
var operatorToken = randomName("e2e-operator-")

func newSystem(cfg systemConfig) (*system, error) {
	dir, err := os.MkdirTemp("", "contrack-e2e-")
	if err != nil {
		return nil, err
	}
	s := &system{bin: cfg.Bin, dataDir: filepath.Join(dir, "data"), logDir: filepath.Join(dir, "logs"), procs: map[string]*proc{},
		pgAdmin: cfg.PGServer, chAddr: cfg.ClickHouse, chDB: randomName("contrack_e2e_"), kafka: cfg.Kafka}
	s.pgURL = withDatabase(cfg.PGServer, s.chDB)
	if err := os.MkdirAll(s.logDir, 0o755); err != nil {
		return nil, err
	}
	addrs := map[string]string{}
	for _, name := range []string{"http", "kafka", "sandbox", "admin"} {
		if addrs[name], err = freeAddr(); err != nil {
			return nil, err
		}
	}
	s.apiAddr = addrs["http"]
	s.env = append(os.Environ(),
		"CONTRACK_HTTP_ADDR="+addrs["http"],
		"CONTRACK_PG_URL="+s.pgURL,
		"CONTRACK_CLICKHOUSE_ADDR="+cfg.ClickHouse,
		"CONTRACK_CLICKHOUSE_DB="+s.chDB,
		"CONTRACK_EMBEDDED_KAFKA_ADDR="+addrs["kafka"],
		"CONTRACK_SANDBOX_ADDR="+addrs["sandbox"],
		"CONTRACK_ADMIN_ADDR="+addrs["admin"],
		"CONTRACK_DATA_DIR="+s.dataDir,
		fmt.Sprintf("CONTRACK_KAFKA_PARTITIONS=%d", cfg.Partitions),
		"CONTRACK_SECRET_KEY="+randomKey(),
		"CONTRACK_OPERATOR_TOKEN="+operatorToken,
		"CONTRACK_ALLOW_PRIVATE_WEBHOOKS=true",
		"CONTRACK_LOG_LEVEL=warn",
	)
	if cfg.Kafka != nil {
		s.env = append(s.env, cfg.Kafka.env()...)
	}
	return s, nil
}

// start runs `contrack <args…>` as the process called name, its output in
// the log directory.
func (s *system) start(name string, extraEnv []string, args ...string) error {
	p := &proc{name: name, args: args, env: append(append([]string{}, s.env...), extraEnv...)}
	s.procs[name] = p
	return s.launch(p)
}

func (s *system) launch(p *proc) error {
	f, err := os.OpenFile(filepath.Join(s.logDir, p.name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	p.log = f
	p.cmd = exec.Command(s.bin, p.args...)
	p.cmd.Env = p.env
	p.cmd.Stdout, p.cmd.Stderr = f, f
	if err := p.cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	p.done = make(chan struct{})
	p.killed.Store(false)
	go func() {
		err := p.cmd.Wait()
		f.Close()
		if !p.killed.Load() {
			p.mu.Lock()
			p.exits = append(p.exits, procExit{at: time.Now(), err: err, lastLine: lastErrorLine(f.Name())})
			p.mu.Unlock()
		}
		close(p.done)
	}()
	return nil
}

// unexpectedExits lists, for the ledger, every process that ended while no
// fault or shutdown asked it to: a stage that gives up under a fault it
// should ride out.
func (s *system) unexpectedExits(start time.Time) []string {
	var out []string
	for name, p := range s.procs {
		p.mu.Lock()
		for _, e := range p.exits {
			out = append(out, fmt.Sprintf("%s exited at %s (%v): %s", name, e.at.Sub(start).Round(100*time.Millisecond), e.err, e.lastLine))
		}
		p.mu.Unlock()
	}
	sort.Strings(out)
	return out
}

// lastErrorLine is the last line of a process's log at level ERROR (its
// reason to stop, as the stages log it), or the last line.
func lastErrorLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], `"level":"ERROR"`) || strings.Contains(lines[i], "level=ERROR") {
			return lines[i]
		}
	}
	return lines[len(lines)-1]
}

// kill sends SIGKILL to a process and waits for it to be gone.
func (s *system) kill(name string) error {
	p := s.procs[name]
	if p == nil || p.cmd == nil {
		return fmt.Errorf("no process %s", name)
	}
	p.killed.Store(true)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill %s: %w", name, err)
	}
	<-p.done
	return nil
}

// restart starts a killed process again with the same arguments.
func (s *system) restart(name string) error { return s.launch(s.procs[name]) }

// stop ends every process with SIGTERM (SIGKILL after a grace period).
func (s *system) stop(grace time.Duration) {
	for _, p := range s.procs {
		if p.cmd != nil && p.cmd.ProcessState == nil {
			p.killed.Store(true)
			_ = p.cmd.Process.Signal(syscall.SIGTERM) // fails only if it has exited already
		}
	}
	deadline := time.After(grace)
	for _, p := range s.procs {
		select {
		case <-p.done:
		case <-deadline:
			_ = p.cmd.Process.Signal(syscall.SIGKILL) // fails only if it has exited already
			<-p.done
		}
	}
}

// pids lists the running contrack processes by name.
func (s *system) pids() map[string]int {
	out := map[string]int{}
	for name, p := range s.procs {
		if p.cmd != nil && p.cmd.Process != nil {
			out[name] = p.cmd.Process.Pid
		}
	}
	return out
}

// cpuPIDs are the processes whose CPU the run reports: every contrack
// process, and the Kafka brokers on a real cluster.
func (s *system) cpuPIDs() map[string]int {
	out := s.pids()
	if s.kafka != nil {
		for name, pid := range kafkaPIDs(s.kafka.script) {
			out[name] = pid
		}
	}
	return out
}

// eventsExactlyOnce counts the records of the run's events topic and the
// duplicates among them (read_committed, as delivery reads it).
func (s *system) eventsExactlyOnce(ctx context.Context) (records, duplicates int, err error) {
	if s.kafka != nil {
		return s.kafka.eventsExactlyOnce(ctx)
	}
	return countDuplicateEvents(ctx, []string{envValue(s.env, "CONTRACK_EMBEDDED_KAFKA_ADDR")}, "")
}

// waitHealthy polls /healthz until it answers 200.
func (s *system) waitHealthy(ctx context.Context, addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	var last error
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body) // only the status matters
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
			last = fmt.Errorf("healthz %d", resp.StatusCode)
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s not healthy within %s: %v (logs in %s)", addr, within, last, s.logDir)
}

// admin runs `contrack admin …` and returns the last line of its output.
func (s *system) admin(args ...string) (string, error) {
	cmd := exec.Command(s.bin, append([]string{"admin"}, args...)...)
	cmd.Env = s.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("contrack admin %s: %w: %s", strings.Join(args, " "), err, errOut.String())
	}
	var last string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			last = t
		}
	}
	if last == "" {
		return "", fmt.Errorf("contrack admin %s printed nothing", strings.Join(args, " "))
	}
	return last, nil
}

// dropStores removes the run's databases.
func (s *system) dropStores(ctx context.Context) error {
	var errs []error
	if conn, err := pgx.Connect(ctx, s.pgAdmin); err != nil {
		errs = append(errs, err)
	} else {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+s.chDB+" WITH (FORCE)"); err != nil {
			errs = append(errs, fmt.Errorf("drop postgres database: %w", err))
		}
		conn.Close(ctx)
	}
	if conn, err := clickhouse.Open(&clickhouse.Options{Addr: []string{s.chAddr}}); err != nil {
		errs = append(errs, err)
	} else {
		if err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+s.chDB); err != nil {
			errs = append(errs, fmt.Errorf("drop clickhouse database: %w", err))
		}
		conn.Close()
	}
	return errors.Join(errs...)
}

// waitTCP waits until addr accepts connections.
func waitTCP(ctx context.Context, addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not accepting connections within %s: %w", addr, within, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func waitTCPOnce(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	return c.Close()
}

// profile writes a CPU profile of every process over d to dir/<name>.pprof
// and what it allocated over the same d to dir/<name>.allocs.pprof (a delta
// of its allocation profile), read from the process's admin listener; dir ""
// profiles nothing.
func (s *system) profile(ctx context.Context, dir string, d time.Duration) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	done := make(chan error, 2*len(s.procs))
	for name, p := range s.procs {
		admin := p.adminAddr()
		if admin == "" {
			done <- nil
			done <- nil
			continue
		}
		go func() { done <- s.profileOne(ctx, filepath.Join(dir, name+".pprof"), admin, "profile", d) }()
		go func() { done <- s.profileOne(ctx, filepath.Join(dir, name+".allocs.pprof"), admin, "allocs", d) }()
	}
	for range 2 * len(s.procs) {
		if err := <-done; err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (s *system) profileOne(ctx context.Context, path, admin, kind string, d time.Duration) error {
	url := fmt.Sprintf("http://%s/debug/pprof/%s?seconds=%d", admin, kind, max(1, int(d.Seconds())))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+operatorToken) // the profiles need it
	resp, err := (&http.Client{Timeout: d + time.Minute}).Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// profileSelf profiles this process (the generator and the receiver) into
// dir/generator.pprof until the returned function is called.
func profileSelf(dir string) func() {
	if dir == "" {
		return func() {}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, "generator.pprof"))
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
