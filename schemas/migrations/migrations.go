// Package migrations embeds the versioned SQL of both stores. Files are named
// NNNN_description.sql and applied in order, each exactly once; a new change
// is a new file, never an edit of an applied one.
package migrations

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed postgres/*.sql clickhouse/*.sql
var files embed.FS

// Migration is one versioned SQL file.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Postgres returns the Postgres migrations in version order.
func Postgres() ([]Migration, error) { return load("postgres") }

// ClickHouse returns the ClickHouse migrations in version order. Their SQL
// must run on ClickHouse 18.16 and current releases alike.
func ClickHouse() ([]Migration, error) { return load("clickhouse") }

func load(dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(files, dir)
	if err != nil {
		return nil, fmt.Errorf("migrations: read %s: %w", dir, err)
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		if !ok || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("migrations: bad file name %s/%s", dir, name)
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migrations: bad version in %s/%s: %w", dir, name, err)
		}
		b, err := files.ReadFile(dir + "/" + name)
		if err != nil {
			return nil, fmt.Errorf("migrations: read %s/%s: %w", dir, name, err)
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations: duplicate version %d in %s", out[i].Version, dir)
		}
	}
	return out, nil
}

// Statements splits a migration into single statements at semicolons that
// end a line (ClickHouse's native protocol takes one statement per query).
func Statements(sql string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(sql, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteString("\n")
		if strings.HasSuffix(trimmed, ";") {
			if s := strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"); s != "" {
				out = append(out, s)
			}
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}
