package ingest_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/ingest"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

// The carrier key's SCAC (upper-cased) and id travel with the raw record,
// in the envelope and the headers: the normaliser routes by them, never by
// anything in the body.
func TestPostEventsCarriesTheKeysSCACAndID(t *testing.T) {
	f := setup(t)
	key, k, err := f.api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "cma", Env: "sandbox", Role: auth.RoleCarrier, SCAC: " cmdu "})
	if err != nil {
		t.Fatal(err)
	}
	if k.SCAC != "CMDU" {
		t.Fatalf("key SCAC %q, want CMDU", k.SCAC)
	}
	// The body names another carrier: it does not matter.
	body := strings.Replace(equipmentEvent, `"eventType": "EQUIPMENT",`, `"eventType": "EQUIPMENT", "carrierCode": "MAEU",`, 1)
	if r := f.api.Do("POST", "/events", key, body); r.Status != 200 {
		t.Fatalf("got %d %s", r.Status, r.Raw)
	}
	cl := testenv.KafkaClient(t, f.kafka.Brokers, kgo.ConsumeTopics(f.kafka.Topic(schemas.TopicCarrierRaw)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
	defer cancel()
	recs := cl.PollFetches(ctx).Records()
	if len(recs) != 1 {
		t.Fatalf("records = %d", len(recs))
	}
	got := rawRecords(t, f.kafka)
	if len(got) != 1 || got[0].SCAC != "CMDU" || got[0].CarrierKeyID != k.ID || got[0].AccountID != "" || got[0].TrackingID != "" {
		t.Fatalf("envelope %+v", got)
	}
	if kafka.Header(recs[0], schemas.HeaderSCAC) != "CMDU" || kafka.Header(recs[0], schemas.HeaderCarrierKey) != k.ID || string(recs[0].Key) != "CMDU/sandbox" {
		t.Fatalf("record key %s headers %v", recs[0].Key, recs[0].Headers)
	}
}

// Any 2–4 letter SCAC can have carrier keys, also one the registry does not
// know (a push-only carrier); other shapes are refused.
func TestCarrierKeySCACs(t *testing.T) {
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	_, k, err := store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "xyz-lines", Env: "live", Role: auth.RoleCarrier, SCAC: "xyzq"})
	if err != nil || k.SCAC != "XYZQ" {
		t.Fatalf("push-only carrier key: %+v %v", k, err)
	}
	for _, bad := range []string{"X", "TOOLONG", "AB1", "A B"} {
		if _, _, err := store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "bad", Env: "live", Role: auth.RoleCarrier, SCAC: bad}); err == nil {
			t.Errorf("SCAC %q accepted", bad)
		}
	}
}

// paddedEvent is a valid event padded with spaces to exactly n bytes.
func paddedEvent(t *testing.T, n int) string {
	if n < len(equipmentEvent) {
		t.Fatal("too small")
	}
	return equipmentEvent + strings.Repeat(" ", n-len(equipmentEvent))
}

// A body of exactly MaxEventsBodyBytes fits one Kafka record (with the
// largest envelope: a request id that JSON-escapes to six bytes a
// character) and is acknowledged; one byte more is 413, and nothing of it
// reaches Kafka.
func TestEventsBodyLimitFitsOneRecord(t *testing.T) {
	f := setup(t)
	key := f.api.Key(auth.CreateKeyParams{ClientSlug: "maersk", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "MAEU"})
	post := func(body string) testenv.Response {
		req, _ := http.NewRequest("POST", f.api.URL+"/events", strings.NewReader(body))
		req.Header.Set("x-api-key", key)
		req.Header.Set("X-Request-Id", strings.Repeat("<", 128))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r testenv.Response
		r.Status = resp.StatusCode
		buf := new(strings.Builder)
		_, _ = io.Copy(buf, resp.Body)
		r.Raw = []byte(buf.String())
		return r
	}
	if r := post(paddedEvent(t, ingest.MaxEventsBodyBytes)); r.Status != 200 {
		t.Fatalf("body at the limit: %d %s", r.Status, r.Raw)
	}
	r := post(paddedEvent(t, ingest.MaxEventsBodyBytes+1))
	if r.Status != 413 || !strings.Contains(string(r.Raw), `"message":"`+ingest.MsgEventsTooLarge+`"`) {
		t.Fatalf("body over the limit: %d %s", r.Status, r.Raw)
	}
	if r := post(paddedEvent(t, 2<<20)); r.Status != 413 || !strings.Contains(string(r.Raw), `"message":"Request body too large`) {
		t.Fatalf("body over 1 MiB: %d %s", r.Status, r.Raw)
	}
	got := rawRecords(t, f.kafka)
	if len(got) != 1 || len(got[0].Payload) != ingest.MaxEventsBodyBytes {
		t.Fatalf("records %d", len(got))
	}
}

// A topic configured with a smaller max.message.bytes than the body limit
// assumes refuses the record: the carrier gets 413, never a 500.
func TestEventsRecordRefusedAsTooLargeIs413(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	// Uncompressed, so the padded body's size is what the broker measures.
	producer := testenv.KafkaClient(t, brokers, kgo.ProducerBatchCompression(kgo.NoCompression()))
	f := fixture{api: testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		ingest.RegisterEvents(s, ingest.EventsDeps{Producer: producer, Namespace: kc.NS, Log: testenv.Log(t), Check: pushed.Check})
	}), kafka: kc}
	key := f.api.Key(auth.CreateKeyParams{ClientSlug: "maersk", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "MAEU"})
	adm := kadm.NewClient(testenv.KafkaClient(t, f.kafka.Brokers))
	small := "100000"
	res, err := adm.AlterTopicConfigs(context.Background(), []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "max.message.bytes", Value: &small}}, kc.Topic(schemas.TopicCarrierRaw))
	if err != nil || res[0].Err != nil {
		t.Fatalf("alter topic: %v %v", err, res)
	}
	// A cluster applies a topic's new config on each broker as it reads
	// it: until the partition's leader has, the big body is still taken
	// (200, stored). Once it has, the refusal is the client's 413.
	var last testenv.Response
	testkit.Eventually(t, 20*time.Second, "the broker's refusal of a record over the topic's max.message.bytes as 413", func() bool {
		last = f.api.Do("POST", "/events", key, paddedEvent(t, 200_000))
		if last.Status != 200 && last.Status != 413 {
			t.Fatalf("got %d %s", last.Status, last.Raw)
		}
		return last.Status == 413
	})
	if last.Message() != ingest.MsgEventsTooLarge {
		t.Fatalf("got %d %s", last.Status, last.Raw)
	}
	// A body that fits the smaller topic still goes through.
	if r := f.api.Do("POST", "/events", key, paddedEvent(t, 50_000)); r.Status != 200 {
		t.Fatalf("small body: %d %s", r.Status, r.Raw)
	}
}
