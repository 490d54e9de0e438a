package poller

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/testenv"
)

// BenchmarkClaimCost claims due trackings by the schedule's index, 50
// accounts × 10 trackings a round (what 50 accounts at 10 polls/s claim in
// a second), among 10,000 and among 200,000 open trackings, and writes
// each claimed tracking's next due time as a poll's end does (one commit
// each, as polls end one by one). It prints the Postgres time per poll of
// the claim and of the end: neither grows with the trackings.
//
//	go test -run XXX -bench ClaimCost ./ingest/poller/
func BenchmarkClaimCost(b *testing.B) {
	for _, n := range []int{10_000, 200_000} {
		b.Run(fmt.Sprintf("trackings=%d", n), func(b *testing.B) {
			db := testenv.Postgres(b)
			ctx := context.Background()
			const accounts = 100
			if _, err := db.Pool.Exec(ctx, `INSERT INTO accounts (id, client_slug, env, display_name)
				SELECT gen_random_uuid(), 'acct-' || i, 'sandbox', 'acct-' || i FROM generate_series(1, $1) i`, accounts); err != nil {
				b.Fatal(err)
			}
			// Every tracking a re-poll, due at a random time in the last
			// hour.
			if _, err := db.Pool.Exec(ctx, `INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier,
				connection_status, open_subscriptions, poll_class, next_poll_at)
				SELECT gen_random_uuid(), a.id, 'sandbox', 'MAEU', 'container', 'C' || i, 'CONNECTED', 1, 2, now() - random() * interval '1 hour'
				FROM generate_series(1, $1) i JOIN (SELECT id, row_number() OVER () - 1 AS k FROM accounts) a ON a.k = i % $2`, n, accounts); err != nil {
				b.Fatal(err)
			}
			if _, err := db.Pool.Exec(ctx, `ANALYZE trackings`); err != nil {
				b.Fatal(err)
			}
			var ids []string
			rows, _ := db.Pool.Query(ctx, `SELECT id::text FROM accounts ORDER BY id LIMIT 50`)
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					b.Fatal(err)
				}
				ids = append(ids, id)
			}
			rows.Close()
			p := &poller{cfg: Config{}.WithDefaults(), deps: Deps{Pool: db.Pool, Now: time.Now}, log: slog.Default(), metrics: newMetrics(nil)}
			claimed := 0
			var claiming, finishing time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var asks []*ask
				for _, id := range ids {
					asks = append(asks, &ask{g: &accountGate{key: groupKey{id, "MAEU"}}, n: 10})
				}
				now := time.Now()
				if err := p.claimClass(ctx, classRegular, asks, now, now.Add(time.Minute)); err != nil {
					b.Fatal(err)
				}
				claiming += time.Since(now)
				t0 := time.Now()
				for _, a := range asks {
					for _, c := range a.got {
						// The poll's end: due again now, behind every tracking
						// due before it, so the claims cycle through them all
						// and always find due ones.
						p.finish(ctx, c, outcome{made: true, next: now, class: classRegular, status: ConnConnected})
						claimed++
					}
				}
				finishing += time.Since(t0)
			}
			b.ReportMetric(float64(claiming.Microseconds())/float64(max(claimed, 1)), "claim-µs/poll")
			b.ReportMetric(float64(finishing.Microseconds())/float64(max(claimed, 1)), "finish-µs/poll")
			b.ReportMetric(float64(claiming.Milliseconds())/float64(b.N), "ms/claim-of-500")
		})
	}
}
