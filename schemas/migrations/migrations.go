// Package migrations embeds the versioned SQL of both stores. Files are named
// NNNN_description.sql and applied in order, each exactly once; a new change
// is a new file, never an edit of an applied one.
package migrations

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
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

// Checksum is the SHA-256 of the migration's SQL (hex). It is recorded when
// the migration is applied and compared at every start, so an applied
// migration edited afterwards is an error instead of a silent skip.
func (m Migration) Checksum() string {
	sum := sha256.Sum256([]byte(m.SQL))
	return hex.EncodeToString(sum[:])
}

// ErrChanged is returned when an applied migration's file differs from
// the one that was applied.
var ErrChanged = errors.New("migrations: an applied migration was changed")

// CheckApplied compares the checksums recorded for the applied versions
// (applied maps a version to its recorded checksum; "" where none was
// recorded, before checksums were kept) with ms, and reports every
// migration whose file changed since. A version applied but unknown to ms
// (written by a newer release) is not an error: that release owns it.
func CheckApplied(store string, ms []Migration, applied map[int]string) error {
	var errs []error
	for _, m := range ms {
		sum, ok := applied[m.Version]
		if ok && sum != "" && sum != m.Checksum() {
			errs = append(errs, fmt.Errorf("%w: %s %s was applied with checksum %.12s… and is now %.12s…; "+
				"never edit an applied migration, add a new one (or restore the file)", ErrChanged, store, m.Name, sum, m.Checksum()))
		}
	}
	return errors.Join(errs...)
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
