// Package projector writes ClickHouse read models from Kafka. Each writer
// inserts a batch, then commits its offsets: a crash in between re-inserts
// the batch, and the tables' ReplacingMergeTree keys (the record ids) fold
// the repeats.
package projector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
)

// Config tunes the projector.
type Config struct {
	// MaxBatch bounds rows per insert (default 5,000); MaxWait bounds how
	// long a partial batch waits (default 1 s).
	MaxBatch int
	MaxWait  time.Duration
}

// Deps are the projector's connections.
type Deps struct {
	Brokers []string
	CH      driver.Conn
	Log     *slog.Logger
}

var attemptColumns = []string{"attempt_id", "account_id", "env", "scac", "tracking_id", "outcome", "http_code", "latency_ms", "event_count", "at", "day"}

// Run projects poll attempts into poll_attempts until ctx ends; nil on a
// clean shutdown.
func Run(ctx context.Context, cfg Config, deps Deps) error {
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 5000
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = time.Second
	}
	log := deps.Log.With("stage", "projector")
	cl, err := kafka.NewClient(deps.Brokers, log,
		kgo.ConsumerGroup(schemas.GroupProjector),
		kgo.ConsumeTopics(schemas.TopicPollAttempts),
		kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	)
	if err != nil {
		return err
	}
	defer cl.Close()
	for {
		pollCtx, cancel := context.WithTimeout(ctx, cfg.MaxWait)
		fs := cl.PollRecords(pollCtx, cfg.MaxBatch)
		cancel()
		if ctx.Err() != nil || fs.IsClientClosed() {
			break
		}
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				log.Error("fetch poll attempts", "partition", p, "err", err)
			}
		})
		recs := fs.Records()
		if len(recs) == 0 {
			continue
		}
		rows := make([][]any, 0, len(recs))
		for _, r := range recs {
			var a schemas.PollAttempt
			if err := json.Unmarshal(r.Value, &a); err != nil || a.ID == "" {
				log.Error("skipping malformed poll attempt", "partition", r.Partition, "offset", r.Offset, "err", err)
				continue
			}
			at := a.At.UTC().Truncate(time.Second)
			rows = append(rows, []any{a.ID, a.AccountID, a.Env, a.SCAC, a.TrackingID, a.Outcome,
				uint16(min(max(a.HTTPCode, 0), 65535)), uint32(min(max(a.LatencyMS, 0), 1<<32-1)), uint32(max(a.EventCount, 0)),
				at, time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)})
		}
		// Insert, then commit: a failed insert is retried, never skipped.
		for len(rows) > 0 {
			err := clickhouse.Insert(ctx, deps.CH, "poll_attempts", attemptColumns, rows...)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return nil
			}
			log.Error("insert poll attempts, retrying", "rows", len(rows), "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(2 * time.Second):
			}
		}
		if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
			return fmt.Errorf("projector: commit: %w", err)
		}
	}
	return nil
}
