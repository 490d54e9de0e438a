package stage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

type routingHarness struct {
	t       *testing.T
	brokers []string
	kc      testenv.KafkaCluster
	prod    *kgo.Client
	pool    *pgxpool.Pool
}

func startRouting(t *testing.T, before ...func(h routingHarness)) routingHarness {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 3)
	brokers := kc.Brokers
	h := routingHarness{t: t, brokers: brokers, kc: kc, prod: testenv.KafkaClient(t, brokers), pool: db.Pool}
	// Subscriptions made before the stage starts are in the routing index
	// before it routes any push (it catches up first); one made later may
	// race a push, as in production.
	for _, f := range before {
		f(h)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- stage.Run(ctx, stage.Config{RoutingWait: 5 * time.Second}, stage.Deps{
			Brokers: brokers, Namespace: kc.NS, Pool: db.Pool, Log: testenv.Log(t),
			Parsers: map[carriers.Format]normalize.Parser{carriers.FormatPushed: pushed.Parse},
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("stage shutdown: %v", err)
		}
	})
	return h
}

// subscribe publishes an open tracking of account on (scac, kind, value).
func (h routingHarness) subscribe(tracking, account, env, scac, kind, value string) {
	ch := schemas.SubscriptionChanged{ID: uuid.NewString(), AccountID: account, Env: env, TrackingID: tracking, SCAC: scac,
		IdentifierKind: kind, Identifier: value, Status: "OPEN", TrackingOpen: true, OccurredAt: time.Now()}
	v, _ := json.Marshal(ch)
	if err := kafka.ProduceSync(context.Background(), h.prod, &kgo.Record{Topic: h.kc.Topic(schemas.TopicSubscriptions), Key: []byte(tracking), Value: v}); err != nil {
		h.t.Fatal(err)
	}
}

// push publishes a raw record as POST /events does for a carrier key of scac.
func (h routingHarness) push(keyID, scac, env, body string) {
	raw := schemas.CarrierRaw{ID: uuid.NewString(), Format: string(carriers.FormatPushed), SCAC: scac, Env: env,
		ReceivedAt: time.Now().UTC(), Payload: []byte(body), CarrierKeyID: keyID}
	v, _ := json.Marshal(raw)
	if err := kafka.ProduceSync(context.Background(), h.prod, &kgo.Record{Topic: h.kc.Topic(schemas.TopicCarrierRaw), Key: []byte(scac + "/" + env), Value: v}); err != nil {
		h.t.Fatal(err)
	}
}

// unmatched is keyID's count in pushed_unmatched (0 without a row).
func (h routingHarness) unmatched(keyID string) (int64, string) {
	var n int64
	var ref string
	err := h.pool.QueryRow(context.Background(), `SELECT events, last_reference FROM pushed_unmatched WHERE key_id = $1`, keyID).Scan(&n, &ref)
	if err != nil && !strings.Contains(err.Error(), "no rows") {
		h.t.Fatal(err)
	}
	return n, ref
}

func (h routingHarness) waitUnmatched(keyID string, want int64) {
	h.t.Helper()
	testkit.Eventually(h.t, 20*time.Second, fmt.Sprintf("the unmatched count of %s at %d", keyID, want), func() bool {
		n, _ := h.unmatched(keyID)
		return n == want
	})
}

// readUntil reads the events topic from the start (read-committed) until
// every tracking/marker in want has been seen, and returns everything read.
// Records of one tracking are in order on one partition, so whatever was
// emitted for a tracking before its sentinel has been read by then.
func readUntil(t *testing.T, kc testenv.KafkaCluster, want ...string) map[string]bool {
	t.Helper()
	cl := testenv.KafkaClient(t, kc.Brokers, kgo.ConsumeTopics(kc.Topic(schemas.TopicEvents)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	seen := map[string]bool{}
	missing := func() []string {
		var m []string
		for _, w := range want {
			if !seen[w] {
				m = append(m, w)
			}
		}
		return m
	}
	for len(missing()) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("sentinels not seen within 20 s: %v (seen %v)", missing(), seen)
		}
		fs.EachRecord(func(r *kgo.Record) {
			rec, ev := decode(t, r)
			if ev.EventLocation == nil {
				t.Fatalf("event without location: %s", rec.Event)
			}
			// carrierCode is the pushing key's SCAC, which is the tracking's.
			if ev.CarrierCode != rec.SCAC {
				t.Errorf("event for %s tracking %s has carrierCode %q", rec.SCAC, rec.TrackingID, ev.CarrierCode)
			}
			seen[rec.TrackingID+"/"+ev.EventLocation.LocationName] = true
		})
	}
	return seen
}

const pushedEvent = `{"eventID":"%ID%","eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":"2026-03-01T09:30:00+01:00",
  "eventCreatedDateTime":"2026-03-01T10:00:00Z","equipmentEventTypeCode":"GTIN","equipmentReference":"CSQU3054383",
  "emptyIndicatorCode":"LADEN","eventLocation":{"locationName":"%ID%","UNLocationCode":"NLRTM"},
  "documentReferences":[{"documentReferenceType":"BKG","documentReferenceValue":"BK-77"}]}`

// eventWithID marks an event with id in its eventID and locationName: the
// normaliser derives its own event ids (from the fields and the SCAC), the
// location name travels unchanged.
func eventWithID(id string) string { return strings.ReplaceAll(pushedEvent, "%ID%", id) }

// A pushed event reaches only open trackings of the carrier key's SCAC in
// its environment; one for a carrier nobody follows reaches nobody and is
// counted against its key.
func TestStagePushedEventsReachOnlyTheKeysCarrier(t *testing.T) {
	h := startRouting(t, func(h routingHarness) {
		h.subscribe("trk-maeu", "acct-a", "sandbox", "MAEU", "container", "CSQU3054383")
		h.subscribe("trk-cmdu", "acct-b", "sandbox", "CMDU", "container", "CSQU3054383")
		h.subscribe("trk-cmdu-bkg", "acct-c", "sandbox", "CMDU", "booking", "BK-77")
		h.subscribe("trk-maeu-live", "acct-d", "live", "MAEU", "container", "CSQU3054383")
	})

	const (
		foreign = "11111111-0000-4000-8000-000000000001"
		toCMDU  = "11111111-0000-4000-8000-000000000002"
		toMAEU  = "11111111-0000-4000-8000-000000000003"
		toLive  = "11111111-0000-4000-8000-000000000006"

		warmCMDU = "22222222-0000-4000-8000-000000000001"
		warmMAEU = "22222222-0000-4000-8000-000000000002"
		warmLive = "22222222-0000-4000-8000-000000000003"
	)
	// Warm-up: each tracking receives its own carrier's push, so the routing
	// index knows all four before the foreign push (a miss below is the SCAC
	// rule, not a subscription still on its way).
	h.push("key-cmdu", "CMDU", "sandbox", eventWithID(warmCMDU))
	h.push("key-maeu", "MAEU", "sandbox", eventWithID(warmMAEU))
	h.push("key-maeu-live", "MAEU", "live", eventWithID(warmLive))
	warm := []string{"trk-cmdu/" + warmCMDU, "trk-cmdu-bkg/" + warmCMDU, "trk-maeu/" + warmMAEU, "trk-maeu-live/" + warmLive}
	readUntil(t, h.kc, warm...)

	// An HLCU key pushes for a container (and booking) that MAEU and CMDU
	// trackings follow: it reaches none of them.
	h.push("key-hlcu", "HLCU", "sandbox", eventWithID(foreign))
	h.waitUnmatched("key-hlcu", 1)
	// Sentinels, pushed after the HLCU event's batch was processed, one per
	// tracking: each lands in a later transaction than anything that batch
	// could have emitted for the same tracking.
	h.push("key-cmdu", "CMDU", "sandbox", eventWithID(toCMDU))
	h.push("key-maeu", "maeu", "sandbox", eventWithID(toMAEU)) // any case: SCACs compare upper-case
	h.push("key-maeu-live", "MAEU", "live", eventWithID(toLive))
	seen := readUntil(t, h.kc, append(warm, "trk-cmdu/"+toCMDU, "trk-cmdu-bkg/"+toCMDU, "trk-maeu/"+toMAEU, "trk-maeu-live/"+toLive)...)
	if len(seen) != 8 {
		t.Errorf("events emitted: %v, want only the 4 warm-ups and 4 sentinels", seen)
	}
	for k := range seen {
		if strings.HasSuffix(k, foreign) {
			t.Errorf("the HLCU key's event reached %s", k)
		}
	}
	if n, ref := h.unmatched("key-hlcu"); n != 1 || ref != "CSQU3054383" {
		t.Errorf("key-hlcu unmatched = %d %q", n, ref)
	}
	for _, k := range []string{"key-cmdu", "key-maeu", "key-maeu-live"} {
		if n, _ := h.unmatched(k); n != 0 {
			t.Errorf("%s unmatched = %d, want 0", k, n)
		}
	}
	// A second unmatched push adds to the same key's count.
	h.push("key-hlcu", "HLCU", "sandbox", "["+eventWithID("11111111-0000-4000-8000-000000000004")+","+eventWithID("11111111-0000-4000-8000-000000000005")+"]")
	h.waitUnmatched("key-hlcu", 3)
	counts, err := stage.UnmatchedByKey(context.Background(), h.pool)
	if err != nil {
		t.Fatal(err)
	}
	if u := counts["key-hlcu"]; u.Events != 3 || u.SCAC != "HLCU" || u.Env != "sandbox" || u.LastAt.IsZero() || len(counts) != 1 {
		t.Errorf("UnmatchedByKey = %+v", counts)
	}
}
