package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/loop"
)

// DefaultUsageFlush is how often DailyUsage adds its counts to Postgres.
const DefaultUsageFlush = time.Second

// UsageRetention is how many days of usage_daily rows are kept.
const UsageRetention = 90

// DailyUsage counts requests against plans' daily quotas, per account and
// UTC day. Counting is in process memory (no query per request): each
// process reads an account's count for the day from Postgres once, then adds
// what it let through to usage_daily every flush interval and learns the
// other processes' counts from the sum that returns. So with N API
// processes an account can exceed its quota by at most what the other
// processes let through in one interval (N-1 × the keys' rate × interval).
type DailyUsage struct {
	pool     *pgxpool.Pool
	log      *slog.Logger
	interval time.Duration

	mu   sync.Mutex
	days map[usageKey]*usage

	loops *loop.Supervisor // Supervise
}

// Supervise runs the flush as the loop "api-daily-quota" of loops (the
// role's): a failed flush is counted, retried after the loop's backoff
// rather than a whole interval later, and a run of them turns /readyz red.
// Call before Run.
func (d *DailyUsage) Supervise(loops *loop.Supervisor) { d.loops = loops }

type usageKey struct {
	account string
	day     time.Time // UTC midnight
}

type usage struct {
	shared  int64 // the day's total in Postgres when last read or flushed
	pending int64 // let through here since, not yet flushed
}

// NewDailyUsage returns a counter over pool flushing every interval
// (DefaultUsageFlush when 0); call Run to flush.
func NewDailyUsage(pool *pgxpool.Pool, interval time.Duration, log *slog.Logger) *DailyUsage {
	if interval <= 0 {
		interval = DefaultUsageFlush
	}
	return &DailyUsage{pool: pool, log: log, interval: interval, days: map[usageKey]*usage{}}
}

// Day is the UTC day of t, as its midnight.
func Day(t time.Time) time.Time {
	return t.UTC().Truncate(24 * time.Hour)
}

// Take counts one request of account against quota for now's UTC day and
// reports the day's count including it; when the quota is used up it counts
// nothing and ok is false. If Postgres cannot be read the count starts at
// what this process saw (the request is let through: a quota never turns a
// Postgres outage into an API outage) and the next flush corrects it.
func (d *DailyUsage) Take(ctx context.Context, account string, quota int64, now time.Time) (used int64, ok bool) {
	k := usageKey{account: account, day: Day(now)}
	d.mu.Lock()
	u := d.days[k]
	d.mu.Unlock()
	if u == nil {
		shared, err := d.read(ctx, k)
		if err != nil {
			d.log.Warn("daily quota: read usage; counting from zero until the next flush", "account_id", account, "err", err)
		}
		d.mu.Lock()
		if u = d.days[k]; u == nil {
			u = &usage{shared: shared}
			d.days[k] = u
		}
		d.mu.Unlock()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	used = u.shared + u.pending
	if used >= quota {
		return used, false
	}
	u.pending++
	return used + 1, true
}

func (d *DailyUsage) read(ctx context.Context, k usageKey) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var n int64
	err := d.pool.QueryRow(ctx, `SELECT requests FROM usage_daily WHERE account_id = $1 AND day = $2`, k.account, k.day).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read usage_daily: %w", err)
	}
	return n, nil
}

// Flush adds every pending count to usage_daily and forgets past days once
// they are flushed. A failed account stays pending for the next flush.
func (d *DailyUsage) Flush(ctx context.Context) error {
	type batch struct {
		k usageKey
		n int64
	}
	today := Day(time.Now())
	var todo []batch
	d.mu.Lock()
	for k, u := range d.days {
		switch {
		case u.pending > 0:
			todo = append(todo, batch{k, u.pending})
		case k.day.Before(today):
			delete(d.days, k)
		}
	}
	d.mu.Unlock()
	var errs []error
	for _, b := range todo {
		var total int64
		err := d.pool.QueryRow(ctx, `
			INSERT INTO usage_daily (account_id, day, requests) VALUES ($1, $2, $3)
			ON CONFLICT (account_id, day) DO UPDATE SET requests = usage_daily.requests + EXCLUDED.requests
			RETURNING requests`, b.k.account, b.k.day, b.n).Scan(&total)
		if err != nil {
			errs = append(errs, fmt.Errorf("account %s: %w", b.k.account, err))
			continue
		}
		d.mu.Lock()
		if u := d.days[b.k]; u != nil {
			u.pending -= b.n
			u.shared = total
		}
		d.mu.Unlock()
	}
	if len(errs) > 0 {
		return fmt.Errorf("auth: flush daily usage: %w", errors.Join(errs...))
	}
	return nil
}

// Run flushes every interval until ctx ends, then once more, and deletes
// usage older than UsageRetention days once a day. A failed flush keeps
// its counts pending for the next try.
func (d *DailyUsage) Run(ctx context.Context) error {
	var purged time.Time
	flusher := d.loops.Loop("api-daily-quota", d.log)
	_ = flusher.Run(ctx, d.interval, func(ctx context.Context) error {
		err := d.Flush(ctx)
		if day := Day(time.Now()); !day.Equal(purged) {
			if _, perr := d.pool.Exec(ctx, `DELETE FROM usage_daily WHERE day < $1`, day.AddDate(0, 0, -UsageRetention)); perr != nil {
				err = errors.Join(err, fmt.Errorf("daily quota: purge old usage: %w", perr))
			} else {
				purged = day
			}
		}
		return err // Run returns only when ctx ends: no round's error is unrecoverable
	})
	final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return d.Flush(final)
}
