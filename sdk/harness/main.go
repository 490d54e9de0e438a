// Command harness runs the SDKs' own test suites against a real
// `contrack all` (make sdk-test): it starts bin/contrack over fresh
// databases on the local Postgres and ClickHouse (deploy/services.sh),
// with the embedded broker and the sandbox carriers on free ports, runs
// each suite with the server's address in its environment, then stops the
// server and drops the databases.
//
//	go run ./sdk/harness 'go=cd sdk/go && go test ./...' 'python=pytest sdk/python'
//
// Each suite is NAME=COMMAND, run by bash from the repository root, in
// turn; the harness exits 1 when any fails. A suite sees:
//
//	CONTRACK_SDK_TEST_URL  the API's base URL, e.g. http://127.0.0.1:23456
//	CONTRACK_SDK_TEST_BIN  the contrack binary, absolute, to run `admin create-key`
//	                       and `admin plan` with (the environment points it
//	                       at the server's database)
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/jackc/pgx/v5"
)

func main() {
	bin := flag.String("bin", "bin/contrack", "the contrack binary (make build)")
	pg := flag.String("pg", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "Postgres server; a fresh database is created on it")
	ch := flag.String("clickhouse", "127.0.0.1:9000", "ClickHouse server (native protocol); a fresh database is created on it")
	keep := flag.Bool("keep", false, "keep the databases and the server's log")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: harness [flags] NAME=COMMAND ...")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ok, err := run(ctx, *bin, *pg, *ch, *keep, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdk-test:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(ctx context.Context, bin, pgServer, chAddr string, keep bool, suites []string) (bool, error) {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return false, err
	}
	if _, err := os.Stat(bin); err != nil {
		return false, fmt.Errorf("%w (make build)", err)
	}
	dir, err := os.MkdirTemp("", "contrack-sdk-test-")
	if err != nil {
		return false, err
	}
	db := "contrack_sdk_" + randomHex(5)
	addrs := map[string]string{}
	for _, name := range []string{"http", "kafka", "sandbox", "admin"} {
		if addrs[name], err = freeAddr(); err != nil {
			return false, err
		}
	}
	// The caller's own contrack settings (a KAFKA_BROKERS, a namespace)
	// are not this server's: it runs on the embedded broker.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CONTRACK_") && !strings.HasPrefix(kv, "KAFKA_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"CONTRACK_HTTP_ADDR="+addrs["http"],
		"CONTRACK_PG_URL="+withDatabase(pgServer, db),
		"CONTRACK_CLICKHOUSE_ADDR="+chAddr,
		"CONTRACK_CLICKHOUSE_DB="+db,
		"CONTRACK_EMBEDDED_KAFKA_ADDR="+addrs["kafka"],
		"CONTRACK_SANDBOX_ADDR="+addrs["sandbox"],
		"CONTRACK_ADMIN_ADDR="+addrs["admin"],
		"CONTRACK_DATA_DIR="+filepath.Join(dir, "data"),
		"CONTRACK_KAFKA_PARTITIONS=2",
		"CONTRACK_SECRET_KEY="+randomHex(32),   // 32 random bytes: contrack refuses weaker keys
		"CONTRACK_ALLOW_PRIVATE_WEBHOOKS=true", // the suites' webhook receivers listen on loopback
		"CONTRACK_LOG_LEVEL=warn",
	)
	logPath := filepath.Join(dir, "contrack.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return false, err
	}
	server := exec.Command(bin, "all")
	server.Env = env
	server.Stdout, server.Stderr = logFile, logFile
	if err := server.Start(); err != nil {
		return false, fmt.Errorf("start contrack all: %w", err)
	}
	// exited is closed once the server has gone, exitErr set before: why it
	// went, if that was before the SIGTERM below.
	exited := make(chan struct{})
	var exitErr error
	go func() { exitErr = server.Wait(); logFile.Close(); close(exited) }()
	defer func() {
		_ = server.Process.Signal(syscall.SIGTERM) // fails only if it has exited already
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = server.Process.Kill()
			<-exited
		}
		if keep {
			fmt.Printf("sdk-test: kept database %s and the log %s\n", db, logPath)
			return
		}
		if err := dropStores(pgServer, chAddr, db); err != nil {
			fmt.Fprintln(os.Stderr, "sdk-test: drop databases:", err)
		}
		os.RemoveAll(dir)
	}()
	url := "http://" + addrs["http"]
	start := time.Now()
	if err := waitHealthy(ctx, url, exited, func() error { return exitErr }, 90*time.Second); err != nil {
		return false, fmt.Errorf("%w\n%s", err, tail(logPath, 30))
	}
	fmt.Printf("sdk-test: contrack all healthy at %s after %s\n", url, time.Since(start).Round(time.Millisecond))
	env = append(env, "CONTRACK_SDK_TEST_URL="+url, "CONTRACK_SDK_TEST_BIN="+bin)

	var failed []string
	for _, suite := range suites {
		name, command, ok := strings.Cut(suite, "=")
		if !ok {
			return false, fmt.Errorf("suite %q is not NAME=COMMAND", suite)
		}
		fmt.Printf("sdk-test: %s: %s\n", name, command)
		began := time.Now()
		cmd := exec.CommandContext(ctx, "bash", "-c", command)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		err := cmd.Run()
		took := time.Since(began).Round(100 * time.Millisecond)
		if err != nil {
			fmt.Printf("sdk-test: %s FAILED after %s: %v\n", name, took, err)
			failed = append(failed, name)
		} else {
			fmt.Printf("sdk-test: %s passed in %s\n", name, took)
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
	}
	select {
	case <-exited:
		return false, fmt.Errorf("contrack all exited during the suites: %v\n%s", exitErr, tail(logPath, 30))
	default:
	}
	if len(failed) > 0 {
		fmt.Printf("sdk-test: failed: %s (server log: last lines below)\n%s\n", strings.Join(failed, ", "), tail(logPath, 20))
		return false, nil
	}
	fmt.Printf("sdk-test: all %d suites passed in %s\n", len(suites), time.Since(start).Round(100*time.Millisecond))
	return true, nil
}

// waitHealthy polls /healthz until it answers 200.
func waitHealthy(ctx context.Context, url string, exited <-chan struct{}, exitErr func() error, within time.Duration) error {
	deadline := time.Now().Add(within)
	last := errors.New("no answer")
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("contrack all exited: %v", exitErr())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		resp, err := http.Get(url + "/healthz")
		if err != nil {
			last = err
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body) // only the status matters
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		last = fmt.Errorf("healthz %d", resp.StatusCode)
	}
	return fmt.Errorf("contrack all not healthy within %s: %v", within, last)
}

// freeAddr is a loopback address nothing listens on, below Linux's
// ephemeral range so no outgoing connection takes it before the server
// listens (as e2e/ does).
func freeAddr() (string, error) {
	for range 1000 {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", 10000+mrand.IntN(22000)))
		if err != nil {
			continue
		}
		addr := ln.Addr().String()
		ln.Close()
		return addr, nil
	}
	return "", errors.New("no free loopback port between 10000 and 32000")
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// withDatabase replaces the database of a postgres:// URL.
func withDatabase(url, db string) string {
	before, after, _ := strings.Cut(url, "?")
	out := before[:strings.LastIndex(before, "/")+1] + db
	if after != "" {
		out += "?" + after
	}
	return out
}

func dropStores(pgServer, chAddr, db string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	if conn, err := pgx.Connect(ctx, pgServer); err != nil {
		errs = append(errs, err)
	} else {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)"); err != nil {
			errs = append(errs, fmt.Errorf("postgres: %w", err))
		}
		conn.Close(ctx)
	}
	if conn, err := clickhouse.Open(&clickhouse.Options{Addr: []string{chAddr}}); err != nil {
		errs = append(errs, err)
	} else {
		if err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
			errs = append(errs, fmt.Errorf("clickhouse: %w", err))
		}
		conn.Close()
	}
	return errors.Join(errs...)
}

// tail is the last n lines of the file at path.
func tail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
