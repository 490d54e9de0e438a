package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
)

// The limits the pipeline runs against on this machine, measured with the
// same generator: what a bare HTTP server answers, what the embedded broker
// carries from produce to consume, what Postgres commits. A pipeline figure
// means something only beside these.

type limit struct {
	name      string
	perSecond float64
	p50, p99  time.Duration
	unit      string
}

func (l limit) String() string {
	return fmt.Sprintf("%-56s %9.0f %s/s  p50 %8s  p99 %8s", l.name, l.perSecond, l.unit, ms(l.p50), ms(l.p99))
}

func quantiles(lat []time.Duration) (p50, p99 time.Duration) {
	if len(lat) == 0 {
		return 0, 0
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
}

// closedLoop runs op from n goroutines for d and collects latencies.
func closedLoop(ctx context.Context, n int, d time.Duration, op func(ctx context.Context) error) (int, []time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var mu sync.Mutex
	var all []time.Duration
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			for ctx.Err() == nil {
				t := time.Now()
				if err := op(ctx); err != nil {
					if ctx.Err() == nil {
						firstErr.CompareAndSwap(nil, err)
					}
					break
				}
				lat = append(lat, time.Since(t))
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return 0, nil, err
	}
	return len(all), all, nil
}

// bareHTTP: POST of an event-sized body to a handler that reads it and
// answers 200, over loopback, 64 clients.
func bareHTTP(ctx context.Context, d time.Duration) (limit, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return limit{}, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)         // a broken request shows as the client's error
		_, _ = w.Write([]byte(`{"message":"ok"}`)) // a broken answer too
	})}
	go func() { _ = srv.Serve(ln) }() // ends with ErrServerClosed at srv.Close
	defer srv.Close()
	body := eventJSON("NOFU0000001", 1, time.Now())
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}
	url := "http://" + ln.Addr().String() + "/events"
	n, lat, err := closedLoop(ctx, 64, d, func(ctx context.Context) error {
		resp, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			resp.Body.Close()
			return err
		}
		return resp.Body.Close()
	})
	p50, p99 := quantiles(lat)
	return limit{"bare net/http POST (64 clients)", float64(n) / d.Seconds(), p50, p99, "req"}, err
}

// brokerLimit: records produced with acks=all to the embedded broker and
// consumed by another client; latency from produce to consume. flush is the
// broker's flush interval (0: fsync every write; contrack's default is 1 s).
func brokerLimit(ctx context.Context, d, flush time.Duration) (limit, error) {
	addr, err := freeAddr()
	if err != nil {
		return limit{}, err
	}
	dir, err := os.MkdirTemp("", "contrack-limits-")
	if err != nil {
		return limit{}, err
	}
	defer os.RemoveAll(dir)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := kafka.StartEmbedded(addr, filepath.Join(dir, "kafka"), 6, flush, log)
	if err != nil {
		return limit{}, err
	}
	defer b.Close()
	how := "fsync every write"
	if flush > 0 {
		how = "fsync every " + flush.String()
	}
	return produceConsume(ctx, d, []string{addr}, "", "embedded broker produce→consume ("+how+", 64 producers)")
}

// clusterLimit is brokerLimit on a real cluster: a topic of six
// partitions with the replication contrack gives its own (three replicas,
// min.insync.replicas 2), in a namespace of its own, deleted afterwards.
func clusterLimit(ctx context.Context, d time.Duration, brokers []string) (limit, error) {
	ns := schemas.Namespace(randomName("e2e-limits-"))
	l, err := produceConsume(ctx, d, brokers, ns, "Apache Kafka produce→consume (acks=all, 3 replicas, 64 producers)")
	if cl, cerr := kafka.NewClient(brokers, slog.New(slog.NewTextHandler(io.Discard, nil))); cerr == nil {
		if _, derr := kadm.NewClient(cl).DeleteTopics(context.Background(), ns.Topic(limitsTopic)); derr != nil {
			fmt.Fprintf(os.Stderr, "e2e: topic %s left behind: %v\n", ns.Topic(limitsTopic), derr)
		}
		cl.Close()
	}
	return l, err
}

const limitsTopic = "limits.produce-consume.v1"

// produceConsume produces event-sized records with acks=all from 64
// goroutines for d to a fresh topic of ns and consumes them with another
// client; latency from produce to consume.
func produceConsume(ctx context.Context, d time.Duration, brokers []string, ns schemas.Namespace, name string) (limit, error) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	prod, err := kafka.NewClient(brokers, log)
	if err != nil {
		return limit{}, err
	}
	defer prod.Close()
	if err := kafka.EnsureTopics(ctx, prod, ns, 6, limitsTopic); err != nil {
		return limit{}, err
	}
	topic := ns.Topic(limitsTopic)
	cons, err := kafka.NewClient(brokers, log, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return limit{}, err
	}
	defer cons.Close()
	var mu sync.Mutex
	var lat []time.Duration
	consumed := 0
	cctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for cctx.Err() == nil {
			fs := cons.PollFetches(cctx)
			now := time.Now()
			fs.EachRecord(func(r *kgo.Record) {
				mu.Lock()
				lat = append(lat, now.Sub(r.Timestamp))
				consumed++
				mu.Unlock()
			})
		}
	}()
	body := eventJSON("NOFU0000001", 1, time.Now())
	produced, _, err := closedLoop(ctx, 64, d, func(ctx context.Context) error {
		i := time.Now().UnixNano()
		return prod.ProduceSync(ctx, &kgo.Record{Topic: topic, Key: fmt.Appendf(nil, "%d", i%997), Value: body, Timestamp: time.Now()}).FirstErr()
	})
	// Let the consumer catch up with what was acknowledged.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := consumed
		mu.Unlock()
		if n >= produced {
			break
		}
	}
	stop()
	<-done
	p50, p99 := quantiles(lat)
	return limit{name, float64(consumed) / d.Seconds(), p50, p99, "rec"}, err
}

// postgresLimit: single-row INSERT transactions (one commit each) from 32
// connections into a fresh table.
func postgresLimit(ctx context.Context, server string, d time.Duration) (limit, error) {
	name := randomName("contrack_limits_")
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		return limit{}, err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return limit{}, err
	}
	defer func() {
		if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: database %s left behind: %v\n", name, err)
		}
	}()
	pool, err := pgxpool.New(ctx, withDatabase(server, name)+"&pool_max_conns=32")
	if err != nil {
		return limit{}, err
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE TABLE t (id bigserial PRIMARY KEY, body jsonb NOT NULL)`); err != nil {
		return limit{}, err
	}
	body := string(eventJSON("NOFU0000001", 1, time.Now()))
	n, lat, err := closedLoop(ctx, 32, d, func(ctx context.Context) error {
		_, err := pool.Exec(ctx, `INSERT INTO t (body) VALUES ($1)`, body)
		return err
	})
	p50, p99 := quantiles(lat)
	return limit{"Postgres INSERT, one commit each (32 conns)", float64(n) / d.Seconds(), p50, p99, "tx"}, err
}

// printLimits measures and prints the limits; brokers, if set, adds the
// real cluster's produce→consume ceiling.
func printLimits(ctx context.Context, out io.Writer, pgServer string, brokers []string, d time.Duration) error {
	fmt.Fprintf(out, "limits on this machine (each for %s):\n", d)
	measures := []func() (limit, error){
		func() (limit, error) { return bareHTTP(ctx, d) },
		func() (limit, error) { return brokerLimit(ctx, d, time.Second) },
		func() (limit, error) { return brokerLimit(ctx, d, 0) },
	}
	if len(brokers) > 0 {
		measures = append(measures, func() (limit, error) { return clusterLimit(ctx, d, brokers) })
	}
	measures = append(measures, func() (limit, error) { return postgresLimit(ctx, pgServer, d) })
	for _, f := range measures {
		l, err := f()
		if err != nil {
			return err
		}
		fmt.Fprintln(out, " ", l)
	}
	return nil
}
