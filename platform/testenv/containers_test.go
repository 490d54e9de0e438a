package testenv

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Containers are used only when asked for and a Docker engine answers;
// Docker is not even asked otherwise; a refusal is one line whatever the
// error says.
func TestDecideContainers(t *testing.T) {
	asked := 0
	answers := func(err error) func(context.Context) error {
		return func(ctx context.Context) error {
			asked++
			if _, ok := ctx.Deadline(); !ok {
				t.Error("the Docker probe has no deadline")
			}
			return err
		}
	}
	for _, setting := range []string{"", "0"} {
		if use, line := DecideContainers(setting, answers(nil)); use || line != "" {
			t.Errorf("%s=%q: use %v, line %q; want the local services, silently", ContainersVar, setting, use, line)
		}
	}
	if asked != 0 {
		t.Fatalf("Docker was probed %d times without %s=1", asked, ContainersVar)
	}
	if use, line := DecideContainers("1", answers(nil)); !use || line != "" {
		t.Errorf("Docker answers: use %v, line %q; want containers, silently", use, line)
	}
	use, line := DecideContainers("1", answers(errors.New("Cannot connect to the Docker daemon\nat unix:///var/run/docker.sock.\n\tIs the docker daemon running?")))
	want := "testenv: skipped containers (CONTRACK_TEST_CONTAINERS=1): no Docker engine answered (Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?); using the local services and kfake"
	if use || line != want {
		t.Errorf("no Docker: use %v, line\n%q\nwant\n%q", use, line, want)
	}
	if asked != 2 {
		t.Errorf("Docker probed %d times for two decisions that needed it", asked)
	}
	if _, line := DecideContainers("1", answers(errors.New(strings.Repeat("x", 5000)))); strings.Count(line, "\n") != 0 || len([]rune(line)) > 400 {
		t.Errorf("a long error makes a line of %d characters", len([]rune(line)))
	}
	if use, line := DecideContainers("yes", answers(nil)); use || !strings.Contains(line, `CONTRACK_TEST_CONTAINERS="yes" is neither 1 nor 0`) {
		t.Errorf("an unknown setting: use %v, line %q", use, line)
	}
}

// TestHelperProcessStores is run by TestNoDockerSaysSoInOneLine in a child
// process: it asks for every store address several times.
func TestHelperProcessStores(t *testing.T) {
	if os.Getenv("CONTRACK_TESTENV_HELPER") != "1" {
		t.Skip("helper of TestNoDockerSaysSoInOneLine")
	}
	for range 3 {
		if got := PGServerURL(); got != "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable" {
			t.Fatalf("PGServerURL %q, want the local server", got)
		}
		if got := CHAddr(); got != "127.0.0.1:9000" {
			t.Fatalf("CHAddr %q, want the local server", got)
		}
		if useContainers() {
			t.Fatal("containers used")
		}
	}
}

// A process that asks for containers where no Docker engine answers says
// so in exactly one line on stderr and uses the local services; one that
// does not ask says nothing. The child's Docker is a socket that does not
// exist, so this holds on a machine with Docker too.
func TestNoDockerSaysSoInOneLine(t *testing.T) {
	run := func(setting string) string {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessStores$", "-test.count=1")
		env := []string{"CONTRACK_TESTENV_HELPER=1", "HOME=" + t.TempDir(), "DOCKER_HOST=unix://" + t.TempDir() + "/no-docker.sock",
			ContainersVar + "=" + setting}
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			if k == "HOME" || k == "DOCKER_HOST" || k == "DOCKER_CONTEXT" || k == ContainersVar || strings.HasPrefix(k, "TESTCONTAINERS_") ||
				strings.HasPrefix(k, "CONTRACK_TEST_") {
				continue
			}
			env = append(env, kv)
		}
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s=%s: helper failed: %v\n%s%s", ContainersVar, setting, err, out, stderr.String())
		}
		return stderr.String()
	}
	got := run("1")
	if strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "testenv: skipped containers (CONTRACK_TEST_CONTAINERS=1): no Docker engine answered (") ||
		!strings.HasSuffix(got, "); using the local services and kfake\n") {
		t.Fatalf("stderr with %s=1 and no Docker:\n%s\nwant exactly one skip line", ContainersVar, got)
	}
	if got := run("0"); got != "" {
		t.Fatalf("stderr with %s=0: %q, want nothing", ContainersVar, got)
	}
}
