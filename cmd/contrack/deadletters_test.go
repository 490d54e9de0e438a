package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
)

// An operator lists the normaliser's dead letters with their reasons, shows
// one whole, and replays it after a fix: the raw record it came from is
// produced again to the raw topic, byte for byte.
func TestAdminDeadLetters(t *testing.T) {
	k := testenv.Kafka(t, 1)
	ctx := context.Background()
	log := testenv.Log(t)
	cl, err := kafka.NewClient(k.Brokers, log)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rawTopic := k.Topic(schemas.TopicCarrierRaw)
	raw := &kgo.Record{Topic: rawTopic, Key: []byte("trk-1"), Value: []byte(`{"id":"r1","payload":"W3siZXZlbnRJRCI6MX1d"}`),
		Headers: []kgo.RecordHeader{{Key: schemas.HeaderSCAC, Value: []byte("MSCU")}}}
	if err := kafka.ProduceSync(ctx, cl, raw); err != nil {
		t.Fatal(err)
	}
	dl := &kgo.Record{Topic: k.Topic(schemas.TopicNormalizeDeadLetters), Key: raw.Key, Value: []byte(`[{"eventID":1}]`), Headers: schemas.Headers{
		Env: "sandbox", SCAC: "MSCU",
		DeadLetter: schemas.DeadLetterOf(raw, "normalize", "tnt22: [0].eventType: required"),
		Extra:      []schemas.Header{{Key: "format", Value: "dcsa-tnt-2.2"}, {Key: "tracking", Value: "trk-1"}, {Key: "element", Value: "0"}},
	}.Kafka()}
	if err := kafka.ProduceSync(ctx, cl, dl); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := adminDeadLetters(ctx, k.Brokers, k.NS, log, args, &out)
		return out.String(), err
	}
	list, err := run("list")
	if err != nil || !strings.Contains(list, "0:0") || !strings.Contains(list, "MSCU") || !strings.Contains(list, "tnt22: [0].eventType: required") ||
		!strings.Contains(list, "1 dead letter(s)") {
		t.Fatalf("list: %v\n%s", err, list)
	}
	show, err := run("show", "0:0")
	if err != nil || !strings.Contains(show, `[{"eventID":1}]`) || !strings.Contains(show, "dlq-source-topic: "+rawTopic) || !strings.Contains(show, "element: 0") {
		t.Fatalf("show: %v\n%s", err, show)
	}
	if _, err := run("show", "0:7"); err == nil || !strings.Contains(err.Error(), "no dead letter 0:7") {
		t.Errorf("show of a missing one: %v", err)
	}
	if _, err := run("show", "seven"); err == nil || !strings.Contains(err.Error(), "PARTITION:OFFSET") {
		t.Errorf("show of a malformed id: %v", err)
	}
	replay, err := run("replay", "0:0")
	if err != nil || !strings.Contains(replay, "replayed 0:0") {
		t.Fatalf("replay: %v\n%s", err, replay)
	}
	again, err := kafka.ReadTopic(ctx, k.Brokers, rawTopic, 10, log)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 2 || !bytes.Equal(again[1].Value, raw.Value) || !bytes.Equal(again[1].Key, raw.Key) || kafka.Header(again[1], schemas.HeaderSCAC) != "MSCU" {
		t.Fatalf("the raw topic holds %d records after the replay, want the original produced again", len(again))
	}
}
