package stage_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
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

// Two deployments share one cluster in namespaces of their own
// (CONTRACK_KAFKA_NAMESPACE): each normaliser reads only its own raw
// records and writes only its own events, and the two, configured with
// the same transactional id, do not fence each other.
func TestNamespacesShareAClusterApart(t *testing.T) {
	kc := testenv.Kafka(t, 1)
	sub := func(name string) schemas.Namespace { // inside the test's namespace, so its cleanup drops them
		if kc.NS == "" {
			return schemas.Namespace(name)
		}
		return kc.NS + "." + schemas.Namespace(name)
	}
	staging, production := sub("staging"), sub("production")
	prod := testenv.KafkaClient(t, kc.Brokers)
	for _, ns := range []schemas.Namespace{staging, production} {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(60*time.Second))
		if err := kafka.EnsureTopics(ctx, prod, ns, 1, schemas.AllTopics...); err != nil {
			t.Fatal(err)
		}
		cancel()
		db := testenv.Postgres(t) // a deployment's own database
		testenv.RunStage(t, "normalize "+string(ns), func(ctx context.Context) error {
			return stage.Run(ctx, stage.Config{TransactionalID: "contrack-normalize-1", RoutingWait: time.Second}, stage.Deps{
				Brokers: kc.Brokers, Namespace: ns, Pool: db.Pool, Log: testenv.Log(t),
				Parsers: map[carriers.Format]normalize.Parser{carriers.FormatTNT22: tnt22.Parse},
			})
		})
	}
	raw := func(ns schemas.Namespace, tracking string) {
		t.Helper()
		v, err := schemas.EncodeCarrierRaw(&schemas.CarrierRaw{ID: uuid.NewString(), Format: string(carriers.FormatTNT22), SCAC: "MAEU",
			Env: "sandbox", AccountID: "acct-1", TrackingID: tracking, ReceivedAt: time.Now().UTC(), Payload: sample(t)})
		if err != nil {
			t.Fatal(err)
		}
		if err := kafka.ProduceSync(context.Background(), prod, &kgo.Record{Topic: ns.Topic(schemas.TopicCarrierRaw), Key: []byte(tracking), Value: v}); err != nil {
			t.Fatal(err)
		}
	}
	// Each deployment polls its own tracking, twice (the second after the
	// first is out, so both normalisers commit more than one transaction).
	for _, round := range []string{"first", "second"} {
		raw(staging, "trk-staging-"+round)
		raw(production, "trk-production-"+round)
		for _, ns := range []schemas.Namespace{staging, production} {
			want := "trk-" + lastName(ns) + "-" + round
			events := collectUntil(t, kc.Brokers, ns.Topic(schemas.TopicEvents), func(r *kgo.Record) bool { return string(r.Key) == want })
			for _, r := range events {
				if key := string(r.Key); key != "trk-"+lastName(ns)+"-first" && key != "trk-"+lastName(ns)+"-second" {
					t.Fatalf("%s's events topic holds an event of %s", ns, key)
				}
			}
		}
	}
}

// lastName is the last dotted part of a namespace ("production" of "test-1.production").
func lastName(ns schemas.Namespace) string {
	s := string(ns)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return s[i+1:]
		}
	}
	return s
}
