package delivery

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
)

func testServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Every column type of delivery_attempts survives a write through
// clickhouse.Insert and a read back, on the ClickHouse the tests run
// against (18.16 locally): String, UInt16, UInt32, DateTime, Date.
func TestAttemptLogRoundTrip(t *testing.T) {
	ch := testenv.ClickHouse(t)
	cfg := Config{}.WithDefaults()
	l := newAttemptLog(ch.Conn, cfg, testenv.Log(t), NewMetrics())
	at := time.Date(2026, 11, 20, 23, 59, 58, 700_000_000, time.UTC)
	in := attemptRow{
		DeliveryID: "6f1c2c1e-5d0e-4a4e-9a57-8d1f0c3b2a10", AccountID: "acct", SubscriptionID: "sub",
		Endpoint: "hooks.example.com:8443", Attempt: 65535, StatusCode: 503, Outcome: OutcomeHTTPError,
		Latency: 4_294_967_295 * time.Millisecond, Error: "HTTP 503: ünïcode ✓ \"quoted\"", At: at,
	}
	l.add(in)
	l.add(attemptRow{DeliveryID: "second", Attempt: 70000, StatusCode: -1, Latency: -time.Second, At: at})
	if err := l.flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l.pending() != 0 {
		t.Fatalf("%d rows left after flush", l.pending())
	}
	var (
		id, acct, sub, endpoint, outcome, errText string
		attempt, code                             uint16
		latency                                   uint32
		gotAt, day                                time.Time
	)
	row := ch.Conn.QueryRow(context.Background(), `
		SELECT delivery_id, account_id, subscription_id, endpoint, attempt, status_code, outcome, latency_ms, error, at, day
		FROM delivery_attempts WHERE delivery_id = ?`, in.DeliveryID)
	if err := row.Scan(&id, &acct, &sub, &endpoint, &attempt, &code, &outcome, &latency, &errText, &gotAt, &day); err != nil {
		t.Fatal(err)
	}
	if id != in.DeliveryID || acct != "acct" || sub != "sub" || endpoint != in.Endpoint || attempt != 65535 || code != 503 ||
		outcome != OutcomeHTTPError || latency != 4_294_967_295 || errText != in.Error {
		t.Errorf("read back %q %q %q %q %d %d %q %d %q", id, acct, sub, endpoint, attempt, code, outcome, latency, errText)
	}
	if !gotAt.Equal(at.Truncate(time.Second)) {
		t.Errorf("at %s, want %s", gotAt.UTC(), at.Truncate(time.Second))
	}
	if day.Format("2006-01-02") != "2026-11-20" {
		t.Errorf("day %s", day)
	}
	// Out-of-range values are clamped, not wrapped.
	row = ch.Conn.QueryRow(context.Background(), `SELECT attempt, status_code, latency_ms FROM delivery_attempts WHERE delivery_id = 'second'`)
	if err := row.Scan(&attempt, &code, &latency); err != nil {
		t.Fatal(err)
	}
	if attempt != 65535 || code != 0 || latency != 0 {
		t.Errorf("clamped row %d %d %d", attempt, code, latency)
	}
}

// Rows wait while ClickHouse refuses them and are written once it answers;
// beyond LogBuffer the oldest are dropped and counted.
func TestAttemptLogKeepsRowsUntilWritten(t *testing.T) {
	ch := testenv.ClickHouse(t)
	cfg := Config{LogBuffer: 3}.WithDefaults()
	m := NewMetrics()
	l := newAttemptLog(ch.Conn, cfg, testenv.Log(t), m)
	ctx := context.Background()
	if err := ch.Conn.Exec(ctx, `RENAME TABLE delivery_attempts TO delivery_attempts_away`); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		l.add(attemptRow{DeliveryID: "d", Attempt: i + 1, At: time.Now()})
	}
	if err := l.flush(ctx); err == nil {
		t.Fatal("flush into a missing table succeeded")
	}
	if l.pending() != 3 {
		t.Fatalf("%d rows kept, want 3 (LogBuffer)", l.pending())
	}
	if err := ch.Conn.Exec(ctx, `RENAME TABLE delivery_attempts_away TO delivery_attempts`); err != nil {
		t.Fatal(err)
	}
	if err := l.flush(ctx); err != nil {
		t.Fatal(err)
	}
	var n uint64
	if err := ch.Conn.QueryRow(ctx, `SELECT count() FROM delivery_attempts WHERE attempt >= 3`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 || l.pending() != 0 {
		t.Errorf("%d rows written, %d pending; want the newest 3 written", n, l.pending())
	}
}

// Rows trickling in make one insert per LogFlushInterval, not one per
// batch of rows that arrived during the previous insert: every insert is a
// part ClickHouse must merge.
func TestAttemptLogInsertsOncePerInterval(t *testing.T) {
	ch := testenv.ClickHouse(t)
	cfg := Config{LogFlushInterval: 200 * time.Millisecond}.WithDefaults()
	l := newAttemptLog(ch.Conn, cfg, testenv.Log(t), NewMetrics())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		l.run(ctx, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
		})
		close(done)
	}()
	const rows = 600
	for i := range rows {
		l.add(attemptRow{DeliveryID: "d", Attempt: i, At: time.Now()})
		time.Sleep(2 * time.Millisecond) // rows spread over ~1.2 s: the intervals under test
	}
	cancel()
	<-done
	var n uint64
	if err := ch.Conn.QueryRow(context.Background(), `SELECT count() FROM delivery_attempts`).Scan(&n); err != nil || n != rows {
		t.Fatalf("%d rows in clickhouse (%v), want %d", n, err, rows)
	}
	// About 1.2 s of rows: six ticks and the final flush, give or take.
	if got := l.inserts.Load(); got > 10 {
		t.Fatalf("%d inserts for %d rows over ~1.2 s, want about one per 200 ms", got, rows)
	}
}
