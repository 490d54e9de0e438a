package contrack

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedCodeIsFresh: api.gen.go is what generate.go's pinned
// oapi-codegen makes of docs/openapi.json now (`make sdk` rewrites it).
func TestGeneratedCodeIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	src, err := os.ReadFile("generate.go")
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, "//go:generate "); ok {
			args = strings.Fields(rest)
		}
	}
	if len(args) < 2 || args[0] != "go" {
		t.Fatalf("generate.go has no //go:generate go … line")
	}
	// The configuration names the output file, so the generator runs in a
	// directory of its own with a copy of it and of the overlay.
	dir := t.TempDir()
	for _, name := range []string{"oapi-codegen.yaml", "overlay.yaml"} {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec, err := filepath.Abs(args[len(args)-1])
	if err != nil {
		t.Fatal(err)
	}
	args = append(args[1:len(args)-1:len(args)-1], spec)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	out := filepath.Join(dir, "api.gen.go")
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("api.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Errorf("api.gen.go differs from a fresh generation from %s: run make sdk", args[len(args)-1])
	}
}
