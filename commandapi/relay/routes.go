package relay

import (
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
)

// Route is what the relay writes (it consumes no topic): the outbox's rows,
// subscription changes, on the subscriptions topic.
var Route = kafka.Route{Name: "outbox-relay", Mode: kafka.ModeProduce, Outputs: []string{schemas.TopicSubscriptions}}

// Routes are the stage's routes, registered with the process's router.
var Routes = []kafka.Route{Route}
