package delivery

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/loop"
)

// attemptColumns are the delivery_attempts columns written, in row order.
var attemptColumns = []string{
	"delivery_id", "account_id", "subscription_id", "endpoint", "attempt",
	"status_code", "outcome", "latency_ms", "error", "at", "day",
}

// attemptRow is one delivery attempt for the ClickHouse delivery log.
type attemptRow struct {
	DeliveryID, AccountID, SubscriptionID, Endpoint string
	Attempt                                         int
	StatusCode                                      int
	Outcome                                         string
	Latency                                         time.Duration
	Error                                           string
	At                                              time.Time
}

func (r attemptRow) values() []any {
	at := r.At.UTC().Truncate(time.Second)
	return []any{
		r.DeliveryID, r.AccountID, r.SubscriptionID, r.Endpoint,
		uint16(min(max(r.Attempt, 0), 65535)),
		uint16(min(max(r.StatusCode, 0), 65535)),
		r.Outcome,
		uint32(min(max(r.Latency.Milliseconds(), 0), 1<<32-1)),
		r.Error,
		at,
		time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC),
	}
}

// attemptLog batches attempt rows into ClickHouse inserts. The log is for
// analytics: rows wait in memory up to LogFlushInterval, so a crash loses
// the last moment's rows (Postgres keeps each delivery's state regardless);
// while ClickHouse is down rows are kept up to LogBuffer, the oldest dropped
// beyond it.
type attemptLog struct {
	conn     driver.Conn
	cfg      Config
	log      *slog.Logger
	metrics  *Metrics
	mu       sync.Mutex
	rows     [][]any
	dropped  int // rows dropped from the front of rows, ever
	full     chan struct{}
	warnedAt time.Time
	inserts  atomic.Int64     // inserts made, ever
	now      func() time.Time // the stage's clock (Deps.Now)
	writing  *loop.Loop       // the loop "delivery-attempt-log" (nil: unsupervised)
	loops    *loop.Supervisor // runs the flushes (nil: unsupervised)
}

func newAttemptLog(conn driver.Conn, cfg Config, log *slog.Logger, m *Metrics) *attemptLog {
	return &attemptLog{conn: conn, cfg: cfg, log: log, metrics: m, full: make(chan struct{}, 1), now: time.Now}
}

func (l *attemptLog) add(r attemptRow) {
	l.mu.Lock()
	l.rows = append(l.rows, r.values())
	if over := len(l.rows) - l.cfg.LogBuffer; over > 0 {
		l.rows = l.rows[over:]
		l.dropped += over
		l.metrics.logDropped.Add(float64(over))
	}
	n := len(l.rows)
	l.mu.Unlock()
	if n >= l.cfg.LogBatchSize {
		signal(l.full)
	}
}

// run flushes every LogFlushInterval (sooner when a batch is full) until
// ctx ends, then flushes once more within flushCtx. The flushes are the
// component "delivery-attempt-log": a failed one is counted and tried
// again at the next tick.
func (l *attemptLog) run(ctx context.Context, final func() (context.Context, context.CancelFunc)) {
	// The flush cadence is real time (the component's ticks), like every
	// wait in the stage; the injected clock stamps and schedules, it does
	// not sleep.
	_ = l.loops.Run(ctx, loop.Component{Name: "delivery-attempt-log", Log: l.log, Rounds: []loop.Round{
		{Every: l.cfg.LogFlushInterval, Wake: l.full, Do: l.flushDue},
	}}) // its rounds' errors are never unrecoverable: it returns when ctx ends
	fctx, cancel := final()
	defer cancel()
	for l.pending() > 0 && fctx.Err() == nil {
		if err := l.flush(fctx); err != nil {
			l.writing.Report(err)
			l.log.Error("attempt log not flushed at shutdown", "rows", l.pending(), "err", err)
			return
		}
	}
}

// flushDue is one round of run: one insert per tick, more only while full
// batches wait (rows trickling in during an insert wait for the next tick,
// or every insert would be a small part for ClickHouse to merge).
func (l *attemptLog) flushDue(ctx context.Context) error {
	for first := true; first || l.pending() >= l.cfg.LogBatchSize; first = false {
		// An insert, once sent, is not cut short by the shutdown: a
		// cancelled insert may still have been written, and the final
		// flush would write its rows again (TestAttemptLogInsertsOncePerInterval
		// saw 636 rows of 600 on a busy machine). flush bounds it.
		if err := l.flush(context.WithoutCancel(ctx)); err != nil {
			if now := l.now(); now.Sub(l.warnedAt) > time.Minute {
				l.log.Error("write attempt log to clickhouse, keeping rows", "rows", l.pending(), "err", err)
				l.warnedAt = now
			}
			return err
		}
		l.writing.Succeeded()
	}
	return nil
}

func (l *attemptLog) pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.rows)
}

// flushTimeout bounds one insert of the attempt log (milliseconds when
// ClickHouse answers; past it the rows are kept and tried again).
const flushTimeout = 10 * time.Second

// flush writes up to LogBatchSize of the oldest rows; they are removed only
// once ClickHouse accepted them.
func (l *attemptLog) flush(ctx context.Context) error {
	l.mu.Lock()
	n := min(len(l.rows), l.cfg.LogBatchSize)
	rows := append([][]any(nil), l.rows[:n]...)
	dropped := l.dropped
	l.mu.Unlock()
	if n == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, flushTimeout)
	defer cancel()
	if err := clickhouse.Insert(ctx, l.conn, "delivery_attempts", attemptColumns, rows...); err != nil {
		return err
	}
	l.inserts.Add(1)
	l.mu.Lock()
	// Rows dropped for space meanwhile were some of those just written.
	l.rows = l.rows[min(max(n-(l.dropped-dropped), 0), len(l.rows)):]
	l.mu.Unlock()
	return nil
}
