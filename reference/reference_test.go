package reference_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contrack/contrack/reference"
)

// Every data file is pinned by SHA256SUMS, and every file is listed: a copy
// that drifted from its source, or a file added without its provenance,
// fails here.
func TestChecksums(t *testing.T) {
	f, err := os.Open(reference.Path("SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: malformed line %q", sc.Text())
		}
		name = filepath.Clean(name)
		listed[name] = true
		raw, err := os.ReadFile(reference.Path(name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got := sha256.Sum256(raw)
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, SHA256SUMS says %s", name, got, sum)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(listed) < 20 {
		t.Fatalf("SHA256SUMS lists %d files; the DCSA documents, samples, messages and vector are more", len(listed))
	}
	err = filepath.WalkDir(reference.Path(), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(reference.Path(), path)
		switch rel {
		case "SHA256SUMS", "README.md", "reference.go", "reference_test.go", "carriers_test.go":
			return nil
		}
		if !listed[rel] {
			t.Errorf("%s is not in SHA256SUMS: note its source in README.md and add its checksum", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPathsExist(t *testing.T) {
	for _, p := range []string{reference.DCSA(), reference.Samples(), reference.Messages(), reference.StandardWebhooksVector(),
		reference.Path("dcsa", "event_domain_v2.0.2.yaml"), reference.Path("dcsa", "LICENSE"), reference.TNT3()} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}

// The repository stands alone: no code, test, script or doc reads or links
// a sibling directory such as the steering repository's shared/.
func TestNothingReadsOutsideTheRepository(t *testing.T) {
	root := filepath.Dir(reference.Path())
	outside := "../" + "shared" // split so this file does not match itself
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".data", "bin", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 4<<20 {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(raw), outside) {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s refers to %s: copy what it needs into the repository", rel, outside)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
