package vessels

import (
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
)

// Route is what the stage writes (it consumes no topic): vessel position
// reports.
var Route = kafka.Route{Name: "vessels", Mode: kafka.ModeProduce, Outputs: []string{schemas.TopicVesselPositions}}

// Routes are the stage's routes, registered with the process's router.
var Routes = []kafka.Route{Route}
