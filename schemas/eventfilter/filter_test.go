package eventfilter

import (
	"slices"
	"testing"

	"github.com/contrack/contrack/schemas/dcsa"
)

func TestTagsAndMatch(t *testing.T) {
	for _, c := range []struct {
		ev   dcsa.Summary
		want []string
	}{
		{dcsa.Summary{EventType: "TRANSPORT", EventClassifierCode: "ACT", TransportEventTypeCode: "DEPA"}, []string{"TRANSPORT", "ACT", ATDPOL}},
		{dcsa.Summary{EventType: "TRANSPORT", EventClassifierCode: "PLN", TransportEventTypeCode: "DEPA"}, []string{"TRANSPORT", "PLN"}},
		{dcsa.Summary{EventType: "TRANSPORT", EventClassifierCode: "EST", TransportEventTypeCode: "ARRI"}, []string{"TRANSPORT", "EST", ETARevision, ETAPOD}},
		{dcsa.Summary{EventType: "TRANSPORT", EventClassifierCode: "ACT", TransportEventTypeCode: "ARRI"}, []string{"TRANSPORT", "ACT", ATAPOD}},
		{dcsa.Summary{EventType: "EQUIPMENT", EventClassifierCode: "ACT", EquipmentEventTypeCode: "DISC"}, []string{"EQUIPMENT", "ACT", Transshipment, DischargePOD}},
		{dcsa.Summary{EventType: "EQUIPMENT", EventClassifierCode: "ACT", EquipmentEventTypeCode: "GTOT", EmptyIndicatorCode: "LADEN"}, []string{"EQUIPMENT", "ACT", GateOutDestination}},
		{dcsa.Summary{EventType: "EQUIPMENT", EventClassifierCode: "ACT", EquipmentEventTypeCode: "GTOT", EmptyIndicatorCode: "EMPTY"}, []string{"EQUIPMENT", "ACT"}},
		{dcsa.Summary{EventType: "EQUIPMENT", EventClassifierCode: "ACT", EquipmentEventTypeCode: "GTIN", EmptyIndicatorCode: "EMPTY"}, []string{"EQUIPMENT", "ACT", EmptyReturn}},
		{dcsa.Summary{EventType: "EQUIPMENT", EventClassifierCode: "ACT", EquipmentEventTypeCode: "GTIN", EmptyIndicatorCode: "LADEN"}, []string{"EQUIPMENT", "ACT"}},
	} {
		if got := Tags(&c.ev); !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.ev, got, c.want)
		}
	}
	disc := Tags(&dcsa.Summary{EventType: "EQUIPMENT", EventClassifierCode: "EST", EquipmentEventTypeCode: "DISC"})
	gateIn := Tags(&dcsa.Summary{EventType: "EQUIPMENT", EventClassifierCode: "ACT", EquipmentEventTypeCode: "GTIN", EmptyIndicatorCode: "LADEN"})
	for _, c := range []struct {
		f      Filter
		tags   []string
		passes bool
	}{
		{Filter{}, gateIn, true},
		{Filter{EventTypes: []string{}}, gateIn, false},
		{Filter{EventTypes: []string{"TRANSSHIPMENT"}}, disc, true},
		{Filter{EventTypes: []string{"TRANSSHIPMENT"}, Classifiers: []string{"ACT"}}, disc, false},
		{Filter{MilestonesOnly: true}, gateIn, false},
		{Filter{MilestonesOnly: true}, disc, true},
		{Filter{Classifiers: []string{"ACT", "EST"}}, disc, true},
	} {
		if got := c.f.MatchEvent(c.tags); got != c.passes {
			t.Errorf("%+v on %v: %v", c.f, c.tags, got)
		}
	}
	if (Filter{}).MatchAlert("ARRIVED") || !(Filter{AlertTypes: []string{"ARRIVED"}}).MatchAlert("ARRIVED") {
		t.Error("alerts are received only when asked for")
	}
	out, unknown := Normalize([]string{" act", "EST", "act", "nope"}, Classifiers)
	if !slices.Equal(out, []string{"ACT", "EST"}) || !slices.Equal(unknown, []string{"nope"}) {
		t.Errorf("Normalize: %v %v", out, unknown)
	}
	if out, _ := Normalize(nil, Classifiers); out != nil {
		t.Error("nil must stay nil (all)")
	}
	if out, _ := Normalize([]string{}, Classifiers); out == nil {
		t.Error("empty must stay empty (none)")
	}
}
