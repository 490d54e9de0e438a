package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/schemas/iso6346"
)

// populationOptions are `-population`'s: how many trackings over how many
// accounts, at what subscribe pace, polled at what interval.
type populationOptions struct {
	trackings, accounts int
	subscribeRate       float64       // trackings subscribed per second (bulk requests paced to it)
	interval            time.Duration // the sandbox poll interval (CONTRACK_POLLER_INTERVALS)
	repollRate          float64       // without interval: trackings ÷ this
	settle              time.Duration // the steady window measured after the last subscription
	firstEventWait      time.Duration // how long to wait for every subscription's first event
	// bulkItems is the trackings of one bulk request (at most 1,000). An
	// account's batch is first-polled at its plan's carrier rate (10/s by
	// default), so a batch of 1,000 waits up to 100 s for its last first
	// poll; smaller batches, interleaved over the accounts, measure the
	// platform rather than one account's rate.
	bulkItems int
}

// runPopulation is `make e2e-population`: it starts one process per stage
// (so each stage's memory is its own), creates the accounts (a sandbox key
// and MAEU credentials each), subscribes the trackings through
// POST /subscriptions/equipment in batches of bulkItems paced to
// subscribeRate, waits for every subscription's first event in the
// account feed, measures a steady window, and prints subscribe
// throughput, first-event latency, schedule lateness, polls per second
// achieved against offered, memory per stage (at a tenth and at all of the
// trackings), bytes per tracking in Postgres and ClickHouse and CPU per poll.
func runPopulation(ctx context.Context, o options, po populationOptions, out io.Writer) (bool, error) {
	if po.trackings < po.accounts || po.accounts < 1 {
		return false, fmt.Errorf("-population must be at least -accounts (%d), and -accounts positive", po.accounts)
	}
	sys, err := newSystem(systemConfig{Bin: o.bin, PGServer: o.pg, ClickHouse: o.ch, Partitions: o.partitions})
	if err != nil {
		return false, err
	}
	sys.env = append(sys.env, "CONTRACK_POLLER_INTERVALS=sandbox="+po.interval.String())
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
	admins, err := startStages(ctx, sys)
	if err != nil {
		return false, err
	}
	if err := sys.waitHealthy(ctx, sys.apiAddr, 90*time.Second); err != nil {
		return false, err
	}
	fmt.Fprintf(out, "e2e-population: %d trackings over %d sandbox accounts, subscribed at %.0f/s in bulk requests of %d, sandbox poll interval %s\n",
		po.trackings, po.accounts, po.subscribeRate, po.bulkItems, po.interval)

	if _, err := sys.admin("plan", "create", "e2e-pop", "--rate", "1000", "--burst", "1000"); err != nil {
		return false, err
	}
	keys, err := createAccounts(ctx, sys, po.accounts)
	if err != nil {
		return false, err
	}

	pg, err := pgx.Connect(ctx, sys.pgURL)
	if err != nil {
		return false, err
	}
	defer pg.Close(context.Background())

	// Subscribe, paced: batch i of an account goes at its share of the pace.
	perAccount := po.trackings / po.accounts
	type batch struct {
		key   string
		items []string
	}
	var batches []batch
	for a, key := range keys {
		for first := 0; first < perAccount; first += po.bulkItems {
			var items []string
			for i := first; i < min(first+po.bulkItems, perAccount); i++ {
				base := fmt.Sprintf("MSKU%06d", a*perAccount+i)
				items = append(items, fmt.Sprintf(`{"scacCode":"MAEU","containerNumber":"%s%d","subscriptionReference":"pop-%d"}`,
					base, iso6346.CheckDigit(base), i))
			}
			batches = append(batches, batch{key, items})
		}
	}
	total := perAccount * po.accounts
	var (
		sent, created atomic.Int64
		inRequests    atomic.Int64 // nanoseconds spent in bulk requests
		latMu         sync.Mutex
		reqLatencies  []time.Duration
	)
	start := time.Now()
	tenth := map[string]int64{}
	tenthDone := make(chan struct{})
	jobs := make(chan batch)
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				t0 := time.Now()
				api := apiClient{addr: sys.apiAddr, key: b.key}
				code, body := api.doAll(ctx, "POST", "/subscriptions/equipment", "["+strings.Join(b.items, ",")+"]")
				d := time.Since(t0)
				inRequests.Add(int64(d))
				latMu.Lock()
				reqLatencies = append(reqLatencies, d)
				latMu.Unlock()
				var r struct{ Created int }
				if code != 200 || json.Unmarshal([]byte(body), &r) != nil {
					select {
					case errs <- fmt.Errorf("bulk subscribe: %d %.300s", code, body):
					default:
					}
					continue
				}
				created.Add(int64(r.Created))
			}
		}()
	}
	// The accounts' batches interleaved: every account subscribes through the run.
	order := interleave(batches, func(b batch) string { return b.key })
	for _, b := range order {
		due := start.Add(time.Duration(float64(sent.Load()) / po.subscribeRate * float64(time.Second)))
		select {
		case <-ctx.Done():
			close(jobs)
			wg.Wait()
			return false, ctx.Err()
		case err := <-errs:
			close(jobs)
			wg.Wait()
			return false, err
		case <-time.After(time.Until(due)):
		}
		jobs <- b
		if n := sent.Add(int64(len(b.items))); n >= int64(total/10) && len(tenth) == 0 {
			tenth = rssSnapshot(sys.pids())
			close(tenthDone)
		}
	}
	close(jobs)
	wg.Wait()
	subscribeWall := time.Since(start)
	select {
	case err := <-errs:
		return false, err
	default:
	}
	fmt.Fprintf(out, "subscribe: %d trackings (%d created) in %d bulk requests over %s: %.0f trackings/s offered; in requests %.0f trackings/s (%s)\n",
		total, created.Load(), len(order), subscribeWall.Round(time.Second), float64(total)/subscribeWall.Seconds(),
		float64(total)/time.Duration(inRequests.Load()).Seconds(), durQuantiles(reqLatencies, "request"))

	// Every subscription's first event, as the account feed shows it.
	waitUntil := time.Now().Add(po.firstEventWait)
	var withEvent int
	for ctx.Err() == nil {
		// Trackings with an event record in the feed (one subscription
		// each here): one narrow row each, where counting the feed's
		// items would read every batch every round.
		if err := pg.QueryRow(ctx, `SELECT count(*) FROM feed_marks WHERE source = 'events'`).Scan(&withEvent); err != nil {
			return false, err
		}
		if withEvent >= total || time.Now().After(waitUntil) {
			break
		}
		time.Sleep(5 * time.Second)
	}
	var p50, p99, maxLat float64
	if err := pg.QueryRow(ctx, `
		SELECT coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY lat), 0), coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY lat), 0), coalesce(max(lat), 0)
		FROM (SELECT extract(epoch FROM min(f.created_at) - s.created_at) AS lat
		      FROM subscriptions s JOIN feed_items f ON f.subscription_id = s.id GROUP BY s.id, s.created_at) x`).Scan(&p50, &p99, &maxLat); err != nil {
		return false, err
	}
	if err := pg.QueryRow(ctx, `SELECT count(DISTINCT subscription_id) FROM feed_items`).Scan(&withEvent); err != nil {
		return false, err
	}
	fmt.Fprintf(out, "first event after subscribe (account feed): p50 %.1fs, p99 %.1fs, max %.1fs; %d of %d subscriptions with an event\n",
		p50, p99, maxLat, withEvent, total)

	// The window: polls, lateness and CPU with every tracking in. What was
	// offered in it is what was polled plus how much the due backlog (due,
	// not claimed) grew.
	pollerAdmin := admins["poller"]
	backlog := func() (n int64, err error) {
		err = pg.QueryRow(ctx, `SELECT count(*) FROM trackings WHERE open_subscriptions > 0 AND next_poll_at <= now()`).Scan(&n)
		return n, err
	}
	backlogBefore, err := backlog()
	if err != nil {
		return false, err
	}
	before, err := scrapeLateness(ctx, pollerAdmin)
	if err != nil {
		return false, err
	}
	cpuBefore := cpuSnapshot(sys.pids())
	t0 := time.Now()
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-time.After(po.settle):
	}
	window := time.Since(t0).Seconds()
	after, err := scrapeLateness(ctx, pollerAdmin)
	if err != nil {
		return false, err
	}
	cpuAfter := cpuSnapshot(sys.pids())
	backlogAfter, err := backlog()
	if err != nil {
		return false, err
	}
	polls := after.count() - before.count()
	offered := float64(polls+backlogAfter-backlogBefore) / window
	fmt.Fprintf(out, "polls over a %.0fs window: %.0f/s achieved, %.0f/s offered (fell due; due backlog %d → %d; at steady state %d trackings every %s offer %.0f/s)\n",
		window, float64(polls)/window, offered, backlogBefore, backlogAfter, total, po.interval, float64(total)/po.interval.Seconds())
	d := after.minus(before)
	fmt.Fprintf(out, "schedule lateness (due → claimed) in the window, re-polls: p50 %s, p99 %s; whole run, first polls: p50 %s, p99 %s\n",
		fmtSec(d.quantile(0.5, "regular", "expected")), fmtSec(d.quantile(0.99, "regular", "expected")),
		fmtSec(after.quantile(0.5, "first")), fmtSec(after.quantile(0.99, "first")))
	var cpuTotal float64
	for n, v := range cpuAfter {
		cpuTotal += v - cpuBefore[n]
	}
	if polls > 0 {
		fmt.Fprintf(out, "cpu per poll (every contrack process, Postgres, ClickHouse, this generator): %.2f ms (%.0f%% of the machine)\n",
			cpuTotal/float64(polls)*1000, 100*cpuTotal/(2*window))
		// Where it goes: the lever for a larger population on these cores.
		var procs []string
		for n := range cpuAfter {
			procs = append(procs, n)
		}
		sort.Slice(procs, func(i, j int) bool {
			return cpuAfter[procs[i]]-cpuBefore[procs[i]] > cpuAfter[procs[j]]-cpuBefore[procs[j]]
		})
		var parts []string
		for _, n := range procs {
			parts = append(parts, fmt.Sprintf("%s %.2f", n, (cpuAfter[n]-cpuBefore[n])/float64(polls)*1000))
		}
		fmt.Fprintf(out, "  by process, ms per poll: %s\n", strings.Join(parts, ", "))
	}

	// Memory per stage, at a tenth of the trackings and at all of them.
	<-tenthDone
	end := rssSnapshot(sys.pids())
	var names []string
	for n := range end {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(out, "memory (RSS) per stage at %d and at %d trackings:\n", total/10, total)
	for _, n := range names {
		ratio := 0.0
		if tenth[n] > 0 {
			ratio = float64(end[n]) / float64(tenth[n])
		}
		fmt.Fprintf(out, "  %-10s %7.1f MiB  %7.1f MiB  ×%.2f  (%.0f bytes per tracking at the end)\n",
			n, float64(tenth[n])/(1<<20), float64(end[n])/(1<<20), ratio, float64(end[n])/float64(total))
	}
	if err := printStoreBytes(ctx, out, pg, sys, total); err != nil {
		return false, err
	}
	return withEvent == total, nil
}

// startStages starts the broker, the sandbox and one process per stage
// the population's polling passes through and returns each stage's admin
// address. Not every role of the role table (scalePlan): the vessels and
// alerts roles would count in the population's memory and CPU figures
// without taking part in its polling.
func startStages(ctx context.Context, sys *system) (map[string]string, error) {
	kafkaAddr := envValue(sys.env, "CONTRACK_EMBEDDED_KAFKA_ADDR")
	if err := sys.start("broker", nil, "broker"); err != nil {
		return nil, err
	}
	if err := waitTCP(ctx, kafkaAddr, 30*time.Second); err != nil {
		return nil, err
	}
	brokers := []string{"KAFKA_BROKERS=" + kafkaAddr}
	if err := sys.start("sandbox", brokers, "sandbox"); err != nil {
		return nil, err
	}
	admins := map[string]string{}
	for _, role := range []string{"api", "poller", "normalize", "projector", "feed", "delivery"} {
		admin, err := freeAddr()
		if err != nil {
			return nil, err
		}
		admins[role] = admin
		env := append(append([]string{}, brokers...), "CONTRACK_ADMIN_ADDR="+admin)
		if err := sys.start(role, env, role); err != nil {
			return nil, err
		}
	}
	return admins, nil
}

// createAccounts makes n sandbox accounts on plan e2e-pop, each with MAEU
// credentials, several at once; it returns their keys.
func createAccounts(ctx context.Context, sys *system, n int) ([]string, error) {
	keys := make([]string, n)
	var wg sync.WaitGroup
	var first error
	var mu sync.Mutex
	sem := make(chan struct{}, 4)
	for i := range keys {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			key, err := sys.admin("create-key", "--client", fmt.Sprintf("pop-%04d", i), "--env", "sandbox", "--plan", "e2e-pop")
			if err == nil {
				api := apiClient{addr: sys.apiAddr, key: key}
				if code, msg := api.do(ctx, "POST", "/carrier/credentials", `{"MAEU":{"apiKey":"sandbox-key"}}`); code != 200 {
					err = fmt.Errorf("store credentials: %d %s", code, msg)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil && first == nil {
				first = err
			}
			keys[i] = key
		}()
	}
	wg.Wait()
	return keys, first
}

// interleave orders items round-robin over their groups (by key), keeping
// each group's own order.
func interleave[T any](items []T, group func(T) string) []T {
	byGroup := map[string][]T{}
	var groups []string
	for _, it := range items {
		g := group(it)
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], it)
	}
	out := make([]T, 0, len(items))
	for len(out) < len(items) {
		for _, g := range groups {
			if q := byGroup[g]; len(q) > 0 {
				out = append(out, q[0])
				byGroup[g] = q[1:]
			}
		}
	}
	return out
}

// rssSnapshot reads each process's resident memory in bytes.
func rssSnapshot(pids map[string]int) map[string]int64 { return statusBytes(pids, "VmRSS:") }

// statusBytes reads one kB field of each process's /proc status (VmRSS:,
// VmHWM: its peak) in bytes.
func statusBytes(pids map[string]int, field string) map[string]int64 {
	out := map[string]int64{}
	for name, pid := range pids {
		f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), field); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				out[name] = kb << 10
			}
		}
		f.Close()
	}
	return out
}

// printStoreBytes prints what the trackings take in Postgres and ClickHouse.
func printStoreBytes(ctx context.Context, out io.Writer, pg *pgx.Conn, sys *system, trackings int) error {
	rows, err := pg.Query(ctx, `SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 2 DESC`)
	if err != nil {
		return err
	}
	var total int64
	var top []string
	for rows.Next() {
		var name string
		var size int64
		if err := rows.Scan(&name, &size); err != nil {
			rows.Close()
			return err
		}
		total += size
		if len(top) < 5 {
			top = append(top, fmt.Sprintf("%s %.0f", name, float64(size)/float64(trackings)))
		}
	}
	rows.Close()
	fmt.Fprintf(out, "postgres: %.1f MiB, %.0f bytes per tracking (tables with their indexes; largest per tracking: %s)\n",
		float64(total)/(1<<20), float64(total)/float64(trackings), strings.Join(top, ", "))

	conn, err := clickhouse.Open(&clickhouse.Options{Addr: []string{sys.chAddr}, Auth: clickhouse.Auth{Database: sys.chDB}})
	if err != nil {
		return err
	}
	defer conn.Close()
	var chBytes, events uint64
	if err := conn.QueryRow(ctx, `SELECT sum(bytes_on_disk) FROM system.parts WHERE database = ? AND active`, sys.chDB).Scan(&chBytes); err != nil {
		return err
	}
	if err := conn.QueryRow(ctx, `SELECT count() FROM events`).Scan(&events); err != nil {
		return err
	}
	perEvent := 0.0
	if events > 0 {
		perEvent = float64(chBytes) / float64(events)
	}
	fmt.Fprintf(out, "clickhouse: %.1f MiB, %.0f bytes per tracking, %.0f bytes per event (%d event rows)\n",
		float64(chBytes)/(1<<20), float64(chBytes)/float64(trackings), perEvent, events)
	return nil
}

// lateness is the poller's contrack_poller_lateness_seconds histogram:
// cumulative bucket counts per class.
type lateness map[string]map[float64]float64

func scrapeLateness(ctx context.Context, admin string) (lateness, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+admin+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("poller metrics: %w", err)
	}
	defer resp.Body.Close()
	out := lateness{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, "contrack_poller_lateness_seconds_bucket{")
		if !ok {
			continue
		}
		labels, value, _ := strings.Cut(rest, "} ")
		var class string
		le := math.Inf(1)
		for _, kv := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			v = strings.Trim(v, `"`)
			switch k {
			case "class":
				class = v
			case "le":
				if v != "+Inf" {
					le, _ = strconv.ParseFloat(v, 64)
				}
			}
		}
		n, _ := strconv.ParseFloat(value, 64)
		if out[class] == nil {
			out[class] = map[float64]float64{}
		}
		out[class][le] = n
	}
	return out, sc.Err()
}

func (l lateness) count() int64 {
	var n float64
	for _, b := range l {
		n += b[math.Inf(1)]
	}
	return int64(n)
}

func (l lateness) minus(o lateness) lateness {
	out := lateness{}
	for c, b := range l {
		out[c] = map[float64]float64{}
		for le, n := range b {
			out[c][le] = n - o[c][le]
		}
	}
	return out
}

// quantile interpolates q within the buckets of the classes together.
func (l lateness) quantile(q float64, classes ...string) float64 {
	sum := map[float64]float64{}
	for _, c := range classes {
		for le, n := range l[c] {
			sum[le] += n
		}
	}
	var les []float64
	for le := range sum {
		les = append(les, le)
	}
	sort.Float64s(les)
	if len(les) == 0 || sum[math.Inf(1)] == 0 {
		return math.NaN()
	}
	want := q * sum[math.Inf(1)]
	prevLe, prevN := 0.0, 0.0
	for _, le := range les {
		if sum[le] >= want {
			if math.IsInf(le, 1) {
				return prevLe
			}
			if sum[le] == prevN {
				return le
			}
			return prevLe + (le-prevLe)*(want-prevN)/(sum[le]-prevN)
		}
		prevLe, prevN = le, sum[le]
	}
	return prevLe
}

func fmtSec(s float64) string {
	if math.IsNaN(s) {
		return "n/a"
	}
	return fmt.Sprintf("%.2fs", s)
}

func durQuantiles(ds []time.Duration, what string) string {
	if len(ds) == 0 {
		return "no " + what
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return fmt.Sprintf("%s p50 %s, p99 %s", what, s[len(s)/2].Round(time.Millisecond), s[len(s)*99/100].Round(time.Millisecond))
}

// doAll is do reading the whole answer (a bulk answer is one result per item).
func (a apiClient) doAll(ctx context.Context, method, path, body string) (int, string) {
	req, _ := http.NewRequestWithContext(ctx, method, "http://"+a.addr+path, strings.NewReader(body))
	req.Header.Set("x-api-key", a.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
