package ingest

import (
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
)

// EventsRoute is what POST /events writes (it consumes no topic): the
// carriers' pushed pages on the raw topic.
var EventsRoute = kafka.Route{Name: "ingest-events", Mode: kafka.ModeProduce, Outputs: []string{schemas.TopicCarrierRaw}}
