// Package delivery pushes events to consumers' webhooks: the spec's
// "Outbound: webhook delivery".
//
// Fan-out: a consumer group on the events topic queues every event record
// for each OPEN subscription of its tracking whose account has a configured
// and activated webhook, in Postgres, in one transaction per record, before
// the record's offset is committed (kafka.Consume). Every version of an
// event is queued, a return to an earlier content included, while a
// redelivered record or an unchanged re-emission is queued once (queueRepeat).
//
// Delivery: events queued for a subscription are batched (Config.MaxBatchEvents,
// MaxBatchBytes) into one delivery, whose body {"references", "events"} is
// fixed when it is made and signed on every attempt (X-Hook-Signature and the
// Standard Webhooks headers; webhook-id is the delivery id, the same on every
// attempt). A subscription's next delivery is made only when the previous
// one is DELIVERED (2xx) or DEAD, so events arrive in order. Failed attempts
// are retried on Config.Schedule with jitter, honouring Retry-After; after
// the last, the delivery is DEAD: kept in Postgres, published on the
// delivery dead-letter topic, replayable (deliveries.Replay, POST
// /webhook/deliveries/{id}/retry). A 410 deactivates the webhook: its
// deliveries wait until it is activated again.
//
// Sending: workers claim due deliveries (FOR UPDATE SKIP LOCKED, with a
// lease, so several instances share the work) at most EndpointConcurrency
// per endpoint, each endpoint behind its own circuit breaker; an endpoint
// whose breaker is open is passed over and its deliveries wait without
// spending attempts. Every attempt is logged to ClickHouse (delivery_attempts).
//
// Delivery is at least once: a crash after a POST and before its outcome is
// recorded sends the same delivery (same body, same webhook-id) again.
package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sync/errgroup"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/webhooktarget"
	"github.com/contrack/contrack/schemas"
)

// TypeDeadDelivery is the type header of a record on the delivery
// dead-letter topic made from a DEAD delivery (records of the events topic
// that cannot be decoded are dead-lettered there too, with their own type).
const TypeDeadDelivery = "delivery.dead"

// Deps are the stage's connections.
type Deps struct {
	Brokers []string
	// Namespace prefixes the Kafka topics and groups of this deployment
	// (CONTRACK_KAFKA_NAMESPACE); empty: the names as they are.
	Namespace schemas.Namespace
	Pool      *pgxpool.Pool
	// Box opens webhook secrets (sealed under "<account_id>/webhook-secret").
	Box *secretbox.Box
	// CH receives the attempt log; nil logs no attempts (tests only).
	CH  driver.Conn
	Log *slog.Logger
	// Now defaults to time.Now.
	Now func() time.Time
	// HTTPClient sends deliveries; nil builds webhooktarget.NewClient(cfg.AllowPrivate,
	// cfg.Timeout), which re-checks resolved addresses at dial time. Redirects
	// are never followed, whichever client.
	HTTPClient *http.Client
	// Registry is the process's metrics registry, served on its admin
	// listener; Run registers the stage's collectors on it. Nil: a registry
	// of their own, served nowhere.
	Registry *prometheus.Registry
	// Metrics, if set, are used instead of registering new ones (tests read them).
	Metrics *Metrics
	// Loops, if set, supervises the stage's loops (the role's): the
	// consumer, the claim loop, the outcome writer, housekeeping,
	// heartbeats and the attempt log each count their failures, and a run
	// of failures of any turns /readyz red until it succeeds again.
	Loops *loop.Supervisor
	// Router is the process's stream runtime, which runs Routes; nil: a
	// router of the stage's own over Brokers and Namespace (tests).
	Router *kafka.Router
}

// ConsumerRoute is the stage's consumer of events and alerts: per record,
// the records of an event or alert the stage cannot decode (and the DEAD
// deliveries) on the delivery dead-letter topic.
var ConsumerRoute = kafka.Route{Name: "delivery", Mode: kafka.ModeRecord, Group: schemas.GroupDelivery,
	Inputs: []string{schemas.TopicEvents, schemas.TopicAlerts}, DeadLetter: schemas.TopicDeliveryDeadLetters}

// Routes are the stage's routes, registered with the process's router.
var Routes = []kafka.Route{ConsumerRoute}

// Run delivers until ctx ends and returns nil on a clean shutdown: it stops
// claiming, lets attempts in flight finish within Config.ShutdownGrace (the
// rest are abandoned unrecorded and sent again after a restart), records
// their outcomes, finishes the event records in hand and commits their
// offsets, and flushes the attempt log.
func Run(ctx context.Context, cfg Config, deps Deps) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg, deps = cfg.WithDefaults(), deps.withDefaults()
	if deps.Pool == nil || deps.Box == nil || len(deps.Brokers) == 0 {
		return errors.New("delivery: Deps.Pool, Deps.Box and Deps.Brokers are required")
	}
	log := deps.Log.With("stage", "delivery")
	deps.Router = kafka.RouterOr(deps.Router, kafka.RouterConfig{Brokers: deps.Brokers, Namespace: deps.Namespace, Log: log,
		Metrics: deps.Metrics.Stream, Loops: deps.Loops})
	producer, err := deps.Router.Client(log)
	if err != nil {
		return err
	}
	defer producer.Close()
	s := newStage(cfg, deps, log, producer)
	// The first beat registers the instance; a store that does not answer
	// yet is waited for (counted), not a reason to stop the process.
	if err := s.beats.Do(ctx, func(ctx context.Context) error { return s.store.heartbeat(ctx, s.started, s.started) }); err != nil {
		if ctx.Err() != nil {
			return nil // stopped while starting: a clean shutdown
		}
		return err
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	r := s.start(ctx, deps)
	// A failed loop (the consumer) or the caller's cancel stops the stage.
	<-r.gctx.Done()
	stop()
	return s.shutdown(r)
}

// withDefaults fills the clock, the logger and the metrics.
func (deps Deps) withDefaults() Deps {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Log == nil {
		deps.Log = slog.Default()
	}
	switch {
	case deps.Metrics != nil:
	case deps.Registry != nil:
		deps.Metrics = RegisterMetrics(deps.Registry)
	default:
		deps.Metrics = NewMetrics()
	}
	return deps
}

// newStage builds the stage's parts: the store, the dispatcher with its
// sender (the HTTP client, never following redirects), the attempt log
// when there is a ClickHouse connection, and the queue writer.
func newStage(cfg Config, deps Deps, log *slog.Logger, producer *kgo.Client) *stage {
	st := &store{pool: deps.Pool, cfg: cfg, instance: uuid.New()}
	d := &dispatcher{
		cfg: cfg, store: st, box: deps.Box, log: log, metrics: deps.Metrics, now: deps.Now, rnd: rand.Float64,
		sender: &sender{
			client: webhookClient(cfg, deps.HTTPClient), timeout: cfg.Timeout, userAgent: "contrack-webhooks/" + cfg.Version,
			limit: cfg.ResponseLimit, now: deps.Now,
		},
		claiming:  deps.Loops.Loop("delivery-claim", log),
		recording: deps.Loops.Loop("delivery-record", log),
		results:   make(chan outcome, cfg.Workers),
		poke:      make(chan struct{}, 1),
		dlqPoke:   make(chan struct{}, 1),
		endpoints: map[string]*endpoint{},
		byAccount: map[string]*endpoint{},
	}
	if deps.CH != nil {
		d.alog = newAttemptLog(deps.CH, cfg, log, deps.Metrics)
		d.alog.now = deps.Now
		d.alog.writing = deps.Loops.Loop("delivery-attempt-log", log)
		d.alog.loops = deps.Loops
	} else {
		log.Warn("no clickhouse connection: delivery attempts are not logged")
	}
	return &stage{cfg: cfg, log: log, store: st, d: d, producer: producer, ns: deps.Namespace, now: deps.Now,
		started:     deps.Now(),
		queue:       newQueueWriter(st, d, log, deps.Now),
		housekeeper: deps.Loops.Loop("delivery-housekeeping", log),
		beats:       deps.Loops.Loop("delivery-heartbeat", log)}
}

// webhookClient is the client deliveries are sent with: client (nil:
// webhooktarget's, which re-checks resolved addresses at dial time), never
// following redirects, keeping a connection per concurrent delivery to an
// endpoint alive.
func webhookClient(cfg Config, client *http.Client) *http.Client {
	if client == nil {
		client = webhooktarget.NewClient(cfg.AllowPrivate, cfg.Timeout)
	}
	noRedirects := *client
	noRedirects.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if t, ok := noRedirects.Transport.(*http.Transport); ok && t.MaxIdleConnsPerHost < cfg.EndpointConcurrency {
		t = t.Clone()
		t.MaxIdleConnsPerHost = cfg.EndpointConcurrency
		noRedirects.Transport = t
	}
	return &noRedirects
}

// running are the stage's loops once started: their errgroup, and what
// shutdown waits for and stops, in its order.
type running struct {
	loops *errgroup.Group
	gctx  context.Context
	bg    context.Context // ctx without its cancel: the shutdown's own work
	// Closed when each loop has returned.
	recorded, claiming, housekept, logged, queueDone, consumed chan struct{}
	// Stop the loops that outlive ctx.
	stopRec, abandon, stopBeat context.CancelFunc
	stopQueue                  chan struct{}
}

// start runs every loop of the stage in one errgroup. The event consumer
// is the one that fails for good: its error cancels gctx, which stops the
// stage, and is what Run returns. The other loops recover by themselves,
// so they return nil: each counts a failed database or ClickHouse call as
// its loop's failure (platform/loop: /readyz red after a run of them) and
// tries again, waiting in a way that honours its context — claimLoop and
// complete after the loop's backoff, housekeeping and heartbeats at their
// next tick (a missed beat lets another instance take this one's leases,
// which is safe), the attempt log keeps its rows for the next flush, and
// the queue writer hands each failure to its handler, whose record the
// consumer retries.
func (s *stage) start(ctx context.Context, deps Deps) *running {
	d := s.d
	r := &running{bg: context.WithoutCancel(ctx), stopQueue: make(chan struct{}),
		recorded: make(chan struct{}), claiming: make(chan struct{}), housekept: make(chan struct{}),
		logged: make(chan struct{}), queueDone: make(chan struct{}), consumed: make(chan struct{})}
	r.loops, r.gctx = errgroup.WithContext(ctx)
	gctx := r.gctx

	// Outcomes are recorded after ctx ends too, within a bound.
	var recCtx, sendCtx, beatCtx context.Context
	recCtx, r.stopRec = context.WithCancel(r.bg)
	r.loops.Go(func() error { defer close(r.recorded); d.complete(recCtx); return nil })

	sendCtx, r.abandon = context.WithCancel(r.bg)
	d.sendCtx, d.accepting = sendCtx, true
	r.loops.Go(func() error { defer close(r.claiming); d.claimLoop(gctx); return nil })

	r.loops.Go(func() error { defer close(r.housekept); s.housekeeping(gctx, deps.Loops); return nil })

	// Heartbeats last until the leases are settled (after ctx ends).
	beatCtx, r.stopBeat = context.WithCancel(r.bg)
	r.loops.Go(func() error { s.heartbeats(beatCtx, deps.Loops, s.started); return nil })

	if d.alog != nil {
		r.loops.Go(func() error {
			defer close(r.logged)
			d.alog.run(gctx, func() (context.Context, context.CancelFunc) { return context.WithTimeout(r.bg, 10*time.Second) })
			return nil
		})
	} else {
		close(r.logged)
	}

	r.loops.Go(func() error { defer close(r.queueDone); s.queue.run(r.bg, r.stopQueue); return nil })
	r.loops.Go(func() error {
		defer close(r.consumed)
		err := deps.Router.Consume(gctx, ConsumerRoute, kafka.ConsumerConfig{
			Log: s.log,
			// The normaliser writes in transactions: an aborted one's events
			// (emitted again by its retry) are never pushed.
			Opts: []kgo.Opt{kgo.FetchIsolationLevel(kgo.ReadCommitted())},
			// Records of different trackings share the queue writer's
			// transactions; a tracking's own stay in order, those that
			// waited behind one in a transaction going together.
			KeyConcurrency: maxGroup, Runs: s.handleRun,
		}, s.handle)
		if err == nil && gctx.Err() == nil {
			err = errors.New("delivery: consumer stopped")
		}
		return err
	})
	return r
}

// shutdown stops the started loops in order once gctx has ended: claiming
// stops, attempts in flight finish within ShutdownGrace (the rest are
// abandoned), their outcomes are recorded, the dead letters of the
// shutdown published, the consumer's records in hand finished, the
// attempt log flushed; then the instance retires and the dead-letter
// producer is flushed. It returns the consumer's failure, if any.
func (s *stage) shutdown(r *running) error {
	defer r.stopRec()
	defer r.abandon()
	defer r.stopBeat()
	s.log.Info("delivery stopping")
	<-r.claiming
	s.d.stopSending()
	inFlight := make(chan struct{})
	go func() { s.d.sends.Wait(); close(inFlight) }()
	// Shutdown budgets are real time whatever Deps.Now says: they bound how
	// long the process waits.
	select {
	case <-inFlight:
	case <-time.After(s.cfg.ShutdownGrace):
		s.log.Warn("abandoning attempts still in flight; they are sent again after a restart")
		r.abandon()
		<-inFlight
	}
	close(s.d.results)
	select {
	case <-r.recorded:
	case <-time.After(15 * time.Second):
		r.stopRec()
		<-r.recorded
	}
	<-r.housekept
	// Dead letters recorded during shutdown: one last publish.
	pctx, cancel := context.WithTimeout(r.bg, 5*time.Second)
	if err := s.publishDead(pctx); err != nil {
		s.housekeeper.Report(err)
		s.log.Error("dead letters not published at shutdown; published by the next start", "err", err)
	}
	cancel()
	<-r.consumed
	close(r.stopQueue) // the handlers are done
	<-r.queueDone
	<-r.logged
	r.stopBeat()
	runErr := r.loops.Wait() // every loop has returned: the consumer's failure, if any
	// Its leases are settled: nothing of this instance is left to wait for.
	rctx, cancel := context.WithTimeout(r.bg, 5*time.Second)
	if err := s.store.retire(rctx); err != nil {
		s.log.Warn("delivery instance not retired; it is forgotten after a day", "err", err)
	}
	cancel()
	fctx, cancel := context.WithTimeout(r.bg, 5*time.Second)
	if err := s.producer.Flush(fctx); err != nil {
		s.log.Error("dead-letter producer not flushed at shutdown; the deliveries are published again by the next start", "err", err)
	}
	cancel()
	s.log.Info("delivery stopped")
	return runErr
}

// stage is the running stage: the event consumer and the housekeeping.
type stage struct {
	cfg      Config
	log      *slog.Logger
	store    *store
	d        *dispatcher
	producer *kgo.Client
	ns       schemas.Namespace // of the dead-letter topic producer writes
	queue    *queueWriter
	now      func() time.Time
	// started is when the instance started (its first heartbeat's).
	started time.Time
	// housekeeper and beats supervise housekeeping and heartbeats.
	housekeeper, beats *loop.Loop
}

// housekeeping publishes dead letters, sweeps, prunes and refreshes the
// queue gauges until ctx ends: the component "delivery-housekeeping",
// whose failed rounds are counted and logged, retried at the next tick.
func (s *stage) housekeeping(ctx context.Context, loops *loop.Supervisor) {
	// Intervals are real time (the component's ticks); what is due, and
	// prune's cadence, follow the injected clock.
	var pruned time.Time
	logged := func(f func(context.Context) error) func(context.Context) error {
		return func(ctx context.Context) error {
			err := f(ctx)
			if err != nil && ctx.Err() == nil {
				s.log.Error("delivery housekeeping failed; retried at the next tick", "err", err)
			}
			return err
		}
	}
	sweep := func(ctx context.Context) error {
		opened, err := s.store.sweep(ctx, s.now())
		if err != nil {
			err = fmt.Errorf("sweep queued events: %w", err)
		} else if opened {
			s.log.Info("opened deliveries for events left queued")
			signal(s.d.poke)
		}
		err = errors.Join(err, s.publishDead(ctx))
		if now := s.now(); err == nil && now.Sub(pruned) > time.Hour {
			pruned = now
			err = s.prune(ctx)
		}
		return err
	}
	_ = loops.Run(ctx, loop.Component{Name: "delivery-housekeeping", Log: s.log, Rounds: []loop.Round{
		{AtStart: true, Every: s.cfg.MetricsInterval, Do: logged(s.refreshGauges)},
		{Wake: s.d.dlqPoke, Do: logged(s.publishDead)},
		{Every: s.cfg.SweepInterval, Do: logged(sweep)},
	}}) // its rounds' errors are never unrecoverable: it returns when ctx ends
}

// prune deletes what is past its retention, a batch at a time.
func (s *stage) prune(ctx context.Context) error {
	total := 0
	defer func() {
		if total > 0 {
			s.log.Info("pruned deliveries past retention", "count", total)
		}
	}()
	for ctx.Err() == nil {
		n, err := s.store.prune(ctx, s.now())
		if err != nil {
			return fmt.Errorf("prune deliveries: %w", err)
		}
		total += n
		if n < pruneBatch {
			break
		}
	}
	return nil
}

func (s *stage) refreshGauges(ctx context.Context) error {
	pending, failed, queued, err := s.store.depth(ctx)
	if err != nil {
		return fmt.Errorf("refresh queue depth: %w", err)
	}
	s.d.metrics.queueDepth.WithLabelValues("pending").Set(float64(pending))
	s.d.metrics.queueDepth.WithLabelValues("failed").Set(float64(failed))
	s.d.metrics.queueDepth.WithLabelValues("queued_events").Set(float64(queued))
	return nil
}

// publishDead publishes DEAD deliveries not yet on the dead-letter topic and
// marks them. A crash between the two publishes again: consumers dedupe by
// the id header (delivery id and replay count). What fails is published at
// the next sweep.
func (s *stage) publishDead(ctx context.Context) error {
	for ctx.Err() == nil {
		dead, err := s.store.unpublishedDead(ctx, 100)
		if err != nil {
			return fmt.Errorf("read dead letters: %w", err)
		}
		if len(dead) == 0 {
			return nil
		}
		recs := make([]*kgo.Record, len(dead))
		ids := make([]string, len(dead))
		for i, dl := range dead {
			v, err := json.Marshal(dl)
			if err != nil {
				return fmt.Errorf("encode dead letter %s: %w", dl.ID, err)
			}
			reason := fmt.Sprintf("%d attempts failed", dl.Attempts)
			if dl.LastError != "" {
				reason += "; last: " + dl.LastError
			}
			recs[i] = &kgo.Record{Topic: s.ns.Topic(schemas.TopicDeliveryDeadLetters), Key: []byte(dl.SubscriptionID), Value: v, Headers: schemas.Headers{
				Type: TypeDeadDelivery, ID: dl.ID + "/" + strconv.Itoa(dl.Replays), Account: dl.AccountID,
				DeadLetter: &schemas.DeadLetter{Reason: reason, Stage: "delivery", Offset: -1},
			}.Kafka()}
			ids[i] = dl.ID
		}
		if err := kafka.ProduceSync(ctx, s.producer, recs...); err != nil {
			return fmt.Errorf("publish dead letters: %w", err)
		}
		if err := s.store.markPublished(ctx, ids, s.now()); err != nil {
			return fmt.Errorf("mark dead letters published: %w", err)
		}
	}
	return nil
}

// heartbeats keeps this instance alive in Postgres every Heartbeat until ctx
// ends (the component "delivery-heartbeat"). A missed beat is reported;
// after InstanceTimeout without one, other processes may take over this
// one's leases.
func (s *stage) heartbeats(ctx context.Context, loops *loop.Supervisor, started time.Time) {
	// Beats are paced in real time; their stamps are the injected clock's,
	// as are the liveness checks that read them (claim).
	_ = loops.Run(ctx, loop.Component{Name: "delivery-heartbeat", Log: s.log, Rounds: []loop.Round{
		{Every: s.cfg.Heartbeat, Do: func(ctx context.Context) error {
			err := s.store.heartbeat(ctx, started, s.now())
			if err != nil && ctx.Err() == nil {
				s.log.Warn("delivery heartbeat failed; another instance may take over this one's deliveries", "err", err)
			}
			return err
		}},
	}}) // its rounds' errors are never unrecoverable: it returns when ctx ends
}
