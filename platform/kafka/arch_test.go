package kafka_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// consumeCalls are the franz-go calls that read Kafka: polling, and the
// options or constructors that make a client a consumer.
var consumeCalls = map[string]bool{
	"PollFetches": true, "PollRecords": true,
	"ConsumeTopics": true, "ConsumePartitions": true, "ConsumeRegex": true,
	"ConsumerGroup": true, "NewGroupTransactSession": true,
}

// exempt are the paths, from the repository root, allowed to consume
// directly: the runtime itself, and e2e/, a load tool whose `limits`
// command measures the raw broker's produce/consume ceiling with a bare
// client on purpose (it runs no stage).
var exempt = []string{"platform/kafka/", "e2e/"}

// TestOnlyTheRuntimeConsumesKafka fails when a non-test file outside the
// runtime polls Kafka or builds a consumer: every stage reads Kafka through
// the runtime's modes (Consume, ConsumeBatches, ConsumeTransactional,
// Follow), so retries, dead letters and failure reporting are the same
// everywhere. Tests may read topics directly to check what stages wrote.
func TestOnlyTheRuntimeConsumesKafka(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		for _, e := range exempt {
			if strings.HasPrefix(rel, e) {
				return nil
			}
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && consumeCalls[sel.Sel.Name] {
				found = append(found, rel+": "+sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d Go files from %s: not the repository root?", files, root)
	}
	for _, f := range found {
		t.Errorf("%s: consume Kafka through platform/kafka's runtime (Consume, ConsumeBatches, ConsumeTransactional, Follow)", f)
	}
}
