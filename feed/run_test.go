package feed

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
)

// A run of a tracking's records is written in order, numbered in that
// order, even split over transactions (MaxGroup 2 here); a run with an
// undecodable record fails permanently, so the runtime takes its records
// one at a time.
func TestHandleRunWritesATrackingsEventsInOrder(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	acct, trk := uuid.NewString(), uuid.NewString()
	for _, q := range []string{
		`INSERT INTO accounts (id, client_slug, env, display_name) SELECT $1, 'acme', 'sandbox', 'acme' WHERE $2::uuid IS NOT NULL`,
		`INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
			VALUES ($2, $1, 'sandbox', 'MAEU', 'container', 'MSKU1234565', 'CONNECTED')`,
		`INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
			VALUES (gen_random_uuid(), $1, 'r', $2, 'MAEU', 'MSKU1234565', 'OPEN', now(), now() + interval '1 day')`,
	} {
		if _, err := db.Pool.Exec(ctx, q, acct, trk); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Config{MaxGroup: 2}.WithDefaults()
	s := &stage{cfg: cfg, log: testenv.Log(t), pool: db.Pool, now: time.Now, reqs: make(chan *writeReq, cfg.MaxGroup)}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); s.writeLoop(ctx, stop) }()
	defer func() { close(stop); <-done }()

	record := func(offset int64, id string) *kgo.Record {
		v, err := json.Marshal(schemas.EventRecord{TrackingID: trk, AccountID: acct, EventID: id, ContentHash: "h",
			Event: json.RawMessage(`{"eventID":"` + id + `"}`), EmittedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		return &kgo.Record{Key: []byte(trk), Value: v, Partition: 0, Offset: offset}
	}
	var run []*kgo.Record
	var want []string
	for i := range 5 {
		id := "e" + strconv.Itoa(i)
		run = append(run, record(int64(i), id))
		want = append(want, id)
	}
	if err := s.handleRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Pool.Query(ctx, `SELECT event_id FROM feed_items WHERE account_id = $1 ORDER BY seq`, acct)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("feed holds %v in seq order, want %v", got, want)
	}

	bad := &kgo.Record{Key: []byte(trk), Value: []byte(`{"eventId":`), Offset: 6}
	if err := s.handleRun(ctx, []*kgo.Record{record(5, "e5"), bad}); !errors.Is(err, kafka.ErrPermanent) {
		t.Fatalf("a run with an undecodable record: %v, want a permanent error", err)
	}
}
