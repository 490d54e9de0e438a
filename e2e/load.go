package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// carrier pushes DCSA events to POST /events as a carrier would.
type carrier struct {
	key    string
	addrs  []string // API processes, used round-robin
	client *http.Client
	next   map[string]int // per container, the next event's seq
	rr     int
}

func newCarrier(key string, addrs []string) *carrier {
	tr := &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: time.Minute}
	return &carrier{key: key, addrs: addrs, client: &http.Client{Transport: tr, Timeout: 30 * time.Second}, next: map[string]int{}}
}

func eventJSON(container string, seq int, created time.Time) []byte {
	return fmt.Appendf(nil, `{"eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":%q,"eventCreatedDateTime":%q,`+
		`"equipmentEventTypeCode":"GTIN","equipmentReference":%q,"emptyIndicatorCode":"LADEN",`+
		`"eventLocation":{"locationName":"Rotterdam","UNLocationCode":"NLRTM"}}`,
		eventTime(seq), created.UTC().Format(time.RFC3339Nano), container)
}

// request is one scheduled POST /events.
type request struct {
	scheduled time.Time
	keys      []eventKey
	addr      string
}

// build takes the next batch events round-robin over containers.
func (c *carrier) build(containers []string, batch int, scheduled time.Time) request {
	r := request{scheduled: scheduled, addr: c.addrs[c.rr%len(c.addrs)]}
	for range batch {
		ct := containers[c.rr%len(containers)]
		c.rr++
		c.next[ct]++
		r.keys = append(r.keys, eventKey{ct, c.next[ct]})
	}
	return r
}

func (c *carrier) send(ctx context.Context, l *ledger, r request) {
	now := time.Now()
	var body bytes.Buffer
	if len(r.keys) > 1 {
		body.WriteByte('[')
	}
	for i, k := range r.keys {
		if i > 0 {
			body.WriteByte(',')
		}
		body.Write(eventJSON(k.container, k.seq, now))
	}
	if len(r.keys) > 1 {
		body.WriteByte(']')
	}
	l.sent(r.keys, r.scheduled, now)
	post := func(addr string) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/events", bytes.NewReader(body.Bytes()))
		req.Header.Set("x-api-key", c.key)
		req.Header.Set("Content-Type", "application/json")
		return c.client.Do(req)
	}
	resp, err := post(r.addr)
	if err != nil && len(c.addrs) > 1 {
		// As a carrier behind a load balancer would: try another instance.
		resp, err = post(c.other(r.addr))
	}
	if err != nil {
		l.acked(r.keys, false, "transport error", time.Now())
		return
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		l.acked(r.keys, false, "HTTP "+strconv.Itoa(resp.StatusCode)+" "+string(bytes.TrimSpace(msg)), time.Now())
		return
	}
	l.acked(r.keys, true, "", time.Now())
}

// runLoad sends events at rate per second for d, batch per request, in an
// open model: request i is due at start + i·batch/rate whether or not
// earlier ones were answered, and latency counts from that schedule.
func (c *carrier) runLoad(ctx context.Context, l *ledger, containers []string, rate float64, batch int, d time.Duration, workers int) {
	interval := time.Duration(float64(time.Second) * float64(batch) / rate)
	queue := make(chan request, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range queue {
				c.send(ctx, l, r)
			}
		}()
	}
	start := time.Now()
	for i := 0; ; i++ {
		due := start.Add(time.Duration(i) * interval)
		if due.Sub(start) >= d || ctx.Err() != nil {
			break
		}
		if wait := time.Until(due); wait > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
		}
		select {
		case queue <- c.build(containers, batch, due):
		case <-ctx.Done():
		}
	}
	close(queue)
	wg.Wait()
}

// other returns an API address other than addr.
func (c *carrier) other(addr string) string {
	for _, a := range c.addrs {
		if a != addr {
			return a
		}
	}
	return addr
}
