// The architecture's rules, checked on the source: how stages read Kafka,
// what a stage may import, and who owns the journey tables' DDL.
package contrack_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/contrack/contrack/"

// sourceFile is one non-test Go file of the repository, parsed.
type sourceFile struct {
	rel  string // from the repository root, with slashes
	file *ast.File
}

// sources parses every non-test Go file of the repository (vendor-like
// folders — dot folders, node_modules, testdata — left out).
func sources(t *testing.T) []sourceFile {
	t.Helper()
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	var out []sourceFile
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
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, sourceFile{rel: rel, file: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("parsed %d Go files from %s: not the repository root?", len(out), root)
	}
	return out
}

// consumeCalls are the franz-go calls that read Kafka: polling, and the
// options or constructors that make a client a consumer.
var consumeCalls = map[string]bool{
	"PollFetches": true, "PollRecords": true,
	"ConsumeTopics": true, "ConsumePartitions": true, "ConsumeRegex": true,
	"ConsumerGroup": true, "NewGroupTransactSession": true,
}

// consumeExempt are the paths, from the repository root, allowed to
// consume directly: the runtime itself, and e2e/, a load tool whose
// `limits` command measures the raw broker's produce/consume ceiling with a
// bare client on purpose (it runs no stage).
var consumeExempt = []string{"platform/kafka/", "e2e/"}

// TestOnlyTheRuntimeConsumesKafka fails when a non-test file outside the
// runtime polls Kafka or builds a consumer: every stage reads Kafka through
// the runtime's modes (Consume, ConsumeBatches, ConsumeTransactional,
// Follow), so retries, dead letters and failure reporting are the same
// everywhere. Tests may read topics directly to check what stages wrote.
func TestOnlyTheRuntimeConsumesKafka(t *testing.T) {
	var found []string
	for _, src := range sources(t) {
		if hasPrefix(src.rel, consumeExempt) {
			continue
		}
		ast.Inspect(src.file, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && consumeCalls[sel.Sel.Name] {
				found = append(found, src.rel+": "+sel.Sel.Name)
			}
			return true
		})
	}
	for _, f := range found {
		t.Errorf("%s: consume Kafka through platform/kafka's runtime (Consume, ConsumeBatches, ConsumeTransactional, Follow)", f)
	}
}

// routerCalls are platform/kafka's calls a stage makes only through the
// process's router: the four modes run a route as registered, and the
// router dials the clients with the options every client shares.
var routerCalls = map[string]bool{
	"Consume": true, "ConsumeBatches": true, "ConsumeTransactional": true, "Follow": true, "NewClient": true,
}

// TestStagesRunKafkaThroughTheRouter fails when a non-test file of a stage
// calls a consume mode of platform/kafka, or dials a client, itself rather
// than through its Deps.Router (kafka.Router): what runs is then what the
// stage registered, and `contrack topology` shows it.
func TestStagesRunKafkaThroughTheRouter(t *testing.T) {
	checked := 0
	for _, src := range sources(t) {
		dir := filepath.ToSlash(filepath.Dir(src.rel))
		stage, _, _ := strings.Cut(dir, "/")
		if !stages[stage] || strings.HasSuffix(filepath.Base(dir), "test") {
			continue
		}
		name := ""
		for _, imp := range src.file.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == module+"platform/kafka" {
				name = "kafka"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		if name == "" {
			continue
		}
		checked++
		ast.Inspect(src.file, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && routerCalls[sel.Sel.Name] {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
					t.Errorf("%s: kafka.%s: run routes and dial clients through Deps.Router", src.rel, sel.Sel.Name)
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no stage file imports platform/kafka: the check checked nothing")
	}
}

// stages are the top-level folders that are stages (each with its own
// Config, Deps and Run; cmd/contrack wires them). They share contracts
// through schemas/ and mechanisms through platform/, never each other's
// packages: a type that crosses stages lives in schemas/.
var stages = map[string]bool{
	"commandapi": true, "queryapi": true, "ingest": true, "normalize": true,
	"delivery": true, "projector": true, "feed": true, "alerts": true,
}

// importExempt are the imports of another stage's package still allowed,
// each with its reason: importing package (folder) → imported package.
var importExempt = map[string]string{
	// normalize's Parser and Envelope are the parsers' contract; the poller
	// parses polled pages with the parsers cmd/contrack hands it, to poll
	// sooner after an expected event.
	"ingest/poller → normalize": "the parsers' contract",
}

// TestStagesImportNoOtherStage fails when a non-test file of a stage
// imports a package of another stage. Test-support packages (a folder
// named *test, such as projector/journey/journeytest) build fixtures from
// several stages on purpose, for tests only, and are not checked.
func TestStagesImportNoOtherStage(t *testing.T) {
	checked := 0
	for _, src := range sources(t) {
		dir := filepath.ToSlash(filepath.Dir(src.rel))
		stage, _, _ := strings.Cut(dir, "/")
		if !stages[stage] || strings.HasSuffix(filepath.Base(dir), "test") {
			continue
		}
		checked++
		for _, imp := range src.file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			pkg, ok := strings.CutPrefix(path, module)
			if !ok {
				continue
			}
			other, _, _ := strings.Cut(pkg, "/")
			if !stages[other] || other == stage {
				continue
			}
			if _, ok := importExempt[dir+" → "+pkg]; ok {
				continue
			}
			t.Errorf("%s imports %s: stage %s may not import stage %s; move what they share to schemas/ (a contract) or platform/ (a mechanism)",
				src.rel, pkg, stage, other)
		}
	}
	if checked < 50 {
		t.Fatalf("checked %d files of stages: the stages' folders moved?", checked)
	}
}

// ddl matches a statement that creates, alters or drops a table.
var ddl = regexp.MustCompile(`(?i)\b(CREATE|ALTER|DROP)\s+TABLE\b`)

// TestOnlyTheProjectorOwnsJourneyDDL fails when a non-test file outside
// the projector has a statement that creates, alters or drops a journey
// table (a string literal naming journey tables, journeys.JourneysTable and
// ChunksTable among them): the read side reads a generation the projector
// made, and finds it missing until then.
func TestOnlyTheProjectorOwnsJourneyDDL(t *testing.T) {
	for _, src := range sources(t) {
		if strings.HasPrefix(src.rel, "projector/") {
			continue
		}
		ast.Inspect(src.file, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "EnsureJourneyTables" {
					t.Errorf("%s calls EnsureJourneyTables: only the projector creates journey tables", src.rel)
				}
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && ddl.MatchString(s) && strings.Contains(strings.ToLower(s), "journey") {
				t.Errorf("%s: journey table DDL outside the projector: %.60q", src.rel, s)
			}
			return true
		})
	}
}

func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TestStagesDeclarePeriodicLoopsAsComponents fails when a non-test file
// of a stage outside platform/ paces a loop with a ticker of its own
// (time.NewTicker, time.Tick) or starts a goroutine that loops for ever
// (`go func() { for { … } }()`): periodic work is a loop.Component that
// the process's supervisor runs (Supervisor.Run), so every such loop is
// named, counted and on /readyz. A goroutine that calls a supervised loop
// or does bounded work is not such a loop.
func TestStagesDeclarePeriodicLoopsAsComponents(t *testing.T) {
	checked := 0
	for _, src := range sources(t) {
		dir := filepath.ToSlash(filepath.Dir(src.rel))
		stage, _, _ := strings.Cut(dir, "/")
		if !stages[stage] || strings.HasSuffix(filepath.Base(dir), "test") {
			continue
		}
		checked++
		ast.Inspect(src.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "time" && (n.Sel.Name == "NewTicker" || n.Sel.Name == "Tick") {
					t.Errorf("%s: time.%s: declare the loop as a loop.Component run by Deps.Loops", src.rel, n.Sel.Name)
				}
			case *ast.GoStmt:
				lit, ok := n.Call.Fun.(*ast.FuncLit)
				if !ok {
					return true
				}
				ast.Inspect(lit.Body, func(m ast.Node) bool {
					if f, ok := m.(*ast.ForStmt); ok && f.Cond == nil {
						t.Errorf("%s: a goroutine that loops for ever: declare it as a loop.Component run by Deps.Loops", src.rel)
					}
					_, nested := m.(*ast.FuncLit)
					return !nested
				})
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no stage file checked")
	}
}
