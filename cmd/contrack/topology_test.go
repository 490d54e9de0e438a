package main

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/contrack/contrack/cmd/contrack/roles"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
)

// Every stage the role table names declares its routes here (an empty
// entry for a stage without Kafka), so a new stage cannot run routes the
// topology does not show.
func TestStreamRoutesCoverEveryStage(t *testing.T) {
	named := map[string]bool{}
	for _, r := range roles.Table() {
		for _, st := range r.Stages {
			named[st] = true
			if _, ok := streamRoutes[st]; !ok {
				t.Errorf("stage %s (role %s) has no entry in streamRoutes", st, r.Name)
			}
		}
	}
	for st := range streamRoutes {
		if !named[st] {
			t.Errorf("streamRoutes names %s, a stage no role runs", st)
		}
	}
}

// Every role's routes register with one router (no route named twice, each
// valid for its mode), and the graph has no loose ends: every topic a
// route reads is written by one, and every topic the process creates
// appears in it.
func TestTopologyIsWholeAndRegisters(t *testing.T) {
	for _, r := range append([]roles.Role{roles.All()}, roles.Table()...) {
		if err := registerRoutes(kafka.NewRouter(kafka.RouterConfig{}), r); err != nil {
			t.Errorf("role %s: %v", r.Name, err)
		}
	}
	top := buildTopology()
	var names []string
	for _, tp := range top.Topics {
		names = append(names, tp.Name)
		if len(tp.Readers) > 0 && len(tp.Writers) == 0 {
			t.Errorf("topic %s is read by %v and written by no route", tp.Name, tp.Readers)
		}
	}
	for _, tp := range schemas.AllTopics {
		if !slices.Contains(names, tp) {
			t.Errorf("topic %s is created at start and in no route", tp)
		}
	}
	var stages []string
	for _, st := range top.Stages {
		stages = append(stages, st.Name)
	}
	if want := roles.All().Stages; !slices.Equal(stages, want) {
		t.Errorf("topology stages %v, want all's %v", stages, want)
	}
}

func TestTopologyCommandPrintsTextAndJSON(t *testing.T) {
	var js bytes.Buffer
	if err := printTopology(&js, true); err != nil {
		t.Fatal(err)
	}
	var got topology
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatalf("topology --json: %v\n%s", err, js.String())
	}
	var delivery *topologyStage
	for i := range got.Stages {
		if got.Stages[i].Name == roles.StageDelivery {
			delivery = &got.Stages[i]
		}
	}
	if delivery == nil || len(delivery.Routes) != 1 || delivery.Routes[0].Mode != kafka.ModeRecord ||
		!slices.Equal(delivery.Routes[0].Inputs, []string{schemas.TopicEvents, schemas.TopicAlerts}) ||
		!slices.Contains(delivery.Roles, "delivery") {
		t.Errorf("topology --json delivery stage = %+v", delivery)
	}
	var text bytes.Buffer
	if err := printTopology(&text, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"stage normalize (roles: all, normalize)", "topic " + schemas.TopicEvents, "written by      normalize/normalize"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("topology text lacks %q:\n%s", want, text.String())
		}
	}
}

const (
	topologyDocStart = "<!-- topology: written from the stages' routes by `go test ./cmd/contrack -run TestArchitectureDocShowsTheTopology -update` -->\n"
	topologyDocEnd   = "<!-- /topology -->"
)

// docs/architecture.md shows the graph `contrack topology` prints, route by
// route (-update rewrites it).
func TestArchitectureDocShowsTheTopology(t *testing.T) {
	const path = "../../docs/architecture.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start, end := strings.Index(doc, topologyDocStart), strings.Index(doc, topologyDocEnd)
	if start < 0 || end < start {
		t.Fatalf("docs/architecture.md has no %q … %q section", topologyDocStart, topologyDocEnd)
	}
	current, want := doc[start+len(topologyDocStart):end], topologyTable()
	if current == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc[:start+len(topologyDocStart)]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/architecture.md's topology differs from the stages' routes; run go test ./cmd/contrack -run TestArchitectureDocShowsTheTopology -update\nwant:\n%s", want)
}
