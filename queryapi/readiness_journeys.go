package queryapi

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/readiness"
)

// freeTimeTTL is how long an account's free-time rules are kept before
// they are read again (a PUT in this process drops them at once).
const freeTimeTTL = 30 * time.Second

// maxFreeTimeAccounts bounds the accounts whose rules are kept.
const maxFreeTimeAccounts = 10_000

// freeTime reads accounts' free-time rules and LFD warning days for the
// journeys' readiness, keeping them freeTimeTTL.
type freeTime struct {
	pool       *pgxpool.Pool
	now        func() time.Time
	sandboxNow func() time.Time // sandbox accounts' (journey time)
	mu         sync.Mutex
	kept       map[string]accountFreeTime
}

type accountFreeTime struct {
	rules []readiness.FreeTimeRule
	warn  int
	at    time.Time
}

// get returns the rules of accounts, reading those not kept in one query.
func (f *freeTime) get(ctx context.Context, accounts map[string]bool) (map[string]accountFreeTime, error) {
	now := time.Now()
	out := make(map[string]accountFreeTime, len(accounts))
	var missing []string
	f.mu.Lock()
	for a := range accounts {
		if e, ok := f.kept[a]; ok && now.Sub(e.at) < freeTimeTTL {
			out[a] = e
		} else {
			missing = append(missing, a)
		}
	}
	f.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	rows, err := f.pool.Query(ctx, `SELECT a.id::text, coalesce(a.lfd_warning_days, $2), r.rules
		FROM unnest($1::uuid[]) AS m(id) JOIN accounts a ON a.id = m.id
		LEFT JOIN free_time_rules r ON r.account_id = a.id`, missing, readiness.DefaultWarningDays)
	if err != nil {
		return nil, fmt.Errorf("read free-time rules: %w", err)
	}
	defer rows.Close()
	got := map[string]accountFreeTime{}
	for rows.Next() {
		var id string
		var e accountFreeTime
		var raw []byte
		if err := rows.Scan(&id, &e.warn, &raw); err != nil {
			return nil, fmt.Errorf("read free-time rules: %w", err)
		}
		if raw != nil {
			if err := json.Unmarshal(raw, &e.rules); err != nil {
				return nil, fmt.Errorf("decode free-time rules of %s: %w", id, err)
			}
		}
		e.at = now
		got[id] = e
		out[id] = e
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read free-time rules: %w", err)
	}
	f.mu.Lock()
	if f.kept == nil || len(f.kept)+len(got) > maxFreeTimeAccounts {
		f.kept = map[string]accountFreeTime{}
	}
	for a, e := range got {
		f.kept[a] = e
	}
	f.mu.Unlock()
	return out, nil
}

func (f *freeTime) drop(account string) {
	f.mu.Lock()
	delete(f.kept, account)
	f.mu.Unlock()
}

// addReadiness sets each row's readiness (from its facts, the account's
// rules and the clock) as the result's "readiness" member. Without a
// Postgres pool (tests of the read model alone) the facts are served
// under no rule.
func (j *Journeys) addReadiness(ctx context.Context, rows map[journeyID]*journeyRow) error {
	accounts := map[string]bool{}
	for _, r := range rows {
		if r.facts != "" {
			accounts[r.id.key.Account] = true
		}
	}
	if len(accounts) == 0 {
		return nil
	}
	ft := j.freeTime.Load()
	rules := map[string]accountFreeTime{}
	live, sandbox := time.Now(), time.Now()
	if ft != nil {
		var err error
		if rules, err = ft.get(ctx, accounts); err != nil {
			return err
		}
		live, sandbox = ft.now(), ft.sandboxNow()
	}
	for _, r := range rows {
		if r.facts == "" {
			continue
		}
		var f readiness.Facts
		if err := json.Unmarshal([]byte(r.facts), &f); err != nil {
			return fmt.Errorf("read journeys: readiness of %s: %w", r.id.equipment, err)
		}
		e, ok := rules[r.id.key.Account]
		if !ok {
			e.warn = readiness.DefaultWarningDays
		}
		now := live
		if r.env == schemas.EnvSandbox {
			now = sandbox
		}
		v, err := json.Marshal(readiness.Compute(f, e.rules, r.scac, now, e.warn))
		if err != nil {
			return err
		}
		r.ready = append([]byte(`,"readiness":`), v...)
	}
	return nil
}

// FreeTimeChanged is told that an account's free-time rules changed: its
// rules are read again and its cached journeys too (other API processes
// see the change within freeTimeTTL plus the cache's MaxAge).
func (j *Journeys) FreeTimeChanged(account string) {
	if ft := j.freeTime.Load(); ft != nil {
		ft.drop(account)
	}
	for _, k := range j.cache.KeysOf(account) {
		j.changed(k)
	}
}
