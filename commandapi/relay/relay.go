// Package relay is the stage that publishes the outbox — the subscription
// changes the API and the lifecycle stage write in their transactions — to
// the subscriptions topic, in commit order. It runs beside the API
// (contrack api, contrack all); one relay is active at a time across
// replicas.
package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/commandapi/subscription"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/metrics"
	"github.com/contrack/contrack/schemas"
)

// relayLock is the advisory lock held by the one active relay, so outbox
// rows are published in order even with several API replicas running.
const relayLock = 7_402_120

// Config configures the outbox relay. Zero values take the documented defaults.
type Config struct {
	// BatchSize is the most rows published per round (default 500).
	BatchSize int
	// Idle is the longest wait between rounds without a notification (default 1 s).
	Idle time.Duration
	// Retention is how long published rows are kept for audit, and
	// dead-lettered ones for an operator to look at (default 7 days).
	Retention time.Duration
}

// Validate reports every invalid field (zero values are valid: they take the defaults).
func (c Config) Validate() error {
	if c.BatchSize < 0 || c.Idle < 0 || c.Retention < 0 {
		return errors.New("outbox relay: BatchSize, Idle and Retention must not be negative")
	}
	return nil
}

// WithDefaults returns c with every zero field set to its documented default;
// New applies it.
func (c Config) WithDefaults() Config {
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

// Deps are the relay's connections.
type Deps struct {
	Pool *pgxpool.Pool
	// Producer publishes the rows; rows name the logical topic, Namespace
	// gives the deployment's.
	Producer  *kgo.Client
	Namespace schemas.Namespace
	Log       *slog.Logger
	// Registry, if set, gets the relay's collectors (the role's registry).
	Registry prometheus.Registerer
	// Loops, if set, supervises the relay (the loop "outbox-relay"): a
	// failed round is counted and retried after a backoff, and a run of
	// them turns /readyz red.
	Loops *loop.Supervisor
}

// Relay publishes outbox rows to Kafka in commit order and marks them
// published. A crash between the produce and the mark publishes the rows
// again on restart: delivery is at least once, and every record carries its
// outbox id (header "id") so consumers drop the repeat. Nothing is lost: a
// row is only marked after Kafka acknowledged it.
//
// A row Kafka refuses for a reason retrying cannot fix (poisonous: a
// record too large for the topic, a topic that does not exist) is
// dead-lettered in place — dead_at and dead_reason set, counted in
// contrack_outbox_dead_letters_total, logged — and the rows after it are
// published: one bad row never holds back every later subscription change
// (docs/operations.md, "Outbox dead letters").
type Relay struct {
	cfg     Config
	deps    Deps
	log     *slog.Logger
	loop    *loop.Loop
	pruning *loop.Loop
	dead    prometheus.Counter
	// beforeMark, if set, runs after the produce and before the mark (tests
	// inject a crash here).
	beforeMark func() error
}

// New returns a relay publishing through deps.Producer.
func New(cfg Config, deps Deps) (*Relay, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Pool == nil || deps.Producer == nil {
		return nil, errors.New("outbox relay: Deps.Pool and Deps.Producer are required")
	}
	if deps.Log == nil {
		deps.Log = slog.Default()
	}
	log := deps.Log.With("stage", "outbox-relay")
	r := &Relay{cfg: cfg.WithDefaults(), deps: deps, log: log,
		loop: deps.Loops.Loop("outbox-relay", log), pruning: deps.Loops.Loop("outbox-prune", log),
		dead: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "contrack_outbox_dead_letters_total",
			Help: "Outbox rows the relay dead-lettered (marked dead with their reason) because Kafka refused them for good.",
		})}
	if deps.Registry != nil {
		var err error
		if r.dead, err = metrics.Register(deps.Registry, r.dead); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Run publishes until ctx ends; it returns nil on a clean shutdown. A
// failure (the store or the broker down) restarts the relay after the
// loop's backoff.
func Run(ctx context.Context, cfg Config, deps Deps) error {
	r, err := New(cfg, deps)
	if err != nil {
		return err
	}
	return r.run(ctx)
}

func (r *Relay) run(ctx context.Context) error {
	return r.loop.Run(ctx, 0, r.lead)
}

// lead takes the relay lock on a dedicated connection, listens for
// notifications and publishes until ctx ends or the connection fails.
// Every answered lock attempt and every published round is a success of
// the loop (a relay standing by is healthy).
func (r *Relay) lead(ctx context.Context) error {
	conn, err := r.deps.Pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire: %w", err)
	}
	defer conn.Release()
	for {
		var got bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, relayLock).Scan(&got); err != nil {
			return fmt.Errorf("relay lock: %w", err)
		}
		r.loop.Succeeded()
		if got {
			break
		}
		if !loop.Sleep(ctx, 5*time.Second) { // another relay is active: stand by
			return ctx.Err()
		}
	}
	defer func() {
		// A connection that failed takes its lock with it; one released
		// with the lock still held would keep every other relay standing by.
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, relayLock); err != nil {
			r.log.Warn("relay lock not released; the connection is closed instead", "err", err)
			if cerr := conn.Conn().Close(context.WithoutCancel(ctx)); cerr != nil {
				r.log.Warn("close relay connection", "err", cerr)
			}
		}
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+subscription.OutboxChannel); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	lastPrune := time.Time{}
	for {
		n, err := r.publishBatch(ctx)
		if err != nil {
			return err
		}
		r.loop.Succeeded()
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

// poison reports whether Kafka refused a record for a reason retrying
// cannot fix: the record itself is too large or malformed, or its topic
// does not exist (franz-go has already retried an unknown topic;
// EnsureTopics creates every topic contrack writes at start).
func poison(err error) bool {
	for _, e := range []error{kerr.MessageTooLarge, kerr.RecordListTooLarge, kerr.InvalidRecord, kerr.CorruptMessage,
		kerr.InvalidTopicException, kerr.UnknownTopicOrPartition} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// publishBatch publishes the oldest rows neither published nor dead,
// marks them published, and dead-letters those Kafka refused for good
// (poison). Any other failure marks nothing: the whole batch is published
// again next round, in order.
func (r *Relay) publishBatch(ctx context.Context) (int, error) {
	n := 0
	err := pgx.BeginFunc(ctx, r.deps.Pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			SELECT seq, record_id::text, topic, record_key, record_type, account_id::text, payload::text
			FROM outbox WHERE published_at IS NULL AND dead_at IS NULL ORDER BY seq LIMIT $1`, r.cfg.BatchSize)
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
		index := make(map[*kgo.Record]int, len(batch))
		for i, o := range batch {
			recs[i] = &kgo.Record{
				Topic:   r.deps.Namespace.Topic(o.topic),
				Key:     []byte(o.key),
				Value:   o.payload,
				Headers: schemas.Headers{Type: o.typ, ID: o.recordID, Account: o.acc}.Kafka(),
			}
			index[recs[i]] = i
		}
		// Results come in the order the broker answered, not the rows'.
		reasons := map[int]string{}
		var failed []error
		for _, res := range r.deps.Producer.ProduceSync(ctx, recs...) {
			switch {
			case res.Err == nil:
			case poison(res.Err):
				reasons[index[res.Record]] = res.Err.Error()
			default:
				failed = append(failed, res.Err)
			}
		}
		if len(failed) > 0 {
			return fmt.Errorf("publish outbox: %w", errors.Join(failed...))
		}
		if r.beforeMark != nil {
			if err := r.beforeMark(); err != nil {
				return err
			}
		}
		// Mark exactly the rows published: a row with a lower seq may commit
		// meanwhile and must wait for the next round.
		var published, dead []int64
		var why []string
		for i, o := range batch {
			if reason, ok := reasons[i]; ok {
				dead, why = append(dead, o.seq), append(why, reason)
				r.log.Error("outbox row dead-lettered: Kafka refused it for good; later rows go on",
					"seq", o.seq, "record_id", o.recordID, "topic", o.topic, "type", o.typ, "bytes", len(o.payload), "reason", reason)
				continue
			}
			published = append(published, o.seq)
		}
		if _, err := tx.Exec(ctx, `UPDATE outbox SET published_at = now() WHERE seq = ANY($1)`, published); err != nil {
			return fmt.Errorf("mark outbox: %w", err)
		}
		if len(dead) > 0 {
			if _, err := tx.Exec(ctx, `
				UPDATE outbox SET dead_at = now(), dead_reason = d.reason
				FROM unnest($1::bigint[], $2::text[]) AS d(seq, reason) WHERE outbox.seq = d.seq`, dead, why); err != nil {
				return fmt.Errorf("dead-letter outbox rows: %w", err)
			}
		}
		n = len(batch)
		r.dead.Add(float64(len(dead)))
		return nil
	})
	if n > 0 {
		r.log.Debug("published outbox records", "count", n)
	}
	return n, err
}

// prune deletes published and dead-lettered rows past Retention; a
// failure is the loop "outbox-prune"'s, retried an hour later.
func (r *Relay) prune(ctx context.Context) {
	tag, err := r.deps.Pool.Exec(ctx, `
		DELETE FROM outbox WHERE published_at < now() - make_interval(secs => $1)
		                      OR dead_at < now() - make_interval(secs => $1)`, r.cfg.Retention.Seconds())
	if err != nil {
		if ctx.Err() == nil {
			r.pruning.Report(err)
			r.log.Warn("prune outbox; retried in an hour", "err", err)
		}
		return
	}
	r.pruning.Succeeded()
	if tag.RowsAffected() > 0 {
		r.log.Info("pruned published and dead-lettered outbox rows", "count", tag.RowsAffected())
	}
}
