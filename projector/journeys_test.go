package projector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
)

// Every column type of the journey tables survives a write and a read.
func TestJourneyTablesRoundTrip(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	if err := projector.EnsureJourneyTables(ctx, ch.Conn, 7); err != nil {
		t.Fatal(err)
	}
	since := time.Date(2026, 11, 1, 2, 3, 4, 0, time.UTC)
	cols := []string{"account_id", "env", "lookup_kind", "lookup_value", "tracking_id", "since", "position",
		"equipment_number", "scac", "tracking_status", "pol", "pod", "last_location", "source_events", "source_chunks", "vessel_events",
		"enhanced_events", "updated_at", "version"}
	if err := clickhouse.Insert(ctx, ch.Conn, "journeys_g7", cols, []any{"a", "sandbox", "booking", "BK", "t", since, uint16(65535),
		"MSKU9070323", "MAEU", "OPEN", "CNSHA", "NLRTM", "SGSIN", `[{"é":1}]`, []uint64{0, 1<<64 - 1}, "[]", "[]", since, uint64(1<<64 - 1)}); err != nil {
		t.Fatal(err)
	}
	var chunks []uint64
	if err := ch.Conn.QueryRow(ctx, `SELECT source_chunks FROM journeys_g7`).Scan(&chunks); err != nil ||
		len(chunks) != 2 || chunks[0] != 0 || chunks[1] != 1<<64-1 {
		t.Fatalf("source_chunks %v %v", chunks, err)
	}
	if err := clickhouse.Insert(ctx, ch.Conn, "journey_chunks_g7", []string{"account_id", "lookup_kind", "lookup_value", "tracking_id",
		"equipment_number", "chunk", "events", "version"}, []any{"a", "booking", "BK", "t", "MSKU9070323", uint32(1<<32 - 1), `[{"é":2}]`, uint64(1<<64 - 1)}); err != nil {
		t.Fatal(err)
	}
	var chunk uint32
	var events string
	var chunkVersion uint64
	if err := ch.Conn.QueryRow(ctx, `SELECT chunk, events, version FROM journey_chunks_g7`).Scan(&chunk, &events, &chunkVersion); err != nil ||
		chunk != 1<<32-1 || events != `[{"é":2}]` || chunkVersion != 1<<64-1 {
		t.Fatalf("chunk %d %q %d %v", chunk, events, chunkVersion, err)
	}
	if err := clickhouse.Insert(ctx, ch.Conn, "journey_state_g7", []string{"account_id", "tracking_id", "state_json", "updated_at", "version"},
		[]any{"a", "t", `{"x":"é"}`, since, uint64(3)}); err != nil {
		t.Fatal(err)
	}
	var state string
	var version uint64
	if err := ch.Conn.QueryRow(ctx, `SELECT state_json FROM journey_state_g7`).Scan(&state); err != nil || state != `{"x":"é"}` {
		t.Fatalf("state %q %v", state, err)
	}
	if err := clickhouse.Insert(ctx, ch.Conn, "journey_state_rows_g7", []string{"tracking_id", "seq", "event_id", "hash", "row_json", "version"},
		[]any{"t", uint32(1<<32 - 1), "e-é", "h", `{"eventID":"é"}`, uint64(1<<64 - 1)}); err != nil {
		t.Fatal(err)
	}
	var seq uint32
	var eventID, hash, js string
	if err := ch.Conn.QueryRow(ctx, `SELECT seq, event_id, hash, row_json, version FROM journey_state_rows_g7`).Scan(&seq, &eventID, &hash, &js, &version); err != nil ||
		seq != 1<<32-1 || eventID != "e-é" || hash != "h" || js != `{"eventID":"é"}` || version != 1<<64-1 {
		t.Fatalf("state row %d %q %q %q %d %v", seq, eventID, hash, js, version, err)
	}
	var gotSince time.Time
	var pos uint16
	var src string
	if err := ch.Conn.QueryRow(ctx, `SELECT since, position, source_events, version FROM journeys_g7`).Scan(&gotSince, &pos, &src, &version); err != nil {
		t.Fatal(err)
	}
	if !gotSince.Equal(since) || pos != 65535 || src != `[{"é":1}]` || version != 1<<64-1 {
		t.Fatalf("%v %d %s %d", gotSince, pos, src, version)
	}
}

// A rebuild builds the next generation from the topics while reads keep
// answering the whole journey from the live one, then readers and the
// running projector move to it; the generation before the previous is dropped.
func TestRebuildJourneys(t *testing.T) {
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	kc := testenv.Kafka(t, 2)
	brokers := kc.Brokers
	prod := testenv.KafkaClient(t, brokers)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := projector.Config{MaxWait: 100 * time.Millisecond, JourneyMaxWait: 20 * time.Millisecond, GenerationCheck: 100 * time.Millisecond}
	deps := projector.Deps{Brokers: brokers, Namespace: kc.NS, CH: ch.Conn, Log: testenv.Log(t)}
	done := make(chan error, 1)
	go func() { done <- projector.Run(ctx, cfg, deps) }()
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, CH: ch.Conn, TokenKey: []byte("k")})
	})
	key, k, _ := api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})

	tracking := uuid.NewString()
	sub, _ := json.Marshal(schemas.SubscriptionChanged{ID: "c1", AccountID: k.Account.ID, Env: "sandbox", TrackingID: tracking, SCAC: "MAEU",
		IdentifierKind: "container", Identifier: "MSKU9070323", Status: "OPEN", TrackingOpen: true, OccurredAt: time.Now()})
	recs := []*kgo.Record{{Topic: kc.Topic(schemas.TopicSubscriptions), Key: []byte(tracking), Value: sub}}
	event := func(i int) *kgo.Record {
		at := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour).Format(time.RFC3339)
		b, _ := json.Marshal(dcsa.Event{EventID: fmt.Sprint("e", i), EventType: dcsa.EventTypeEquipment, EventClassifierCode: "ACT", EventDateTime: at,
			EventCreatedDateTime: at, EquipmentEventTypeCode: "GTIN", EquipmentReference: "MSKU9070323", EmptyIndicatorCode: "LADEN",
			EventLocation: &dcsa.Location{UNLocationCode: "CNSHA"}})
		v, _ := json.Marshal(schemas.EventRecord{TrackingID: tracking, AccountID: k.Account.ID, Env: "sandbox", SCAC: "MAEU", EventID: fmt.Sprint("e", i), ContentHash: at, Event: b})
		return &kgo.Record{Topic: kc.Topic(schemas.TopicEvents), Key: []byte(tracking), Value: v}
	}
	const n = 300
	for i := range n {
		recs = append(recs, event(i))
	}
	if err := kafka.ProduceSync(ctx, prod, recs...); err != nil {
		t.Fatal(err)
	}
	path := "/subscription/equipment?equipmentNumber=MSKU9070323"
	sources := func() int {
		r := api.Do("GET", path, key, nil)
		res, _ := r.JSON["results"].([]any)
		if r.Status != 200 || len(res) != 1 {
			return -1
		}
		return len(res[0].(map[string]any)["sourceEvents"].([]any))
	}
	testkit.Eventually(t, 20*time.Second, fmt.Sprintf("the live projection with %d source events", n), func() bool { return sources() == n })

	// Reads during the rebuild see the whole journey, never a partial one.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var reads, partial int
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if got := sources(); got != n {
				partial++
			}
			reads++
		}
	}()
	gen, err := projector.RebuildJourneys(ctx, cfg, deps)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if gen != 2 || reads == 0 || partial > 0 {
		t.Fatalf("generation %d, %d of %d reads partial", gen, partial, reads)
	}
	var rows uint64
	if err := ch.Conn.QueryRow(ctx, `SELECT count() FROM journeys_g2 WHERE tracking_id = ?`, tracking).Scan(&rows); err != nil || rows == 0 {
		t.Fatalf("journeys_g2: %d rows, %v", rows, err)
	}
	// The running projector moved to generation 2: a new event shows.
	if err := kafka.ProduceSync(ctx, prod, event(n)); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, fmt.Sprintf("%d source events after the rebuild", n+1), func() bool { return sources() == n+1 })
	if gen, err := projector.RebuildJourneys(ctx, cfg, deps); err != nil || gen != 3 {
		t.Fatalf("second rebuild: %d %v", gen, err)
	}
	var tables uint64
	if err := ch.Conn.QueryRow(ctx, `SELECT count() FROM system.tables WHERE database = ? AND name IN ('journeys_g1', 'journey_state_g1', 'journey_state_rows_g1')`, ch.Name).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 || sources() != n+1 {
		t.Fatalf("generation 1 tables left: %d; %d source events", tables, sources())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}
