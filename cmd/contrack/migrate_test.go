package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas/migrations"
)

// Stages started together all migrate ClickHouse at once: each migration is
// applied and recorded exactly once, and none of them fails.
func TestConcurrentClickHouseMigrations(t *testing.T) {
	ctx := context.Background()
	db := testenv.Postgres(t)
	server := testenv.ClickHouse(t) // for its address
	name := fmt.Sprintf("contrack_test_chmig_%d", time.Now().UnixNano())
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch, err := clickhouse.Open(ctx, server.Addr, name)
			if err != nil {
				errs <- err
				return
			}
			defer ch.Close()
			_, err = migrateClickHouse(ctx, db.Pool, ch, testenv.Log(t))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	ch, err := clickhouse.Open(ctx, server.Addr, name)
	if err != nil {
		t.Fatal(err)
	}
	// Dropped before the connection closes (a deferred Close ran first and
	// the drop failed unseen: every run left a database behind).
	t.Cleanup(func() {
		if err := ch.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
		ch.Close()
	})
	var n uint64
	if err := ch.QueryRow(ctx, "SELECT count() FROM schema_migrations").Scan(&n); err != nil {
		t.Fatal(err)
	}
	ms, _ := migrations.ClickHouse()
	if int(n) != len(ms) {
		t.Fatalf("schema_migrations has %d rows, want %d: a migration was applied more than once", n, len(ms))
	}
}
