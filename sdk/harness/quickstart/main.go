// Command quickstart runs each SDK README's quick start as written, as a
// new user would on a machine that has never seen the SDK (make sdk-test
// runs it as a suite of sdk/harness):
//
//	go run ./sdk/harness/quickstart sdk/go sdk/typescript sdk/python
//
// For each SDK folder it takes the fenced blocks of the README's
// "## Quick start" section in order: a sh block is run as it stands, any
// other block is written to the file its first line names (`// main.go`,
// `# quickstart.py`). They run as one bash script in a new, empty
// directory, with a HOME of its own (so a new npm cache, pip cache and Go
// module cache, fetched from the registries), against a copy of the
// repository's sdk/ folder as a fresh clone has it (git's tracked and
// unignored files: no node_modules, dist or venv). The environment gives
// what the README's preamble asks the reader for: CONTRACK_REPO (the
// clone), CONTRACK_URL (the server sdk/harness started) and
// CONTRACK_API_KEY (a new sandbox key of its own account). Only Go's build
// cache is shared with the caller: it is addressed by content, so it
// changes how fast, never what, a build resolves.
//
// A quick start passes when the script exits 0 and the subscription
// reference it made is printed at least twice: listed among the
// subscriptions and on the event the feed delivered.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

func main() {
	keep := flag.Bool("keep", false, "keep the temporary directories")
	timeout := flag.Duration("timeout", 10*time.Minute, "the most one quick start may take, installs included")
	flag.Parse()
	url, bin := os.Getenv("CONTRACK_SDK_TEST_URL"), os.Getenv("CONTRACK_SDK_TEST_BIN")
	if url == "" || bin == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: CONTRACK_SDK_TEST_URL=… CONTRACK_SDK_TEST_BIN=… quickstart [-keep] SDK_DIR ... (make sdk-test sets both)")
		os.Exit(2)
	}
	var failed []string
	for _, dir := range flag.Args() {
		fmt.Printf("quickstart: %s/README.md\n", dir)
		if err := runQuickStart(dir, url, bin, *keep, *timeout); err != nil {
			fmt.Printf("quickstart: %s FAILED: %v\n", dir, err)
			failed = append(failed, dir)
			continue
		}
		fmt.Printf("quickstart: %s ran as written\n", dir)
	}
	if len(failed) > 0 {
		fmt.Printf("quickstart: failed: %s\n", strings.Join(failed, ", "))
		os.Exit(1)
	}
}

func runQuickStart(sdkDir, url, bin string, keep bool, timeout time.Duration) error {
	raw, err := os.ReadFile(filepath.Join(sdkDir, "README.md"))
	if err != nil {
		return err
	}
	blocks, err := quickStartBlocks(string(raw))
	if err != nil {
		return err
	}
	script, err := bashScript(blocks)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "contrack-quickstart-"+filepath.Base(sdkDir)+"-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Printf("quickstart: keeping %s\n", tmp)
	} else {
		defer removeAll(tmp)
	}
	clone, home, project := filepath.Join(tmp, "clone"), filepath.Join(tmp, "home"), filepath.Join(tmp, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := copyAsCloned("sdk", clone); err != nil {
		return fmt.Errorf("copy sdk/ as a clone has it: %w", err)
	}
	scriptPath := filepath.Join(tmp, "quickstart.sh")
	if err := os.WriteFile(scriptPath, []byte(script), 0o644); err != nil {
		return err
	}
	key, err := sandboxKey(bin, "quickstart-"+filepath.Base(sdkDir)+"-"+randomHex(4))
	if err != nil {
		return err
	}
	goCache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return fmt.Errorf("go env GOCACHE: %w", err)
	}
	env := newUserEnv(os.Environ(),
		"HOME="+home,
		"GOCACHE="+strings.TrimSpace(string(goCache)),
		"CONTRACK_REPO="+clone,
		"CONTRACK_URL="+url,
		"CONTRACK_API_KEY="+key,
	)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-eu", "-o", "pipefail", scriptPath)
	cmd.Dir, cmd.Env = project, env
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(os.Stdout, &out)
	cmd.Stderr = io.MultiWriter(os.Stderr, &out)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("not done within %s: %w", timeout, err)
		}
		return err
	}
	return checkOutput(out.String())
}

// quickStartRef is the subscription reference the quick starts make.
var quickStartRef = regexp.MustCompile(`quickstart-\d+`)

// checkOutput holds when one subscription reference is printed twice: once
// listed, once on the feed's event.
func checkOutput(out string) error {
	seen := map[string]int{}
	for _, ref := range quickStartRef.FindAllString(out, -1) {
		if seen[ref]++; seen[ref] >= 2 {
			return nil
		}
	}
	if len(seen) == 0 {
		return errors.New("printed no subscription reference (quickstart-…)")
	}
	return fmt.Errorf("printed the subscription reference only once (%v): no event came through the feed", seen)
}

// block is one fenced block of a README: its language and its text.
type block struct{ lang, text string }

// quickStartBlocks are the fenced blocks of the "## Quick start" section
// (up to the next "## " heading), in order.
func quickStartBlocks(readme string) ([]block, error) {
	_, section, ok := strings.Cut(readme, "\n## Quick start\n")
	if !ok {
		return nil, errors.New(`README.md has no "## Quick start" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []block
	var cur *block
	for line := range strings.Lines(section) {
		trimmed := strings.TrimRight(line, "\r\n")
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &block{lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))}
		case cur != nil && trimmed == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += trimmed + "\n"
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("the Quick start's %q block is not closed", cur.lang)
	}
	return blocks, nil
}

// fileName is the first line of a code block naming the file it is saved
// as: `// main.go`, `# quickstart.py`.
var fileName = regexp.MustCompile(`^(?://|#) ([A-Za-z0-9_.-]+\.[A-Za-z0-9]+)$`)

// bashScript turns the blocks into one script: sh blocks as they stand,
// each other block written, first line included, to the file it names.
func bashScript(blocks []block) (string, error) {
	var b strings.Builder
	commands := 0
	for i, bl := range blocks {
		switch bl.lang {
		case "sh", "bash", "shell":
			b.WriteString(bl.text)
			commands++
		default:
			first, _, _ := strings.Cut(bl.text, "\n")
			m := fileName.FindStringSubmatch(first)
			if m == nil {
				return "", fmt.Errorf("block %d (%s) does not name its file on its first line (`// main.go`, `# quickstart.py`): %q", i+1, bl.lang, first)
			}
			const eof = "CONTRACK_QUICKSTART_EOF"
			if strings.Contains(bl.text, eof) {
				return "", fmt.Errorf("block %d holds %s", i+1, eof)
			}
			fmt.Fprintf(&b, "cat > %s <<'%s'\n%s%s\n", m[1], eof, bl.text, eof)
		}
	}
	if commands == 0 {
		return "", errors.New("the Quick start has no sh block: nothing says how to install and run it")
	}
	return b.String(), nil
}

// newUserEnv is the caller's environment without what would tie a run to
// this machine's state (contrack's and the harness's settings, the
// caller's home and caches, an active venv, npm's per-run variables), with
// set added.
func newUserEnv(environ []string, set ...string) []string {
	prefixes := []string{"CONTRACK_", "KAFKA_", "XDG_", "npm_", "NPM_CONFIG_"}
	names := []string{"HOME", "GOPATH", "GOMODCACHE", "GOCACHE", "GOFLAGS", "GOENV", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PIP_CACHE_DIR"}
	var env []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(names, name) || slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, set...)
}

// copyAsCloned copies the files of dir that a clone has (tracked, or new
// and not ignored, as they are in the work tree) under dst.
func copyAsCloned(dir, dst string) error {
	list, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", dir).Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %w", err)
	}
	n := 0
	for name := range strings.SplitSeq(strings.TrimRight(string(list), "\x00"), "\x00") {
		raw, err := os.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree
		} else if err != nil {
			return err
		}
		info, err := os.Stat(name)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, raw, info.Mode().Perm()); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("git lists no files under %s (run from the repository's root)", dir)
	}
	return nil
}

// sandboxKey is a new sandbox API key of a new client.
func sandboxKey(bin, client string) (string, error) {
	out, err := exec.Command(bin, "admin", "create-key", "--client", client, "--env", "sandbox").Output()
	if err != nil {
		return "", fmt.Errorf("admin create-key: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

// removeAll removes dir, the Go module cache's read-only files included.
func removeAll(dir string) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o755)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
