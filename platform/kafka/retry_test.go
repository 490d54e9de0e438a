package kafka_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
)

// A produce the broker answers with a retriable error (here
// CONCURRENT_TRANSACTIONS, which Apache Kafka 4 gives a transaction's
// first produce now and then) is resent after a metadata refresh; the
// refresh waits for kafka.MetadataMinAge since the last one. With
// franz-go's default of 5 s the resend came seconds later (the normaliser's
// multi-second flushes on the cluster); now within a fraction of a second.
// kfake is used whatever testenv would: the refusal needs the broker in hand.
func TestRefusedProduceIsResentSoon(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DefaultNumPartitions(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	var refused atomic.Int32 // produce requests seen; the first is refused
	c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if refused.Add(1) > 1 {
			return nil, nil, false // the resend is taken as usual
		}
		r := req.(*kmsg.ProduceRequest)
		resp := r.ResponseKind().(*kmsg.ProduceResponse)
		resp.Version = r.Version
		for _, rt := range r.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.ConcurrentTransactions.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	cl := testenv.KafkaClient(t, c.ListenAddrs())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	if err := kafka.ProduceSync(ctx, cl, &kgo.Record{Topic: "t", Value: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if refused.Load() < 2 {
		t.Fatalf("the broker saw %d produce requests, want the refused one and its resend", refused.Load())
	}
	// 2 s: twenty times MetadataMinAge, well under franz-go's default 5 s.
	if took > 2*time.Second {
		t.Errorf("the refused produce was acknowledged %s after it was sent, want under 2 s (MetadataMinAge %s)", took, kafka.MetadataMinAge)
	}
	t.Logf("refused produce acknowledged after %s", took)
}
