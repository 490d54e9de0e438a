// Command e2e is the ledger load test of the whole pipeline, through the
// public interface only: carriers push DCSA events to POST /events at an
// open-model rate, a subscriber's webhook verifies both signatures of every
// delivery, and the ledger balances what was acknowledged against what was
// delivered (missing, duplicates, order), with latency from each event's
// scheduled send to its receipt and the CPU each process and store used.
// It exits 1 when an acknowledged event is missing.
//
//	go run ./e2e -rate 500 -duration 20s                  # make e2e
//	go run ./e2e -rate 5000 -batch 10 -duration 60s
//	go run ./e2e -topology scale -kill api-1@10s+3s       # every role its own processes, one killed
//	go run ./e2e -topology scale -kill-each 8s+3s/6s      # the first process of every role killed in turn
//	go run ./e2e -kafka 127.0.0.1:9192,127.0.0.1:9193,127.0.0.1:9194 -kafka-fault leader@10s+10s
//	go run ./e2e -population 100000 -accounts 1000        # make e2e-population: polling a population
//
// It starts bin/contrack processes over fresh databases on the local
// Postgres and ClickHouse (deploy/services.sh) and drops them afterwards.
// With -kafka the processes use that Apache Kafka cluster (deploy/kafka.sh)
// in a fresh namespace, dropped afterwards, instead of the embedded broker.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/contrack/contrack/cmd/contrack/roles"
	"github.com/contrack/contrack/schemas/iso6346"
)

type faults []string

func (f *faults) String() string     { return strings.Join(*f, ",") }
func (f *faults) Set(v string) error { *f = append(*f, v); return nil }

type options struct {
	bin, pg, ch, topology string
	rate                  float64
	batch, containers     int
	workers, partitions   int
	duration, drain       time.Duration
	kills, downs, stores  faults
	killEach              string
	kafka                 string
	kafkaFaults           faults
	label                 string
	kafkaFloor            string
	keep                  bool
	timeline              time.Duration
	limits                time.Duration
	profile               string
	population            populationOptions
}

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "bin/contrack", "the contrack binary (make build)")
	flag.StringVar(&o.pg, "pg", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "Postgres server; a fresh database is created on it")
	flag.StringVar(&o.ch, "clickhouse", "127.0.0.1:9000", "ClickHouse server (native protocol); a fresh database is created on it")
	flag.StringVar(&o.topology, "topology", "all", "all: one `contrack all`; scale: `contrack broker` and every role of `contrack roles` as its own processes (two of each role of several replicas)")
	flag.Float64Var(&o.rate, "rate", 500, "events per second offered")
	flag.IntVar(&o.batch, "batch", 1, "events per POST /events (an array when > 1)")
	flag.IntVar(&o.containers, "containers", 200, "subscribed containers the events are spread over")
	flag.IntVar(&o.workers, "workers", 256, "concurrent requests at most")
	flag.IntVar(&o.partitions, "partitions", 6, "partitions of every topic")
	flag.DurationVar(&o.duration, "duration", 20*time.Second, "how long events are offered")
	flag.DurationVar(&o.drain, "drain", 3*time.Minute, "how long to wait after the load for the last deliveries")
	flag.Var(&o.kills, "kill", "NAME@AT+DOWN: SIGKILL process NAME (all, api-1, …) AT into the load, restart it DOWN later (repeatable)")
	flag.StringVar(&o.killEach, "kill-each", "", "AT+DOWN/EVERY with -topology scale: SIGKILL the first process of every role of the binary's role table in turn (api-1, …, vessels, alerts), the first AT into the load, the next EVERY later, each restarted DOWN after its kill")
	flag.Var(&o.stores, "store-down", "STORE@AT+DOWN: take postgres (crash-stop) or clickhouse (SIGKILL) down AT into the load, back DOWN later (repeatable)")
	flag.StringVar(&o.kafka, "kafka", "", "seed brokers of an Apache Kafka cluster (deploy/kafka.sh start prints them) to run on, in a fresh namespace; empty: the embedded broker")
	flag.Var(&o.kafkaFaults, "kafka-fault", "KIND@AT+DOWN on the -kafka cluster (deploy/kafka.sh's nodes): leader (SIGKILL the broker leading the busiest partitions, restart DOWN later), controller (SIGKILL the active controller), freeze (SIGSTOP the busiest leader for DOWN), coordinator (SIGSTOP the broker coordinating most of the run's groups and transactions for DOWN), rolling (restart every node in turn; DOWN unused) (repeatable)")
	flag.StringVar(&o.kafkaFloor, "kafka-floor", "", "P50,P99: the cluster's own end-to-end latency (deploy/kafka.sh floor prints it as KAFKA_FLOOR=…), printed beside the ledger's as a ratio")
	flag.StringVar(&o.label, "label", "ledger", "the ledger line's label (the fault, in chaos runs)")
	flag.Var(&o.downs, "receiver-down", "AT+FOR: the webhook receiver answers 503 from AT into the load for FOR (repeatable)")
	flag.BoolVar(&o.keep, "keep", false, "keep the databases and the logs")
	flag.DurationVar(&o.limits, "limits", 0, "first measure the machine's limits for this long each (bare net/http, embedded broker, Postgres commits)")
	flag.DurationVar(&o.timeline, "timeline", 0, "print latency per window of this length (e.g. 5s), to see the pause a fault caused")
	flag.StringVar(&o.profile, "profile", "", "write a CPU profile of each contrack process over the load to DIR/<process>.pprof and what it allocated meanwhile to DIR/<process>.allocs.pprof (from its admin listener)")
	flag.IntVar(&o.population.trackings, "population", 0, "instead of the ledger: subscribe this many trackings through POST /subscriptions/equipment and measure their polling (make e2e-population)")
	flag.IntVar(&o.population.accounts, "accounts", 1000, "with -population: sandbox accounts the trackings are spread over")
	flag.Float64Var(&o.population.subscribeRate, "subscribe-rate", 100, "with -population: trackings subscribed per second")
	flag.DurationVar(&o.population.interval, "interval", 0, "with -population: the sandbox poll interval (default: the trackings re-polled at -repoll-rate)")
	flag.Float64Var(&o.population.repollRate, "repoll-rate", 0, "with -population and no -interval: the re-polls per second the interval is chosen for (default -subscribe-rate: the interval is the time subscribing takes)")
	flag.DurationVar(&o.population.settle, "settle", 60*time.Second, "with -population: the steady window measured after the first events")
	flag.IntVar(&o.population.bulkItems, "bulk-items", 1000, "with -population: trackings per bulk request (1-1000); an account's request is first-polled at its carrier rate")
	flag.DurationVar(&o.population.firstEventWait, "first-event-wait", 5*time.Minute, "with -population: how long to wait for every subscription's first event")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var ok bool
	var err error
	if o.population.trackings > 0 {
		if o.population.bulkItems < 1 || o.population.bulkItems > 1000 {
			fmt.Fprintln(os.Stderr, "e2e: -bulk-items must be 1 to 1000")
			os.Exit(2)
		}
		if o.population.repollRate <= 0 {
			// The re-polls then replay the subscribe stream one interval
			// later: the machine carries the subscribe rate all through the
			// run, and the window after the last subscription sees the whole
			// population in and every tracking re-polled at that rate.
			o.population.repollRate = o.population.subscribeRate
		}
		if o.population.interval == 0 {
			o.population.interval = time.Duration(float64(o.population.trackings) / o.population.repollRate * float64(time.Second)).Round(time.Second)
		}
		ok, err = runPopulation(ctx, o, o.population, os.Stdout)
	} else {
		ok, err = run(ctx, o, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, out io.Writer) (bool, error) {
	if o.rate <= 0 || o.batch < 1 || o.containers < 1 || o.workers < 1 {
		return false, fmt.Errorf("-rate, -batch, -containers and -workers must be positive")
	}
	floor, err := parseKafkaFloor(o.kafkaFloor)
	if err != nil {
		return false, err
	}
	if o.limits > 0 {
		var brokers []string
		if o.kafka != "" {
			brokers = strings.Split(o.kafka, ",")
		}
		if err := printLimits(ctx, out, o.pg, brokers, o.limits); err != nil {
			return false, fmt.Errorf("limits: %w", err)
		}
	}
	var rk *realKafka
	if o.kafka != "" {
		var err error
		if rk, err = newRealKafka(o.kafka, kafkaScript()); err != nil {
			return false, err
		}
		defer func() {
			if o.keep {
				fmt.Fprintf(out, "kept: kafka namespace %s\n", rk.ns)
				return
			}
			if err := rk.drop(context.Background()); err != nil {
				fmt.Fprintln(os.Stderr, "e2e: kafka cleanup:", err)
			}
		}()
	} else if len(o.kafkaFaults) > 0 {
		return false, fmt.Errorf("-kafka-fault needs -kafka (a real cluster)")
	}
	sys, err := newSystem(systemConfig{Bin: o.bin, PGServer: o.pg, ClickHouse: o.ch, Partitions: o.partitions, Kafka: rk})
	if err != nil {
		return false, err
	}
	defer func() {
		sys.stop(15 * time.Second)
		if o.keep {
			fmt.Fprintf(out, "kept: postgres %s, clickhouse database %s, logs in %s\n", sys.pgURL, sys.chDB, sys.logDir)
			return
		}
		if err := sys.dropStores(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: cleanup:", err)
		}
		os.RemoveAll(sys.dataDir)
	}()
	var plan []scaleProc
	if o.topology == "scale" {
		table, err := binaryRoles(o.bin)
		if err != nil {
			return false, err
		}
		plan = scalePlan(table)
	}
	if o.killEach != "" {
		if o.topology != "scale" {
			return false, errors.New("-kill-each needs -topology scale")
		}
		kills, err := parseKillEach(o.killEach, killEach(plan))
		if err != nil {
			return false, fmt.Errorf("bad -kill-each %w", err)
		}
		o.kills = append(o.kills, kills...)
	}
	apiAddrs, err := startTopology(ctx, sys, o.topology, plan)
	if err != nil {
		return false, err
	}
	for _, a := range apiAddrs {
		if err := sys.waitHealthy(ctx, a, 90*time.Second); err != nil {
			return false, err
		}
	}
	// A plan of its own, so the usage plans never refuse the offered load.
	if _, err := sys.admin("plan", "create", "e2e-load", "--rate", "100000", "--burst", "200000"); err != nil {
		return false, err
	}
	consumerKey, err := sys.admin("create-key", "--client", "e2e-shipper", "--env", "sandbox", "--plan", "e2e-load")
	if err != nil {
		return false, err
	}
	carrierKey, err := sys.admin("create-key", "--client", "e2e-maersk", "--env", "sandbox", "--role", "carrier", "--scac", "MAEU", "--plan", "e2e-load")
	if err != nil {
		return false, err
	}
	l := newLedger()
	recv, err := newReceiver(l)
	if err != nil {
		return false, err
	}
	defer recv.srv.Close()
	api := apiClient{addr: apiAddrs[0], key: consumerKey}
	if err := api.activateWebhook(ctx, recv); err != nil {
		return false, err
	}
	containers := make([]string, o.containers)
	for i := range containers {
		// NOFU: the sandbox carriers know no such shipment, so the only
		// events are the ones pushed here.
		base := fmt.Sprintf("NOFU%06d", i)
		containers[i] = fmt.Sprintf("%s%d", base, iso6346.CheckDigit(base))
		body := fmt.Sprintf(`{"scacCode":"MAEU","containerNumber":%q,"subscriptionReference":"e2e-%d"}`, containers[i], i)
		if code, msg := api.do(ctx, "POST", "/subscription/equipment", body); code != 200 {
			return false, fmt.Errorf("subscribe %s: %d %s", containers[i], code, msg)
		}
	}
	c := newCarrier(carrierKey, apiAddrs)
	if err := warmUp(ctx, c, l, containers, 90*time.Second); err != nil {
		return false, err
	}
	broker := "the embedded broker"
	if rk != nil {
		broker = fmt.Sprintf("Apache Kafka %s (namespace %s)", strings.Join(rk.brokers, ","), rk.ns)
	}
	fmt.Fprintf(out, "e2e: topology %s on %s, %d containers, %.0f events/s in requests of %d for %s\n", o.topology, broker, o.containers, o.rate, o.batch, o.duration)
	loadBefore := loadAverage()

	before := cpuSnapshot(sys.cpuPIDs())
	backendsBefore, backendErr := backendCPU(ctx, sys.pgAdmin, sys.chDB)
	wal, walErr := startWAL(ctx, sys.pgURL)
	heapsBefore := sys.goHeaps(ctx)
	wallStart := time.Now()
	start := time.Now()
	faultsDone := make(chan faultsRun, 1)
	go func() { faultsDone <- injectFaults(ctx, sys, rk, recv, o, start) }()
	profiled := make(chan error, 1)
	go func() { profiled <- sys.profile(ctx, o.profile, o.duration) }()
	stopSelf := profileSelf(o.profile)
	c.runLoad(ctx, l, containers, o.rate, o.batch, o.duration, o.workers)
	stopSelf()
	fmt.Fprintf(out, "e2e: load sent in %s; waiting up to %s for deliveries\n", time.Since(start).Round(time.Millisecond), o.drain)
	faults := <-faultsDone
	if err := <-profiled; err != nil {
		fmt.Fprintln(out, "e2e: profile:", err)
	}
	deadline := time.Now().Add(o.drain)
	for l.outstanding(start) > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
	}
	wall := time.Since(wallStart).Seconds()
	after := cpuSnapshot(sys.cpuPIDs())
	backendsAfter, err := backendCPU(ctx, sys.pgAdmin, sys.chDB)
	backendErr = errors.Join(backendErr, err)
	heapsAfter := sys.goHeaps(ctx)
	for _, f := range faults.log {
		fmt.Fprintln(out, "fault:", f)
	}
	s := l.summary(start)
	s.print(out, o.label)
	floor.print(out, s)
	if !faults.first.IsZero() {
		fmt.Fprintf(out, "%-28s recovery %s: from the first fault until the last event that waited over %s arrived\n",
			"", ms(l.recovery(faults.first, slowEvent)), slowEvent)
	}
	var exactlyOnce bool
	if records, dups, err := sys.eventsExactlyOnce(ctx); err != nil {
		fmt.Fprintln(out, "e2e: events topic:", err)
		exactlyOnce = false
	} else {
		fmt.Fprintf(out, "%-28s events topic (read_committed): %d records, %d duplicates (the normaliser writes exactly once)\n", "", records, dups)
		exactlyOnce = dups == 0
	}
	// A stage that gave up under a fault it should ride out fails the run,
	// even when the other process of its kind kept the ledger balanced.
	exits := sys.unexpectedExits(start)
	for _, e := range exits {
		fmt.Fprintf(out, "%-28s process ended on its own: %s\n", "", e)
	}
	if o.timeline > 0 {
		l.timeline(out, start, o.timeline)
	}
	printCPU(out, before, after, s.Delivered, wall)
	if backendErr != nil {
		fmt.Fprintln(out, "  postgres backends of this run: not measured:", backendErr)
	} else if s.Delivered > 0 {
		used := backendCPUUsed(backendsBefore, backendsAfter)
		fmt.Fprintf(out, "  %-22s %7.2f cpu-s  %7.1f µs/event (of postgres above: this run's database only)\n",
			"postgres backends", used, used/float64(s.Delivered)*1e6)
	}
	if walErr == nil {
		walErr = wal.print(ctx, out, s.Delivered)
	}
	if walErr != nil {
		fmt.Fprintln(out, "postgres WAL of this run: not measured:", walErr)
	}
	printPeakMemory(out, sys.pids())
	printGoHeaps(out, heapsBefore, heapsAfter, s.Delivered)
	fmt.Fprintf(out, "machine load average (1 min) %s at the start, %s at the end (2 cores; other work on the machine counts)\n", loadBefore, loadAverage())
	sys.printHops(ctx, out)
	if recv.badSigs > 0 || recv.bad > 0 {
		fmt.Fprintf(out, "receiver: %d requests with a bad signature, %d not a payload\n", recv.badSigs, recv.bad)
		return false, nil
	}
	return s.balanced() && s.Acked > 0 && exactlyOnce && len(exits) == 0, nil
}

// slowEvent is the latency above which an event counts as delayed by a
// fault, for the recovery time (normal latency at chaos rates is tens of ms).
const slowEvent = time.Second

// startTopology starts the processes and returns the API addresses; plan
// is the scale topology's processes (scalePlan).
func startTopology(ctx context.Context, sys *system, topology string, plan []scaleProc) ([]string, error) {
	switch topology {
	case "all":
		return []string{sys.apiAddr}, sys.start("all", nil, "all")
	case "scale":
		var brokers []string // the processes' Kafka: the run's cluster (in sys.env), or a broker process
		if sys.kafka == nil {
			kafkaAddr := envValue(sys.env, "CONTRACK_EMBEDDED_KAFKA_ADDR")
			// The broker serves no admin listener: nothing to scrape.
			if err := sys.start("broker", []string{"CONTRACK_ADMIN_ADDR=off"}, "broker"); err != nil {
				return nil, err
			}
			if err := waitTCP(ctx, kafkaAddr, 30*time.Second); err != nil {
				return nil, err
			}
			brokers = []string{"KAFKA_BROKERS=" + kafkaAddr}
		}
		var apis []string
		for _, p := range plan {
			// Every process serves its own admin listener (/readyz).
			admin, err := freeAddr()
			if err != nil {
				return nil, err
			}
			env := append(append([]string{}, brokers...), "CONTRACK_ADMIN_ADDR="+admin)
			if p.role.Listens(roles.ListenHTTP) {
				addr, err := freeAddr()
				if err != nil {
					return nil, err
				}
				env = append(env, "CONTRACK_HTTP_ADDR="+addr)
				apis = append(apis, addr)
			}
			if err := sys.start(p.name, env, p.role.Name); err != nil {
				return nil, err
			}
		}
		return apis, nil
	}
	return nil, fmt.Errorf("unknown -topology %q (all, scale)", topology)
}

func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// warmUp pushes one event per container until each has been delivered: then
// every subscription has reached the pipeline's routing and has an open
// webhook path, and the measured run starts from a steady state.
func warmUp(ctx context.Context, c *carrier, l *ledger, containers []string, within time.Duration) error {
	deadline := time.Now().Add(within)
	pending := append([]string{}, containers...)
	for len(pending) > 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("warm-up: %d of %d subscriptions received no event within %s", len(pending), len(containers), within)
		}
		var keys []eventKey
		for _, ct := range pending {
			r := c.build([]string{ct}, 1, time.Now())
			c.send(ctx, l, r)
			keys = append(keys, r.keys...)
		}
		wait := time.Now().Add(3 * time.Second)
		for time.Now().Before(wait) && ctx.Err() == nil {
			if l.receivedAll(keys) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		pending = pending[:0]
		for _, k := range keys {
			if !l.receivedAll([]eventKey{k}) {
				pending = append(pending, k.container)
			}
		}
	}
	return nil
}

// faultsRun is what injectFaults did: a line per step, and when the first
// fault struck (zero: none).
type faultsRun struct {
	log   []string
	first time.Time
}

// injectFaults runs the -kill, -store-down, -kafka-fault and
// -receiver-down schedule and says what it did.
func injectFaults(ctx context.Context, sys *system, rk *realKafka, recv *receiver, o options, start time.Time) faultsRun {
	type step struct {
		at      time.Duration
		what    string
		do      func() error
		strikes bool // a fault begins (not its end): recovery counts from the first
		// label, if set, names the step once it ran (the node a Kafka fault struck).
		label func() string
	}
	var steps []step
	var run faultsRun
	failed := func(why string) faultsRun { return faultsRun{log: []string{why}} }
	parse := func(spec string) (name string, at, down time.Duration, err error) {
		name, rest, ok := strings.Cut(spec, "@")
		if !ok {
			rest, name = spec, ""
		}
		a, d, ok := strings.Cut(rest, "+")
		if !ok {
			return "", 0, 0, fmt.Errorf("%q: want [NAME@]AT+DOWN", spec)
		}
		if at, err = time.ParseDuration(a); err == nil {
			down, err = time.ParseDuration(d)
		}
		return name, at, down, err
	}
	for _, k := range o.kills {
		name, at, down, err := parse(k)
		if err != nil {
			return failed("bad -kill " + err.Error())
		}
		steps = append(steps,
			step{at, "SIGKILL " + name, func() error { return sys.kill(name) }, true, nil},
			step{at + down, "restart " + name, func() error { return sys.restart(name) }, false, nil})
	}
	for _, d := range o.downs {
		_, at, down, err := parse(d)
		if err != nil {
			return failed("bad -receiver-down " + err.Error())
		}
		steps = append(steps,
			step{at, "receiver down (503)", func() error { recv.setDown(true); return nil }, true, nil},
			step{at + down, "receiver back", func() error { recv.setDown(false); return nil }, false, nil})
	}
	for _, d := range o.stores {
		name, at, down, err := parse(d)
		if err != nil {
			return failed("bad -store-down " + err.Error())
		}
		f, err := newStoreFault(name)
		if err != nil {
			return failed(err.Error())
		}
		steps = append(steps,
			step{at, name + " down", f.down, true, nil},
			step{at + down, name + " back", f.up, false, nil})
	}
	for _, d := range o.kafkaFaults {
		kind, at, down, err := parse(d)
		if err != nil {
			return failed("bad -kafka-fault " + err.Error())
		}
		f, err := rk.newKafkaFault(kind)
		if err != nil {
			return failed(err.Error())
		}
		steps = append(steps,
			step{at, "kafka " + kind, func() error { return f.down(ctx) }, true, func() string { return "kafka " + f.what }},
			step{at + down, "kafka " + kind + " over", func() error { return f.up(ctx) }, false, func() string { return "kafka " + f.what + " over" }})
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].at < steps[j].at })
	for _, s := range steps {
		select {
		case <-ctx.Done():
			run.log = append(run.log, "interrupted")
			return run
		case <-time.After(time.Until(start.Add(s.at))):
		}
		began := time.Now()
		if s.strikes && run.first.IsZero() {
			run.first = began
		}
		err := s.do()
		what := s.what
		if s.label != nil {
			what = s.label()
		}
		line := fmt.Sprintf("%6.1fs %s", began.Sub(start).Seconds(), what)
		if d := time.Since(began); d > time.Second {
			line += fmt.Sprintf(" (took %.1fs)", d.Seconds())
		}
		if err != nil {
			line += ": " + err.Error()
		}
		run.log = append(run.log, line)
	}
	return run
}

func printCPU(out io.Writer, before, after map[string]float64, delivered int, wall float64) {
	var names []string
	for n := range after {
		names = append(names, n)
	}
	sort.Strings(names)
	total := 0.0
	fmt.Fprintf(out, "cpu over %.1fs of wall time (2 cores = %.0f cpu-s available):\n", wall, 2*wall)
	for _, n := range names {
		d := after[n] - before[n]
		if d < 0 { // restarted during the run (a store fault): its CPU before is gone
			fmt.Fprintf(out, "  %-22s restarted during the run: not measured\n", n)
			continue
		}
		total += d
		per := 0.0
		if delivered > 0 {
			per = d / float64(delivered) * 1e6
		}
		fmt.Fprintf(out, "  %-22s %7.2f cpu-s  %7.1f µs/event\n", n, d, per)
	}
	fmt.Fprintf(out, "  %-22s %7.2f cpu-s  (%.0f%% of the machine)\n", "total", total, 100*total/(2*wall))
}

// printPeakMemory prints each contrack process's peak resident memory.
func printPeakMemory(out io.Writer, pids map[string]int) {
	peak := statusBytes(pids, "VmHWM:")
	var names []string
	for n := range peak {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(out, "  %-22s peak RSS %d MB\n", "contrack "+n, peak[n]>>20)
	}
}

// loadAverage is the machine's load average over the last minute, "?" if
// unknown.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// apiClient calls the public API as the subscriber.
type apiClient struct{ addr, key string }

func (a apiClient) do(ctx context.Context, method, path, body string) (int, string) {
	req, _ := http.NewRequestWithContext(ctx, method, "http://"+a.addr+path, strings.NewReader(body))
	req.Header.Set("x-api-key", a.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b)
}

// activateWebhook configures the receiver, waits for the verification
// message and activates with its secret.
func (a apiClient) activateWebhook(ctx context.Context, recv *receiver) error {
	if code, msg := a.do(ctx, "POST", "/webhook/configure", fmt.Sprintf(`{"targetUrl":%q}`, recv.url())); code != 200 {
		return fmt.Errorf("configure webhook: %d %s", code, msg)
	}
	var secret string
	select {
	case secret = <-recv.secrets:
	case <-time.After(30 * time.Second):
		return fmt.Errorf("no webhook verification message within 30 s")
	case <-ctx.Done():
		return ctx.Err()
	}
	body, _ := json.Marshal(map[string]string{"secret": secret})
	if code, msg := a.do(ctx, "POST", "/webhook/activate", string(body)); code != 200 {
		return fmt.Errorf("activate webhook: %d %s", code, msg)
	}
	return nil
}
