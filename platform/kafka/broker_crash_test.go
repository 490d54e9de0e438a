package kafka_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
)

// crashBrokerEnv makes the test binary a broker process that is killed.
const crashBrokerEnv = "CONTRACK_TEST_CRASH_BROKER"

// TestEmbeddedBrokerSurvivesSIGKILL: with the default flush interval a
// record is acknowledged once it is in the page cache, not on disk; a
// SIGKILL of the broker's process right after the acknowledgement (long
// before the next flush) must not lose it.
func TestEmbeddedBrokerSurvivesSIGKILL(t *testing.T) {
	if spec := os.Getenv(crashBrokerEnv); spec != "" {
		runCrashBroker(spec) // the child: never returns
	}
	dir := t.TempDir()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	child := exec.Command(os.Args[0], "-test.run=^TestEmbeddedBrokerSurvivesSIGKILL$")
	child.Env = append(os.Environ(), crashBrokerEnv+"="+addr+","+dir)
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = child.Process.Kill() // gone already: killed below
		_ = child.Wait()
	})
	log := testenv.Log(t)
	cl, err := kafka.NewClient([]string{addr}, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	testkit.Eventually(t, 30*time.Second, "the child broker answers", func() bool {
		return kafka.EnsureTopics(ctx, cl, "", 1, "crash.test.v1") == nil
	})
	produceN(t, cl, "crash.test.v1", 50) // acknowledged (acks=all)
	cl.Close()
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait() // "signal: killed", as sent

	b, err := kafka.StartEmbedded(addr, dir, 1, time.Hour, log)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cl2, err := kafka.NewClient([]string{b.Addr()}, log, kgo.ConsumeTopics("crash.test.v1"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl2.Close()
	got := 0
	fctx, cancel := context.WithTimeout(ctx, testkit.Scale(10*time.Second))
	defer cancel()
	for got < 50 && fctx.Err() == nil {
		got += cl2.PollFetches(fctx).NumRecords()
	}
	if got != 50 {
		t.Fatalf("after SIGKILL and restart read %d records, want the 50 acknowledged", got)
	}
}

// runCrashBroker serves an embedded broker whose flush never comes (an
// hour) until the parent kills the process.
func runCrashBroker(spec string) {
	addr, dir, _ := strings.Cut(spec, ",")
	if _, err := kafka.StartEmbedded(addr, dir, 1, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		os.Exit(3)
	}
	select {}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
