package commandapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/schemas"
)

// outboxChannel is the Postgres NOTIFY channel that wakes the relay.
const outboxChannel = "contrack_outbox"

// relayLock is the advisory lock held by the one active relay, so outbox
// rows are published in order even with several API replicas running.
const relayLock = 7_402_120

// RelayConfig configures the outbox relay. Zero values take the documented defaults.
type RelayConfig struct {
	// BatchSize is the most rows published per round (default 500).
	BatchSize int
	// Idle is the longest wait between rounds without a notification (default 1 s).
	Idle time.Duration
	// Retention is how long published rows are kept for audit (default 7 days).
	Retention time.Duration
}

// Validate reports every invalid field (zero values are valid: they take the defaults).
func (c RelayConfig) Validate() error {
	if c.BatchSize < 0 || c.Idle < 0 || c.Retention < 0 {
		return errors.New("outbox relay: BatchSize, Idle and Retention must not be negative")
	}
	return nil
}

// WithDefaults returns c with every zero field set to its documented default;
// NewRelay applies it.
func (c RelayConfig) WithDefaults() RelayConfig {
	if c.BatchSize == 0 {
		c.BatchSize = 500
	}
	if c.Idle == 0 {
		c.Idle = time.Second
	}
	if c.Retention == 0 {
		c.Retention = 7 * 24 * time.Hour
	}
	return c
}

// Relay publishes outbox rows to Kafka in commit order and marks them
// published. A crash between the produce and the mark publishes the rows
// again on restart: delivery is at least once, and every record carries its
// outbox id (header "id") so consumers drop the repeat. Nothing is lost: a
// row is only marked after Kafka acknowledged it.
type Relay struct {
	cfg  RelayConfig
	pool *pgxpool.Pool
	kcl  *kgo.Client
	ns   schemas.Namespace
	log  *slog.Logger
	// beforeMark, if set, runs after the produce and before the mark (tests
	// inject a crash here).
	beforeMark func() error
}

// NewRelay returns a relay publishing through kcl to the topics of ns
// (rows name the logical topic).
func NewRelay(cfg RelayConfig, pool *pgxpool.Pool, kcl *kgo.Client, ns schemas.Namespace, log *slog.Logger) *Relay {
	return &Relay{cfg: cfg.WithDefaults(), pool: pool, kcl: kcl, ns: ns, log: log.With("stage", "outbox-relay")}
}

// Run publishes until ctx ends; it returns nil on a clean shutdown.
func (r *Relay) Run(ctx context.Context) error {
	for {
		err := r.lead(ctx)
		if ctx.Err() != nil {
			return nil
		}
		r.log.Error("outbox relay failed, restarting", "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(2 * time.Second):
		}
	}
}

// lead takes the relay lock on a dedicated connection, listens for
// notifications and publishes until ctx ends or the connection fails.
func (r *Relay) lead(ctx context.Context) error {
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire: %w", err)
	}
	defer conn.Release()
	for {
		var got bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, relayLock).Scan(&got); err != nil {
			return fmt.Errorf("relay lock: %w", err)
		}
		if got {
			break
		}
		select { // another relay is active: stand by
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
		}
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, relayLock)
	if _, err := conn.Exec(ctx, "LISTEN "+outboxChannel); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	lastPrune := time.Time{}
	for {
		n, err := r.publishBatch(ctx)
		if err != nil {
			return err
		}
		if time.Since(lastPrune) > time.Hour {
			r.prune(ctx)
			lastPrune = time.Now()
		}
		if n == r.cfg.BatchSize {
			continue // more waiting
		}
		waitCtx, cancel := context.WithTimeout(ctx, r.cfg.Idle)
		_, err = conn.Conn().WaitForNotification(waitCtx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("wait for notification: %w", err)
		}
	}
}

type outboxRow struct {
	seq                            int64
	recordID, topic, key, typ, acc string
	payload                        []byte
}

// publishBatch publishes the oldest unpublished rows and marks them.
func (r *Relay) publishBatch(ctx context.Context) (int, error) {
	n := 0
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			SELECT seq, record_id::text, topic, record_key, record_type, account_id::text, payload::text
			FROM outbox WHERE published_at IS NULL ORDER BY seq LIMIT $1`, r.cfg.BatchSize)
		if err != nil {
			return fmt.Errorf("read outbox: %w", err)
		}
		batch, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (outboxRow, error) {
			var o outboxRow
			var payload string
			err := row.Scan(&o.seq, &o.recordID, &o.topic, &o.key, &o.typ, &o.acc, &payload)
			o.payload = []byte(payload)
			return o, err
		})
		if err != nil {
			return fmt.Errorf("read outbox: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		recs := make([]*kgo.Record, len(batch))
		for i, o := range batch {
			recs[i] = &kgo.Record{
				Topic:   r.ns.Topic(o.topic),
				Key:     []byte(o.key),
				Value:   o.payload,
				Headers: schemas.Headers{Type: o.typ, ID: o.recordID, Account: o.acc}.Kafka(),
			}
		}
		if err := r.kcl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			return fmt.Errorf("publish outbox: %w", err)
		}
		if r.beforeMark != nil {
			if err := r.beforeMark(); err != nil {
				return err
			}
		}
		// Mark exactly the rows published: a row with a lower seq may commit
		// meanwhile and must wait for the next round.
		seqs := make([]int64, len(batch))
		for i, o := range batch {
			seqs[i] = o.seq
		}
		if _, err := tx.Exec(ctx, `UPDATE outbox SET published_at = now() WHERE seq = ANY($1)`, seqs); err != nil {
			return fmt.Errorf("mark outbox: %w", err)
		}
		n = len(batch)
		return nil
	})
	if n > 0 {
		r.log.Debug("published outbox records", "count", n)
	}
	return n, err
}

func (r *Relay) prune(ctx context.Context) {
	tag, err := r.pool.Exec(ctx, `DELETE FROM outbox WHERE published_at < now() - make_interval(secs => $1)`, r.cfg.Retention.Seconds())
	if err != nil {
		r.log.Warn("prune outbox", "err", err)
		return
	}
	if tag.RowsAffected() > 0 {
		r.log.Info("pruned published outbox rows", "count", tag.RowsAffected())
	}
}
