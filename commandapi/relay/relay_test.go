package relay

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/commandapi/subscription"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// enqueue writes n subscription changes to the outbox as the API does.
func enqueue(t *testing.T, db testenv.PGDatabase, n int) []string {
	t.Helper()
	var ids []string
	err := pgx.BeginFunc(context.Background(), db.Pool, func(tx pgx.Tx) error {
		var acct string
		if err := tx.QueryRow(context.Background(), `INSERT INTO accounts (id, client_slug, env, display_name) VALUES (gen_random_uuid(), 'acme', 'sandbox', 'acme')
			ON CONFLICT (client_slug, env) DO UPDATE SET display_name = EXCLUDED.display_name RETURNING id`).Scan(&acct); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if err := subscription.EnqueueChange(context.Background(), tx, schemas.SubscriptionChanged{
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
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(15*time.Second))
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

func newTestRelay(t *testing.T, cfg Config, deps Deps) *Relay {
	t.Helper()
	if deps.Log == nil {
		deps.Log = testenv.Log(t)
	}
	r, err := New(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRelayPublishesOutboxInOrder(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	want := enqueue(t, db, 7)
	relay := newTestRelay(t, Config{BatchSize: 3, Idle: 50 * time.Millisecond}, Deps{Pool: db.Pool, Producer: testenv.KafkaClient(t, brokers), Namespace: kc.NS})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- relay.run(ctx) }()
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
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE published_at IS NULL`).Scan(&unpublished); err != nil {
		t.Fatal(err)
	}
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
	relay := newTestRelay(t, Config{Idle: 50 * time.Millisecond}, Deps{Pool: db.Pool, Producer: testenv.KafkaClient(t, brokers), Namespace: kc.NS})
	var crashes atomic.Int32
	relay.beforeMark = func() error {
		if crashes.Add(1) == 1 {
			return errors.New("injected crash before marking the outbox")
		}
		return nil
	}
	testenv.RunStage(t, "outbox-relay", relay.run)
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

// A row Kafka refuses for good — a record larger than any topic takes, a
// topic that does not exist — is dead-lettered with its reason and
// counted, and the rows after it are published, in order: one poison row
// no longer stalls every later subscription change.
func TestRelayDeadLettersAPoisonRowAndGoesOn(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 1)
	before := enqueue(t, db, 2)
	ctx := context.Background()
	var acct string
	if err := db.Pool.QueryRow(ctx, `SELECT account_id::text FROM outbox LIMIT 1`).Scan(&acct); err != nil {
		t.Fatal(err)
	}
	// Two poison rows as the API could never write them, then two good ones.
	huge := `{"pad":"` + strings.Repeat("x", 2*kafka.MaxRecordBatchBytes) + `"}`
	if _, err := db.Pool.Exec(ctx, `
		INSERT INTO outbox (record_id, topic, record_key, record_type, account_id, payload) VALUES
		(gen_random_uuid(), $1, 'trk-huge', 'subscription.changed', $2, $3::jsonb),
		(gen_random_uuid(), 'contrack.no-such-topic.v1', 'trk-lost', 'subscription.changed', $2, '{}'::jsonb)`,
		schemas.TopicSubscriptions, acct, huge); err != nil {
		t.Fatal(err)
	}
	after := enqueue(t, db, 2)[4:]
	reg := prometheus.NewRegistry()
	relay := newTestRelay(t, Config{BatchSize: 3, Idle: 50 * time.Millisecond},
		Deps{Pool: db.Pool, Producer: testenv.KafkaClient(t, kc.Brokers, kgo.UnknownTopicRetries(1)), Namespace: kc.NS, Registry: reg})
	stop := testenv.RunStage(t, "outbox-relay", relay.run)
	got, raw := readDeduped(t, kc, 4, 4)
	stop()
	want := append(before, after...)
	if len(got) != 4 || raw != 4 || !slices.Equal(got, want) {
		t.Fatalf("published %v (%d records), want %v: the rows after the poison ones, in order", got, raw, want)
	}
	rows, err := db.Pool.Query(ctx, `SELECT record_key, dead_reason FROM outbox WHERE dead_at IS NOT NULL AND published_at IS NULL ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	type dead struct{ key, reason string }
	deads, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dead, error) {
		var d dead
		return d, r.Scan(&d.key, &d.reason)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(deads) != 2 || deads[0].key != "trk-huge" || !strings.Contains(deads[0].reason, "MESSAGE_TOO_LARGE") ||
		deads[1].key != "trk-lost" || !strings.Contains(deads[1].reason, "UNKNOWN_TOPIC_OR_PARTITION") {
		t.Fatalf("dead-lettered rows %+v, want trk-huge (too large) and trk-lost (unknown topic) with their reasons", deads)
	}
	if n := testkit.Counter(t, reg, "contrack_outbox_dead_letters_total", nil); n != 2 {
		t.Fatalf("contrack_outbox_dead_letters_total = %v, want 2", n)
	}
	var waiting int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE published_at IS NULL AND dead_at IS NULL`).Scan(&waiting); err != nil || waiting != 0 {
		t.Fatalf("%d rows still waiting (err %v), want 0", waiting, err)
	}
}

// With Postgres out of its reach the relay counts every failed round and,
// after a run of them, turns /readyz red naming it; once Postgres is back
// it publishes what was written meanwhile and readiness is green again.
func TestRelayOutageTurnsReadinessRedAndRecovers(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 1)
	pool, proxy := testenv.PoolVia(t, db)
	reg := prometheus.NewRegistry()
	health := httpapi.NewHealth(nil, 0, testenv.Log(t))
	loops, err := loop.New(loop.Config{UnreadyAfter: 3, Backoff: loop.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond}}, reg, health, testenv.Log(t))
	if err != nil {
		t.Fatal(err)
	}
	relay := newTestRelay(t, Config{Idle: 50 * time.Millisecond},
		Deps{Pool: pool, Producer: testenv.KafkaClient(t, kc.Brokers), Namespace: kc.NS, Registry: reg, Loops: loops})
	testenv.RunStage(t, "outbox-relay", relay.run)
	first := enqueue(t, db, 1)
	readDeduped(t, kc, 1, 1)

	proxy.Cut()
	testkit.Eventually(t, 10*time.Second, "/readyz 503 naming the relay", func() bool {
		code, body := readyz(health)
		return code == 503 && strings.Contains(body, "outbox-relay failing")
	})
	if n := testkit.Counter(t, reg, "contrack_loop_failures_total", map[string]string{"loop": "outbox-relay"}); n < 3 {
		t.Fatalf("relay failures counted %v, want at least 3", n)
	}
	during := enqueue(t, db, 2)[1:] // written through the API's pool meanwhile
	proxy.Restore()
	testkit.Eventually(t, 15*time.Second, "/readyz 200 once Postgres is back", func() bool {
		code, _ := readyz(health)
		return code == 200
	})
	got, _ := readDeduped(t, kc, 3, 3)
	if want := append(first, during...); !slices.Equal(got, want) {
		t.Fatalf("published %v, want %v", got, want)
	}
}

func readyz(h *httpapi.Health) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeReadyz(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	return rec.Code, rec.Body.String()
}
