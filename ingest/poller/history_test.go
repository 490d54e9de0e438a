package poller_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// A subscription owed its history (subscriptions.history_pending) is the
// history target of its tracking's next poll, and of that one only; a
// closed one, or one served before, is nobody's target.
func TestPollerMarksOnePollAsEachSubscriptionsHistory(t *testing.T) {
	w := newWorld(t, 1)
	s := newSim(t)
	w.credentials(t, "MAEU", map[string]string{"apiKey": "sandbox-key"})
	container := containers(1)[0]
	tracking := w.track(t, "MAEU", container, true, "")
	ctx := context.Background()
	subscribe := func(status string, pending bool) string {
		t.Helper()
		id := uuid.NewString()
		if _, err := w.db.Pool.Exec(ctx, `INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at, history_pending)
			VALUES ($1, $2, $7, $3, 'MAEU', $4, $5, now(), now() + interval '1 day', $6)`, id, w.account, tracking, container, status, pending, id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	subscribe("OPEN", false)
	closed := subscribe("CLOSED", true)
	first := subscribe("OPEN", true)
	run(t, w, s, fastConfig())

	cl := testenv.KafkaClient(t, w.brokers, kgo.ConsumeTopics(w.kc.Topic(schemas.TopicCarrierRaw)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var polls []string // each poll's history targets, in order
	lastPoll := ""
	read := func(n int) {
		t.Helper()
		rctx, cancel := context.WithTimeout(ctx, testkit.Scale(20*time.Second))
		defer cancel()
		for len(polls) < n && rctx.Err() == nil {
			cl.PollFetches(rctx).EachRecord(func(r *kgo.Record) {
				var env schemas.CarrierRaw
				if err := json.Unmarshal(r.Value, &env); err != nil {
					t.Fatal(err)
				}
				poll, _, _ := strings.Cut(env.ID, "/")
				if poll != lastPoll {
					lastPoll = poll
					polls = append(polls, kafka.Header(r, schemas.HeaderHistoryFor))
				} else if h := kafka.Header(r, schemas.HeaderHistoryFor); h != polls[len(polls)-1] {
					t.Errorf("a poll's pages with history targets %q and %q", polls[len(polls)-1], h)
				}
			})
		}
		if len(polls) < n {
			t.Fatalf("%d polls in 20 s, want %d", len(polls), n)
		}
	}
	read(3)
	if polls[0] != first || polls[1] != "" || polls[2] != "" {
		t.Fatalf("history targets of the polls %q, want %s first and none after", polls, first)
	}
	later := subscribe("OPEN", true)
	read(len(polls) + 3)
	targeted := 0
	for _, p := range polls[3:] {
		switch p {
		case "":
		case later:
			targeted++
		default:
			t.Errorf("a poll for %q", p)
		}
	}
	if targeted != 1 {
		t.Errorf("%d polls for the later subscription's history, want 1: %q", targeted, polls)
	}
	var pending []bool
	for _, id := range []string{closed, first, later} {
		var p bool
		if err := w.db.Pool.QueryRow(ctx, `SELECT history_pending FROM subscriptions WHERE id = $1`, id).Scan(&p); err != nil {
			t.Fatal(err)
		}
		pending = append(pending, p)
	}
	if !pending[0] || pending[1] || pending[2] {
		t.Errorf("history_pending of the closed, first and later subscriptions: %v", pending)
	}
}
