package poller

import (
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
)

// Route is what the poller writes (it consumes no topic): the carriers' pages
// on the raw topic, one record per poll on the attempts topic, and a page
// too large for a record on the normaliser's dead-letter topic.
var Route = kafka.Route{Name: "poller", Mode: kafka.ModeProduce, Outputs: []string{schemas.TopicCarrierRaw, schemas.TopicPollAttempts},
	DeadLetter: schemas.TopicNormalizeDeadLetters}

// Routes are the stage's routes, registered with the process's router.
var Routes = []kafka.Route{Route}
