// Package roles is the table of contrack's roles: each long-running command
// of the binary (`contrack api`, `contrack feed`, …), the stages it runs and
// what it needs. cmd/contrack derives its command switch, its usage text,
// what each role is given (the secret key, tracing, the collector's
// settings) and `contrack all` from it; `contrack roles` prints it as JSON;
// the deployment files (deploy/) and `e2e -topology scale` are tested
// against it, so a role added here and forgotten there fails a test.
//
// The package holds data only and imports nothing of the repository:
// deploy's tests and the e2e tool read it without wiring a stage.
package roles

import "slices"

// The stages a role may run. The pipeline's stages are named as
// cmd/contrack's pipeline() names them; API, Sandbox and Broker are the
// listeners around them.
const (
	StageAPI                   = "api" // the HTTP API (queryapi, commandapi, POST /events) on CONTRACK_HTTP_ADDR
	StageOutboxRelay           = "outbox-relay"
	StageSubscriptionLifecycle = "subscription-lifecycle"
	StagePoller                = "poller"
	StageNormalize             = "normalize"
	StageDelivery              = "delivery"
	StageProjector             = "projector"
	StageFeed                  = "feed"
	StageVessels               = "vessels"
	StageAlerts                = "alerts"
	StageSandbox               = "sandbox" // the sandbox carriers on CONTRACK_SANDBOX_ADDR
	StageBroker                = "broker"  // the embedded single-node Kafka broker
)

// The stores a role connects to.
const (
	Postgres   = "postgres"
	ClickHouse = "clickhouse"
	Kafka      = "kafka"
)

// The addresses a role listens on, by the variable that sets each.
const (
	ListenHTTP    = "CONTRACK_HTTP_ADDR"
	ListenAdmin   = "CONTRACK_ADMIN_ADDR"
	ListenSandbox = "CONTRACK_SANDBOX_ADDR"
	ListenKafka   = "CONTRACK_EMBEDDED_KAFKA_ADDR"
)

// AllName is the role that runs every deployed role's stages in one process.
const AllName = "all"

// Role is one row of the table.
type Role struct {
	Name string `json:"name"`
	// Description is the role's line in `contrack help`.
	Description string `json:"description"`
	// Stages are what the role runs, in start order.
	Stages []string `json:"stages"`
	// SecretKey: the role seals, opens or signs secrets (every role that
	// opens the stores does: their connections carry the secret box), so
	// without CONTRACK_SECRET_KEY it gets the key generated once into the
	// data directory.
	SecretKey bool `json:"secretKey"`
	// Tracing: the role installs the OpenTelemetry provider
	// (OTEL_EXPORTER_OTLP_ENDPOINT; service contrack-<role>).
	Tracing bool `json:"tracing"`
	// Collector: the role sets Go's collector at start (GOGC, GOMEMLIMIT).
	Collector bool `json:"collector"`
	// Stores are the stores it connects to (and migrates, at start).
	Stores []string `json:"stores"`
	// Listeners are the addresses it listens on, by variable.
	Listeners []string `json:"listeners"`
	// Probe is the listener that health checks ask: the admin listener's
	// /readyz, or the sandbox carriers' port (any answer means up).
	Probe string `json:"probe"`
	// Replicas is how many processes of it a deployment runs: 2 for a role
	// whose processes share the work (consumer groups, row claims, advisory
	// locks), 1 for a role of which one process at a time does the work.
	Replicas int `json:"replicas"`
	// Deployed: the role is its own service in a split deployment
	// (deploy/docker-compose.yml, deploy/k8s, `e2e -topology scale`) and
	// part of `contrack all`. The broker is not: it is development's Kafka.
	Deployed bool `json:"deployed"`
}

// stores are what every role that opens the process's connections uses:
// openInfra connects to all three and migrates Postgres and ClickHouse.
var stores = []string{Postgres, ClickHouse, Kafka}

// stageRole is a role that runs pipeline stages over the stores, with the
// admin listener beside them.
func stageRole(name, description string, replicas int, stages ...string) Role {
	return Role{Name: name, Description: description, Stages: stages, SecretKey: true, Tracing: true, Collector: true,
		Stores: stores, Listeners: []string{ListenAdmin}, Probe: ListenAdmin, Replicas: replicas, Deployed: true}
}

// table is every role, in the order of `contrack help`.
var table = []Role{
	{Name: "api", Description: "run the HTTP API only",
		Stages:    []string{StageOutboxRelay, StageSubscriptionLifecycle, StageAPI},
		SecretKey: true, Tracing: true, Collector: true, Stores: stores,
		Listeners: []string{ListenHTTP, ListenAdmin}, Probe: ListenAdmin, Replicas: 2, Deployed: true},
	stageRole("normalize", "run the normaliser only (carrier-raw → DCSA 2.0.2 events)", 2, StageNormalize),
	stageRole("delivery", "run webhook delivery only", 2, StageDelivery),
	stageRole("projector", "run the ClickHouse projector only (poll attempts, events, journeys)", 2, StageProjector),
	stageRole("feed", "run the account event feed writer only (GET /subscriptions/events)", 2, StageFeed),
	// One simulator and one provider client: a second process would
	// report every ship twice and ask the provider (which charges per
	// request) twice.
	stageRole("vessels", "run the vessel positions stage only (sandbox ships, the live position provider)", 1, StageVessels),
	// An alert is recorded after it is published: two sweeping at once
	// could both publish it.
	stageRole("alerts", "run the alerts stage only (last free day alerts, demurrage figures)", 1, StageAlerts),
	stageRole("poller", "run the carrier poller only", 2, StagePoller),
	{Name: "sandbox", Description: "serve the sandbox carriers only (CONTRACK_SANDBOX_ADDR)",
		Stages: []string{StageSandbox}, Tracing: true, Collector: true,
		Listeners: []string{ListenSandbox, ListenAdmin}, Probe: ListenSandbox, Replicas: 2, Deployed: true},
	{Name: "broker", Description: "run the embedded single-node Kafka broker alone (development only)",
		Stages: []string{StageBroker}, Collector: true,
		Listeners: []string{ListenKafka}, Probe: ListenKafka, Replicas: 1},
}

// Table returns every role but all, in the order of `contrack help`.
func Table() []Role {
	out := make([]Role, len(table))
	for i, r := range table {
		out[i] = r.clone()
	}
	return out
}

// Deployed returns the roles a split deployment runs, each as its own
// service.
func Deployed() []Role {
	var out []Role
	for _, r := range table {
		if r.Deployed {
			out = append(out, r.clone())
		}
	}
	return out
}

// All is the role `contrack all`: the union of the deployed roles — their
// stages, needs, stores and listeners — in one process, with the embedded
// broker when KAFKA_BROKERS is unset.
func All() Role {
	all := Role{Name: AllName, Description: "run every stage in one process (embedded Kafka unless KAFKA_BROKERS is set)",
		Probe: ListenAdmin, Replicas: 1}
	for _, r := range table {
		if !r.Deployed {
			continue
		}
		all.Stages = union(all.Stages, r.Stages)
		all.Stores = union(all.Stores, r.Stores)
		all.Listeners = union(all.Listeners, r.Listeners)
		all.SecretKey = all.SecretKey || r.SecretKey
		all.Tracing = all.Tracing || r.Tracing
		all.Collector = all.Collector || r.Collector
	}
	return all
}

// Lookup returns the role called name: a row of the table, or all.
func Lookup(name string) (Role, bool) {
	if name == AllName {
		return All(), true
	}
	for _, r := range table {
		if r.Name == name {
			return r.clone(), true
		}
	}
	return Role{}, false
}

// Runs reports whether the role runs the stage.
func (r Role) Runs(stage string) bool { return slices.Contains(r.Stages, stage) }

// Uses reports whether the role connects to the store.
func (r Role) Uses(store string) bool { return slices.Contains(r.Stores, store) }

// Listens reports whether the role listens on the address set by variable.
func (r Role) Listens(variable string) bool { return slices.Contains(r.Listeners, variable) }

func (r Role) clone() Role {
	r.Stages = slices.Clone(r.Stages)
	r.Stores = slices.Clone(r.Stores)
	r.Listeners = slices.Clone(r.Listeners)
	return r
}

// union appends to a the elements of b it lacks, in b's order.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}
