package vessels

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/searoute"
)

// simulator sails the ships of the open sandbox trackings' journeys. Every
// SandboxRefresh it reads the open sandbox trackings (Postgres, a thousand
// at a time) and plans the voyages of their journeys that report within
// the next refresh; every Interval each of them reports its position at
// the sandbox's journey time.
//
// A sandbox ship is an IMO number on one voyage number (the sandbox's
// carriers reuse a few ship names, each journey on its own schedule): the
// journeys of one booking, or one container tracked by several accounts,
// share it. Should two journeys put one (IMO, voyage) on different
// schedules, it is not reported at all (counted: a ship in two places
// would be worse than none).
type simulator struct {
	cfg  Config
	deps Deps
	m    *metrics
	sbx  sandbox.Config

	mu      sync.Mutex
	voyages []Voyage
}

func newSimulator(cfg Config, deps Deps, m *metrics) *simulator {
	return &simulator{cfg: cfg, deps: deps, m: m, sbx: deps.Sandbox.WithDefaults()}
}

// run plans and reports until ctx ends: the component
// "vessels-simulator", whose rounds (a refresh of the sandbox trackings,
// a report of the ships' positions) run at start and at their intervals;
// a failure is counted and logged, tried again at the next tick.
func (s *simulator) run(ctx context.Context) error {
	logged := func(msg string, f func(context.Context) error) func(context.Context) error {
		return func(ctx context.Context) error {
			err := f(ctx)
			if err != nil && ctx.Err() == nil {
				s.deps.Log.Error(msg, "err", err)
			}
			return err
		}
	}
	return s.deps.Loops.Run(ctx, loop.Component{Name: "vessels-simulator", Log: s.deps.Log, Rounds: []loop.Round{
		{AtStart: true, Every: s.cfg.SandboxRefresh, Do: logged("sandbox vessels: reading the sandbox trackings failed; sailing the ships known", s.refresh)},
		{AtStart: true, Every: s.cfg.Interval, Do: logged("sandbox vessels: reporting positions failed",
			func(ctx context.Context) error { return s.report(ctx, s.sbx.JourneyNow()) })},
	}})
}

// Tracked is one open sandbox tracking's query: the carrier, the
// identifier kind (container, booking, bill) and the identifier.
type Tracked struct {
	SCAC, Kind, Value string
}

// refresh plans the voyages of the open sandbox trackings that report
// between now and the next refresh (journey time).
func (s *simulator) refresh(ctx context.Context) error {
	now := s.sbx.JourneyNow()
	horizon := now.Add(time.Duration(float64(s.cfg.SandboxRefresh+s.cfg.Interval) * s.sbx.Accelerate))
	var all []Tracked
	after := "00000000-0000-0000-0000-000000000000"
	for {
		rows, err := s.deps.Pool.Query(ctx, `SELECT id::text, scac, identifier_kind, identifier FROM trackings
			WHERE env = $1 AND open_subscriptions > 0 AND id > $2::uuid ORDER BY id LIMIT 1000`, schemas.EnvSandbox, after)
		if err != nil {
			return fmt.Errorf("list sandbox trackings: %w", err)
		}
		n := 0
		for rows.Next() {
			var t Tracked
			if err := rows.Scan(&after, &t.SCAC, &t.Kind, &t.Value); err != nil {
				rows.Close()
				return fmt.Errorf("list sandbox trackings: %w", err)
			}
			all = append(all, t)
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("list sandbox trackings: %w", err)
		}
		if n < 1000 {
			break
		}
	}
	voyages, conflicts, over := Plan(all, now, horizon, s.cfg.MaxVessels)
	s.mu.Lock()
	s.voyages = voyages
	s.mu.Unlock()
	s.m.voyages.Set(float64(len(voyages)))
	s.m.conflicts.Set(float64(conflicts))
	s.m.dropped.Set(float64(over))
	return nil
}

// Plan returns the voyages of the trackings' sandbox journeys that report
// at some time in [from, to], at most max of them (the rest counted in
// over), without the ships two journeys sail on different schedules
// (counted in conflicts).
func Plan(ts []Tracked, from, to time.Time, max int) (voyages []Voyage, conflicts, over int) {
	type key struct{ imo, voyage string }
	byKey := map[key]int{}
	bad := map[key]bool{}
	for _, t := range ts {
		j, ok := sandbox.Shipment(t.SCAC, journey.Kind(t.Kind), t.Value, from)
		if !ok {
			continue
		}
		for _, leg := range j.Legs {
			if leg.Mode != journey.ModeVessel || leg.Vessel == nil {
				continue
			}
			if leg.Arrives.Add(Berth).Before(from) || leg.Departs.Add(-Berth).After(to) {
				continue
			}
			k := key{leg.Vessel.IMO, leg.Voyage}
			if i, seen := byKey[k]; seen {
				if v := voyages[i]; !v.Departs.Equal(leg.Departs) || !v.Arrives.Equal(leg.Arrives) {
					bad[k] = true
				}
				continue
			}
			if len(voyages) >= max {
				over++
				continue
			}
			v, ok := NewVoyage(leg.Vessel.IMO, leg.Voyage, searoute.Point{Lat: leg.From.Lat, Lon: leg.From.Lon},
				searoute.Point{Lat: leg.To.Lat, Lon: leg.To.Lon}, leg.From.Code, leg.To.Code, leg.Departs, leg.Arrives)
			if !ok {
				continue
			}
			byKey[k] = len(voyages)
			voyages = append(voyages, v)
		}
	}
	if len(bad) > 0 {
		kept := voyages[:0]
		for _, v := range voyages {
			if !bad[key{v.IMO, v.Voyage}] {
				kept = append(kept, v)
			}
		}
		voyages = kept
	}
	sort.Slice(voyages, func(i, j int) bool { return voyages[i].IMO+voyages[i].Voyage < voyages[j].IMO+voyages[j].Voyage })
	return voyages, len(bad), over
}

// report writes the position at journey time now of every ship that
// reports then.
func (s *simulator) report(ctx context.Context, now time.Time) error {
	s.mu.Lock()
	voyages := s.voyages
	s.mu.Unlock()
	ps := make([]schemas.VesselPosition, 0, len(voyages))
	for _, v := range voyages {
		if v.Reports(now) {
			ps = append(ps, v.At(schemas.EnvSandbox, now))
		}
	}
	return produce(ctx, s.deps, s.m, ps)
}
