package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/contrack/contrack/alerts"
	"github.com/contrack/contrack/cmd/contrack/roles"
	"github.com/contrack/contrack/commandapi/relay"
	"github.com/contrack/contrack/delivery"
	"github.com/contrack/contrack/feed"
	"github.com/contrack/contrack/ingest"
	"github.com/contrack/contrack/ingest/poller"
	"github.com/contrack/contrack/ingest/vessels"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/queryapi"
)

// streamRoutes are the Kafka routes of every stage the role table names,
// as each stage declares them (its Routes). A process registers the routes
// of its role's stages with its router (openInfra), and the router refuses
// to run a route other than the one registered: `contrack topology`, drawn
// from this map, is what runs. A stage without Kafka has an empty entry;
// TestStreamRoutesCoverEveryStage fails for a stage of the table missing
// here.
var streamRoutes = map[string][]kafka.Route{
	roles.StageAPI:                   append([]kafka.Route{ingest.EventsRoute}, queryapi.Routes...),
	roles.StageOutboxRelay:           relay.Routes,
	roles.StageSubscriptionLifecycle: nil, // Postgres only: its closures reach Kafka through the outbox
	roles.StagePoller:                poller.Routes,
	roles.StageNormalize:             stage.Routes,
	roles.StageDelivery:              delivery.Routes,
	roles.StageProjector:             projector.Routes,
	roles.StageFeed:                  feed.Routes,
	roles.StageVessels:               vessels.Routes,
	roles.StageAlerts:                alerts.Routes,
	roles.StageSandbox:               nil, // HTTP only
	roles.StageBroker:                nil, // the broker itself
}

// registerRoutes registers the routes of the role's stages with r.
func registerRoutes(r *kafka.Router, role roles.Role) error {
	for _, st := range role.Stages {
		if err := r.Register(st, streamRoutes[st]...); err != nil {
			return err
		}
	}
	return nil
}

// topologyStage is one stage of the topology: the roles that run it and
// its routes.
type topologyStage struct {
	Name   string        `json:"name"`
	Roles  []string      `json:"roles"`
	Routes []kafka.Route `json:"routes"`
}

// topologyTopic is one topic of the topology: the routes (stage/route)
// that write it, read it, and send it their dead letters.
type topologyTopic struct {
	Name        string   `json:"name"`
	Writers     []string `json:"writers,omitempty"`
	Readers     []string `json:"readers,omitempty"`
	DeadLetters []string `json:"deadLettersOf,omitempty"`
}

// topology is the graph of stages and topics: `contrack topology`.
type topology struct {
	Stages []topologyStage `json:"stages"`
	Topics []topologyTopic `json:"topics"`
}

// buildTopology draws the graph from the role table (the stages `all`
// runs, in its order, and the roles of each) and the stages' routes.
func buildTopology() topology {
	var t topology
	topics := map[string]*topologyTopic{}
	topic := func(name string) *topologyTopic {
		if topics[name] == nil {
			topics[name] = &topologyTopic{Name: name}
		}
		return topics[name]
	}
	for _, st := range roles.All().Stages {
		ts := topologyStage{Name: st, Roles: []string{roles.AllName}, Routes: slices.Clone(streamRoutes[st])}
		for _, r := range roles.Table() {
			if r.Runs(st) {
				ts.Roles = append(ts.Roles, r.Name)
			}
		}
		for _, rt := range ts.Routes {
			who := st + "/" + rt.Label()
			for _, in := range rt.Inputs {
				topic(in).Readers = append(topic(in).Readers, who)
			}
			for _, out := range rt.Outputs {
				topic(out).Writers = append(topic(out).Writers, who)
			}
			if rt.DeadLetter != "" {
				topic(rt.DeadLetter).DeadLetters = append(topic(rt.DeadLetter).DeadLetters, who)
			}
		}
		t.Stages = append(t.Stages, ts)
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range topics {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Topics = append(t.Topics, *topics[name])
	}
	return t
}

// printTopology writes `contrack topology`: text, or JSON with asJSON.
func printTopology(w io.Writer, asJSON bool) error {
	t := buildTopology()
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(t)
	}
	var b strings.Builder
	for _, st := range t.Stages {
		fmt.Fprintf(&b, "stage %s (roles: %s)\n", st.Name, strings.Join(st.Roles, ", "))
		if len(st.Routes) == 0 {
			b.WriteString("  no Kafka routes\n")
		}
		for _, rt := range st.Routes {
			fmt.Fprintf(&b, "  %-30s %-14s", rt.Label(), rt.Mode)
			if rt.Group != "" && rt.Group != rt.Label() {
				fmt.Fprintf(&b, " group %s", rt.Group)
			}
			if len(rt.Inputs) > 0 {
				fmt.Fprintf(&b, " reads %s", strings.Join(rt.Inputs, ", "))
			}
			if len(rt.Outputs) > 0 {
				fmt.Fprintf(&b, " writes %s", strings.Join(rt.Outputs, ", "))
			}
			if rt.DeadLetter != "" {
				fmt.Fprintf(&b, " dead letters %s", rt.DeadLetter)
			}
			b.WriteString("\n")
		}
	}
	for _, tp := range t.Topics {
		fmt.Fprintf(&b, "topic %s\n", tp.Name)
		for _, l := range []struct {
			what string
			who  []string
		}{{"written by", tp.Writers}, {"read by", tp.Readers}, {"dead letters of", tp.DeadLetters}} {
			if len(l.who) > 0 {
				fmt.Fprintf(&b, "  %-16s%s\n", l.what, strings.Join(l.who, ", "))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// topologyTable is the topology as docs/architecture.md shows it (and
// TestArchitectureDocShowsTheTopology holds it to): one row per route,
// topics by their short name (`[events]` for contrack.events.v1).
func topologyTable() string {
	var b strings.Builder
	b.WriteString("| stage | route | mode | group | reads | writes | dead letters |\n|---|---|---|---|---|---|---|\n")
	for _, st := range buildTopology().Stages {
		if len(st.Routes) == 0 {
			fmt.Fprintf(&b, "| `%s` | | | | | | |\n", st.Name)
		}
		for _, rt := range st.Routes {
			fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s | %s | %s |\n", st.Name, rt.Label(), rt.Mode, code(rt.Group),
				shortTopics(rt.Inputs), shortTopics(rt.Outputs), shortTopics(nonEmpty(rt.DeadLetter)))
		}
	}
	return b.String()
}

func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// shortTopics names topics as the architecture's diagrams do: `[events]`
// for contrack.events.v1.
func shortTopics(topics []string) string {
	out := make([]string, len(topics))
	for i, t := range topics {
		short := strings.TrimPrefix(t, "contrack.")
		if i := strings.LastIndex(short, ".v"); i > 0 {
			short = short[:i]
		}
		out[i] = "`[" + short + "]`"
	}
	return strings.Join(out, ", ")
}
