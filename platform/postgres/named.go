package postgres

import (
	"context"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
)

// Named is a statement written with @name parameters, rewritten to $n
// placeholders once (by pgx's own rewriter, so names in comments and
// strings are left alone as pgx leaves them). pgx.NamedArgs rewrites the
// text on every execution: for the pipeline's statements, which run to
// kilobytes, that was 5 % of contrack's CPU at 500 events/s (a CPU
// profile of `go run ./e2e -rate 500 -batch 1 -profile DIR`).
type Named struct {
	// SQL is the statement with $n placeholders.
	SQL   string
	names []string // names[i] is $i+1's
}

// nameMarker stands for a parameter while the statement is rewritten.
type nameMarker string

var candidateName = regexp.MustCompile(`@([A-Za-z_][A-Za-z0-9_]*)`)

// NewNamed rewrites sql; it panics if pgx cannot (a statement is a
// constant of the program: the first run of any test finds it).
func NewNamed(sql string) Named {
	marks := pgx.NamedArgs{}
	for _, m := range candidateName.FindAllStringSubmatch(sql, -1) {
		marks[m[1]] = nameMarker(m[1])
	}
	out, args, err := marks.RewriteQuery(context.Background(), nil, sql, nil)
	if err != nil {
		panic(fmt.Sprintf("postgres: rewrite named statement: %v", err))
	}
	n := Named{SQL: out, names: make([]string, len(args))}
	for i, a := range args {
		m, ok := a.(nameMarker)
		if !ok {
			panic(fmt.Sprintf("postgres: rewrite named statement: parameter $%d is not a name", i+1))
		}
		n.names[i] = string(m)
	}
	return n
}

// Args are args in the statement's placeholder order; a name args lacks
// is NULL, as with pgx.NamedArgs.
func (n Named) Args(args pgx.NamedArgs) []any {
	out := make([]any, len(n.names))
	for i, name := range n.names {
		out[i] = args[name]
	}
	return out
}
