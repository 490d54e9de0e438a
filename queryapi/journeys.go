package queryapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/queryapi/journeycache"
	"github.com/contrack/contrack/schemas"
)

// JourneyResult is one equipment's journey in GET /subscription/equipment.
type JourneyResult = journey.Result

// EnhancedEvent is a milestone contrack derives from the carrier's events
// (types and examples in docs/api.md).
type EnhancedEvent = journey.Milestone

// JourneysResponse is GET /subscription/equipment's body.
type JourneysResponse struct {
	Results       []JourneyResult `json:"results"`
	Count         int             `json:"count"`
	DateOfRequest httpapi.Time    `json:"dateOfRequest"`
	// encoded is Results as served from the read model, already JSON.
	encoded []byte
}

// MarshalJSON writes the encoded results as they are.
func (r JourneysResponse) MarshalJSON() ([]byte, error) {
	if r.encoded == nil {
		type plain JourneysResponse
		return json.Marshal(plain(r))
	}
	date, err := json.Marshal(r.DateOfRequest)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(r.encoded)+64)
	b = append(b, `{"results":`...)
	b = append(b, r.encoded...)
	b = append(b, `,"count":`...)
	b = fmt.Appendf(b, "%d", r.Count)
	b = append(b, `,"dateOfRequest":`...)
	b = append(b, date...)
	return append(b, '}'), nil
}

// JourneysConfig tunes the serving of journeys.
type JourneysConfig struct {
	// CacheBytes bounds the in-process cache of encoded journeys (default
	// 256 MiB; negative disables it).
	CacheBytes int64
	// MaxAge drops a cached lookup this long after it was read even without
	// a change notification, a safety net (default 30 s).
	MaxAge time.Duration
	// GenerationCheck is how often a rebuilt generation is looked for (default 5 s).
	GenerationCheck time.Duration
}

// Validate reports settings that cannot work.
func (c JourneysConfig) Validate() error {
	if c.MaxAge < 0 || c.GenerationCheck < 0 {
		return fmt.Errorf("queryapi: journeys: negative duration")
	}
	return nil
}

// Journeys serves journey lookups from the read model in ClickHouse
// (journeys_g<N>, one row per container, point reads by lookup key) through
// a byte-bounded cache that Run keeps fresh by following the projector's
// journey changes.
type Journeys struct {
	cfg   JourneysConfig
	ch    driver.Conn
	log   *slog.Logger
	cache *journeycache.Cache
	// gen is the generation read (0 until Run knows it: read per request);
	// ready says Run follows the changes from before any cached read.
	gen   atomic.Uint32
	ready atomic.Bool
}

// NewJourneys returns the journey reader of an API process.
func NewJourneys(cfg JourneysConfig, ch driver.Conn, log *slog.Logger) *Journeys {
	if cfg.CacheBytes == 0 {
		cfg.CacheBytes = 256 << 20
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = 30 * time.Second
	}
	if cfg.GenerationCheck <= 0 {
		cfg.GenerationCheck = 5 * time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	return &Journeys{cfg: cfg, ch: ch, log: log.With("component", "journeys"),
		cache: journeycache.New(max(cfg.CacheBytes, 0), cfg.MaxAge)}
}

// CacheBytes is the cache's current size.
func (j *Journeys) CacheBytes() int64 { return j.cache.Bytes() }

// Run follows the journey changes (from the topic's end: the cache starts
// empty) and the generation until ctx ends. Until it runs, nothing is cached.
func (j *Journeys) Run(ctx context.Context, brokers []string) error {
	gen, err := projector.CurrentGeneration(ctx, j.ch)
	if err != nil {
		return err
	}
	j.gen.Store(gen)
	defer j.ready.Store(false)
	next := time.Now().Add(j.cfg.GenerationCheck)
	return kafka.Follow(ctx, kafka.FollowConfig{
		Brokers: brokers, Topics: []string{schemas.TopicJourneys}, Name: "queryapi-journeys", Log: j.log,
		// Cache only once every change from here on is followed.
		FromEnd: true, PollTimeout: time.Second, Started: func() { j.ready.Store(true) },
	}, func(ctx context.Context, recs []*kgo.Record) error {
		for _, r := range recs {
			var c schemas.JourneyChanged
			if err := json.Unmarshal(r.Value, &c); err != nil {
				j.log.Error("skipping malformed journey change", "offset", r.Offset)
				continue
			}
			j.cache.Invalidate(journeycache.Key{Account: c.AccountID, Kind: c.IdentifierKind, Value: c.Identifier})
		}
		if time.Now().After(next) {
			next = time.Now().Add(j.cfg.GenerationCheck)
			if g, err := projector.CurrentGeneration(ctx, j.ch); err == nil && g != j.gen.Load() {
				j.gen.Store(g)
				j.cache.Flush()
				j.log.Info("journeys: reading a rebuilt generation", "generation", g)
			}
		}
		return nil
	})
}

// lookup returns the encoded results of an account's lookup.
func (j *Journeys) lookup(ctx context.Context, k journeycache.Key) ([]journeycache.Item, error) {
	if e, ok := j.cache.Get(k); ok {
		return e.Items, nil
	}
	cached := j.ready.Load()
	t := j.cache.Ticket()
	gen := j.gen.Load()
	if !cached || gen == 0 {
		g, err := projector.CurrentGeneration(ctx, j.ch)
		if err != nil {
			return nil, err
		}
		gen = g
	}
	items, err := j.read(ctx, gen, k)
	if err != nil {
		return nil, err
	}
	if cached {
		j.cache.Put(k, items, t)
	}
	return items, nil
}

// read is a point read of the lookup's rows: the latest version of each
// (tracking, container) — picked here, the few unmerged versions a key has
// cost less than ClickHouse sorting them — trackings in subscription
// order, containers in the order the projector gave them.
func (j *Journeys) read(ctx context.Context, gen uint32, k journeycache.Key) ([]journeycache.Item, error) {
	rows, err := j.ch.Query(ctx, `
		SELECT tracking_id, since, position, equipment_number, scac, tracking_status, pol, pod, last_location,
		       source_events, vessel_events, enhanced_events, version
		FROM `+projector.JourneysTable(gen)+`
		WHERE account_id = ? AND lookup_kind = ? AND lookup_value = ?`, k.Account, k.Kind, k.Value)
	if err != nil {
		return nil, fmt.Errorf("read journeys: %w", err)
	}
	defer rows.Close()
	type row struct {
		tracking string
		since    time.Time
		position uint16
		version  uint64
		item     journeycache.Item
	}
	var rs []row
	latest := map[[2]string]int{}
	for rows.Next() {
		var r row
		var scac, status, pol, pod, last, src, ves, enh string
		if err := rows.Scan(&r.tracking, &r.since, &r.position, &r.item.Equipment, &scac, &status, &pol, &pod, &last, &src, &ves, &enh, &r.version); err != nil {
			return nil, fmt.Errorf("read journeys: %w", err)
		}
		var b bytes.Buffer
		b.Grow(len(src) + len(ves) + len(enh) + 256)
		field := func(name, v string, first bool) {
			if !first {
				b.WriteByte(',')
			}
			b.WriteString(`"` + name + `":`)
			s, _ := json.Marshal(v)
			b.Write(s)
		}
		b.WriteByte('{')
		field("equipmentNumber", r.item.Equipment, true)
		field("scacCode", scac, false)
		field("trackingStatus", status, false)
		field("lastLocation", last, false)
		field("POL", pol, false)
		field("POD", pod, false)
		b.WriteString(`,"sourceEvents":` + src + `,"enhancedEvents":` + enh + `,"vesselEvents":` + ves + `}`)
		r.item.JSON = b.Bytes()
		id := [2]string{r.tracking, r.item.Equipment}
		if i, ok := latest[id]; ok {
			if rs[i].version < r.version {
				rs[i] = r
			}
			continue
		}
		latest[id] = len(rs)
		rs = append(rs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read journeys: %w", err)
	}
	sort.Slice(rs, func(a, b int) bool {
		if !rs[a].since.Equal(rs[b].since) {
			return rs[a].since.Before(rs[b].since)
		}
		if rs[a].tracking != rs[b].tracking {
			return rs[a].tracking < rs[b].tracking
		}
		return rs[a].position < rs[b].position
	})
	items := make([]journeycache.Item, len(rs))
	for i, r := range rs {
		items[i] = r.item
	}
	return items, nil
}

func registerJourneys(s *fuego.Server, deps Deps) {
	fuego.Get(s, "/subscription/equipment", func(c fuego.ContextNoBody) (JourneysResponse, error) {
		now := deps.Now().UTC()
		k, _ := auth.FromContext(c.Context())
		q := c.Request().URL.Query()
		equipment := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(q.Get("equipmentNumber")), " ", ""))
		booking := strings.TrimSpace(q.Get("bookingNumber"))
		bill := strings.TrimSpace(q.Get("billNumber"))
		if equipment == "" && booking == "" && bill == "" {
			return JourneysResponse{}, httpapi.BadRequest("Must provide at least one of: equipmentNumber, bookingNumber, billNumber").Dated(now)
		}
		if booking != "" && bill != "" {
			return JourneysResponse{}, httpapi.BadRequest("Cannot provide both bookingNumber and billNumber please provide one").Dated(now)
		}
		key := journeycache.Key{Account: k.Account.ID, Kind: "container", Value: equipment}
		switch {
		case booking != "":
			key.Kind, key.Value = "booking", booking
		case bill != "":
			key.Kind, key.Value = "bill", bill
		}
		items, err := deps.Journeys.lookup(c.Context(), key)
		if err != nil {
			return JourneysResponse{}, err
		}
		body := make([]byte, 0, 4096)
		body = append(body, '[')
		n := 0
		for _, it := range items {
			if equipment != "" && it.Equipment != equipment {
				continue
			}
			if n > 0 {
				body = append(body, ',')
			}
			body = append(body, it.JSON...)
			n++
		}
		body = append(body, ']')
		// Weak: the tag covers the results, not dateOfRequest.
		sum := sha256.Sum256(body)
		c.SetHeader("ETag", `W/"`+hex.EncodeToString(sum[:12])+`"`)
		return JourneysResponse{Count: n, DateOfRequest: httpapi.Time(now), encoded: body}, nil
	},
		option.Query("equipmentNumber", "container number; narrows a booking or bill lookup to that container"),
		option.Query("bookingNumber", "booking reference (not with billNumber)"),
		option.Query("billNumber", "bill of lading number (not with bookingNumber)"),
		option.Header("If-None-Match", "an ETag of an earlier answer: 304 without a body while the results are unchanged"),
		option.Summary("Tracking data of the account's subscriptions"),
		option.Description("One result per container of the matching subscriptions: the carrier's DCSA 2.0.2 equipment events (sourceEvents), its transport events (vesselEvents), POL, POD, last actual location and derived milestones (enhancedEvents: ATD_POL, TRANSSHIPMENT, ETA_REVISION, ETA_POD, ATA_POD, DISCHARGE_POD, GATE_OUT_FULL_DESTINATION, EMPTY_RETURN). Served from the journey read model; an ETag lets a re-poll be answered 304."),
		option.AddResponse(400, "No identifier, or both booking and bill", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(304, "Not modified since the If-None-Match tag", fuego.Response{Type: httpapi.Body{}}),
		option.Middleware(httpapi.ETag),
		option.Tags("Subscriptions"),
	)
}
