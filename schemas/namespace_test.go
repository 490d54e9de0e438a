package schemas_test

import (
	"strings"
	"testing"

	"github.com/contrack/contrack/schemas"
)

func TestNamespaceNames(t *testing.T) {
	var none schemas.Namespace
	if got := none.Topic(schemas.TopicEvents); got != schemas.TopicEvents {
		t.Errorf("empty namespace: topic %q", got)
	}
	if got := none.Logical(schemas.TopicEvents); got != schemas.TopicEvents {
		t.Errorf("empty namespace: logical %q", got)
	}
	ns := schemas.Namespace("staging")
	for got, want := range map[string]string{
		ns.Topic(schemas.TopicEvents):               "staging.contrack.events.v1",
		ns.Group(schemas.GroupDelivery):             "staging.contrack-delivery",
		ns.TransactionalID("contrack-normalize-1"):  "staging.contrack-normalize-1",
		ns.Logical("staging.contrack.events.v1"):    schemas.TopicEvents,
		ns.Logical("contrack.events.v1"):            "", // another deployment's
		ns.Logical("production.contrack.events.v1"): "",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if got := ns.Topics(schemas.TopicEvents, schemas.TopicJourneys); len(got) != 2 || got[1] != "staging.contrack.journeys.v1" {
		t.Errorf("Topics: %v", got)
	}
}

func TestNamespaceValidate(t *testing.T) {
	for _, ok := range []string{"", "staging", "test-1f2e", "eu_west.prod", strings.Repeat("a", schemas.MaxNamespaceLen)} {
		if err := schemas.Namespace(ok).Validate(); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{".staging", "staging.", "a..b", "stag ing", "staging/1", "é", strings.Repeat("a", schemas.MaxNamespaceLen+1)} {
		if err := schemas.Namespace(bad).Validate(); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// Every name a valid namespace makes is a valid Kafka topic name
	// (at most 249 characters of [a-zA-Z0-9._-]).
	ns := schemas.Namespace(strings.Repeat("n", schemas.MaxNamespaceLen))
	for _, topic := range schemas.AllTopics {
		if name := ns.Topic(topic); len(name) > 249 {
			t.Errorf("%s: %d characters", name, len(name))
		}
	}
}
