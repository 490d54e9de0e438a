package queryapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"golang.org/x/sync/singleflight"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/queryapi/journeycache"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/journeys"
)

// JourneyResult is one equipment's journey in GET /subscription/equipment.
type JourneyResult = journeys.Result

// EnhancedEvent is a milestone contrack derives from the carrier's events
// (types and examples in docs/api.md).
type EnhancedEvent = journeys.Milestone

// JourneysResponse is GET /subscription/equipment's body (its OpenAPI
// schema: the handler writes it from journeycache.Body).
type JourneysResponse struct {
	Results       []JourneyResult `json:"results"`
	Count         int             `json:"count"`
	DateOfRequest httpapi.Time    `json:"dateOfRequest"`
}

// JourneysConfig tunes the serving of journeys. Zero values take the documented defaults.
type JourneysConfig struct {
	// CacheBytes bounds the in-process cache of encoded journeys (default
	// 256 MiB; negative disables it).
	CacheBytes int64
	// MaxAge has a cached answer read again this long after it was read even
	// without a change notification, a safety net (default 10 min; it is
	// served while it is read again).
	MaxAge time.Duration
	// SupersededFor is how long after its lookup changed a cached answer is
	// still served while the new one is read (stale-while-revalidate; default
	// 2 s, within the freshness target of a pull 2 s after the webhook;
	// negative: a change drops the answer and pulls read ClickHouse until the
	// new one is cached). Past it a pull reads ClickHouse itself.
	SupersededFor time.Duration
	// GenerationCheck is how often a rebuilt generation is looked for (default 5 s).
	GenerationCheck time.Duration
	// MissesPerAccount bounds the lookups without results one account keeps
	// in the cache (default 1,000; also at most 1/64 of CacheBytes): a
	// tenant asking for random identifiers evicts only its own misses.
	MissesPerAccount int
}

// Validate reports settings that cannot work.
func (c JourneysConfig) Validate() error {
	if c.MaxAge < 0 || c.GenerationCheck < 0 {
		return fmt.Errorf("queryapi: journeys: negative duration")
	}
	if c.MissesPerAccount < 0 {
		return fmt.Errorf("queryapi: journeys: MissesPerAccount must not be negative")
	}
	return nil
}

// WithDefaults returns c with every zero field set to its documented default;
// NewJourneys applies it.
func (c JourneysConfig) WithDefaults() JourneysConfig {
	if c.CacheBytes == 0 {
		c.CacheBytes = 256 << 20
	}
	if c.MaxAge == 0 {
		c.MaxAge = 10 * time.Minute
	}
	if c.SupersededFor == 0 {
		c.SupersededFor = 2 * time.Second
	}
	if c.GenerationCheck == 0 {
		c.GenerationCheck = 5 * time.Second
	}
	if c.MissesPerAccount == 0 {
		c.MissesPerAccount = journeycache.DefaultMissBudget
	}
	return c
}

// Journeys serves journey lookups from the read model in ClickHouse
// (journeys_g<N>, one row per container, point reads by lookup key) through
// a byte-bounded cache of compressed answers. Run warms the cache from the
// read model and keeps it fresh by following the projector's journey
// changes: a changed lookup's answers are marked superseded and read again
// at once; pulls meanwhile get the superseded answer (for at most
// SupersededFor), so they rarely wait for ClickHouse.
type Journeys struct {
	cfg   JourneysConfig
	ch    driver.Conn
	log   *slog.Logger
	cache *journeycache.Cache
	// gen is the generation read (0 until Run knows it: read per request);
	// ready says Run follows the changes from before any cached read.
	gen    atomic.Uint32
	ready  atomic.Bool
	flight singleflight.Group
	// refresh takes lookups to read again (changed or stale); queued holds
	// those in it, so a lookup is queued once however many pulls find it
	// superseded.
	refresh    chan journeycache.Key
	queuedMu   sync.Mutex
	queued     map[journeycache.Key]struct{}
	warmed     chan struct{}
	warmedOnce sync.Once
	// beforeRefresh, set by tests before Run, runs as the refresher takes
	// lookups to read again, before it reads them.
	beforeRefresh func([]journeycache.Key)
	// freeTime gives the accounts' free-time rules for readiness (set by
	// Register; nil: facts under no rule).
	freeTime atomic.Pointer[freeTime]
	// metrics and loops, set by Supervise, count the follower's records
	// and supervise its fetches (the role's).
	metrics *kafka.Metrics
	loops   *loop.Supervisor
}

// Supervise has Run's follower counted on the role's stream metrics and
// its fetches supervised by loops (either may be nil). Call before Run.
func (j *Journeys) Supervise(metrics *kafka.Metrics, loops *loop.Supervisor) {
	j.metrics, j.loops = metrics, loops
}

// NewJourneys returns the journey reader of an API process.
func NewJourneys(cfg JourneysConfig, ch driver.Conn, log *slog.Logger) *Journeys {
	cfg = cfg.WithDefaults()
	if log == nil {
		log = slog.Default()
	}
	cache := journeycache.New(max(cfg.CacheBytes, 0), cfg.MaxAge, cfg.SupersededFor)
	cache.SetMissBudget(cfg.MissesPerAccount)
	return &Journeys{cfg: cfg, ch: ch, log: log.With("component", "journeys"),
		cache:   cache,
		refresh: make(chan journeycache.Key, 8192), queued: map[journeycache.Key]struct{}{}, warmed: make(chan struct{})}
}

// CacheBytes is the cache's current size.
func (j *Journeys) CacheBytes() int64 { return j.cache.Bytes() }

// CachedLookups is the number of lookups cached.
func (j *Journeys) CachedLookups() int { return j.cache.Len() }

// Warmed is closed once Run has loaded the read model into the cache (up
// to its bound) after it started.
func (j *Journeys) Warmed() <-chan struct{} { return j.warmed }

// Run warms the cache and follows the journey changes (from the topic's
// end) and the generation until ctx ends. Until it runs, nothing is cached;
// when it stops, the cache is emptied.
func (j *Journeys) Run(ctx context.Context, brokers []string, ns schemas.Namespace) error {
	gen, err := journeys.CurrentGeneration(ctx, j.ch)
	if err != nil {
		return err
	}
	// The projector alone creates (and, for a generation projected before
	// chunks, alters) the tables: until it has first run they are missing,
	// and every lookup is one without journeys (read, warm).
	j.gen.Store(gen)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
		j.ready.Store(false)
		j.cache.Flush()
	}()
	// started runs once every change from here on is followed: only then may
	// the cache be filled, by warming and by reads.
	started := func() {
		j.ready.Store(true)
		wg.Add(2)
		go func() { defer wg.Done(); j.refresher(ctx) }()
		go func() {
			defer wg.Done()
			defer j.warmedOnce.Do(func() { close(j.warmed) })
			if err := j.warm(ctx); err != nil && ctx.Err() == nil {
				j.log.Error("journeys: warming the cache failed; it fills on demand", "err", err)
			}
		}()
	}
	return j.follow(ctx, brokers, ns, started)
}

// follow is the consume loop of journey changes, from the topic's end at
// the start: each drops the lookup's cached answers and has them read
// again; every GenerationCheck it looks for a rebuilt generation.
func (j *Journeys) follow(ctx context.Context, brokers []string, ns schemas.Namespace, started func()) error {
	next := time.Now().Add(j.cfg.GenerationCheck)
	return kafka.Follow(ctx, kafka.FollowConfig{
		Brokers: brokers, Topics: ns.Topics(schemas.TopicJourneys), Name: "queryapi-journeys", Log: j.log,
		FromEnd: true, PollTimeout: time.Second, Started: started, Metrics: j.metrics, Loops: j.loops,
	}, func(ctx context.Context, b *kafka.Batch) error {
		for _, r := range b.Records {
			var c schemas.JourneyChanged
			if err := json.Unmarshal(r.Value, &c); err != nil {
				b.Skip(r, fmt.Errorf("malformed journey change: %w", err))
				continue
			}
			j.changed(journeycache.Key{Account: c.AccountID, Kind: c.IdentifierKind, Value: c.Identifier})
		}
		if time.Now().After(next) {
			next = time.Now().Add(j.cfg.GenerationCheck)
			if g, err := journeys.CurrentGeneration(ctx, j.ch); err == nil && g != j.gen.Load() {
				j.gen.Store(g)
				j.cache.Flush()
				j.log.Info("journeys: reading a rebuilt generation", "generation", g)
			}
		}
		return nil
	})
}

// changed supersedes k's answers and, if it had any, has them read again.
func (j *Journeys) changed(k journeycache.Key) {
	if fs := j.cache.Invalidate(k); len(fs) > 0 {
		j.queueRefresh(k)
	}
}

// queueRefresh has k's cached answers read again unless that is already
// queued (a read in flight does not count: it may predate a change).
func (j *Journeys) queueRefresh(k journeycache.Key) {
	j.queuedMu.Lock()
	defer j.queuedMu.Unlock()
	if _, ok := j.queued[k]; ok {
		return
	}
	select {
	case j.refresh <- k:
		j.queued[k] = struct{}{}
	default: // behind: the next pull of it queues it again, or reads it
	}
}

// refresher reads queued lookups again, in batches of one query.
func (j *Journeys) refresher(ctx context.Context) {
	const batch = 128
	for {
		var keys []journeycache.Key
		select {
		case <-ctx.Done():
			return
		case k := <-j.refresh:
			keys = append(keys, k)
		}
	more:
		for len(keys) < batch {
			select {
			case k := <-j.refresh:
				keys = append(keys, k)
			default:
				break more
			}
		}
		// Off the queue before the ticket: a change from here on queues the
		// lookup again (this read may predate it and would not be cached).
		j.queuedMu.Lock()
		for _, k := range keys {
			delete(j.queued, k)
		}
		j.queuedMu.Unlock()
		if j.beforeRefresh != nil {
			j.beforeRefresh(keys)
		}
		t := j.cache.Ticket()
		filters := make(map[journeycache.Key][]string, len(keys))
		for _, k := range keys {
			if fs := j.cache.Filters(k); len(fs) > 0 { // evicted meanwhile: nothing to read
				filters[k] = fs
			}
		}
		if len(filters) == 0 {
			continue
		}
		keys = keys[:0]
		for k := range filters {
			keys = append(keys, k)
		}
		found, err := j.read(ctx, j.gen.Load(), keys)
		if err != nil {
			if ctx.Err() == nil {
				j.log.Warn("journeys: re-reading changed lookups failed; pulls read them", "lookups", len(keys), "err", err)
			}
			continue
		}
		for k, fs := range filters {
			for _, f := range fs {
				b, err := encode(found[k], f)
				if err != nil {
					j.log.Warn("journeys: encoding a re-read lookup failed; pulls read it", "err", err)
					continue
				}
				j.cache.Put(k, f, b, t)
			}
		}
	}
}

// warm loads the live generation's lookups into the cache until it is full.
func (j *Journeys) warm(ctx context.Context) error {
	if j.cfg.CacheBytes <= 0 {
		return nil
	}
	start := time.Now()
	gen := j.gen.Load()
	rows, err := j.ch.Query(ctx, `SELECT DISTINCT account_id, lookup_kind, lookup_value FROM `+journeys.JourneysTable(gen))
	if journeys.MissingTable(err) {
		return nil // no projector has run yet: nothing to warm
	}
	if err != nil {
		return fmt.Errorf("warm: list lookups: %w", err)
	}
	var keys []journeycache.Key
	for rows.Next() {
		var k journeycache.Key
		if err := rows.Scan(&k.Account, &k.Kind, &k.Value); err != nil {
			rows.Close()
			return fmt.Errorf("warm: list lookups: %w", err)
		}
		keys = append(keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("warm: list lookups: %w", err)
	}
	// Two readers: one batch is encoded while ClickHouse reads the next.
	var loaded atomic.Int64
	var next atomic.Int64
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			for ctx.Err() == nil && !j.cache.Full() && gen == j.gen.Load() {
				lo := int(next.Add(256)) - 256
				if lo >= len(keys) {
					break
				}
				batch := keys[lo:min(lo+256, len(keys))]
				t := j.cache.Ticket()
				found, err := j.read(ctx, gen, batch)
				if err != nil {
					errs <- fmt.Errorf("warm: %w", err)
					return
				}
				for _, k := range batch {
					// As pulls ask: a container by itself, a booking or bill whole.
					filter := ""
					if k.Kind == "container" {
						filter = k.Value
					}
					if b, err := encode(found[k], filter); err == nil {
						j.cache.Put(k, filter, b, t)
					}
				}
				loaded.Add(int64(len(batch)))
			}
			errs <- nil
		}()
	}
	err = errors.Join(<-errs, <-errs)
	if err != nil {
		return err
	}
	j.log.Info("journeys: cache warmed", "lookups", loaded.Load(), "of", len(keys), "bytes", j.cache.Bytes(), "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// lookup returns the answer of an account's lookup narrowed to filter (an
// equipment number, or "" for all). A superseded cached answer is returned
// while it is read again, unless ifNoneMatch names it: that client has it
// already and must not get a 304 from it, so the new one is read. Whatever
// lookup returns may thus be answered 304 from its tag.
func (j *Journeys) lookup(ctx context.Context, k journeycache.Key, filter, ifNoneMatch string) (journeycache.Body, error) {
	cached := j.ready.Load()
	if cached {
		b, hit := j.cache.Get(k, filter)
		switch hit {
		case journeycache.Current:
			return b, nil
		case journeycache.Stale:
			j.queueRefresh(k)
			return b, nil
		case journeycache.Superseded:
			j.queueRefresh(k)
			if !httpapi.NoneMatch(ifNoneMatch, b.ETag) {
				return b, nil
			}
		}
	}
	// Concurrent misses of one lookup share one read, which a caller going
	// away does not cancel for the others.
	v, err, _ := j.flight.Do(k.Account+"\x00"+k.Kind+"\x00"+k.Value+"\x00"+filter, func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		t := j.cache.Ticket()
		gen := j.gen.Load()
		if !cached || gen == 0 {
			g, err := journeys.CurrentGeneration(ctx, j.ch)
			if err != nil {
				return nil, err
			}
			gen = g
		}
		found, err := j.read(ctx, gen, []journeycache.Key{k})
		if err != nil {
			return nil, err
		}
		b, err := encode(found[k], filter)
		if err != nil {
			return nil, err
		}
		if cached {
			j.cache.Put(k, filter, b, t)
		}
		return b, nil
	})
	if err != nil {
		return journeycache.Body{}, err
	}
	return v.(journeycache.Body), nil
}

// item is one container's encoded journey result.
type item struct {
	equipment string
	json      []byte
}

// encode is the answer of a lookup's results narrowed to filter.
func encode(items []item, filter string) (journeycache.Body, error) {
	size := 2
	for _, it := range items {
		size += len(it.json) + 1
	}
	body := make([]byte, 0, size)
	body = append(body, '[')
	n := 0
	for _, it := range items {
		if filter != "" && it.equipment != filter {
			continue
		}
		if n > 0 {
			body = append(body, ',')
		}
		body = append(body, it.json...)
		n++
	}
	body = append(body, ']')
	return journeycache.Encode(body, n)
}

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

func registerJourneys(s *fuego.Server, deps Deps) {
	fuego.GetStd(s, "/subscription/equipment", func(w http.ResponseWriter, r *http.Request) {
		now := deps.Now().UTC()
		k, _ := auth.FromContext(r.Context())
		q := r.URL.Query()
		equipment := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(q.Get("equipmentNumber")), " ", ""))
		booking := strings.TrimSpace(q.Get("bookingNumber"))
		bill := strings.TrimSpace(q.Get("billNumber"))
		if equipment == "" && booking == "" && bill == "" {
			httpapi.WriteError(w, r, deps.Log, httpapi.BadRequest("Must provide at least one of: equipmentNumber, bookingNumber, billNumber").Dated(now))
			return
		}
		if booking != "" && bill != "" {
			httpapi.WriteError(w, r, deps.Log, httpapi.BadRequest("Cannot provide both bookingNumber and billNumber please provide one").Dated(now))
			return
		}
		key := journeycache.Key{Account: k.Account.ID, Kind: "container", Value: equipment}
		switch {
		case booking != "":
			key.Kind, key.Value = "booking", booking
		case bill != "":
			key.Kind, key.Value = "bill", bill
		}
		inm := r.Header.Get("If-None-Match")
		b, err := deps.Journeys.lookup(r.Context(), key, equipment, inm)
		if err != nil {
			httpapi.WriteError(w, r, deps.Log, err)
			return
		}
		h := w.Header()
		h.Set("ETag", b.ETag) // of the body served, superseded or not
		h.Set("Vary", "Accept-Encoding")
		if httpapi.NoneMatch(inm, b.ETag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		date, _ := httpapi.Time(now).MarshalJSON()
		suffix := append(date, "}\n"...)
		out := bufs.Get().(*[]byte)
		defer bufs.Put(out)
		h.Set("Content-Type", "application/json")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			*out = b.AppendGzip((*out)[:0], suffix)
			h.Set("Content-Encoding", "gzip")
		} else if *out, err = b.AppendJSON((*out)[:0], suffix); err != nil {
			h.Del("ETag")
			httpapi.WriteError(w, r, deps.Log, err)
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(*out)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(*out) // a client gone mid-answer: no one to tell
	},
		option.OperationID("getJourneys"),
		option.Query("equipmentNumber", "container number; narrows a booking or bill lookup to that container"),
		option.Query("bookingNumber", "booking reference (not with billNumber)"),
		option.Query("billNumber", "bill of lading number (not with bookingNumber)"),
		option.Header("If-None-Match", "an ETag of an earlier answer: 304 without a body while the results are unchanged"),
		option.Header("Accept-Encoding", "gzip: the answer comes compressed (Content-Encoding: gzip), as the server keeps it"),
		option.Summary("Tracking data of the account's subscriptions"),
		option.Description("One result per container of the matching subscriptions: the carrier's DCSA 2.0.2 equipment events (sourceEvents), its transport events (vesselEvents), POL, POD, last actual location and derived milestones (enhancedEvents: ATD_POL, TRANSSHIPMENT, ETA_REVISION, ETA_POD, ATA_POD, DISCHARGE_POD, GATE_OUT_FULL_DESTINATION, EMPTY_RETURN). Served from the journey read model; an ETag lets a re-poll be answered 304."),
		option.AddResponse(200, "The journeys", fuego.Response{Type: JourneysResponse{}}),
		option.AddResponse(400, "No identifier, or both booking and bill", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(304, "Not modified since the If-None-Match tag", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
}

// bufs are response buffers (answers are tens of kB uncompressed).
var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// acceptsGzip says Accept-Encoding allows gzip (not refused with q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return !(q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000")
	}
	return false
}
