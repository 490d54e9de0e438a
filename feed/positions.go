package feed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	platformmetrics "github.com/contrack/contrack/platform/metrics"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/voyage"
)

// VESSEL_POSITION items. A subscription opts in with an interval
// (feed_vessel_positions, written by the API). Two loops serve them:
//
//   - every PositionsRefresh the refresher reads the opted-in open
//     subscriptions, a page at a time, and from their journeys' transport
//     events (ClickHouse events) the vessel each is at sea on, if any: the
//     leg departed and not arrived, as the pull's vessel (schemas/voyage).
//     It writes that vessel to the subscription's row where it changed;
//   - a consumer of the vessel positions topic (group GroupFeedPositions)
//     writes each report, in one statement, to the feed of every opted-in
//     open subscription at sea on that vessel whose last position is at
//     least its interval older, numbered like events, and notifies.
//
// The interval is measured on the reports' own times, so a report consumed
// again writes nothing (its time is not past the last one's) and a
// sandbox ship sailing on the sandbox's accelerated clock keeps the
// interval of its clock.

// positionsPage bounds the subscriptions the refresher reads and looks up
// at once.
const positionsPage = 1000

// positionMetrics are the VESSEL_POSITION collectors.
type positionMetrics struct {
	written      prometheus.Counter
	refreshFails prometheus.Counter
	atSea        prometheus.Gauge
}

func newPositionMetrics(reg prometheus.Registerer) (*positionMetrics, error) {
	m := &positionMetrics{
		written: prometheus.NewCounter(prometheus.CounterOpts{Name: "contrack_feed_vessel_positions_written_total",
			Help: "VESSEL_POSITION items written to the account event feed (one per subscription)."}),
		refreshFails: prometheus.NewCounter(prometheus.CounterOpts{Name: "contrack_feed_vessel_refresh_failures_total",
			Help: "Failed reads of the opted-in subscriptions' vessels (tried again at the next refresh)."}),
		atSea: prometheus.NewGauge(prometheus.GaugeOpts{Name: "contrack_feed_vessel_subscriptions_at_sea",
			Help: "Opted-in open subscriptions whose shipment was at sea at the last refresh."}),
	}
	if err := platformmetrics.RegisterAll(reg, m.written, m.refreshFails, m.atSea); err != nil {
		return nil, fmt.Errorf("feed: metrics: %w", err)
	}
	return m, nil
}

type positions struct {
	cfg  Config
	log  *slog.Logger
	pool *pgxpool.Pool
	ch   driver.Conn
	now  func() time.Time
	m    *positionMetrics
	// loops runs refreshLoop (the component "feed-vessel-refresh").
	loops *loop.Supervisor
}

// consume writes the positions topic's reports to the opted-in feeds until
// ctx ends.
func (p *positions) consume(ctx context.Context, deps Deps) error {
	// An undecodable report is logged and skipped (PositionsRoute has no
	// dead-letter topic): the projector's consumer of the same topic
	// dead-letters it.
	err := deps.Router.Consume(ctx, PositionsRoute, kafka.ConsumerConfig{Log: p.log}, p.handle)
	if err == nil && ctx.Err() == nil {
		err = errors.New("feed: vessel positions consumer stopped")
	}
	return err
}

// positionSQL writes one report to the feed of each opted-in open
// subscription at sea on its vessel (since before the report) whose last
// position is at least its interval older: it moves their last position
// to the report's time, numbers the items per account after the account's
// counter (as writeSQL does, so they interleave with events in commit
// order), inserts them and notifies each account written. The item is
// built here, with the subscription's vessel name, voyage and containers.
const positionSQL = `
	WITH due AS (
		UPDATE feed_vessel_positions p SET last_position_at = @at
		FROM subscriptions s JOIN accounts a ON a.id = s.account_id AND a.active
		WHERE p.vessel_env = @env AND p.vessel_imo = @imo AND p.vessel_voyage = @voyage
		  AND s.id = p.subscription_id AND s.status = 'OPEN'
		  AND p.departed_at <= @at
		  AND (p.last_position_at IS NULL OR p.last_position_at <= @at - make_interval(mins => p.interval_minutes))
		RETURNING p.account_id, p.subscription_id, s.seq AS sub_seq,
		  json_build_object('vessel', json_build_object('name', p.vessel_name, 'imo', p.vessel_imo),
		    'carrierVoyageNumber', p.voyage_number, 'equipmentNumbers', to_json(coalesce(p.containers, '{}')),
		    'latitude', @lat::float8, 'longitude', @lon::float8, 'at', @at_text::text,
		    'speedKnots', @speed::float8, 'course', @course::float8) AS item
	), numbered AS (
		SELECT *, row_number() OVER (PARTITION BY account_id ORDER BY sub_seq) AS n FROM due
	), counts AS (
		SELECT account_id, count(*) AS n FROM due GROUP BY account_id
	), bumped AS (
		INSERT INTO feed_accounts AS a (account_id, last_seq)
		SELECT account_id, n FROM counts ORDER BY account_id
		ON CONFLICT (account_id) DO UPDATE SET last_seq = a.last_seq + EXCLUDED.last_seq
		RETURNING account_id, last_seq
	), written AS (
		-- One batch per account (up to batchItems items each).
		INSERT INTO feed_batches (account_id, seq_from, seq_to, kind, created_at, subscription_ids, event_ids, content_hashes,
		                          tags, events)
		SELECT f.account_id, b.last_seq - c.n + min(f.n), b.last_seq - c.n + max(f.n), @kind, @now,
		       array_agg(f.subscription_id ORDER BY f.n), array_agg(@id::text ORDER BY f.n), array_agg(@kind::text ORDER BY f.n),
		       array_agg(NULL::text ORDER BY f.n), array_agg(convert_to(f.item::text, 'UTF8') ORDER BY f.n)
		FROM numbered f JOIN counts c ON c.account_id = f.account_id JOIN bumped b ON b.account_id = f.account_id
		GROUP BY f.account_id, b.last_seq, c.n, (f.n - 1) / ` + batchItemsSQL + `
		RETURNING account_id
	)
	SELECT pg_notify('` + Channel + `', account_id::text) FROM (SELECT DISTINCT account_id FROM written) w`

// handle writes one position report to the feeds due for it.
func (p *positions) handle(ctx context.Context, r *kgo.Record) error {
	if t := kafka.Header(r, schemas.HeaderType); t != "" && t != schemas.TypeVesselPosition {
		return nil
	}
	pos, err := schemas.DecodeVesselPosition(r.Value)
	if err != nil {
		return kafka.Permanent(fmt.Errorf("feed: %w", err))
	}
	if p.now().Sub(pos.At) > p.cfg.Retention {
		return nil // older than the feed keeps
	}
	voyageKey := ""
	if pos.Env == schemas.EnvSandbox {
		voyageKey = pos.Voyage // a sandbox ship is an IMO number on one voyage
	}
	at := pos.At.UTC().Truncate(time.Millisecond)
	_, err = p.pool.Exec(ctx, positionSQL, pgx.NamedArgs{
		"env": pos.Env, "imo": pos.IMO, "voyage": voyageKey, "at": at, "at_text": at.Format("2006-01-02T15:04:05.000Z"),
		"lat": round(pos.Lat, 5), "lon": round(pos.Lon, 5), "speed": round(pos.SpeedKnots, 1), "course": round(pos.Course, 1),
		"id": pos.ID(), "kind": schemas.FeedKindVesselPosition, "now": p.now(),
	})
	if err != nil {
		return fmt.Errorf("feed: write vessel position %s: %w", pos.ID(), err)
	}
	return nil
}

func round(v float64, places int) float64 {
	f := math.Pow(10, float64(places))
	return math.Round(v*f) / f
}

// refreshLoop refreshes the opted-in subscriptions' vessels at start and
// every PositionsRefresh until ctx ends: the component
// "feed-vessel-refresh". A failed refresh is logged, counted (here and as
// the component's failure, so a run of them turns /readyz red) and tried
// again at the next tick.
func (p *positions) refreshLoop(ctx context.Context) {
	_ = p.loops.Run(ctx, loop.Component{Name: "feed-vessel-refresh", Log: p.log, Rounds: []loop.Round{
		{AtStart: true, Every: p.cfg.PositionsRefresh, Do: func(ctx context.Context) error {
			err := p.refresh(ctx)
			if err != nil && ctx.Err() == nil {
				p.m.refreshFails.Inc()
				p.log.Error("feed: reading the opted-in subscriptions' vessels failed; trying again at the next refresh", "err", err)
			}
			return err
		}},
	}}) // its rounds' errors are never unrecoverable: it returns when ctx ends
}

// atSea is where an opted-in subscription's shipment is: its vessel as the
// positions topic keys it, or nothing ("" IMO) while not at sea.
type atSea struct {
	env, imo, voyageKey, name, voyageNumber string
	containers                              []string
	departed                                time.Time
}

type optedIn struct {
	sub, account, env, tracking string
	was                         atSea
}

// refresh reads every opted-in open subscription, a page at a time, and
// writes the vessel its shipment is at sea on where that changed.
func (p *positions) refresh(ctx context.Context) error {
	after := "00000000-0000-0000-0000-000000000000"
	total := 0
	for {
		page, err := p.optedIn(ctx, after)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		after = page[len(page)-1].sub
		now, err := p.vessels(ctx, page)
		if err != nil {
			return err
		}
		n, err := p.store(ctx, page, now)
		if err != nil {
			return err
		}
		total += n
		if len(page) < positionsPage {
			break
		}
	}
	p.m.atSea.Set(float64(total))
	return nil
}

// optedIn reads a page of opted-in open subscriptions of active accounts
// after the subscription id after, with the vessel last written.
func (p *positions) optedIn(ctx context.Context, after string) ([]optedIn, error) {
	rows, err := p.pool.Query(ctx, `
		SELECT p.subscription_id::text, s.account_id::text, a.env, s.tracking_id::text,
		       coalesce(p.vessel_env, ''), coalesce(p.vessel_imo, ''), coalesce(p.vessel_voyage, ''), coalesce(p.vessel_name, ''),
		       coalesce(p.voyage_number, ''), coalesce(p.containers, '{}'), coalesce(p.departed_at, 'epoch')
		FROM feed_vessel_positions p
		JOIN subscriptions s ON s.id = p.subscription_id AND s.status = 'OPEN'
		JOIN accounts a ON a.id = s.account_id AND a.active
		WHERE p.subscription_id > $1::uuid
		ORDER BY p.subscription_id
		LIMIT $2`, after, positionsPage)
	if err != nil {
		return nil, fmt.Errorf("feed: list opted-in subscriptions: %w", err)
	}
	defer rows.Close()
	var out []optedIn
	for rows.Next() {
		var o optedIn
		w := &o.was
		if err := rows.Scan(&o.sub, &o.account, &o.env, &o.tracking, &w.env, &w.imo, &w.voyageKey, &w.name,
			&w.voyageNumber, &w.containers, &w.departed); err != nil {
			return nil, fmt.Errorf("feed: list opted-in subscriptions: %w", err)
		}
		w.departed = w.departed.UTC()
		if w.imo == "" {
			w.departed = time.Time{}
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("feed: list opted-in subscriptions: %w", err)
	}
	return out, nil
}

// vessels reads the page's journeys from ClickHouse's events (the latest
// version of each event) and returns where each subscription's shipment
// is, by subscription id.
func (p *positions) vessels(ctx context.Context, page []optedIn) (map[string]atSea, error) {
	set := make([]clickhouse.GroupSet, 0, len(page))
	seen := map[[2]string]bool{}
	for _, o := range page {
		k := [2]string{o.account, o.tracking}
		if !seen[k] {
			seen[k] = true
			set = append(set, clickhouse.GroupSet{Value: []any{o.account, o.tracking}})
		}
	}
	q, err := p.ch.Query(ctx, `
		SELECT account_id, tracking_id,
		       groupArrayIf(ev, t = 'TRANSPORT') AS vessel_events,
		       groupUniqArrayIf(eq, t = 'EQUIPMENT' AND eq != '') AS containers
		FROM (
			SELECT account_id, tracking_id, event_id,
			       argMax(event_json, version) AS ev, argMax(event_type, version) AS t, argMax(equipment_reference, version) AS eq
			FROM events WHERE (account_id, tracking_id) IN (?)
			GROUP BY account_id, tracking_id, event_id)
		GROUP BY account_id, tracking_id`, set)
	if err != nil {
		return nil, fmt.Errorf("feed: read the journeys' transport events: %w", err)
	}
	defer q.Close()
	type journey struct {
		legs       []voyage.Leg
		containers []string
	}
	journeys := map[[2]string]journey{}
	for q.Next() {
		var acct, tracking string
		var evs, containers []string
		if err := q.Scan(&acct, &tracking, &evs, &containers); err != nil {
			return nil, fmt.Errorf("feed: read the journeys' transport events: %w", err)
		}
		raw := make([]json.RawMessage, len(evs))
		for i, e := range evs {
			raw[i] = json.RawMessage(e)
		}
		slices.Sort(containers)
		journeys[[2]string{acct, tracking}] = journey{legs: voyage.Legs(raw), containers: containers}
	}
	if err := q.Err(); err != nil {
		return nil, fmt.Errorf("feed: read the journeys' transport events: %w", err)
	}
	out := make(map[string]atSea, len(page))
	for _, o := range page {
		j := journeys[[2]string{o.account, o.tracking}]
		cur, sea := voyage.Current(j.legs)
		if !sea {
			out[o.sub] = atSea{}
			continue
		}
		l := j.legs[cur]
		v := atSea{env: o.env, imo: l.IMO, name: l.Name, voyageNumber: l.Voyage, containers: j.containers, departed: l.Departure}
		if o.env == schemas.EnvSandbox {
			v.voyageKey = l.Voyage
		}
		if v.containers == nil {
			v.containers = []string{}
		}
		out[o.sub] = v
	}
	return out, nil
}

// store writes the vessels that changed and returns how many of the page
// are at sea.
func (p *positions) store(ctx context.Context, page []optedIn, now map[string]atSea) (int, error) {
	var subs []string
	var envs, imos, voyageKeys, names, voyages, containers []*string
	var departed []*time.Time
	atSeaCount := 0
	str := func(s string, set bool) *string {
		if !set {
			return nil
		}
		return &s
	}
	for _, o := range page {
		v := now[o.sub]
		set := v.imo != ""
		if set {
			atSeaCount++
		}
		if sameVessel(o.was, v) {
			continue
		}
		cs, err := json.Marshal(v.containers)
		if err != nil {
			return 0, fmt.Errorf("feed: encode containers: %w", err)
		}
		subs = append(subs, o.sub)
		envs, imos, voyageKeys = append(envs, str(v.env, set)), append(imos, str(v.imo, set)), append(voyageKeys, str(v.voyageKey, set))
		names, voyages, containers = append(names, str(v.name, set)), append(voyages, str(v.voyageNumber, set)), append(containers, str(string(cs), set))
		var d *time.Time
		if set {
			t := v.departed
			d = &t
		}
		departed = append(departed, d)
	}
	if len(subs) == 0 {
		return atSeaCount, nil
	}
	_, err := p.pool.Exec(ctx, `
		UPDATE feed_vessel_positions p
		SET vessel_env = u.env, vessel_imo = u.imo, vessel_voyage = u.voyage_key, vessel_name = u.name,
		    voyage_number = u.voyage, departed_at = u.departed,
		    containers = CASE WHEN u.containers IS NULL THEN NULL
		                      ELSE ARRAY(SELECT jsonb_array_elements_text(u.containers::jsonb)) END
		FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
		     AS u(sub, env, imo, voyage_key, name, voyage, containers, departed)
		WHERE p.subscription_id = u.sub`,
		subs, envs, imos, voyageKeys, names, voyages, containers, departed)
	if err != nil {
		return 0, fmt.Errorf("feed: store the opted-in subscriptions' vessels: %w", err)
	}
	return atSeaCount, nil
}

func sameVessel(a, b atSea) bool {
	return a.env == b.env && a.imo == b.imo && a.voyageKey == b.voyageKey && a.name == b.name &&
		a.voyageNumber == b.voyageNumber && a.departed.Equal(b.departed) && slices.Equal(a.containers, b.containers)
}
