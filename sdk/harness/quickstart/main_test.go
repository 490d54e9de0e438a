package main

import (
	"os"
	"strings"
	"testing"
)

const readme = "# x\n\nintro\n\n```sh\nnot in the quick start\n```\n\n## Quick start\n\nIn a new directory:\n\n" +
	"```sh\nnpm init -y\n```\n\n```ts\n// quickstart.ts\nconsole.log(`quickstart-${Date.now()}`);\n```\n\n" +
	"```sh\nnode quickstart.js\n```\n\n## What is there\n\n```ts\n// other.ts\n```\n"

func TestBashScriptRunsTheQuickStartsBlocksInOrder(t *testing.T) {
	blocks, err := quickStartBlocks(readme)
	if err != nil {
		t.Fatal(err)
	}
	script, err := bashScript(blocks)
	if err != nil {
		t.Fatal(err)
	}
	want := "npm init -y\n" +
		"cat > quickstart.ts <<'CONTRACK_QUICKSTART_EOF'\n// quickstart.ts\nconsole.log(`quickstart-${Date.now()}`);\nCONTRACK_QUICKSTART_EOF\n" +
		"node quickstart.js\n"
	if script != want {
		t.Fatalf("script\n%s\nwant\n%s", script, want)
	}
}

func TestBashScriptRefusesWhatItCannotRunAsWritten(t *testing.T) {
	for name, md := range map[string]string{
		"no section":     "# x\n```sh\nls\n```\n",
		"unnamed file":   "# x\n\n## Quick start\n\n```sh\nls\n```\n```go\npackage main\n```\n",
		"no commands":    "# x\n\n## Quick start\n\n```go\n// main.go\npackage main\n```\n",
		"unclosed block": "# x\n\n## Quick start\n\n```sh\nls\n",
		"heredoc marker": "# x\n\n## Quick start\n\n```sh\nls\n```\n```py\n# a.py\nCONTRACK_QUICKSTART_EOF\n```\n",
	} {
		blocks, err := quickStartBlocks(md)
		if err == nil {
			_, err = bashScript(blocks)
		}
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Every SDK README's quick start is one this command can run: commands,
// and code that names its file.
func TestTheSDKReadmesQuickStartsAreRunnable(t *testing.T) {
	for _, sdk := range []string{"go", "typescript", "python"} {
		raw, err := os.ReadFile("../../" + sdk + "/README.md")
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := quickStartBlocks(string(raw))
		if err == nil {
			_, err = bashScript(blocks)
		}
		if err != nil {
			t.Errorf("sdk/%s/README.md: %v", sdk, err)
		}
		if len(blocks) < 3 {
			t.Errorf("sdk/%s/README.md: %d blocks in its quick start, want install, code and run", sdk, len(blocks))
		}
	}
}

func TestCheckOutputWantsTheReferenceListedAndOnAnEvent(t *testing.T) {
	if err := checkOutput("added 7 packages\nquickstart-17 ACTIVE\nquickstart-17 EQUIPMENT 2026-12-01\n"); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"", "quickstart-17 ACTIVE\n", "quickstart-17 ACTIVE\nquickstart-18 ACTIVE\n"} {
		if err := checkOutput(out); err == nil {
			t.Errorf("%q: no error", out)
		}
	}
}

func TestNewUserEnvDropsTheCallersHomeAndSettings(t *testing.T) {
	env := newUserEnv([]string{"PATH=/bin", "HOME=/root", "CONTRACK_PG_URL=x", "GOMODCACHE=/m", "npm_config_cache=/c", "XDG_CACHE_HOME=/x", "VIRTUAL_ENV=/v"}, "HOME=/tmp/h")
	if got := strings.Join(env, " "); got != "PATH=/bin HOME=/tmp/h" {
		t.Fatalf("env %s", got)
	}
}
