package commandapi

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
)

// enqueue writes n subscription changes to the outbox as the API does.
func enqueue(t *testing.T, db testenv.PGDatabase, n int) []string {
	t.Helper()
	var ids []string
	err := pgx.BeginFunc(context.Background(), db.Pool, func(tx pgx.Tx) error {
		var acct string
		if err := tx.QueryRow(context.Background(), `INSERT INTO accounts (id, client_slug, env, display_name) VALUES (gen_random_uuid(), 'acme', 'sandbox', 'acme') RETURNING id`).Scan(&acct); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if err := enqueueSubscriptionChange(context.Background(), tx, schemas.SubscriptionChanged{
				AccountID: acct, Env: "sandbox", TrackingID: "trk-" + string(rune('a'+i%3)), Status: "OPEN", TrackingOpen: true,
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := db.Pool.Query(context.Background(), `SELECT record_id::text FROM outbox ORDER BY seq`)
	ids, _ = pgx.CollectRows(rows, pgx.RowTo[string])
	return ids
}

// readDeduped consumes the subscriptions topic as a downstream consumer
// does: dropping records whose id it has seen. It returns the ids in order
// and how many raw records arrived.
func readDeduped(t *testing.T, kc testenv.KafkaCluster, want, wantRaw int) (ids []string, raw int) {
	t.Helper()
	cl := testenv.KafkaClient(t, kc.Brokers, kgo.ConsumeTopics(kc.Topic(schemas.TopicSubscriptions)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	seen := map[string]bool{}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for (len(ids) < want || raw < wantRaw) && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			raw++
			id := kafka.Header(r, schemas.HeaderID)
			var ch schemas.SubscriptionChanged
			if err := json.Unmarshal(r.Value, &ch); err != nil || ch.ID != id || string(r.Key) != ch.TrackingID {
				t.Errorf("record %s: key %q payload %s", id, r.Key, r.Value)
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		})
	}
	// Give duplicates a moment to show up too.
	short, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	cl.PollFetches(short).EachRecord(func(r *kgo.Record) { raw++ })
	return ids, raw
}

func TestRelayPublishesOutboxInOrder(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	want := enqueue(t, db, 7)
	relay := NewRelay(RelayConfig{BatchSize: 3, Idle: 50 * time.Millisecond}, db.Pool, testenv.KafkaClient(t, brokers), kc.NS, testenv.Log(t))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- relay.Run(ctx) }()
	got, raw := readDeduped(t, kc, 7, 7)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("relay shutdown: %v", err)
	}
	if len(got) != 7 || raw != 7 {
		t.Fatalf("got %d ids from %d records, want 7 from 7", len(got), raw)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order: got %v want %v", got, want)
		}
	}
	var unpublished int
	db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE published_at IS NULL`).Scan(&unpublished)
	if unpublished != 0 {
		t.Fatalf("%d rows left unpublished", unpublished)
	}
}

// A crash between the Kafka acknowledgement and the mark publishes the
// batch again; downstream dedupe by record id sees each change exactly once
// and nothing is lost.
func TestRelayCrashBetweenPublishAndMarkLosesNothing(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	want := enqueue(t, db, 4)
	relay := NewRelay(RelayConfig{Idle: 50 * time.Millisecond}, db.Pool, testenv.KafkaClient(t, brokers), kc.NS, testenv.Log(t))
	var crashes atomic.Int32
	relay.beforeMark = func() error {
		if crashes.Add(1) == 1 {
			return errors.New("injected crash before marking the outbox")
		}
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go relay.Run(ctx)
	got, raw := readDeduped(t, kc, 4, 8)
	if len(got) != 4 {
		t.Fatalf("got %d distinct changes, want 4", len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order: got %v want %v", got, want)
		}
	}
	if raw != 8 {
		t.Fatalf("raw records = %d, want 8 (the crashed batch published twice)", raw)
	}
}
