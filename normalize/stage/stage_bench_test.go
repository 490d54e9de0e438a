package stage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/contrack/contrack/reference"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/normalize/tnt22"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// BenchmarkStage measures the whole stage on a Kafka-protocol broker: b.N
// raw TNT 2.2 pages (the DCSA sample, 4 emitted events each, every page its
// own tracking so nothing is a repeat) in, DCSA events out in transactions.
// Compare its events/s with BenchmarkParse of normalize/tnt22: the gap is
// the broker and the dedupe store, not parsing.
//
//	go test -run '^$' -bench Stage -benchtime 2000x ./normalize/stage/
func BenchmarkStage(b *testing.B) {
	db := testenv.Postgres(b)
	kc := testenv.Kafka(b, 3)
	brokers := kc.Brokers
	prod := testenv.KafkaClient(b, brokers, kgo.ProducerLinger(5*time.Millisecond))
	payload := sampleB(b)
	var recs []*kgo.Record
	for i := 0; i < b.N; i++ {
		tr := fmt.Sprintf("trk-%d", i)
		env := schemas.CarrierRaw{ID: uuid.NewString(), Format: string(carriers.FormatTNT22), SCAC: "MAEU", Env: "sandbox",
			AccountID: "acct", TrackingID: tr, ReceivedAt: time.Now().UTC(), Payload: payload}
		v, _ := json.Marshal(env)
		recs = append(recs, &kgo.Record{Topic: kc.Topic(schemas.TopicCarrierRaw), Key: []byte(tr), Value: v})
	}
	if err := kafka.ProduceSync(context.Background(), prod, recs...); err != nil {
		b.Fatal(err)
	}
	adm := kadm.NewClient(prod)
	want := int64(b.N * 4)
	b.ResetTimer()
	start := time.Now()
	testenv.RunStage(b, "normalize", func(ctx context.Context) error {
		return stage.Run(ctx, stage.Config{}, stage.Deps{Brokers: brokers, Namespace: kc.NS, Pool: db.Pool, Log: testenv.Log(b),
			Parsers: map[carriers.Format]normalize.Parser{carriers.FormatTNT22: tnt22.Parse}})
	})
	testkit.Eventually(b, 5*time.Minute, fmt.Sprintf("%d events", want), func() bool {
		ends, err := adm.ListEndOffsets(context.Background(), kc.Topic(schemas.TopicEvents))
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
		// End offsets include one transaction marker per partition per commit.
		return n >= want
	})
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(want)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pages/s")
}

func sampleB(b *testing.B) []byte {
	return mustRead(b, reference.Path("dcsa", "samples", "tnt-220-response.json"))
}
