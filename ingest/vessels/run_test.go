package vessels_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/ingest/vessels"
	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// atSea finds a time when the sandbox container's first vessel leg is at sea.
func atSea(t *testing.T, scac, number string) (journey.Journey, journey.Leg, time.Time) {
	t.Helper()
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for d := 0; d < 200; d++ {
		now := base.Add(time.Duration(d) * 24 * time.Hour)
		j, ok := sandbox.Shipment(scac, journey.KindContainer, number, now)
		if !ok {
			t.Fatalf("%s %s: no sandbox journey", scac, number)
		}
		for _, l := range j.Legs {
			if l.Mode == journey.ModeVessel && now.After(l.Departs.Add(6*time.Hour)) && now.Before(l.Arrives.Add(-48*time.Hour)) {
				return j, l, now
			}
		}
	}
	t.Fatal("never at sea")
	return journey.Journey{}, journey.Leg{}, time.Time{}
}

// TestSandboxShipsReport: the stage reads the open sandbox trackings from
// Postgres and writes, every Interval, the position of the ship carrying
// each container that is at sea, at the sandbox's journey time; a closed
// tracking's ship does not report.
func TestSandboxShipsReport(t *testing.T) {
	db := testenv.Postgres(t)
	k := testenv.Kafka(t, 2)
	ctx := context.Background()
	const number = "MSKU1234565"
	j, leg, now := atSea(t, "MAEU", number)
	acct := uuid.NewString()
	if _, err := db.Pool.Exec(ctx, `INSERT INTO accounts (id, client_slug, env, display_name) VALUES ($1, 'acme', 'sandbox', 'acme')`, acct); err != nil {
		t.Fatal(err)
	}
	for _, tr := range []struct {
		number string
		open   int
	}{{number, 1}, {"HLXU1234566", 0}} {
		if _, err := db.Pool.Exec(ctx, `INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status, open_subscriptions)
			VALUES ($1, $2, 'sandbox', 'MAEU', 'container', $3, 'CONNECTED', $4)`, uuid.NewString(), acct, tr.number, tr.open); err != nil {
			t.Fatal(err)
		}
	}
	prod := testenv.KafkaClient(t, k.Brokers)
	stop := testenv.RunStage(t, "vessels", func(ctx context.Context) error {
		return vessels.Run(ctx, vessels.Config{Interval: 50 * time.Millisecond, SandboxRefresh: time.Hour},
			vessels.Deps{Producer: prod, Namespace: k.NS, Pool: db.Pool, Log: testenv.Log(t),
				Sandbox: sandbox.Config{Clock: func() time.Time { return now }}})
	})
	cons := testenv.KafkaClient(t, k.Brokers, kgo.ConsumeTopics(k.Topic(schemas.TopicVesselPositions)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var got []schemas.VesselPosition
	testkit.Eventually(t, 10*time.Second, "two reports", func() bool {
		fctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		cons.PollFetches(fctx).EachRecord(func(r *kgo.Record) {
			p, err := schemas.DecodeVesselPosition(r.Value)
			if err != nil {
				t.Errorf("undecodable record: %v", err)
				return
			}
			if string(r.Key) != p.Key() {
				t.Errorf("key %q, position %s", r.Key, p.Key())
			}
			got = append(got, p)
		})
		return len(got) >= 2
	})
	stop()
	for _, p := range got {
		if p.Env != schemas.EnvSandbox || p.IMO != leg.Vessel.IMO || p.Voyage != leg.Voyage || !p.At.Equal(now) {
			t.Fatalf("report %+v, want %s voyage %s at %s (journey %s)", p, leg.Vessel.IMO, leg.Voyage, now, j.Value)
		}
		if p.NavStatus != schemas.NavUnderWayEngine || p.SpeedKnots < 10 {
			t.Errorf("a ship at sea reports %+v", p)
		}
	}
}

// TestProviderPositionsReachTheTopic: the live provider is asked, in
// batches, for the vessels the live journeys' transport events name, with
// the operator's key; what it answers becomes position records, and what
// it refuses is counted, never written.
func TestProviderPositionsReachTheTopic(t *testing.T) {
	ch := testenv.ClickHouse(t)
	k := testenv.Kafka(t, 2)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	imos := []string{"9811000", "9321483", "9074729"}
	for i, imo := range imos {
		ev := `{"eventType":"TRANSPORT","transportCall":{"vessel":{"vesselIMONumber":"` + imo + `","vesselName":"X"}}}`
		env := "live"
		if i == 2 {
			env = "sandbox" // a sandbox journey's vessel is not asked of the provider
		}
		if err := clickhouse.Insert(ctx, ch.Conn, "events", []string{"account_id", "env", "tracking_id", "scac", "event_id", "content_hash",
			"event_type", "classifier", "type_code", "equipment_reference", "location", "event_time", "event_json", "emitted_at", "version"},
			[]any{"a", env, "t", "MAEU", uuid.NewString(), "h", "TRANSPORT", "EST", "ARRI", "", "NLRTM", now.Add(time.Duration(i) * time.Hour), ev, now, uint64(1)}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var asked [][]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v0/vessel_bulk" || r.URL.Query().Get("api-key") != "k3y" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		mu.Lock()
		asked = append(asked, r.URL.Query()["imo"])
		mu.Unlock()
		var vs []map[string]any
		for _, imo := range r.URL.Query()["imo"] {
			if imo == "9321483" {
				continue // unknown to the provider
			}
			vs = append(vs, map[string]any{"uuid": "u", "name": "EVER GIVEN", "mmsi": "353136000", "imo": imo, "lat": 25.29845, "lon": 121.217,
				"speed": 14.2, "course": 194.0, "heading": 195, "navigation_status": "Under way using engine",
				"last_position_epoch": now.Unix(), "last_position_UTC": now.Format(time.RFC3339)})
		}
		if err := json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"total": len(vs), "vessels": vs}, "meta": map[string]any{"success": true}}); err != nil {
			t.Fatal(err)
		}
	}))
	defer srv.Close()
	prod := testenv.KafkaClient(t, k.Brokers)
	testenv.RunStage(t, "vessels", func(ctx context.Context) error {
		return vessels.Run(ctx, vessels.Config{ProviderURL: srv.URL, ProviderAPIKey: "k3y", ProviderInterval: time.Hour, ProviderBatch: 1},
			vessels.Deps{Producer: prod, Namespace: k.NS, CH: ch.Conn, Log: testenv.Log(t)})
	})
	cons := testenv.KafkaClient(t, k.Brokers, kgo.ConsumeTopics(k.Topic(schemas.TopicVesselPositions)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var got []schemas.VesselPosition
	testkit.Eventually(t, 10*time.Second, "the provider's report", func() bool {
		fctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		cons.PollFetches(fctx).EachRecord(func(r *kgo.Record) {
			p, err := schemas.DecodeVesselPosition(r.Value)
			if err != nil {
				t.Errorf("undecodable record: %v", err)
			}
			got = append(got, p)
		})
		return len(got) >= 1
	})
	if len(got) != 1 || got[0].IMO != "9811000" || got[0].Env != schemas.EnvLive || got[0].SpeedKnots != 14.2 || got[0].Course != 194 || !got[0].At.Equal(now) {
		t.Fatalf("reports %+v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	var all []string
	for _, a := range asked {
		if len(a) != 1 {
			t.Errorf("batch of %d, want 1", len(a))
		}
		all = append(all, a...)
	}
	if strings.Join(all, ",") != "9321483,9811000" {
		t.Errorf("asked for %v, want the live journeys' vessels, latest event first", all)
	}
}
