package queryapi

import (
	"log/slog"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/go-fuego/fuego"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/secretbox"
)

// Deps are what the query side reads from.
type Deps struct {
	Pool *pgxpool.Pool
	// CH serves the ClickHouse read models (carrier metrics).
	CH  driver.Conn
	Box *secretbox.Box
	Log *slog.Logger
	// TokenKey signs GET /subscriptions nextTokens (tamper-proof cursors).
	TokenKey []byte
	// TokenKeysPrevious still verify tokens signed before a key rotation.
	TokenKeysPrevious [][]byte
	// Now defaults to time.Now.
	Now func() time.Time
	// Feed wakes long-polls of GET /subscriptions/events (a feed.Notifier);
	// nil: no long-polls, a wait is answered at once.
	Feed FeedWaiter
	// Journeys serves GET /subscription/equipment; nil reads ClickHouse
	// uncached (tests).
	Journeys *Journeys
	// SandboxNow is the sandbox journeys' present, by which the readiness
	// of sandbox accounts' journeys is judged (default Now).
	SandboxNow func() time.Time
}

func (d *Deps) defaults() {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Journeys == nil {
		d.Journeys = NewJourneys(JourneysConfig{CacheBytes: -1}, d.CH, d.Log)
	}
	if d.SandboxNow == nil {
		d.SandboxNow = d.Now
	}
	if d.Pool != nil {
		d.Journeys.freeTime.Store(&freeTime{pool: d.Pool, now: d.Now, sandboxNow: d.SandboxNow})
	}
}

// Register adds the query endpoints to s.
func Register(s *fuego.Server, deps Deps) {
	deps.defaults()
	registerAccount(s, deps)
	registerSubscriptions(s, deps)
	registerCredentials(s, deps)
	registerWebhookConfig(s, deps)
	registerMetrics(s, deps)
	registerJourneys(s, deps)
	registerDeliveries(s, deps)
	registerFeed(s, deps)
	registerV3Events(s, deps)
	registerVesselPositions(s, deps)
	registerReadiness(s, deps)
	registerAttention(s, deps)
}
