package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas/migrations"
)

func TestOpenCreatesDatabaseAndMigrateIsIdempotent(t *testing.T) {
	testenv.SkipShort(t, "Postgres")
	ctx := context.Background()
	name := "contrack_test_open_create"
	server := testenv.PGServerURL()
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	// Dropped before the admin connection closes (a deferred Close ran
	// first and the drop failed unseen, leaving the database behind).
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
		admin.Close(context.Background())
	})

	url := "postgres://postgres@127.0.0.1:5432/" + name + "?sslmode=disable"
	pool, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	n1, err := postgres.Migrate(ctx, pool, testenv.Log(t))
	if err != nil {
		t.Fatal(err)
	}
	n2, err := postgres.Migrate(ctx, pool, testenv.Log(t))
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	ms, _ := migrations.Postgres()
	if n1 != len(ms) || n2 != 0 {
		t.Fatalf("first run applied %d (want %d), second %d (want 0)", n1, len(ms), n2)
	}
	// Opening again finds the database and applies nothing.
	pool, err = postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if n, err := postgres.Migrate(ctx, pool, testenv.Log(t)); err != nil || n != 0 {
		t.Fatalf("third run: %d, %v", n, err)
	}
}

func TestStatementsSplitsAtLineEndSemicolons(t *testing.T) {
	got := migrations.Statements("-- comment;\nCREATE TABLE a (x String);\n\nCREATE TABLE b (\n  y String -- note\n);\n")
	if len(got) != 2 || got[0] != "CREATE TABLE a (x String)" {
		t.Fatalf("got %q", got)
	}
}

// Stages started together all open the same missing database: every one of
// them must succeed, whichever wins the race to create it.
func TestConcurrentOpensOfAMissingDatabase(t *testing.T) {
	testenv.SkipShort(t, "Postgres")
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, testenv.PGServerURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for round := range 5 {
		name := fmt.Sprintf("contrack_test_open_race_%d", round)
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Fatal(err)
		}
		url := "postgres://postgres@127.0.0.1:5432/" + name + "?sslmode=disable"
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				pool, err := postgres.Open(ctx, url)
				if err == nil {
					pool.Close()
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGenericPlanHoldsForItsBatchOnly: queued first, GenericPlan sets the
// batch's plan_cache_mode (its implicit transaction) and nothing after it
// on the same connection.
func TestGenericPlanHoldsForItsBatchOnly(t *testing.T) {
	ctx := context.Background()
	conn := oneConnection(t)
	var inBatch, after string
	b := &pgx.Batch{}
	b.Queue(postgres.GenericPlan)
	b.Queue(`SELECT current_setting('plan_cache_mode')`).QueryRow(func(r pgx.Row) error { return r.Scan(&inBatch) })
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT current_setting('plan_cache_mode')`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if inBatch != "force_generic_plan" || after != "auto" {
		t.Fatalf("plan_cache_mode %q in the batch and %q after it, want force_generic_plan then auto", inBatch, after)
	}
}

// TestKeyedPlanScansNothing: in a KeyedPlan batch a join of a table to a
// few keys probes its index even where a scan looks cheaper (a table
// never analysed), and the connection plans as before after the batch.
func TestKeyedPlanScansNothing(t *testing.T) {
	ctx := context.Background()
	conn := oneConnection(t)
	if _, err := conn.Exec(ctx, `CREATE TABLE keyed_probe (id int PRIMARY KEY, v text)`); err != nil {
		t.Fatal(err)
	}
	// 200 keys: joined by hashing a scan of the table, as far as the
	// planner can tell without statistics.
	keys := make([]string, 200)
	for i := range keys {
		keys[i] = fmt.Sprint(i)
	}
	join := `EXPLAIN UPDATE keyed_probe k SET v = 'x' FROM unnest('{` + strings.Join(keys, ",") + `}'::int[]) AS u(id) WHERE k.id = u.id`
	plan := func(b *pgx.Batch) string {
		var lines []string
		b.Queue(join).Query(func(rows pgx.Rows) error {
			var err error
			lines, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		})
		if err := conn.SendBatch(ctx, b).Close(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(lines, "\n")
	}
	keyed := &pgx.Batch{}
	keyed.Queue(postgres.KeyedPlan)
	if p := plan(keyed); strings.Contains(p, "Seq Scan") || !strings.Contains(p, "keyed_probe_pkey") {
		t.Fatalf("in a KeyedPlan batch the update should probe the primary key; the plan:\n%s", p)
	}
	rows, err := conn.Query(ctx, join)
	if err != nil {
		t.Fatal(err)
	}
	after, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(after, "\n"); !strings.Contains(p, "Seq Scan on keyed_probe") {
		t.Fatalf("after the batch the planner should be back to its own choice (a scan of the young table); the plan:\n%s", p)
	}
}

// oneConnection is a connection of a fresh test database, held for the
// test: what a batch sets must be seen on the same connection.
func oneConnection(t *testing.T) *pgxpool.Conn {
	t.Helper()
	conn, err := testenv.Postgres(t).Pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Release)
	return conn
}

// UUIDs' arrays are uuid[] parameters: what goes in comes back, in order.
func TestUUIDsRoundTripAsAUUIDArray(t *testing.T) {
	testenv.SkipShort(t, "Postgres")
	ctx := context.Background()
	pool := testenv.Postgres(t).Pool
	want := []uuid.UUID{uuid.New(), uuid.Nil, uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")}
	var got []string
	if err := pool.QueryRow(ctx, `SELECT array_agg(u::text ORDER BY o) FROM unnest($1::uuid[]) WITH ORDINALITY AS t(u, o)`,
		postgres.UUIDs(want)).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i].String() {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// TestOpenTurnsJITOff: pools run without JIT unless the URL sets jit.
func TestOpenTurnsJITOff(t *testing.T) {
	testenv.SkipShort(t, "Postgres")
	ctx := context.Background()
	server := testenv.PGServerURL()
	sep := "?"
	if strings.Contains(server, "?") {
		sep = "&"
	}
	for url, want := range map[string]string{server: "off", server + sep + "jit=on": "on"} {
		pool, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		err = pool.QueryRow(ctx, "SHOW jit").Scan(&got)
		pool.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("jit with %s: %q, want %q", url, got, want)
		}
	}
}

// An applied migration edited afterwards stops Migrate with the file's
// name, before anything else is applied; one applied before checksums were
// kept gets the checksum of its file as it is now.
func TestMigrateRefusesAChangedMigration(t *testing.T) {
	db := testenv.Postgres(t) // migrated from the template, checksums recorded
	ctx := context.Background()
	ms, _ := migrations.Postgres()
	first := ms[0]
	var sum string
	if err := db.Pool.QueryRow(ctx, `SELECT checksum FROM schema_migrations WHERE version = $1`, first.Version).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if sum != first.Checksum() {
		t.Fatalf("recorded checksum %q, want the file's %q", sum, first.Checksum())
	}
	// Before checksums were kept: recorded again, no error.
	if _, err := db.Pool.Exec(ctx, `UPDATE schema_migrations SET checksum = NULL WHERE version = $1`, first.Version); err != nil {
		t.Fatal(err)
	}
	if n, err := postgres.Migrate(ctx, db.Pool, testenv.Log(t)); err != nil || n != 0 {
		t.Fatalf("migrate over a migration without checksum: %d, %v", n, err)
	}
	if err := db.Pool.QueryRow(ctx, `SELECT checksum FROM schema_migrations WHERE version = $1`, first.Version).Scan(&sum); err != nil || sum != first.Checksum() {
		t.Fatalf("checksum not backfilled: %q %v", sum, err)
	}
	// The file changed since it was applied (as if edited): refused, and
	// a migration not yet applied is not applied either.
	last := ms[len(ms)-1]
	if _, err := db.Pool.Exec(ctx, `UPDATE schema_migrations SET checksum = 'edited' WHERE version = $1`, first.Version); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `DELETE FROM schema_migrations WHERE version = $1`, last.Version); err != nil {
		t.Fatal(err)
	}
	n, err := postgres.Migrate(ctx, db.Pool, testenv.Log(t))
	if !errors.Is(err, migrations.ErrChanged) || !strings.Contains(err.Error(), first.Name) || n != 0 {
		t.Fatalf("migrate over an edited migration: %d, %v; want ErrChanged naming %s and nothing applied", n, err, first.Name)
	}
	var applied bool
	if err := db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, last.Version).Scan(&applied); err != nil || applied {
		t.Fatalf("%s applied after the refusal (%v)", last.Name, err)
	}
}

// A named statement rewritten once runs as pgx.NamedArgs runs it: the
// same rows for the same arguments, a name in a comment or a string left
// alone, a missing name NULL.
func TestNamedRunsAsNamedArgs(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	const sql = `-- @ignored in a comment
		SELECT @b::int + @a::int, '@not_a_name', @b::int, @missing::text IS NULL`
	args := pgx.NamedArgs{"a": 1, "b": 40}
	n := postgres.NewNamed(sql)
	var sum, b int
	var lit string
	var missing bool
	if err := db.Pool.QueryRow(ctx, n.SQL, n.Args(args)...).Scan(&sum, &lit, &b, &missing); err != nil {
		t.Fatal(err)
	}
	var wantSum, wantB int
	var wantLit string
	var wantMissing bool
	if err := db.Pool.QueryRow(ctx, sql, args).Scan(&wantSum, &wantLit, &wantB, &wantMissing); err != nil {
		t.Fatal(err)
	}
	if sum != 41 || lit != "@not_a_name" || b != 40 || !missing || sum != wantSum || lit != wantLit || b != wantB || missing != wantMissing {
		t.Fatalf("named: %d %q %d %v; NamedArgs: %d %q %d %v", sum, lit, b, missing, wantSum, wantLit, wantB, wantMissing)
	}
}
