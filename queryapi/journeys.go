// Journeys: GET /subscription/equipment's journeys, read from the read
// model the projector writes (schemas/journeys) and, in an API process that
// runs the follower, cached. The parts, one file each: the configuration,
// the reader and Run (here); the follower of journey changes that keeps
// the cache fresh (journeys_follow.go); the cache's warming and look-ups
// (journeys_cache.go); the ClickHouse reads (journeys_read.go); the HTTP
// handler (journeys_handler.go).

package queryapi

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"golang.org/x/sync/singleflight"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/queryapi/journeycache"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/journeys"
)

// JourneysConfig tunes the serving of journeys. Zero values take the documented defaults.
type JourneysConfig struct {
	// CacheBytes bounds the in-process cache of encoded journeys (default
	// 256 MiB; negative disables it). A quarter as much again keeps the
	// uncompressed answers pulled most often without gzip
	// (journeycache.Identities), so they are not inflated per request.
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
	// identities keeps the uncompressed answers pulled without gzip.
	identities *journeycache.Identities
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
	// router, set by Route, runs the follower (the process's).
	router *kafka.Router
}

// JourneysRoute follows the journey changes from the topic's end (no
// group): each drops the lookup's cached answers.
var JourneysRoute = kafka.Route{Name: "queryapi-journeys", Mode: kafka.ModeFollow, Inputs: []string{schemas.TopicJourneys}}

// Routes are the journey cache's routes, registered with the process's router.
var Routes = []kafka.Route{JourneysRoute}

// Route has Run's follower run by the process's router (its brokers and
// namespace then take the place of Run's). Call before Run.
func (j *Journeys) Route(r *kafka.Router) { j.router = r }

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
		cache: cache, identities: journeycache.NewIdentities(max(cfg.CacheBytes, 0) / 4),
		refresh: make(chan journeycache.Key, 8192), queued: map[journeycache.Key]struct{}{}, warmed: make(chan struct{})}
}

// CacheBytes is the cache's current size.
func (j *Journeys) CacheBytes() int64 { return j.cache.Bytes() }

// IdentityBytes is what the uncompressed answers kept take.
func (j *Journeys) IdentityBytes() int64 { return j.identities.Bytes() }

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
