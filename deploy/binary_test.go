package deploy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/contrack/contrack/cmd/contrack/roles"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// The binary's facts the deployment files must agree with are read from its
// source (the configuration table, the tools of main.go's switch), so
// nothing in cmd/contrack has to be exported for these tests, and from its
// role table, cmd/contrack/roles, a package of data only.

// configVar is one row of cmd/contrack/config.go's envVars table.
type configVar struct {
	Name, Default string
	Secret        bool
}

// configTable parses the envVars table of cmd/contrack/config.go.
func configTable(t *testing.T) map[string]configVar {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../cmd/contrack/config.go", nil, 0)
	if err != nil {
		t.Fatalf("parse config.go: %v", err)
	}
	out := map[string]configVar{}
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || len(spec.Names) != 1 || spec.Names[0].Name != "envVars" || len(spec.Values) != 1 {
			return true
		}
		lit, ok := spec.Values[0].(*ast.CompositeLit)
		if !ok {
			t.Fatalf("envVars is not a composite literal")
		}
		for _, el := range lit.Elts {
			row, ok := el.(*ast.CompositeLit)
			if !ok || len(row.Elts) < 4 {
				t.Fatalf("envVars row %v is not {Name, Default, Doc, Secret}", el)
			}
			name, dflt := stringLit(t, row.Elts[0]), stringLit(t, row.Elts[1])
			secret, ok := row.Elts[3].(*ast.Ident)
			if !ok {
				t.Fatalf("envVars row %s: Secret is not true or false", name)
			}
			out[name] = configVar{Name: name, Default: dflt, Secret: secret.Name == "true"}
		}
		return false
	})
	if len(out) < 10 {
		t.Fatalf("found %d variables in cmd/contrack/config.go's envVars; the table moved?", len(out))
	}
	return out
}

func stringLit(t *testing.T, e ast.Expr) string {
	t.Helper()
	if kv, ok := e.(*ast.KeyValueExpr); ok {
		e = kv.Value
	}
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		t.Fatalf("expected a string literal, got %T", e)
	}
	s, err := strconv.Unquote(b.Value)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// knownVar reports whether the binary reads an environment variable of that
// name: a row of the table or CONTRACK_CARRIER_URL_<SCAC> of a registered carrier.
func knownVar(table map[string]configVar, name string) bool {
	if _, ok := table[name]; ok {
		return true
	}
	if scac, ok := strings.CutPrefix(name, "CONTRACK_CARRIER_URL_"); ok {
		_, found := carriers.Lookup(scac)
		return found
	}
	return false
}

// deployedRoles are the roles of the binary's role table that a split
// deployment runs, each as its own compose service, Deployment and `e2e
// -topology scale` process. The table is cmd/contrack/roles, a package of
// data only, so these tests read it without wiring a stage.
func deployedRoles(t *testing.T) []roles.Role {
	t.Helper()
	rs := roles.Deployed()
	if len(rs) < 9 || !slices.ContainsFunc(rs, func(r roles.Role) bool { return r.Name == "api" }) {
		t.Fatalf("the role table's deployed roles: %v", rs)
	}
	return rs
}

// commands are the names the binary accepts as its first argument: the
// roles of its table and the tools, the case labels of run's switch in
// cmd/contrack/main.go.
func commands(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../cmd/contrack/main.go", nil, 0)
	if err != nil {
		t.Fatalf("parse main.go: %v", err)
	}
	out := map[string]bool{roles.AllName: true}
	for _, r := range roles.Table() {
		out[r.Name] = true
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "run" {
			continue
		}
		ast.Inspect(fn, func(n ast.Node) bool {
			if cc, ok := n.(*ast.CaseClause); ok {
				for _, e := range cc.List {
					if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
						s, _ := strconv.Unquote(b.Value)
						out[s] = true
					}
				}
			}
			return true
		})
	}
	if !out["migrate"] {
		t.Fatalf("commands parsed from main.go lack migrate: %v", out)
	}
	return out
}

// addrPort returns the port of a host:port listen address.
func addrPort(t *testing.T, what, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("%s: %q is not host:port: %v", what, addr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("%s: port of %q: %v", what, addr, err)
	}
	return n
}

// topicSetting is one topic's settings as docs/operations.md gives them.
type topicSetting struct {
	Partitions, Replication int
	Cleanup, Retention      string
}

var docsTopicRow = regexp.MustCompile("^\\|\\s*`(contrack\\.[a-z.-]+\\.v[0-9]+)`\\s*\\|\\s*([0-9]+)\\s*\\|\\s*([0-9]+)\\s*\\|\\s*`?([a-z,]+)`?\\s*\\|\\s*`?(-?[0-9]+)`?")

// docsTopics parses the topic table of docs/operations.md.
func docsTopics(t *testing.T) map[string]topicSetting {
	t.Helper()
	b, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]topicSetting{}
	for _, line := range strings.Split(string(b), "\n") {
		m := docsTopicRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		p, _ := strconv.Atoi(m[2])
		r, _ := strconv.Atoi(m[3])
		out[m[1]] = topicSetting{Partitions: p, Replication: r, Cleanup: m[4], Retention: m[5]}
	}
	return out
}

// TestDocsTopicsAreTheBinarysTopics: the operations guide lists every topic
// the binary creates, no other, with the compaction schemas.TopicConfigs sets.
func TestDocsTopicsAreTheBinarysTopics(t *testing.T) {
	docs := docsTopics(t)
	for _, topic := range schemas.AllTopics {
		s, ok := docs[topic]
		if !ok {
			t.Errorf("docs/operations.md: no row for topic %s", topic)
			continue
		}
		want := schemas.TopicConfigs[topic]["cleanup.policy"]
		if want == "" {
			want = "delete"
		}
		if s.Cleanup != want {
			t.Errorf("docs/operations.md: %s cleanup.policy %s, the binary sets %s", topic, s.Cleanup, want)
		}
		if s.Partitions < 1 || s.Replication < 1 {
			t.Errorf("docs/operations.md: %s: partitions %d, replication %d", topic, s.Partitions, s.Replication)
		}
	}
	if len(docs) != len(schemas.AllTopics) {
		t.Errorf("docs/operations.md lists %d topics, the binary creates %d: %v", len(docs), len(schemas.AllTopics), docs)
	}
}

// TestDocsScaleEveryRole: the operations guide says how each role a split
// deployment runs scales ("What scales how"), and the one-process roles
// are the table's.
func TestDocsScaleEveryRole(t *testing.T) {
	b, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## What scales how\n")
	if !ok {
		t.Fatal("docs/operations.md: no section What scales how")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		if m := regexp.MustCompile("^\\| `([a-z]+)` \\|").FindStringSubmatch(line); m != nil {
			rows[m[1]] = line
		}
	}
	for _, r := range deployedRoles(t) {
		row, ok := rows[r.Name]
		if !ok {
			t.Errorf("docs/operations.md, What scales how: no row for the role %s", r.Name)
		} else if one := strings.Contains(row, "**one replica**"); one != (r.Replicas == 1) {
			t.Errorf("docs/operations.md, What scales how: %s says one replica %v, the role table %d replicas", r.Name, one, r.Replicas)
		}
	}
}
