package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
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
	defer admin.Close(ctx)
	admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	t.Cleanup(func() { admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })

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
		admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
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
		admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	}
}

// TestGenericPlanHoldsForItsBatchOnly: queued first, GenericPlan sets the
// batch's plan_cache_mode (its implicit transaction) and nothing after it
// on the same connection.
func TestGenericPlanHoldsForItsBatchOnly(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
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

// TestAnalyseGrownRefreshesYoungPlans: a generic plan made while a table
// was empty scans the table after it grew, until the table is analysed;
// AnalyseGrown analyses it (once) and the plan becomes an index look-up.
func TestAnalyseGrownRefreshesYoungPlans(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, q := range []string{
		`CREATE TABLE young (id int PRIMARY KEY, v text)`,
		`CREATE TABLE small (id int PRIMARY KEY)`,
		`SET plan_cache_mode = force_generic_plan`,
		`PREPARE lookup(int[]) AS SELECT y.v FROM young y JOIN unnest($1) AS u(id) ON y.id = u.id`,
		`EXECUTE lookup('{1}')`, // the generic plan is made now, on an empty table
		`INSERT INTO young SELECT i, repeat('x', 100) FROM generate_series(1, 20000) i`,
		`INSERT INTO small SELECT i FROM generate_series(1, 500) i`,
		`SELECT pg_stat_force_next_flush()`, // the counts are visible after the next statement, not in 10 s
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	plan := func() string {
		rows, err := conn.Query(ctx, `EXPLAIN EXECUTE lookup('{1,2}')`)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(lines, "\n")
	}
	if p := plan(); !strings.Contains(p, "Seq Scan on young") {
		t.Fatalf("the young plan was expected to scan the table (what this guards against); it is:\n%s", p)
	}
	var analysed []string
	testkit.Eventually(t, 10*time.Second, "the grown table to be analysed", func() bool {
		got, err := postgres.AnalyseGrown(ctx, db.Pool, []string{"young", "small"})
		if err != nil {
			t.Fatal(err)
		}
		analysed = append(analysed, got...)
		return len(analysed) > 0
	})
	if !slices.Equal(analysed, []string{"young"}) {
		t.Fatalf("analysed %v, want [young] (small changed by fewer than %d rows)", analysed, postgres.YoungTableRows)
	}
	if p := plan(); strings.Contains(p, "Seq Scan") || !strings.Contains(p, "young_pkey") {
		t.Fatalf("after ANALYZE the plan should probe the primary key; it is:\n%s", p)
	}
	if again, err := postgres.AnalyseGrown(ctx, db.Pool, []string{"young", "small"}); err != nil || len(again) > 0 {
		t.Fatalf("a second check analysed %v (err %v), want nothing: the statistics are current", again, err)
	}
}
