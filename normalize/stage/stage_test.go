package stage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/reference"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/normalize/tnt22"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/dcsa"
)

func sample(t *testing.T) []byte {
	b, err := os.ReadFile(reference.Path("dcsa", "samples", "tnt-220-response.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type harness struct {
	t       *testing.T
	brokers []string
	kc      testenv.KafkaCluster
	prod    *kgo.Client
}

func (h harness) raw(format carriers.Format, tracking string, payload []byte) {
	env := schemas.CarrierRaw{ID: uuid.NewString(), Format: string(format), SCAC: "MAEU", Env: "sandbox",
		AccountID: "acct-1", TrackingID: tracking, ReceivedAt: time.Now().UTC(), Payload: payload}
	v, _ := json.Marshal(env)
	key := tracking
	if key == "" {
		key = "MAEU/sandbox"
	}
	if err := kafka.ProduceSync(context.Background(), h.prod, &kgo.Record{Topic: h.kc.Topic(schemas.TopicCarrierRaw), Key: []byte(key), Value: v}); err != nil {
		h.t.Fatal(err)
	}
}

func (h harness) subscribe(tracking, kind, value string, open bool) {
	ch := schemas.SubscriptionChanged{ID: uuid.NewString(), AccountID: "acct-2", Env: "sandbox", TrackingID: tracking, SCAC: "MAEU",
		IdentifierKind: kind, Identifier: value, Status: "OPEN", TrackingOpen: open, OccurredAt: time.Now()}
	v, _ := json.Marshal(ch)
	if err := kafka.ProduceSync(context.Background(), h.prod, &kgo.Record{Topic: h.kc.Topic(schemas.TopicSubscriptions), Key: []byte(tracking), Value: v}); err != nil {
		h.t.Fatal(err)
	}
}

// collect reads a topic (read-committed) until want records or the timeout.
func collect(t *testing.T, brokers []string, topic string, want int, wait time.Duration) []*kgo.Record {
	cl := testenv.KafkaClient(t, brokers, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var out []*kgo.Record
	for ctx.Err() == nil && len(out) < want {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { out = append(out, r) })
	}
	return out
}

// collectUntil reads a topic (read-committed) from the start until last
// holds for a record, and returns every record read, that one last.
func collectUntil(t *testing.T, brokers []string, topic string, last func(*kgo.Record) bool) []*kgo.Record {
	t.Helper()
	cl := testenv.KafkaClient(t, brokers, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	var out []*kgo.Record
	for done := false; !done; {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("the sentinel not on %s within 20 s (read %d records)", topic, len(out))
		}
		fs.EachRecord(func(r *kgo.Record) {
			if !done {
				out = append(out, r)
				done = last(r)
			}
		})
	}
	return out
}

// start runs the stage on a broker whose topics have partitions each.
func start(t *testing.T, partitions int32) harness { return startAfter(t, partitions, nil) }

// startAfter runs before (records the stage must find at its start) and
// then the stage.
func startAfter(t *testing.T, partitions int32, before func(h harness)) harness {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, partitions)
	brokers := kc.Brokers
	h := harness{t: t, brokers: brokers, kc: kc, prod: testenv.KafkaClient(t, brokers)}
	if before != nil {
		before(h)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- stage.Run(ctx, stage.Config{RoutingWait: 5 * time.Second}, stage.Deps{
			Brokers: brokers, Namespace: kc.NS, Pool: db.Pool, Log: testenv.Log(t),
			Parsers: map[carriers.Format]normalize.Parser{carriers.FormatTNT22: tnt22.Parse, carriers.FormatPushed: pushed.Parse},
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

func decode(t *testing.T, r *kgo.Record) (schemas.EventRecord, dcsa.Event) {
	var rec schemas.EventRecord
	var ev dcsa.Event
	if err := json.Unmarshal(r.Value, &rec); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rec.Event, &ev); err != nil {
		t.Fatal(err)
	}
	return rec, ev
}

func TestStageDedupesUpdatesAndDeadLetters(t *testing.T) {
	h := start(t, 3)
	payload := sample(t)
	h.raw(carriers.FormatTNT22, "trk-1", payload)
	h.raw(carriers.FormatTNT22, "trk-1", payload)                     // polled again: nothing new
	h.raw(carriers.FormatTNT22, "trk-1", []byte("<html>oops</html>")) // poison
	// Move the estimate of the EST equipment event ...e4.
	at := strings.Index(string(payload), `"3cecb101-7a1a-43a4-9d62-e88a131651e4"`)
	moved := string(payload[:at]) + strings.Replace(string(payload[at:]), `"eventDateTime": "2019-11-12T07:41:00+08:30"`, `"eventDateTime": "2019-11-13T09:00:00+08:30"`, 1)
	if at < 0 || moved == string(payload) {
		t.Fatal("fixture edit did not apply")
	}
	h.raw(carriers.FormatTNT22, "trk-1", []byte(moved)) // one estimate moved
	// The sentinel: the estimate moved again. Its update comes after every
	// event of trk-1 before it (one tracking, one partition, in order).
	const sentinelAt = `"eventDateTime": "2019-11-14T09:00:00+08:30"`
	h.raw(carriers.FormatTNT22, "trk-1", []byte(strings.Replace(moved, `"eventDateTime": "2019-11-13T09:00:00+08:30"`, sentinelAt, 1)))

	// The sample has 4 transport and equipment events (3 shipment events are not emitted).
	events := collectUntil(t, h.brokers, h.kc.Topic(schemas.TopicEvents), func(r *kgo.Record) bool {
		_, ev := decode(t, r)
		return ev.EventDateTime == "2019-11-14T09:00:00+08:30"
	})
	if len(events) != 6 {
		t.Fatalf("events = %d before the sentinel's, want 4 from the first poll and 1 update", len(events)-1)
	}
	events = events[:5]
	ids := map[string]bool{}
	for _, r := range events[:4] {
		rec, ev := decode(t, r)
		if rec.TrackingID != "trk-1" || string(r.Key) != "trk-1" || rec.Update || ev.EventID == "" || ids[ev.EventID] {
			t.Fatalf("event record %+v", rec)
		}
		ids[ev.EventID] = true
	}
	upd, ev := decode(t, events[4])
	if !upd.Update || !ids[ev.EventID] || ev.EventDateTime != "2019-11-13T09:00:00+08:30" {
		t.Fatalf("update: %+v %s", upd, ev.EventDateTime)
	}
	if created, _ := time.Parse(time.RFC3339, ev.EventCreatedDateTime); time.Since(created) > time.Minute {
		t.Fatalf("update's eventCreatedDateTime %s is not new", ev.EventCreatedDateTime)
	}
	dl := collect(t, h.brokers, h.kc.Topic(schemas.TopicNormalizeDeadLetters), 1, 5*time.Second)
	if len(dl) != 1 || string(dl[0].Value) != "<html>oops</html>" || kafka.Header(dl[0], "format") != "dcsa-tnt-2.2" || kafka.Header(dl[0], schemas.HeaderDLQReason) == "" {
		t.Fatalf("dead letters: %d", len(dl))
	}
}

func TestStageRoutesPushedEventsToMatchingTrackings(t *testing.T) {
	// The trackings exist before the stage starts: its routing index
	// catches up with them before routing any pushed event. One partition:
	// the sentinel comes after every event before it.
	h := startAfter(t, 1, func(h harness) {
		h.subscribe("trk-container", "container", "CSQU3054383", true)
		h.subscribe("trk-booking", "booking", "BK-77", true)
		h.subscribe("trk-other", "container", "MSKU9070323", true)
		h.subscribe("trk-closed", "container", "CSQU3054383", false)
	})
	ev := `{"eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":"2026-03-01T09:30:00+01:00",
	  "eventCreatedDateTime":"2026-03-01T10:00:00Z","equipmentEventTypeCode":"GTIN","equipmentReference":"CSQU3054383",
	  "emptyIndicatorCode":"LADEN","eventLocation":{"UNLocationCode":"NLRTM"},
	  "documentReferences":[{"documentReferenceType":"BKG","documentReferenceValue":"BK-77"}]}`
	h.raw(carriers.FormatPushed, "", []byte(ev))
	// The sentinel: a push for trk-other's container.
	h.raw(carriers.FormatPushed, "", []byte(strings.NewReplacer("CSQU3054383", "MSKU9070323", "BK-77", "BK-SENTINEL").Replace(ev)))
	events := collectUntil(t, h.brokers, h.kc.Topic(schemas.TopicEvents), func(r *kgo.Record) bool {
		rec, _ := decode(t, r)
		return rec.TrackingID == "trk-other"
	})
	events = events[:len(events)-1]
	got := map[string]bool{}
	for _, r := range events {
		rec, _ := decode(t, r)
		got[rec.TrackingID] = true
	}
	if len(events) != 2 || !got["trk-container"] || !got["trk-booking"] {
		t.Fatalf("routed to %v", got)
	}
}

func mustRead(tb testing.TB, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// The dedupe state is written to Postgres off the transaction's path, soon
// after the commit, and a new normaliser (empty cache) re-emits nothing of
// a payload polled again.
func TestStageDedupeStateSurvivesRestart(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 3)
	brokers := kc.Brokers
	run := func() (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- stage.Run(ctx, stage.Config{RoutingWait: time.Second}, stage.Deps{
				Brokers: brokers, Namespace: kc.NS, Pool: db.Pool, Log: testenv.Log(t),
				Parsers: map[carriers.Format]normalize.Parser{carriers.FormatTNT22: tnt22.Parse},
			})
		}()
		return func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("stage shutdown: %v", err)
			}
		}
	}
	h := harness{t: t, brokers: brokers, kc: kc, prod: testenv.KafkaClient(t, brokers)}
	payload := sample(t)

	stop := run()
	h.raw(carriers.FormatTNT22, "trk-1", payload)
	first := collect(t, brokers, kc.Topic(schemas.TopicEvents), 4, 20*time.Second)
	if len(first) != 4 {
		stop()
		t.Fatalf("events = %d, want 4", len(first))
	}
	want := map[string]string{}
	for _, r := range first {
		rec, _ := decode(t, r)
		want[rec.EventID] = rec.ContentHash
	}
	saved := func() map[string]string {
		rows, err := db.Pool.Query(context.Background(), `SELECT event_id, content_hash FROM normalize_seen WHERE tracking_id = 'trk-1'`)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		var id, hash string
		if _, err := pgx.ForEachRow(rows, []any{&id, &hash}, func() error { got[id] = hash; return nil }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	// The saver writes soon after the commit (which the events being
	// readable shows); poll for it.
	var got map[string]string
	testkit.Eventually(t, 10*time.Second, "the dedupe state saved", func() bool {
		got = saved()
		return len(got) >= len(want)
	})
	stop()
	if len(got) != len(want) {
		t.Fatalf("saved dedupe state %v, want %v", got, want)
	}
	for id, hash := range want {
		if got[id] != hash {
			t.Fatalf("saved hash of %s = %q, want %q", id, got[id], hash)
		}
	}

	stop = run()
	defer stop()
	// The sentinel shares trk-1's partitions (raw and events): it is
	// normalised after trk-1's record, and its events follow whatever that
	// emitted, so reading up to them shows any re-emission.
	mark := samePartition(t, "trk-1", 3)
	h.raw(carriers.FormatTNT22, "trk-1", payload) // polled again: nothing new
	h.raw(carriers.FormatTNT22, mark, payload)
	marks := 0
	all := collectUntil(t, brokers, kc.Topic(schemas.TopicEvents), func(r *kgo.Record) bool {
		if rec, _ := decode(t, r); rec.TrackingID == mark {
			marks++
		}
		return marks == 4
	})
	if len(all) != 8 {
		t.Fatalf("events after restart = %d, want the first 4 and the sentinel's 4", len(all))
	}
	for _, r := range all[4:] {
		if rec, _ := decode(t, r); rec.TrackingID != mark {
			t.Fatalf("re-emitted after restart: %+v", rec)
		}
	}
}

// samePartition returns a tracking id whose records land on the partition
// of tracking's, of n partitions (the producers' default, murmur2 of the key).
func samePartition(t *testing.T, tracking string, n int) string {
	t.Helper()
	p := kgo.StickyKeyPartitioner(nil).ForTopic(schemas.TopicCarrierRaw)
	want := p.Partition(&kgo.Record{Key: []byte(tracking)}, n)
	for i := range 1000 {
		if id := fmt.Sprintf("trk-mark-%d", i); p.Partition(&kgo.Record{Key: []byte(id)}, n) == want {
			return id
		}
	}
	t.Fatalf("no tracking id shares %s's partition", tracking)
	return ""
}

// A record of combined pushes (CarrierRaw.Parts) is normalised part by
// part: the good parts' events are routed as if each had come alone, a part
// the parser refuses is dead-lettered by itself, and a record that claims
// parts but is no array of objects is dead-lettered whole.
func TestStageNormalisesCombinedPushesPartByPart(t *testing.T) {
	h := startAfter(t, 1, func(h harness) {
		h.subscribe("trk-container", "container", "CSQU3054383", true)
		h.subscribe("trk-other", "container", "MSKU9070323", true)
	})
	ev := `{"eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":"2026-03-01T09:30:00+01:00",
	  "eventCreatedDateTime":"2026-03-01T10:00:00Z","equipmentEventTypeCode":"GTIN","equipmentReference":"CSQU3054383",
	  "emptyIndicatorCode":"LADEN","eventLocation":{"UNLocationCode":"NLRTM"}}`
	bad := `{"eventType":"SHIPMENT","equipmentReference":"CSQU3054383"}`
	combined := func(parts int, payload string) {
		env := schemas.CarrierRaw{ID: uuid.NewString(), Format: string(carriers.FormatPushed), SCAC: "MAEU", Env: "sandbox",
			ReceivedAt: time.Now().UTC(), Payload: []byte(payload), CarrierKeyID: "key-1", Parts: parts}
		v, err := schemas.EncodeCarrierRaw(&env)
		if err != nil {
			t.Fatal(err)
		}
		if err := kafka.ProduceSync(context.Background(), h.prod, &kgo.Record{Topic: h.kc.Topic(schemas.TopicCarrierRaw), Key: []byte("MAEU/sandbox"), Value: v}); err != nil {
			t.Fatal(err)
		}
	}
	later := strings.Replace(ev, "09:30:00", "11:45:00", 1)
	combined(2, `[{"eventType":`) // not an array of objects: dead-lettered whole
	combined(3, "[\n"+ev+", "+bad+" ,"+later+"]")
	// The sentinel, alone.
	combined(0, strings.Replace(ev, "CSQU3054383", "MSKU9070323", 1))

	events := collectUntil(t, h.brokers, h.kc.Topic(schemas.TopicEvents), func(r *kgo.Record) bool {
		rec, _ := decode(t, r)
		return rec.TrackingID == "trk-other"
	})
	events = events[:len(events)-1]
	times := map[string]bool{}
	for _, r := range events {
		rec, ev := decode(t, r)
		if rec.TrackingID != "trk-container" {
			t.Fatalf("routed to %s", rec.TrackingID)
		}
		times[ev.EventDateTime] = true
	}
	if len(events) != 2 || !times["2026-03-01T09:30:00+01:00"] || !times["2026-03-01T11:45:00+01:00"] {
		t.Fatalf("%d events %v, want the two good parts'", len(events), times)
	}
	dl := collect(t, h.brokers, h.kc.Topic(schemas.TopicNormalizeDeadLetters), 2, 10*time.Second)
	if len(dl) != 2 {
		t.Fatalf("%d dead letters, want 2", len(dl))
	}
	if string(dl[0].Value) != `[{"eventType":` || !strings.Contains(kafka.Header(dl[0], schemas.HeaderDLQReason), "not an array of objects") {
		t.Fatalf("first dead letter %q: %s", dl[0].Value, kafka.Header(dl[0], schemas.HeaderDLQReason))
	}
	if string(dl[1].Value) != bad || kafka.Header(dl[1], "format") != string(carriers.FormatPushed) {
		t.Fatalf("second dead letter %q, want the refused part alone", dl[1].Value)
	}
}
