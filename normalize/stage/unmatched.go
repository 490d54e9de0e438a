package stage

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/schemas/dcsa"
)

// Unmatched is one carrier key's count of pushed events that matched no
// tracking of its SCAC and environment.
type Unmatched struct {
	KeyID         string
	SCAC          string
	Env           string
	Events        int64
	LastReference string
	LastAt        time.Time
}

// UnmatchedByKey returns every carrier key's count, by key id, for the
// operator (`contrack admin list`).
func UnmatchedByKey(ctx context.Context, pool *pgxpool.Pool) (map[string]Unmatched, error) {
	rows, err := pool.Query(ctx, `SELECT key_id, scac, env, events, last_reference, last_at FROM pushed_unmatched`)
	if err != nil {
		return nil, fmt.Errorf("normalize: read unmatched counts: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Unmatched, error) {
		var u Unmatched
		err := r.Scan(&u.KeyID, &u.SCAC, &u.Env, &u.Events, &u.LastReference, &u.LastAt)
		return u, err
	})
	if err != nil {
		return nil, fmt.Errorf("normalize: read unmatched counts: %w", err)
	}
	out := make(map[string]Unmatched, len(list))
	for _, u := range list {
		out[u.KeyID] = u
	}
	return out, nil
}

// reference names an event's shipment for the operator: its container, or
// its first booking / bill of lading.
func reference(ev dcsa.Event) string {
	if ev.EquipmentReference != "" {
		return ev.EquipmentReference
	}
	for _, d := range ev.DocumentReferences {
		if d.DocumentReferenceValue != "" {
			return d.DocumentReferenceType + " " + d.DocumentReferenceValue
		}
	}
	return ""
}

// countUnmatched adds the batch's pushed events that reached no tracking
// to their carrier keys' counts, in one statement.
func (s *stage) countUnmatched(ctx context.Context, preps []prepared) error {
	byKey := map[string]*Unmatched{}
	var order []string
	for _, p := range preps {
		if p.unmatched == 0 {
			continue
		}
		u := byKey[p.raw.CarrierKeyID]
		if u == nil {
			u = &Unmatched{KeyID: p.raw.CarrierKeyID, SCAC: p.raw.SCAC, Env: p.raw.Env}
			byKey[u.KeyID] = u
			order = append(order, u.KeyID)
		}
		u.Events += int64(p.unmatched)
		u.LastReference = p.unmatchedRef
	}
	if len(order) == 0 {
		return nil
	}
	now := s.deps.Now().UTC()
	var keys, scacs, envs, refs []string
	var counts []int64
	for _, k := range order {
		u := byKey[k]
		keys, scacs, envs, refs, counts = append(keys, k), append(scacs, u.SCAC), append(envs, u.Env), append(refs, u.LastReference), append(counts, u.Events)
		s.log.Warn("pushed events matched no tracking of their carrier", "carrier_key", k, "carrier", u.SCAC, "env", u.Env, "events", u.Events)
	}
	_, err := s.deps.Pool.Exec(ctx, `
		INSERT INTO pushed_unmatched (key_id, scac, env, events, last_reference, last_at)
		SELECT k, sc, e, n, r, $6 FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) AS t(k, sc, e, n, r)
		ON CONFLICT (key_id) DO UPDATE SET
			events = pushed_unmatched.events + EXCLUDED.events,
			scac = EXCLUDED.scac, env = EXCLUDED.env,
			last_reference = EXCLUDED.last_reference, last_at = EXCLUDED.last_at`,
		keys, scacs, envs, counts, refs, now)
	if err != nil {
		return fmt.Errorf("normalize: count unmatched pushed events: %w", err)
	}
	return nil
}
