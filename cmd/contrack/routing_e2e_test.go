package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
)

// pushedEvent is an EQUIPMENT event for container, marked in its location name.
func pushedEvent(container, marker string) string {
	return `{"eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":"2026-05-01T10:00:00Z","equipmentEventTypeCode":"GTIN",
	  "equipmentReference":"` + container + `","emptyIndicatorCode":"LADEN","eventLocation":{"locationName":"` + marker + `","UNLocationCode":"NLRTM"}}`
}

// Carriers write only their own shipments, end to end over `contrack all`:
// a CMDU carrier key's event for a container another account follows with
// MAEU reaches nobody (no webhook delivery queued or sent, nothing on the
// events topic for the tracking, nothing to pull), and is counted against
// the CMDU key for the operator; a MAEU key's event for the same container,
// pushed afterwards as the sentinel, arrives alone. A push-only carrier's
// subscription (XYZQ, not in the registry) is fed by its pushes.
func TestEndToEndPushedEventsReachOnlyTheKeysCarrier(t *testing.T) {
	s := startSystem(t)
	store := auth.NewStore(s.db.Pool)
	ctx := context.Background()
	consumer, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	cmdu, cmduKey, _ := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "cma", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "CMDU"})
	maeu, _, _ := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "maersk", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "MAEU"})
	xyzq, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "xyz-lines", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "xyzq"})
	if err != nil {
		t.Fatal(err)
	}

	hook := activatedHook(t, s, consumer)
	// No MAEU credentials: the tracking is not polled, its events come from pushes only.
	const box = "MSKU9070323"
	if code, body := s.do("POST", "/subscription/equipment", consumer, `{"scacCode":"MAEU","containerNumber":"`+box+`","subscriptionReference":"maeu-1"}`); code != 200 {
		t.Fatalf("subscribe MAEU: %d %v", code, body)
	}
	const pushBox = "CSQU3054383"
	if code, body := s.do("POST", "/subscription/equipment", consumer, `{"scacCode":"XYZQ","containerNumber":"`+pushBox+`","subscriptionReference":"xyzq-1"}`); code != 200 {
		t.Fatalf("subscribe push-only XYZQ: %d %v", code, body)
	}
	// The routing index learns subscriptions through the outbox relay:
	// wait until a MAEU push for the box is delivered, so a miss below is
	// the SCAC rule, not a subscription still on its way.
	// A push processed before the subscription reached the index is (rightly)
	// routed nowhere, so push again until one arrives.
	var next time.Time
	testkit.Eventually(t, 30*time.Second, `a webhook body with "warm-up"`, func() bool {
		if hook.has("warm-up") {
			return true
		}
		if time.Now().After(next) {
			if code, body := s.do("POST", "/events", maeu, pushedEvent(box, "warm-up")); code != 200 {
				t.Fatalf("warm-up push: %d %v", code, body)
			}
			next = time.Now().Add(2 * time.Second)
		}
		return false
	})

	// The cross-carrier push: accepted (the carrier may push any container),
	// routed nowhere, counted against the CMDU key.
	if code, body := s.do("POST", "/events", cmdu, pushedEvent(box, "cross-carrier")); code != 200 {
		t.Fatalf("cross-carrier push: %d %v", code, body)
	}
	testkit.Eventually(t, 20*time.Second, "the CMDU key's unmatched event counted", func() bool {
		u, err := stage.UnmatchedByKey(ctx, s.db.Pool)
		if err != nil {
			t.Fatal(err)
		}
		return u[cmduKey.ID].Events == 1
	})
	// The sentinel: a MAEU push for the same box after the CMDU one was processed.
	if code, body := s.do("POST", "/events", maeu, pushedEvent(box, "sentinel")); code != 200 {
		t.Fatalf("sentinel push: %d %v", code, body)
	}
	hook.waitFor(t, "sentinel", 30*time.Second)
	if hook.has("cross-carrier") {
		t.Fatal("the CMDU key's event was delivered to the MAEU subscription's webhook")
	}
	var queued int
	if err := s.db.Pool.QueryRow(ctx, `SELECT count(*) FROM delivery_queue_events WHERE position('cross-carrier' in convert_from(event, 'UTF8')) > 0`).Scan(&queued); err != nil || queued != 0 {
		t.Fatalf("delivery rows with the cross-carrier event: %d %v", queued, err)
	}
	// The events topic: the tracking's records are in order on one
	// partition; reading up to the sentinel shows anything emitted before it.
	var trackingID string
	if err := s.db.Pool.QueryRow(ctx, `SELECT tracking_id FROM subscriptions WHERE reference = 'maeu-1'`).Scan(&trackingID); err != nil {
		t.Fatal(err)
	}
	var markers []string
	cl := testenv.KafkaClient(t, s.brokers, kgo.ConsumeTopics(s.cfg.KafkaNamespace.Topic(schemas.TopicEvents)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	rctx, cancel := context.WithTimeout(ctx, testkit.Scale(20*time.Second))
	defer cancel()
	for !contains(markers, "sentinel") {
		fs := cl.PollFetches(rctx)
		if rctx.Err() != nil {
			t.Fatalf("sentinel not on the events topic: %v", markers)
		}
		fs.EachRecord(func(r *kgo.Record) {
			var rec schemas.EventRecord
			var ev dcsa.Event
			if err := json.Unmarshal(r.Value, &rec); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(rec.Event, &ev); err != nil {
				t.Fatal(err)
			}
			if rec.TrackingID == trackingID && ev.EventLocation != nil {
				markers = append(markers, ev.EventLocation.LocationName)
			}
		})
	}
	if strings.Join(markers, ",") != "warm-up,sentinel" {
		t.Fatalf("events of the MAEU tracking: %v, want warm-up,sentinel", markers)
	}
	// Pull shows the same: the sentinel, never the cross-carrier event.
	testkit.Eventually(t, 20*time.Second, "the sentinel in the pull", func() bool {
		code, body := s.do("GET", "/subscription/equipment?equipmentNumber="+box, consumer, "")
		raw, _ := json.Marshal(body)
		if code != 200 || !bytes.Contains(raw, []byte("sentinel")) {
			return false
		}
		if bytes.Contains(raw, []byte("cross-carrier")) {
			t.Fatalf("pull shows the cross-carrier event: %s", raw)
		}
		return true
	})
	// The operator sees the count per carrier key.
	u, _ := stage.UnmatchedByKey(ctx, s.db.Pool)
	var out bytes.Buffer
	if err := adminList(ctx, store, u, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), cmduKey.ID) || !strings.Contains(out.String(), "1 (last "+box) {
		t.Fatalf("admin list:\n%s", out.String())
	}

	// The push-only carrier's subscription is fed by its pushes and stays PUSH_ONLY.
	if code, body := s.do("POST", "/events", xyzq, pushedEvent(pushBox, "push-only")); code != 200 {
		t.Fatalf("push-only push: %d %v", code, body)
	}
	b := hook.waitFor(t, "push-only", 30*time.Second).body
	if !bytes.Contains(b, []byte(`"subscriptionReference":"xyzq-1"`)) {
		t.Fatalf("push-only delivery: %s", b)
	}
	if _, body := s.do("GET", "/subscription/xyzq-1", consumer, ""); body["connectionStatus"] != "PUSH_ONLY" {
		t.Fatalf("push-only subscription: %v", body)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
