package queryapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/contrack/contrack/queryapi/journeycache"
	"github.com/contrack/contrack/schemas/journeys"
)

// read is a point read of the lookups' rows: per lookup, the latest version
// of each (tracking, container) — picked here, the few unmerged versions a
// key has cost less than ClickHouse sorting them — trackings in
// subscription order, containers in the order the projector gave them.
// Rows that keep their source events in chunks get them from a second
// point read (readChunks). Lookups without rows are absent from the map.
func (j *Journeys) read(ctx context.Context, gen uint32, keys []journeycache.Key) (map[journeycache.Key][]item, error) {
	const cols = `SELECT account_id, env, lookup_kind, lookup_value, tracking_id, since, position, equipment_number, scac,
		       tracking_status, pol, pod, last_location, source_events, source_chunks, vessel_events, enhanced_events, readiness, version
		FROM `
	where, args := lookupWhere(keys)
	rows, err := j.ch.Query(ctx, cols+journeys.JourneysTable(gen)+where, args...)
	if journeys.MissingTable(err) {
		return map[journeycache.Key][]item{}, nil // no projector has run yet: no journeys
	}
	if err != nil {
		return nil, fmt.Errorf("read journeys: %w", err)
	}
	defer rows.Close()
	want := make(map[journeycache.Key]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	byKey := map[journeycache.Key][]*journeyRow{}
	latest := map[journeyID]*journeyRow{}
	chunked := false
	for rows.Next() {
		r := &journeyRow{}
		k := &r.id.key
		if err := rows.Scan(&k.Account, &r.env, &k.Kind, &k.Value, &r.id.tracking, &r.since, &r.position, &r.id.equipment, &r.scac,
			&r.status, &r.pol, &r.pod, &r.last, &r.src, &r.chunks, &r.ves, &r.enh, &r.facts, &r.version); err != nil {
			return nil, fmt.Errorf("read journeys: %w", err)
		}
		if !want[*k] {
			continue
		}
		if cur, ok := latest[r.id]; ok {
			if cur.version < r.version {
				*cur = *r
			}
		} else {
			latest[r.id] = r
			byKey[*k] = append(byKey[*k], r)
		}
		chunked = chunked || len(r.chunks) > 0
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read journeys: %w", err)
	}
	var chunks map[chunkID][]chunkVersion
	if chunked {
		if chunks, err = j.readChunks(ctx, gen, where, args); err != nil {
			return nil, err
		}
	}
	if err := j.addVoyages(ctx, latest); err != nil {
		return nil, err
	}
	if err := j.addReadiness(ctx, latest); err != nil {
		return nil, err
	}
	out := make(map[journeycache.Key][]item, len(byKey))
	for k, rs := range byKey {
		sort.Slice(rs, func(a, b int) bool {
			if !rs[a].since.Equal(rs[b].since) {
				return rs[a].since.Before(rs[b].since)
			}
			if rs[a].id.tracking != rs[b].id.tracking {
				return rs[a].id.tracking < rs[b].id.tracking
			}
			return rs[a].position < rs[b].position
		})
		items := make([]item, len(rs))
		for i, r := range rs {
			src, err := r.sourceEvents(chunks)
			if err != nil {
				return nil, fmt.Errorf("read journeys: %w", err)
			}
			items[i] = item{equipment: r.id.equipment, json: r.encode(src)}
		}
		out[k] = items
	}
	return out, nil
}

// lookupWhere is the WHERE clause of a point read of keys, of the journeys
// or the chunks table (both lead with the lookup).
func lookupWhere(keys []journeycache.Key) (string, []any) {
	if len(keys) == 1 {
		k := keys[0]
		return ` WHERE account_id = ? AND lookup_kind = ? AND lookup_value = ?`, []any{k.Account, k.Kind, k.Value}
	}
	set := make([]clickhouse.GroupSet, len(keys))
	for i, k := range keys {
		set[i] = clickhouse.GroupSet{Value: []any{k.Account, k.Kind, k.Value}}
	}
	return ` WHERE (account_id, lookup_kind, lookup_value) IN (?)`, []any{set}
}

// journeyID names one journey row: a container of a tracking under a lookup.
type journeyID struct {
	key                 journeycache.Key
	tracking, equipment string
}

// journeyRow is one version of a journey row as read.
type journeyRow struct {
	id                                               journeyID
	since                                            time.Time
	position                                         uint16
	env, scac, status, pol, pod, last, src, ves, enh string
	chunks                                           []uint64
	version                                          uint64
	// voyage is what the row shows of its vessel passages (vessels.go).
	voyage []byte
	// facts are the container's readiness facts (JSON, "" for none);
	// ready the result's readiness member (readiness_journeys.go).
	facts string
	ready []byte
}

// chunkID names one chunk of a journey row's source events.
type chunkID struct {
	row   journeyID
	chunk uint32
}

// chunkVersion is one version of a chunk: its events, a JSON array.
type chunkVersion struct {
	version uint64
	events  string
}

// readChunks reads every version of the chunks of the lookups where names.
func (j *Journeys) readChunks(ctx context.Context, gen uint32, where string, args []any) (map[chunkID][]chunkVersion, error) {
	rows, err := j.ch.Query(ctx, `SELECT account_id, lookup_kind, lookup_value, tracking_id, equipment_number, chunk, version, events
		FROM `+journeys.ChunksTable(gen)+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read journey chunks: %w", err)
	}
	defer rows.Close()
	out := map[chunkID][]chunkVersion{}
	for rows.Next() {
		var id chunkID
		var v chunkVersion
		k := &id.row.key
		if err := rows.Scan(&k.Account, &k.Kind, &k.Value, &id.row.tracking, &id.row.equipment, &id.chunk, &v.version, &v.events); err != nil {
			return nil, fmt.Errorf("read journey chunks: %w", err)
		}
		out[id] = append(out[id], v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read journey chunks: %w", err)
	}
	return out, nil
}

// sourceEvents is the row's sourceEvents array: source_events, or its
// chunks joined, each at the version the row names. Should that version
// be merged away already (a newer one was written, its row not yet), the
// newest is taken: at most one batch ahead of the row.
func (r *journeyRow) sourceEvents(chunks map[chunkID][]chunkVersion) (string, error) {
	if len(r.chunks) == 0 {
		return r.src, nil
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, want := range r.chunks {
		vs := chunks[chunkID{r.id, uint32(i)}]
		if len(vs) == 0 {
			return "", fmt.Errorf("journey of %s %s lacks chunk %d", r.id.tracking, r.id.equipment, i)
		}
		pick := vs[0]
		for _, v := range vs[1:] {
			if pick.version != want && (v.version == want || v.version > pick.version) {
				pick = v
			}
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(pick.events, "["), "]")
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(inner)
	}
	b.WriteByte(']')
	return b.String(), nil
}

// encode is the row's result object, src its sourceEvents.
func (r *journeyRow) encode(src string) []byte {
	var b bytes.Buffer
	b.Grow(len(src) + len(r.ves) + len(r.enh) + 256)
	field := func(name, v string, first bool) {
		if !first {
			b.WriteByte(',')
		}
		b.WriteString(`"` + name + `":`)
		s, _ := json.Marshal(v)
		b.Write(s)
	}
	b.WriteByte('{')
	field("equipmentNumber", r.id.equipment, true)
	field("scacCode", r.scac, false)
	field("trackingStatus", r.status, false)
	field("lastLocation", r.last, false)
	field("POL", r.pol, false)
	field("POD", r.pod, false)
	b.WriteString(`,"sourceEvents":` + src + `,"enhancedEvents":` + r.enh + `,"vesselEvents":` + r.ves)
	b.Write(r.voyage)
	b.Write(r.ready)
	b.WriteByte('}')
	return b.Bytes()
}
