package alerts

import (
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
)

// Route is what the stage writes (it consumes no topic): the alerts the
// clock raises.
var Route = kafka.Route{Name: "alerts", Mode: kafka.ModeProduce, Outputs: []string{schemas.TopicAlerts}}

// Routes are the stage's routes, registered with the process's router.
var Routes = []kafka.Route{Route}
