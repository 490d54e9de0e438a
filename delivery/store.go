package delivery

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// hostExpr is a webhook's target URL's host[:port] in SQL, lower-cased —
// the same as endpointHost in Go; keyExpr its endpoint key, the same as
// endpointKey.
const (
	hostExpr = `coalesce(lower(substring(w.target_url from '^[^:/?#]+://(?:[^@/?#]*@)?([^/?#]*)')), '')`
	keyExpr  = `w.account_id::text || '|' || ` + hostExpr
)

// store is the delivery state in Postgres.
type store struct {
	pool *pgxpool.Pool
	cfg  Config
	// instance owns the leases this process takes; its heartbeat in
	// delivery_instances says it is alive. Without one (uuid.Nil) leases
	// have no owner and wait for lease_until.
	instance uuid.UUID
	// sweepFrom are the highest queue ids the last two sweeps saw; swept
	// says there was one (see sweep).
	sweepFrom [2]int64
	swept     bool
}

// owner is the lease_owner of leases taken by this process.
func (s *store) owner() any {
	if s.instance == uuid.Nil {
		return nil
	}
	return s.instance
}

// asyncCommit makes the transaction it starts commit without waiting for
// its WAL to reach disk. Claims use it: a database crash may forget the
// last few hundred milliseconds of leases, which only makes those
// deliveries due again — sent again with the same webhook-id and body, the
// at-least-once promise. So do outcomes that close no delivery (failures to
// retry, releases). Outcomes that close one open the next delivery, whose id
// (webhook-id) a receiver may see at once: they commit synchronously, and so
// do queued events, acknowledged to Kafka after their commit.
const asyncCommit = `SELECT set_config('synchronous_commit', 'off', true)`

// runBatch sends statements in one round trip, as one implicit transaction
// (all or nothing), and returns each one's affected row count.
func (s *store) runBatch(ctx context.Context, stmts []string, args pgx.NamedArgs) ([]int64, error) {
	b := &pgx.Batch{}
	for _, q := range stmts {
		b.Queue(q, args)
	}
	return execBatch(s.pool.SendBatch(ctx, b), len(stmts))
}

// execBatch reads a sent batch's n results and returns each one's affected
// row count.
func execBatch(res pgx.BatchResults, n int) ([]int64, error) {
	counts := make([]int64, n)
	var err error
	for i := range n {
		tag, e := res.Exec()
		if e != nil {
			err = e
			break
		}
		counts[i] = tag.RowsAffected()
	}
	if cerr := res.Close(); err == nil {
		err = cerr
	}
	return counts, err
}
