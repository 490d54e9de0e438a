package poller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// producer3 is a DCSA TNT 3.0 producer behind an API key header: GET
// /v3/events by equipmentReference, eventTypes and eventUpdatedDateTimeMin,
// in pages of limit with Next-Page-Cursor. Every request is recorded with
// its time.
type producer3 struct {
	srv *httptest.Server
	mu  sync.Mutex
	// events are by container: eventID → updated.
	events map[string]map[string]time.Time
	asked  []url.Values
	at     []time.Time
	keys   []string
}

func newProducer3(t *testing.T) *producer3 {
	p := &producer3{events: map[string]map[string]time.Time{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		q := r.URL.Query()
		p.asked, p.at, p.keys = append(p.asked, q), append(p.at, time.Now()), append(p.keys, r.Header.Get("X-Producer-Key"))
		if r.URL.Path != "/v3/events" || r.Header.Get("X-Producer-Key") != "pk-secret" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		var lo time.Time
		if v := q.Get("eventUpdatedDateTimeMin"); v != "" {
			lo, _ = time.Parse(time.RFC3339Nano, v)
		}
		var ids []string
		for id, at := range p.events[q.Get("equipmentReference")] {
			if !at.Before(lo) {
				ids = append(ids, id)
			}
		}
		var evs []string
		for _, id := range ids {
			evs = append(evs, fmt.Sprintf(`{"eventID":%q,"eventType":"EQUIPMENT"}`, id))
		}
		w.Header().Set("API-Version", "3.0.0")
		_, _ = w.Write([]byte(`{"events":[` + strings.Join(evs, ",") + `]}`))
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *producer3) add(container, id string, updated time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.events[container] == nil {
		p.events[container] = map[string]time.Time{}
	}
	p.events[container][id] = updated
}

func (p *producer3) requests() ([]url.Values, []time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]url.Values(nil), p.asked...), append([]time.Time(nil), p.at...)
}

// connector registers an account's connector as commandapi stores it.
func (w *world) connector(t *testing.T, account, code, baseURL string) {
	t.Helper()
	enc, err := w.box.Seal([]byte("pk-secret"), secretbox.CarrierConnectorContext(account, code))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.db.Pool.Exec(context.Background(), `INSERT INTO carrier_connectors (account_id, code, base_url, format, auth_scheme,
		auth_header_name, event_types, secret_enc) VALUES ($1, $2, $3, 'dcsa-tnt-3.0', 'API_KEY', 'X-Producer-Key', '{EQUIPMENT,TRANSPORT}', $4)`,
		account, code, baseURL, enc); err != nil {
		t.Fatal(err)
	}
}

// trackOf is track for another account than the world's first.
func (w *world) trackOf(t *testing.T, account, scac, container string) string {
	t.Helper()
	id := uuid.NewString()
	if _, err := w.db.Pool.Exec(context.Background(), `INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status, open_subscriptions)
		VALUES ($1, $2, 'sandbox', $3, 'container', $4, 'PENDING', 1)`, id, account, scac, container); err != nil {
		t.Fatal(err)
	}
	return id
}

// An account's connector is polled as a carrier: its tracking's reference,
// the connector's eventTypes and API key; the pages go to carrier-raw as
// the connector's format for the tracking; a re-poll asks only for what was
// updated since the last answered poll began (less the margin), and a
// subscription owed its history makes the next poll ask for everything
// again and carry it. Another account's tracking of the same code, without
// a connector of its own, is never polled.
func TestPollerPollsAnAccountsConnector(t *testing.T) {
	w := newWorld(t, 1)
	p := newProducer3(t)
	two := containers(2)
	container, stranger := two[0], two[1]
	p.add(container, "old-1", time.Now().Add(-48*time.Hour))
	p.add(container, "old-2", time.Now().Add(-24*time.Hour))
	w.connector(t, w.account, "ACMQ", p.srv.URL+"/v3")
	tracking := w.track(t, "ACMQ", container, true, "")
	var other string
	if err := w.db.Pool.QueryRow(context.Background(), `INSERT INTO accounts (id, client_slug, env, display_name) VALUES (gen_random_uuid(), 'bravo', 'sandbox', 'bravo') RETURNING id`).Scan(&other); err != nil {
		t.Fatal(err)
	}
	w.trackOf(t, other, "ACMQ", stranger)
	cfg := fastConfig()
	cfg.AllowPrivateConnectors = true
	runWith(t, w, newSim(t), cfg, nil)

	testkit.Eventually(t, testkit.Scale(20*time.Second), "three polls of the connector's tracking", func() bool {
		asked, _ := p.requests()
		return len(asked) >= 3
	})
	asked, at := p.requests()
	first := asked[0]
	if first.Get("equipmentReference") != container || first.Get("eventTypes") != "EQUIPMENT,TRANSPORT" || first.Get("limit") != "100" ||
		first.Has("eventUpdatedDateTimeMin") {
		t.Fatalf("first poll asked %v", first)
	}
	from, err := time.Parse(time.RFC3339Nano, asked[1].Get("eventUpdatedDateTimeMin"))
	if err != nil {
		t.Fatalf("re-poll asked %v", asked[1])
	}
	if d := at[0].Add(-5 * time.Minute).Sub(from); d < -2*time.Second || d > 2*time.Second {
		t.Fatalf("re-poll from %s, the first poll was at %s", from, at[0])
	}
	for _, q := range asked {
		if q.Get("equipmentReference") == stranger {
			t.Fatal("another account's tracking was polled with this account's connector")
		}
	}
	if got := w.status(t, tracking); got != "CONNECTED" {
		t.Fatalf("status %s", got)
	}

	// A subscription owed its history: the next poll asks for every event
	// and its pages carry the subscription as their history target.
	sub := uuid.NewString()
	if _, err := w.db.Pool.Exec(context.Background(), `INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at, history_pending)
		VALUES ($1, $2, $5, $3, 'ACMQ', $4, 'OPEN', now(), now() + interval '1 day', true)`, sub, w.account, tracking, container, "ref-"+sub); err != nil {
		t.Fatal(err)
	}
	cl := testenv.KafkaClient(t, w.brokers, kgo.ConsumeTopics(w.kc.Topic(schemas.TopicCarrierRaw)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	var history *schemas.CarrierRaw
	pages := 0
	for history == nil && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var env schemas.CarrierRaw
			if err := json.Unmarshal(r.Value, &env); err != nil {
				t.Fatal(err)
			}
			if env.SCAC != "ACMQ" || env.TrackingID != tracking || env.Format != "dcsa-tnt-3.0" || env.AccountID != w.account {
				t.Fatalf("carrier-raw record %+v", env)
			}
			pages++
			if kafka.Header(r, schemas.HeaderHistoryFor) == sub {
				history = &env
			}
		})
	}
	if history == nil {
		t.Fatalf("no poll carried the history (%d pages)", pages)
	}
	if !strings.Contains(string(history.Payload), "old-1") || !strings.Contains(string(history.Payload), "old-2") {
		t.Fatalf("the history's page %s lacks the older events", history.Payload)
	}
}
