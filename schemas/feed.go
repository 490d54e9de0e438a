package schemas

// Kinds of items of the account event feed (feed_batches.kind, every item
// of a row of one kind): events of the events topic (and retractions), an
// alert (one per row), or vessel positions of opted-in subscriptions.
const (
	FeedKindEvent          = "EVENT"
	FeedKindAlert          = "ALERT"
	FeedKindVesselPosition = "VESSEL_POSITION"
)

// The VESSEL_POSITION opt-in of a subscription: its items come at most
// every interval minutes, DefaultVesselPositionInterval unless the opt-in
// names one within the bounds.
const (
	DefaultVesselPositionInterval = 60
	MinVesselPositionInterval     = 5
	MaxVesselPositionInterval     = 1440
)

// FeedVesselPosition is the vesselPosition object of a VESSEL_POSITION
// item of the account event feed: the vessel the subscription's shipment
// is at sea on, the passage, the containers, and the vessel's position
// (the fields of a journey result's vessel.position).
type FeedVesselPosition struct {
	Vessel FeedVessel `json:"vessel"`
	// CarrierVoyageNumber is the carrier's voyage of the passage.
	CarrierVoyageNumber string `json:"carrierVoyageNumber"`
	// EquipmentNumbers are the subscription's shipment's containers.
	EquipmentNumbers []string `json:"equipmentNumbers"`
	Latitude         float64  `json:"latitude"`
	Longitude        float64  `json:"longitude"`
	// At is when the vessel reported the position (RFC 3339, UTC, milliseconds).
	At string `json:"at"`
	// SpeedKnots is the speed over ground; Course the course over ground in
	// degrees from true north.
	SpeedKnots float64 `json:"speedKnots"`
	Course     float64 `json:"course"`
}

// FeedVessel names a vessel: its name as the carrier gives it and its IMO number.
type FeedVessel struct {
	Name string `json:"name"`
	IMO  string `json:"imo"`
}
