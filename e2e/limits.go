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
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
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
		io.Copy(io.Discard, r.Body)
		w.Write([]byte(`{"message":"ok"}`))
	})}
	go srv.Serve(ln)
	defer srv.Close()
	body := eventJSON("NOFU0000001", 1, time.Now())
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}
	url := "http://" + ln.Addr().String() + "/events"
	n, lat, err := closedLoop(ctx, 64, d, func(ctx context.Context) error {
		resp, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
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
	prod, err := kafka.NewClient([]string{addr}, log)
	if err != nil {
		return limit{}, err
	}
	defer prod.Close()
	const topic = "limits.produce-consume.v1"
	if err := kafka.EnsureTopics(ctx, prod, "", 6, topic); err != nil {
		return limit{}, err
	}
	cons, err := kafka.NewClient([]string{addr}, log, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
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
	how := "fsync every write"
	if flush > 0 {
		how = "fsync every " + flush.String()
	}
	return limit{"embedded broker produce→consume (" + how + ", 64 producers)", float64(consumed) / d.Seconds(), p50, p99, "rec"}, err
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
	defer admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
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

func printLimits(ctx context.Context, out io.Writer, pgServer string, d time.Duration) error {
	fmt.Fprintf(out, "limits on this machine (each for %s):\n", d)
	for _, f := range []func() (limit, error){
		func() (limit, error) { return bareHTTP(ctx, d) },
		func() (limit, error) { return brokerLimit(ctx, d, time.Second) },
		func() (limit, error) { return brokerLimit(ctx, d, 0) },
		func() (limit, error) { return postgresLimit(ctx, pgServer, d) },
	} {
		l, err := f()
		if err != nil {
			return err
		}
		fmt.Fprintln(out, " ", l)
	}
	return nil
}
