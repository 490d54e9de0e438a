package stage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/schemas/carriers"
)

// recordRetractable writes where the batch's pushed TNT 3.0 events go
// (normalize_retractable, migration 0050): a later retraction, which names
// only the event, is routed by it. One statement for the batch.
func (s *stage) recordRetractable(ctx context.Context, preps []prepared) error {
	var envs, scacs, events, trackings, accounts []string
	for _, p := range preps {
		if carriers.Format(p.raw.Format) != carriers.FormatPushedTNT3 || p.raw.TrackingID != "" {
			continue
		}
		for _, it := range p.items {
			if it.event.Retracted {
				continue
			}
			envs, scacs, events = append(envs, it.route.Env), append(scacs, p.raw.SCAC), append(events, it.event.EventID)
			trackings, accounts = append(trackings, it.route.TrackingID), append(accounts, it.route.AccountID)
		}
	}
	if len(events) == 0 {
		return nil
	}
	_, err := s.deps.Pool.Exec(ctx, `
		INSERT INTO normalize_retractable (env, scac, event_id, tracking_id, account_id)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
		ON CONFLICT DO NOTHING`, envs, scacs, events, trackings, accounts)
	return err
}

// routeRetractions replaces each pushed retraction with one item per
// tracking its event went to (the key's environment and SCAC only: a
// carrier withdraws only its own events), in place, so the payload's order
// holds. One query for the batch.
func (s *stage) routeRetractions(ctx context.Context, preps []prepared) error {
	type key struct{ env, scac, event string }
	want := map[key][]Route{}
	var envs, scacs, events []string
	for _, p := range preps {
		for _, it := range p.items {
			if k := (key{p.raw.Env, p.raw.SCAC, it.event.EventID}); it.unrouted {
				if _, ok := want[k]; !ok {
					want[k] = nil
					envs, scacs, events = append(envs, k.env), append(scacs, k.scac), append(events, k.event)
				}
			}
		}
	}
	if len(events) == 0 {
		return nil
	}
	rows, err := s.deps.Pool.Query(ctx, `
		SELECT r.env, r.scac, r.event_id, r.tracking_id, r.account_id
		FROM unnest($1::text[], $2::text[], $3::text[]) AS k(env, scac, event_id)
		JOIN normalize_retractable r ON r.env = k.env AND r.scac = k.scac AND r.event_id = k.event_id
		ORDER BY r.tracking_id`, envs, scacs, events)
	if err != nil {
		return err
	}
	var k key
	var rt Route
	_, err = pgx.ForEachRow(rows, []any{&k.env, &k.scac, &k.event, &rt.TrackingID, &rt.AccountID}, func() error {
		want[k] = append(want[k], Route{TrackingID: rt.TrackingID, AccountID: rt.AccountID, Env: k.env, SCAC: k.scac})
		return nil
	})
	if err != nil {
		return fmt.Errorf("read routes: %w", err)
	}
	for i := range preps {
		p := &preps[i]
		var items []item
		for _, it := range p.items {
			if !it.unrouted {
				items = append(items, it)
				continue
			}
			for _, rt := range want[key{p.raw.Env, p.raw.SCAC, it.event.EventID}] {
				items = append(items, item{event: it.event, route: rt})
			}
		}
		p.items = items
	}
	return nil
}
