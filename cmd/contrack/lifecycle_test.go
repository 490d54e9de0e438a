package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
)

// wait returns fn's result, failing the test if it does not come within d.
func wait(t *testing.T, d time.Duration, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(testkit.Scale(d)):
		t.Fatalf("%s did not return within %s", what, testkit.Scale(d))
		return nil
	}
}

// TestGroupStopsOnTheFirstFailure: a failing part cancels the others and
// the group returns its reason; its readiness turns red.
func TestGroupStopsOnTheFirstFailure(t *testing.T) {
	health := httpapi.NewHealth(nil, 0, testenv.Log(t))
	g := newGroup(context.Background(), newShutdown(time.Minute), health, testenv.Log(t))
	stopped := make(chan struct{})
	g.Go("steady", g.ctx, func(ctx context.Context) error {
		<-ctx.Done()
		close(stopped)
		return nil
	})
	g.Go("routing-index", g.ctx, func(context.Context) error { return errors.New("follower lost the topic") })
	err := wait(t, 10*time.Second, "the group", g.Wait)
	if err == nil || err.Error() != "routing-index: follower lost the topic" {
		t.Fatalf("got %v, want the failing part's reason", err)
	}
	<-stopped
	ready := httptestGet(t, health.ServeReadyz)
	if ready != http.StatusServiceUnavailable {
		t.Fatalf("/readyz %d after a part failed, want 503", ready)
	}
}

func httptestGet(t *testing.T, h http.HandlerFunc) int {
	t.Helper()
	rec := &statusRecorder{header: http.Header{}}
	req, _ := http.NewRequest("GET", "/readyz", nil)
	h(rec, req)
	return rec.code
}

type statusRecorder struct {
	header http.Header
	code   int
}

func (r *statusRecorder) Header() http.Header         { return r.header }
func (r *statusRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *statusRecorder) WriteHeader(code int)        { r.code = code }

// TestGroupReportsASilentStop: a part that returns nil while nobody asked
// it to stop is a failure, not a silent stall.
func TestGroupReportsASilentStop(t *testing.T) {
	g := newGroup(context.Background(), newShutdown(time.Minute), nil, testenv.Log(t))
	g.Go("steady", g.ctx, func(ctx context.Context) error { <-ctx.Done(); return nil })
	g.Go("projector-view", g.ctx, func(context.Context) error { return nil })
	err := wait(t, 10*time.Second, "the group", g.Wait)
	if err == nil || err.Error() != "projector-view: stopped without being asked to" {
		t.Fatalf("got %v", err)
	}
}

// TestShutdownBudgetNamesHungStages: after the signal, a part that ignores
// its context makes the role return errHung naming it once the budget is
// spent; parts that stopped are not named.
func TestShutdownBudgetNamesHungStages(t *testing.T) {
	const budget = 300 * time.Millisecond
	sd := newShutdown(budget)
	ctx, signal := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- sd.await(ctx, func() error {
			g := newGroup(ctx, sd, nil, testenv.Log(t))
			g.Go("polite", g.ctx, func(ctx context.Context) error { <-ctx.Done(); return nil })
			g.Go("stuck", g.ctx, func(context.Context) error { <-release; return nil })
			close(started)
			return g.Wait()
		})
	}()
	<-started
	signalled := time.Now()
	signal()
	var err error
	select {
	case err = <-done:
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatal("the role did not return although its shutdown budget was spent")
	}
	if !errors.Is(err, errHung) || !strings.HasSuffix(err.Error(), "still running: stuck") {
		t.Fatalf("got %v, want errHung naming stuck only", err)
	}
	if waited := time.Since(signalled); waited < budget {
		t.Fatalf("gave up after %s, before the %s budget", waited, budget)
	}
}

// TestShutdownBudgetKeepsTheFailure: a stage fails, another hangs: the
// role's error gives the failure first, then the hung stage.
func TestShutdownBudgetKeepsTheFailure(t *testing.T) {
	sd := newShutdown(200 * time.Millisecond)
	release := make(chan struct{})
	defer close(release)
	err := wait(t, 10*time.Second, "await", func() error {
		return sd.await(context.Background(), func() error {
			g := newGroup(context.Background(), sd, nil, testenv.Log(t))
			g.Go("stuck", g.ctx, func(context.Context) error { <-release; return nil })
			g.Go("projector", g.ctx, func(context.Context) error { return errors.New("commit refused") })
			return g.Wait()
		})
	})
	if !errors.Is(err, errHung) || !strings.HasPrefix(err.Error(), "projector: commit refused\n") || !strings.HasSuffix(err.Error(), "still running: stuck") {
		t.Fatalf("got %q", err)
	}
}

// TestShutdownWithinBudgetIsClean: parts that stop when asked make a nil
// return, however short the budget left unspent.
func TestShutdownWithinBudgetIsClean(t *testing.T) {
	sd := newShutdown(10 * time.Second)
	ctx, signal := context.WithCancel(context.Background())
	signal()
	err := wait(t, 10*time.Second, "await", func() error {
		return sd.await(ctx, func() error {
			g := newGroup(ctx, sd, nil, testenv.Log(t))
			for _, name := range []string{"poller", "delivery"} {
				g.Go(name, g.ctx, func(ctx context.Context) error { <-ctx.Done(); return nil })
			}
			return g.Wait()
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runBinary starts `contrack args…` (this test executable in main mode)
// with env on top of a cleared configuration.
func runBinary(t *testing.T, env []string, args ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	var base []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, isConfig := tableNames()[name]; !isConfig {
			base = append(base, kv)
		}
	}
	cmd.Env = append(append(base, "CONTRACK_TEST_MAIN=1", "CONTRACK_LOG_LEVEL=warn"), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

func tableNames() map[string]bool {
	out := map[string]bool{}
	for _, e := range envVars {
		out[e.Name] = true
	}
	return out
}

// TestBinaryStopsWithTheStageReason: a stage that fails (here the sandbox,
// its port taken) stops the process: exit status 1, the reason on stderr.
func TestBinaryStopsWithTheStageReason(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cmd, stderr := runBinary(t, []string{"CONTRACK_SANDBOX_ADDR=" + taken.Addr().String(), "CONTRACK_ADMIN_ADDR=" + freeAddr(t)}, "sandbox")
	err = wait(t, 30*time.Second, "contrack sandbox", cmd.Wait)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1; stderr:\n%s", err, stderr)
	}
	if want := "contrack: sandbox: sandbox: listen " + taken.Addr().String(); !strings.Contains(stderr.String(), want) {
		t.Fatalf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestBinaryStopsCleanlyOnSIGTERM: SIGTERM stops a role with status 0
// within its budget; its admin listener served the role's own metrics.
func TestBinaryStopsCleanlyOnSIGTERM(t *testing.T) {
	admin := freeAddr(t)
	cmd, stderr := runBinary(t, []string{"CONTRACK_SANDBOX_ADDR=" + freeAddr(t), "CONTRACK_ADMIN_ADDR=" + admin, "CONTRACK_SHUTDOWN_TIMEOUT=10s"}, "sandbox")
	defer func() { _ = cmd.Process.Kill() }() // gone already, once the test passed
	var metrics string
	testkit.Eventually(t, 30*time.Second, "sandbox's admin /metrics", func() bool {
		metrics = get(admin + "/metrics")
		return metrics != ""
	})
	if !strings.Contains(metrics, `contrack_build_info{role="sandbox"`) || strings.Contains(metrics, "contrack_delivery_") {
		t.Errorf("sandbox /metrics is not the sandbox's own:\n%.2000s", metrics)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, 20*time.Second, "contrack sandbox after SIGTERM", cmd.Wait); err != nil {
		t.Fatalf("exit after SIGTERM: %v; stderr:\n%s", err, stderr)
	}
}

// get returns the body of a 200 answer to GET http://addr…, "" otherwise.
func get(url string) string {
	resp, err := http.Get("http://" + url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return ""
	}
	return string(b)
}

// TestEachRoleServesItsOwnMetrics: `contrack delivery` serves delivery's
// collectors and not the API's; `contrack api` the API's and not
// delivery's. No series carries an account.
func TestEachRoleServesItsOwnMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the stores")
	}
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	base := Config{
		PGURL: db.URL, ClickHouseAddr: ch.Addr, ClickHouseDB: ch.Name,
		KafkaBrokers: brokers, KafkaNamespace: kc.NS, KafkaPartitions: 1, SecretKey: "metrics-test-key",
		SubscriptionLifetime: time.Hour, CarrierURLs: map[string]string{}, PGMaxConns: 4, PGAPIMaxConns: 4,
		ShutdownTimeout: 20 * time.Second,
	}
	for _, tc := range []struct {
		role      string
		run       func(context.Context, Config) error
		want, not []string
	}{
		{"delivery", func(ctx context.Context, c Config) error { return runStage(ctx, c, testenv.Log(t), "delivery") },
			[]string{`contrack_build_info{role="delivery"`, "contrack_delivery_breakers", "go_goroutines"},
			[]string{"contrack_http_requests_total"}},
		{"api", func(ctx context.Context, c Config) error { return runAPI(ctx, c, testenv.Log(t)) },
			[]string{`contrack_build_info{role="api"`, `contrack_http_requests_total{code="200",method="GET"}`},
			[]string{"contrack_delivery_"}},
	} {
		t.Run(tc.role, func(t *testing.T) {
			cfg := base
			cfg.AdminAddr, cfg.HTTPAddr = freeAddr(t), freeAddr(t)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- tc.run(ctx, cfg) }()
			testkit.Eventually(t, 60*time.Second, tc.role+" /readyz", func() bool { return get(cfg.AdminAddr+"/readyz") != "" })
			if tc.role == "api" {
				get(cfg.HTTPAddr + "/healthz") // one request to count
			}
			var metrics string
			testkit.Eventually(t, 30*time.Second, tc.role+" /metrics with "+strings.Join(tc.want, ", "), func() bool {
				metrics = get(cfg.AdminAddr + "/metrics")
				for _, w := range tc.want {
					if !strings.Contains(metrics, w) {
						return false
					}
				}
				return true
			})
			for _, n := range tc.not {
				if strings.Contains(metrics, n) {
					t.Errorf("%s /metrics has %s", tc.role, n)
				}
			}
			if tenant := regexp.MustCompile(`\{[^}]*(account|client|host)[a-z_]*=`).FindString(metrics); tenant != "" {
				t.Errorf("%s /metrics has a tenant label: %s", tc.role, tenant)
			}
			cancel()
			if err := wait(t, 30*time.Second, tc.role, func() error { return <-done }); err != nil {
				t.Fatalf("%s stopped with %v", tc.role, err)
			}
		})
	}
}
