// Package schemas is the language the stages share: Kafka topic names, record
// envelopes and headers, and (in sub-packages) the DCSA event types and the
// SQL migrations of both stores.
//
// Topic names follow <domain>.<kind>.v<major>; within a major version only
// additive changes are allowed. Consumer group names are constants too and are
// never renamed: a renamed group re-consumes its topics from the start.
package schemas

// Topics.
const (
	// TopicSubscriptions carries subscription lifecycle records, keyed by tracking id.
	TopicSubscriptions = "contrack.subscriptions.v1"
	// TopicCarrierRaw carries raw carrier payloads (polled or pushed), unchanged, keyed by tracking id or request id.
	TopicCarrierRaw = "contrack.carrier-raw.v1"
	// TopicPollAttempts carries one record per carrier poll, keyed by tracking id.
	TopicPollAttempts = "contrack.poll-attempts.v1"
	// TopicEvents carries normalised DCSA 2.0.2 events, keyed by tracking id.
	TopicEvents = "contrack.events.v1"
	// TopicNormalizeDeadLetters keeps raw payloads the normaliser could not parse.
	TopicNormalizeDeadLetters = "contrack.carrier-raw.dlq.v1"
	// TopicDeliveryDeadLetters keeps webhook deliveries that exhausted their retries.
	TopicDeliveryDeadLetters = "contrack.delivery.dlq.v1"
	// TopicProjectorDeadLetters keeps records the projector could not turn
	// into rows (malformed events or poll attempts), with reason headers.
	TopicProjectorDeadLetters = "contrack.projector.dlq.v1"
	// TopicJourneys carries a JourneyChanged after each journey read model
	// write, keyed by tracking id: API processes follow it to keep their
	// journey caches fresh.
	TopicJourneys = "contrack.journeys.v1"
	// TopicVesselPositions carries vessel position reports (AIS-style: one
	// per vessel and report), keyed by environment and IMO number
	// (VesselPosition.Key), from the vessel positions stage (ingest/vessels).
	TopicVesselPositions = "contrack.vessel-positions.v1"
	// TopicAlerts carries alerts (EventRecords of type TypeAlert) keyed by
	// tracking id: from the journey projection (what a journey change
	// reveals) and the alerts stage (what the clock does: the last free
	// day). Delivery and the feed push them beside the events.
	TopicAlerts = "contrack.alerts.v1"
)

// AllTopics lists every topic created at start-up.
var AllTopics = []string{
	TopicSubscriptions,
	TopicCarrierRaw,
	TopicPollAttempts,
	TopicEvents,
	TopicNormalizeDeadLetters,
	TopicDeliveryDeadLetters,
	TopicJourneys,
	TopicProjectorDeadLetters,
	TopicVesselPositions,
	TopicAlerts,
}

// TopicConfigs are the topic-level settings applied at creation. The
// subscriptions topic is compacted: the latest change per tracking is kept
// for ever, so the poller and the normaliser's routing index can rebuild the
// set of open trackings from it at any time, however old the tracking.
var TopicConfigs = map[string]map[string]string{
	TopicSubscriptions: {"cleanup.policy": "compact"},
}

// Consumer groups. Never rename one.
const (
	GroupPoller    = "contrack-poller"
	GroupNormalize = "contrack-normalize"
	GroupProjector = "contrack-projector"
	// GroupEventsView projects events into ClickHouse's events table.
	GroupEventsView = "contrack-projector-events"
	GroupDelivery   = "contrack-delivery"
	// GroupFeed fans events out into the account event feed (package feed).
	GroupFeed = "contrack-feed"
	// GroupFeedPositions writes vessel positions into the feed of the
	// subscriptions that opted in (package feed).
	GroupFeedPositions = "contrack-feed-positions"
	// GroupJourneys projects journeys; generation N of the read model uses
	// GroupJourneys + "-g<N>" (a rebuild is a new generation read from the start).
	GroupJourneys = "contrack-projector-journeys"
	// GroupVesselPositionsView projects vessel positions into ClickHouse's
	// vessel_positions table.
	GroupVesselPositionsView = "contrack-projector-vessel-positions"
	// GroupAlertsView projects alerts into ClickHouse's alerts table.
	GroupAlertsView = "contrack-projector-alerts"
)

// Record headers. Every record carries its type and id so consumers can route
// and deduplicate without decoding the value.
const (
	HeaderType    = "type"
	HeaderID      = "id"
	HeaderAccount = "account"
	HeaderEnv     = "env"
	// HeaderSCAC and HeaderCarrierKey are on pushed raw records: the SCAC
	// the carrier key is bound to (the only carrier its events may reach)
	// and the key's id.
	HeaderSCAC       = "scac"
	HeaderCarrierKey = "carrier-key"
	// HeaderTraceparent and HeaderTracestate are the W3C trace context of
	// the work that produced the record (platform/tracing writes them):
	// carrier-raw records from POST /events and polls, events records from
	// the normaliser. Optional: a record without them starts a new trace.
	HeaderTraceparent = "traceparent"
	HeaderTracestate  = "tracestate"
	// HeaderHistoryFor and HeaderHistoryExcept carry history on subscribe
	// (comma-separated subscription ids). On a polled carrier-raw record,
	// HeaderHistoryFor names the subscriptions whose history the poll is:
	// the normaliser then emits every event of the page to them, not only
	// the unseen ones. On an events record, HeaderHistoryFor says the
	// record is history for those subscriptions only: delivery and the feed
	// fan it out to them and no other; HeaderHistoryExcept (on the records
	// of new or changed events from the same page) names the subscriptions
	// that got the event as history beside it, which the fan-out skips.
	// Consumers that do not fan out per subscription ignore both.
	HeaderHistoryFor    = "history-for"
	HeaderHistoryExcept = "history-except"
	// Dead-letter headers, after watermill's poison queue.
	HeaderDLQReason    = "dlq-reason"
	HeaderDLQTopic     = "dlq-source-topic"
	HeaderDLQPartition = "dlq-source-partition"
	HeaderDLQOffset    = "dlq-source-offset"
)
