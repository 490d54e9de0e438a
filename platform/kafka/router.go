package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/schemas"
)

// Mode is how a route's handler consumes its inputs: one of the runtime's
// four consume modes, or Produce for a stage that only writes.
type Mode string

const (
	// ModeRecord is Consume: per record, at least once.
	ModeRecord Mode = "per-record"
	// ModeBatch is ConsumeBatches: batches committed after the handler.
	ModeBatch Mode = "batch"
	// ModeTransactional is ConsumeTransactional: exactly once inside Kafka.
	ModeTransactional Mode = "transactional"
	// ModeFollow is Follow: a table read without commits.
	ModeFollow Mode = "follow"
	// ModeProduce is a stage that writes topics and consumes none (through
	// the router's producer or its own client).
	ModeProduce Mode = "produce"
)

// Route declares one handler of a stage: its mode, the consumer group, the
// topics it reads and writes and its dead-letter topic, all logical names
// (schemas.TopicX, schemas.GroupX) that the router turns into the
// deployment's with its namespace. A stage declares its routes as data (a
// package variable), registers them with the process's router and runs
// each through the router's method of its mode: what `contrack topology`
// prints is what runs.
type Route struct {
	// Name labels the consumer in logs, metrics, loops (/readyz) and the
	// dlq-stage header. Empty: the consumer group's name on the cluster
	// (as the modes default it).
	Name string `json:"name,omitempty"`
	Mode Mode   `json:"mode"`
	// Group is the logical consumer group (empty: a follower of every
	// partition, or a producer).
	Group string `json:"group,omitempty"`
	// Inputs are the topics the handler reads.
	Inputs []string `json:"reads,omitempty"`
	// Outputs are the topics the handler (or the stage beside it) writes,
	// its dead-letter topic excluded.
	Outputs []string `json:"writes,omitempty"`
	// DeadLetter is the topic of the records the handler refuses (empty:
	// refused records are logged and counted as skipped).
	DeadLetter string `json:"deadLetter,omitempty"`
}

// Label is the route's name for the topology: Name, or its group.
func (rt Route) Label() string {
	if rt.Name != "" {
		return rt.Name
	}
	return rt.Group
}

// same reports whether rt declares what o does (the group may carry a
// suffix at run time: the projector's journeys generation).
func (rt Route) same(o Route) bool {
	return rt.Name == o.Name && rt.Mode == o.Mode && slices.Equal(rt.Inputs, o.Inputs) &&
		slices.Equal(rt.Outputs, o.Outputs) && rt.DeadLetter == o.DeadLetter
}

// Registered is a route with the stage that registered it.
type Registered struct {
	Stage string `json:"stage"`
	Route
}

// RouterConfig configures a Router.
type RouterConfig struct {
	Brokers []string
	// Namespace prefixes every topic, group and transactional id.
	Namespace schemas.Namespace
	// Log is the process's logger: the default of every route's.
	Log *slog.Logger
	// Metrics counts every route's records (the role's registry; nil:
	// nothing counted).
	Metrics *Metrics
	// Loops supervises every route's fetches, handling and offset commits
	// (the role's; nil: logged only).
	Loops *loop.Supervisor
	// Middleware wraps every per-record route's handler, after Recover and
	// Trace and before the route's own.
	Middleware []Middleware
}

// Router is the process's stream runtime: the stages register their routes
// with it and run each through it. It owns what the routes share — the
// brokers and the client options every client gets (clientOpts), the
// namespace, the logger, the metrics, the supervision of fetches, handling
// and commits, the dead-letter topic's name — and the process's producer
// client. Its methods are safe for concurrent use.
type Router struct {
	cfg RouterConfig

	mu         sync.Mutex
	registered []Registered
	running    map[string]int
	producer   *kgo.Client
}

// NewRouter returns a router for cfg.
func NewRouter(cfg RouterConfig) *Router {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Router{cfg: cfg, running: map[string]int{}}
}

// Namespace is the router's namespace.
func (r *Router) Namespace() schemas.Namespace { return r.cfg.Namespace }

// Register adds a stage's routes to the router's topology. A route name
// registered twice is an error (its metrics and loops would be shared).
func (r *Router) Register(stage string, routes ...Route) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rt := range routes {
		if err := rt.validate(); err != nil {
			return fmt.Errorf("kafka: stage %s: %w", stage, err)
		}
		for _, o := range r.registered {
			if o.Label() == rt.Label() && o.Mode != ModeProduce {
				return fmt.Errorf("kafka: route %s registered twice (stages %s and %s)", rt.Label(), o.Stage, stage)
			}
		}
		r.registered = append(r.registered, Registered{Stage: stage, Route: rt})
	}
	return nil
}

// Routes returns the registered routes, in registration order.
func (r *Router) Routes() []Registered {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.registered)
}

// Running reports how many runs of the route called name are under way.
func (r *Router) Running(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running[name]
}

func (rt Route) validate() error {
	var errs []error
	switch rt.Mode {
	case ModeRecord, ModeBatch, ModeTransactional:
		if rt.Group == "" {
			errs = append(errs, fmt.Errorf("route %s: mode %s needs a consumer group", rt.Label(), rt.Mode))
		}
		fallthrough
	case ModeFollow:
		if len(rt.Inputs) == 0 {
			errs = append(errs, fmt.Errorf("route %s: mode %s reads no topic", rt.Label(), rt.Mode))
		}
	case ModeProduce:
		if len(rt.Outputs) == 0 {
			errs = append(errs, fmt.Errorf("route %s: a producer writes no topic", rt.Label()))
		}
	default:
		errs = append(errs, fmt.Errorf("route %s: unknown mode %q", rt.Label(), rt.Mode))
	}
	if rt.Label() == "" {
		errs = append(errs, errors.New("route without a name or group"))
	}
	return errors.Join(errs...)
}

// start checks rt against its mode and its registration, and counts it
// running until the returned func is called.
func (r *Router) start(rt Route, mode Mode) (func(), error) {
	if rt.Mode != mode {
		return nil, fmt.Errorf("kafka: route %s is declared %s, run as %s", rt.Label(), rt.Mode, mode)
	}
	if err := rt.validate(); err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range r.registered {
		if o.Label() == rt.Label() && !o.same(rt) {
			return nil, fmt.Errorf("kafka: route %s runs other topics than the stage %s registered", rt.Label(), o.Stage)
		}
	}
	r.running[rt.Label()]++
	return func() {
		r.mu.Lock()
		r.running[rt.Label()]--
		r.mu.Unlock()
	}, nil
}

func (r *Router) deadLetter(rt Route) string {
	if rt.DeadLetter == "" {
		return ""
	}
	return r.cfg.Namespace.Topic(rt.DeadLetter)
}

// Consume runs a per-record route (ModeRecord) until ctx ends: Consume
// with the route's group, topics and dead-letter topic and the router's
// brokers, metrics, loops and middleware. cfg carries the mode's own
// settings (KeyConcurrency, Runs, Retry, Opts, a Log of the stage's).
func (r *Router) Consume(ctx context.Context, rt Route, cfg ConsumerConfig, h Handler) error {
	done, err := r.start(rt, ModeRecord)
	if err != nil {
		return err
	}
	defer done()
	cfg.Brokers, cfg.Group, cfg.Topics = r.cfg.Brokers, r.cfg.Namespace.Group(rt.Group), r.cfg.Namespace.Topics(rt.Inputs...)
	cfg.Name, cfg.DeadLetterTopic = rt.Name, r.deadLetter(rt)
	cfg.Log = r.logOr(cfg.Log)
	cfg.Metrics, cfg.Loops = r.cfg.Metrics, r.cfg.Loops
	cfg.Middleware = append(slices.Clone(r.cfg.Middleware), cfg.Middleware...)
	return Consume(ctx, cfg, h)
}

// ConsumeBatches runs a batch route (ModeBatch): ConsumeBatches with the
// route's group, topics and dead-letter topic and the router's brokers,
// metrics and loops. cfg.Group, if set, replaces the route's logical group
// (a generation of it: the journeys projection's "-g<N>").
func (r *Router) ConsumeBatches(ctx context.Context, rt Route, cfg BatchConfig, h BatchHandler) error {
	done, err := r.start(rt, ModeBatch)
	if err != nil {
		return err
	}
	defer done()
	group := rt.Group
	if cfg.Group != "" {
		group = cfg.Group
	}
	cfg.Brokers, cfg.Group, cfg.Topics = r.cfg.Brokers, r.cfg.Namespace.Group(group), r.cfg.Namespace.Topics(rt.Inputs...)
	cfg.Name, cfg.DeadLetterTopic = rt.Name, r.deadLetter(rt)
	cfg.Log = r.logOr(cfg.Log)
	cfg.Metrics, cfg.Loops = r.cfg.Metrics, r.cfg.Loops
	return ConsumeBatches(ctx, cfg, h)
}

// ConsumeTransactional runs a transactional route (ModeTransactional):
// ConsumeTransactional with the route's group and topics, the router's
// brokers, metrics and loops, and cfg.TransactionalID in the router's
// namespace.
func (r *Router) ConsumeTransactional(ctx context.Context, rt Route, cfg TransactConfig, h TxHandler) error {
	done, err := r.start(rt, ModeTransactional)
	if err != nil {
		return err
	}
	defer done()
	cfg.Brokers, cfg.Group, cfg.Topics = r.cfg.Brokers, r.cfg.Namespace.Group(rt.Group), r.cfg.Namespace.Topics(rt.Inputs...)
	cfg.Name, cfg.TransactionalID = rt.Name, r.cfg.Namespace.TransactionalID(cfg.TransactionalID)
	cfg.Log = r.logOr(cfg.Log)
	cfg.Metrics, cfg.Loops = r.cfg.Metrics, r.cfg.Loops
	return ConsumeTransactional(ctx, cfg, h)
}

// Follow runs a follower route (ModeFollow): Follow of the route's topics
// (with its group, if it has one) and the router's brokers, metrics and
// loops.
func (r *Router) Follow(ctx context.Context, rt Route, cfg FollowConfig, h FollowHandler) error {
	done, err := r.start(rt, ModeFollow)
	if err != nil {
		return err
	}
	defer done()
	cfg.Brokers, cfg.Topics, cfg.Name = r.cfg.Brokers, r.cfg.Namespace.Topics(rt.Inputs...), rt.Name
	cfg.Group = ""
	if rt.Group != "" {
		cfg.Group = r.cfg.Namespace.Group(rt.Group)
	}
	cfg.Log = r.logOr(cfg.Log)
	cfg.Metrics, cfg.Loops = r.cfg.Metrics, r.cfg.Loops
	return Follow(ctx, cfg, h)
}

// Client returns a new client with the router's brokers and client options
// (and extra ones), logging through log (nil: the router's); the caller
// closes it.
func (r *Router) Client(log *slog.Logger, opts ...kgo.Opt) (*kgo.Client, error) {
	return NewClient(r.cfg.Brokers, r.logOr(log), opts...)
}

// Producer returns the process's producer client, made on first use and
// shared by every stage that only produces (POST /events, the poller, the
// outbox relay, vessels, alerts); the process flushes and closes it at
// exit.
func (r *Router) Producer() (*kgo.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.producer != nil {
		return r.producer, nil
	}
	cl, err := NewClient(r.cfg.Brokers, r.cfg.Log)
	if err != nil {
		return nil, err
	}
	r.producer = cl
	return cl, nil
}

func (r *Router) logOr(log *slog.Logger) *slog.Logger {
	if log != nil {
		return log
	}
	return r.cfg.Log
}

// RouterOr returns r, or, when r is nil (a stage run without a process
// around it: its tests), a router of its own for cfg.
func RouterOr(r *Router, cfg RouterConfig) *Router {
	if r != nil {
		return r
	}
	return NewRouter(cfg)
}
