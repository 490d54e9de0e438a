package stage

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/contrack/contrack/platform/metrics"
)

// qualityMetrics count what the carriers' payloads needed: deviations
// repaired, by carrier and kind, and elements refused (dead-lettered one
// by one), by carrier. SCAC and kind are small fixed sets; no account.
type qualityMetrics struct {
	repairs *prometheus.CounterVec
	refused *prometheus.CounterVec
}

func newQualityMetrics(reg prometheus.Registerer) (*qualityMetrics, error) {
	m := &qualityMetrics{
		repairs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contrack_normalize_repairs_total",
			Help: "Carriers' deviations from their standard that the parsers repaired or left out (docs/normalize.md), by carrier SCAC and kind.",
		}, []string{"scac", "kind"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contrack_normalize_refused_elements_total",
			Help: "Elements of carrier payloads the parsers could not read, each dead-lettered with its index and reason while the rest of its payload went on, by carrier SCAC.",
		}, []string{"scac"}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	if m.repairs, err = metrics.Register(reg, m.repairs); err != nil {
		return nil, err
	}
	if m.refused, err = metrics.Register(reg, m.refused); err != nil {
		return nil, err
	}
	return m, nil
}

// repairCount is one (carrier, environment, kind) row of a batch's repairs.
type repairCount struct {
	scac, env, kind string
	n               int64
	path, value     string // the latest one's
}

// countRepairs counts the batch's repairs and refused elements in the
// metrics and adds the repairs to normalize_repairs, the per-carrier table
// a data-quality view reads, in one statement. Counted before the Kafka transaction commits: a
// transaction aborted afterwards may count its repairs twice, never none.
func (s *stage) countRepairs(ctx context.Context, preps []prepared) error {
	byKey := map[[3]string]*repairCount{}
	var order [][3]string
	for _, p := range preps {
		if p.refused > 0 {
			s.quality.refused.WithLabelValues(p.raw.SCAC).Add(float64(p.refused))
		}
		for _, r := range p.repairs {
			k := [3]string{p.raw.SCAC, p.raw.Env, string(r.Kind)}
			c := byKey[k]
			if c == nil {
				c = &repairCount{scac: k[0], env: k[1], kind: k[2]}
				byKey[k] = c
				order = append(order, k)
			}
			c.n++
			c.path, c.value = r.Path, r.Value
		}
	}
	if len(order) == 0 {
		return nil
	}
	var scacs, envs, kinds, paths, values []string
	var counts []int64
	for _, k := range order {
		c := byKey[k]
		s.quality.repairs.WithLabelValues(c.scac, c.kind).Add(float64(c.n))
		scacs, envs, kinds = append(scacs, c.scac), append(envs, c.env), append(kinds, c.kind)
		paths, values, counts = append(paths, c.path), append(values, c.value), append(counts, c.n)
	}
	now := s.deps.Now().UTC()
	_, err := s.deps.Pool.Exec(ctx, `
		INSERT INTO normalize_repairs (scac, env, kind, day, repairs, last_path, last_value, last_at)
		SELECT sc, e, k, $8::date, n, p, v, $7 FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[]) AS t(sc, e, k, n, p, v)
		ON CONFLICT (scac, env, kind, day) DO UPDATE SET
			repairs = normalize_repairs.repairs + EXCLUDED.repairs,
			last_path = EXCLUDED.last_path, last_value = EXCLUDED.last_value, last_at = EXCLUDED.last_at`,
		scacs, envs, kinds, counts, paths, values, now, now.Format(time.DateOnly))
	if err != nil {
		return fmt.Errorf("normalize: count repairs: %w", err)
	}
	return nil
}
